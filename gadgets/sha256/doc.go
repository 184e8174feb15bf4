// Package sha256 is bellpepper's SHA-256 circuit: the compression function
// over 512 Boolean bits (message words read big-endian, bit 0 of the input
// is the most significant bit of the first byte) and the padded hash, with
// the same allocation and constraint order (message schedule first, then the
// 64 rounds with the deferred additions of a and e, then the eight output
// additions, then the MultiEq flush). Outputs are 256 bits, most significant
// bit of each word first.
//
// It also has the filecoin-hashers SHA-254 node circuits built on it
// (HashBits, HashLeafBits, HashMultiLeaf): digest bytes read with the bit
// order reversed in each byte, the first 254 bits packed into one number.
//
// Witness-only path: on an r1cs.AuxBatcher (the r1cs.WitnessAssignment)
// the compression runs on uint32 masks (values, constant bits, negated
// bits) and writes runs of aux values: the same values, rows and returned
// bits as the generic gadget, several times faster (tested bit for bit
// against the generic gadget for every mix of constant, negated and
// allocated bits).
//
// Native twins: Compress and Sum implement SHA-256 from FIPS 180-4 in plain
// Go; Sha254 masks the top two bits of the last digest byte.
package sha256
