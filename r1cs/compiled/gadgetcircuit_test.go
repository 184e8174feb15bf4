package compiled_test

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/multipack"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/gadgets/poseidon"
	"github.com/cuzk-project/cuzk/gadgets/sha256"
	"github.com/cuzk-project/cuzk/r1cs"
)

// gadgetCircuit hashes Data with the SHA-256 gadget, packs the digest into
// inputs, hashes the packed digest and X with Poseidon (a Merkle-tree
// hash, arity 2), and makes the hash an input: the gadgets and term blocks
// a PoRep partition is made of, at a size that takes milliseconds.
type gadgetCircuit struct {
	Data []byte
	X    uint64
}

func (c *gadgetCircuit) Synthesize(cs r1cs.ConstraintSystem) error {
	bits := boolean.BytesIntoBooleanVec(cs, c.Data)
	digest := sha256.Hash(cs, bits)
	packed := multipack.PackIntoInputs(cs, digest)
	var x fr.Element
	x.SetUint64(c.X)
	d := num.PackBits(cs, digest[:253])
	h, err := poseidon.HashMerkleTree(cs, []num.AllocatedNum{d, num.Alloc(cs, x)})
	if err != nil {
		return err
	}
	h.Inputize(cs)
	_ = packed
	return nil
}
