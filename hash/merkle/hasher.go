package merkle

import (
	"crypto/sha256"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/poseidon"
)

// Hasher combines the children of one node into the node.
type Hasher interface {
	// Node hashes len(children) children (the level's arity).
	Node(children []hash.Domain) (hash.Domain, error)
	// Name is used in errors.
	Name() string
}

// Sha254 is the SHA-254 node hash: Sha254 of the children concatenated
// (filecoin-hashers sha256.rs multi_node; binary trees use two children).
type Sha254 struct{}

func (Sha254) Name() string { return "sha254" }

func (Sha254) Node(children []hash.Domain) (hash.Domain, error) {
	h := sha256.New()
	for i := range children {
		h.Write(children[i][:])
	}
	var d hash.Domain
	h.Sum(d[:0])
	d[31] &= 0x3f
	return d, nil
}

// Poseidon is the Poseidon node hash with the MerkleTree domain tag of the
// node's arity (filecoin-hashers poseidon.rs).
type Poseidon struct{}

func (Poseidon) Name() string { return "poseidon" }

func (Poseidon) Node(children []hash.Domain) (hash.Domain, error) {
	c, err := poseidon.MerkleTree(len(children))
	if err != nil {
		return hash.Domain{}, err
	}
	var buf [16]fr.Element
	in := buf[:0]
	if len(children) > len(buf) {
		in = make([]fr.Element, 0, len(children))
	}
	for i := range children {
		e, err := children[i].Element()
		if err != nil {
			return hash.Domain{}, fmt.Errorf("merkle: poseidon child %d: %w", i, err)
		}
		in = append(in, e)
	}
	out, err := c.Hash(in)
	if err != nil {
		return hash.Domain{}, err
	}
	return hash.DomainOf(&out), nil
}
