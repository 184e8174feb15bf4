package label

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/gadgets/sha256"
	u32 "github.com/cuzk-project/cuzk/gadgets/uint32"
	u64 "github.com/cuzk-project/cuzk/gadgets/uint64"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TotalParents is the number of parents hashed into a label (6 DRG + 8
// expander parents, repeated to 37).
const TotalParents = 37

// ErrBadPreimage reports a replica id or parent of the wrong size.
var ErrBadPreimage = errors.New("label: bad preimage")

// Circuit computes the label of one node. replicaID holds 32 to 256 bits
// (most significant bit of each byte first); each parent at most 256 bits.
// Short values are padded with constant zeros to 32 bytes, as the reference
// does.
func Circuit(cs r1cs.ConstraintSystem, replicaID []boolean.Boolean, parents [][]boolean.Boolean,
	layer u32.UInt32, node u64.UInt64) (num.AllocatedNum, error) {
	if len(replicaID) < 32 || len(replicaID) > 256 {
		return num.AllocatedNum{}, fmt.Errorf("%w: replica id of %d bits, want 32..256", ErrBadPreimage, len(replicaID))
	}
	if len(parents) != TotalParents {
		return num.AllocatedNum{}, fmt.Errorf("%w: %d parents, want %d", ErrBadPreimage, len(parents), TotalParents)
	}
	pre := make([]boolean.Boolean, 0, (2+TotalParents)*256)
	pre = append(pre, replicaID...)
	pre = padTo(pre, 256)
	pre = append(pre, layer.BitsBE()...)
	pre = append(pre, node.BitsBE()...)
	pre = padTo(pre, 512)
	for i, p := range parents {
		if len(p) > 256 {
			return num.AllocatedNum{}, fmt.Errorf("%w: parent %d has %d bits, want at most 256", ErrBadPreimage, i, len(p))
		}
		pre = append(pre, p...)
		pre = padTo(pre, len(pre)+(256-len(p)%256)%256)
	}
	digest := sha256.Hash(cs, pre)
	le := boolean.ReverseBitNumbering(digest)
	return num.PackBits(cs, le[:boolean.FieldCapacity]), nil
}

func padTo(bits []boolean.Boolean, n int) []boolean.Boolean {
	for len(bits) < n {
		bits = append(bits, boolean.Constant(false))
	}
	return bits
}

// Native is the label as bytes: SHA-254 of the preimage.
func Native(replicaID [32]byte, layer uint32, node uint64, parents [][32]byte) ([32]byte, error) {
	if len(parents) != TotalParents {
		return [32]byte{}, fmt.Errorf("%w: %d parents, want %d", ErrBadPreimage, len(parents), TotalParents)
	}
	buf := make([]byte, 64+32*len(parents))
	copy(buf, replicaID[:])
	binary.BigEndian.PutUint32(buf[32:], layer)
	binary.BigEndian.PutUint64(buf[36:], node)
	for i, p := range parents {
		copy(buf[64+32*i:], p[:])
	}
	return [32]byte(hash.Sha254(buf)), nil
}

// ToField reads a label (or any 32-byte domain) as a little-endian field
// element; the top two bits must be clear.
func ToField(b [32]byte) (fr.Element, error) {
	var be [32]byte
	for i := range b {
		be[i] = b[31-i]
	}
	var e fr.Element
	if err := e.SetBytesCanonical(be[:]); err != nil {
		return fr.Element{}, fmt.Errorf("label: %x is not a canonical field element: %w", b, err)
	}
	return e, nil
}

// DomainBits decomposes a field element (a replica id or a parent label)
// into the 256 bits the label preimage takes: to_bits_le (255 booleans and
// the packing row), padded to 256 and reversed within each byte, as
// storage-proofs-porep's circuit does with reverse_bit_numbering.
func DomainBits(cs r1cs.ConstraintSystem, n num.AllocatedNum) []boolean.Boolean {
	return boolean.ReverseBitNumbering(n.ToBitsLE(cs))
}
