// Package label is storage-proofs-porep's create_label circuit (stacked
// circuit/create_label.rs) and its native twin: the SDR label of a node is
// SHA-256 over
//
//	replica_id (32 B) ‖ layer (u32 BE) ‖ node (u64 BE) ‖ 20 zero bytes ‖
//	37 parent labels (32 B each)
//
// with the top two bits of the digest's last byte cleared; in the circuit
// the digest bits are read little-endian and the low 254 packed into one
// number. Bits enter the hash most significant bit of each byte first.
package label
