// Package uint64 is storage-proofs-core's UInt64 gadget: 64 Booleans, least
// significant first, with the value. It has no arithmetic; circuits use it
// for node indices and challenges (bits into a hash preimage, or packed into
// one public input).
package uint64
