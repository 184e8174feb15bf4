package hash

import "crypto/sha256"

// Sha256 is plain SHA-256.
func Sha256(data []byte) [32]byte { return sha256.Sum256(data) }

// Sha254 is SHA-256 with the two top bits of byte 31 cleared. Read as a
// little-endian integer the digest is below 2^254 and so a canonical scalar
// (filecoin-hashers/src/sha256.rs).
func Sha254(data []byte) Domain {
	d := sha256.Sum256(data)
	d[31] &= 0x3f
	return d
}

// Sha254Node hashes two children of a binary SHA-254 Merkle tree:
// Sha254(left ‖ right). The tree height is not hashed.
func Sha254Node(left, right *Domain) Domain {
	var buf [64]byte
	copy(buf[:32], left[:])
	copy(buf[32:], right[:])
	return Sha254(buf[:])
}
