package update

import (
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/poseidon"
)

// genRandomness is the arity-2 Poseidon with the custom domain tag 2^40
// (neptune HashType::Custom(CType::Arbitrary(1))) that storage-proofs-update
// derives phi, rho and the challenge digests with.
var genRandomness = sync.OnceValue(func() *poseidon.Constants {
	c, err := poseidon.Custom(2, 1)
	if err != nil {
		panic(fmt.Sprintf("update: poseidon constants: %v", err)) // fixed arity and id
	}
	return c
})

// hash2 is genRandomness of (a, b).
func hash2(a, b fr.Element) fr.Element {
	out, err := genRandomness().Hash([]fr.Element{a, b})
	if err != nil {
		panic(fmt.Sprintf("update: poseidon: %v", err)) // two elements for arity 2
	}
	return out
}

// Phi is the update's randomness: Poseidon₂ᶜ(comm_d_new, comm_r_old), both
// read as scalars. It fails when either is not canonical.
func Phi(commDNew, commROld hash.Domain) (fr.Element, error) {
	d, err := commDNew.Element()
	if err != nil {
		return fr.Element{}, fmt.Errorf("update: comm_d_new: %w", err)
	}
	r, err := commROld.Element()
	if err != nil {
		return fr.Element{}, fmt.Errorf("update: comm_r_old: %w", err)
	}
	return hash2(d, r), nil
}

// Rho is the encoding factor of the nodes whose h high index bits are high:
// Poseidon₂ᶜ(phi, high). Node i of a sector of n nodes uses
// Rho(phi, i >> (log2(n) − h)).
func Rho(phi fr.Element, high uint64) fr.Element {
	var h fr.Element
	h.SetUint64(high)
	return hash2(phi, h)
}

// High is the h high bits of node c's index: what Rho takes.
func (i Info) High(c uint64) uint64 { return c >> (i.TreeDLevels - i.H) }

// Encode is the new replica's value of a node: old + data·rho.
func Encode(old, data, rho fr.Element) fr.Element {
	var out fr.Element
	out.Mul(&data, &rho)
	out.Add(&out, &old)
	return out
}
