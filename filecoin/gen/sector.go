package gen

import (
	"fmt"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/sdr"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// prover opens a leaf of a tree.
type prover interface {
	Prove(i uint64) (*merkle.Proof, error)
}

// sector is what the vanilla proofs are cut from: the columns of every node
// a proof opens and the three trees over the sector.
type sector struct {
	info      filecoin.SealInfo
	graph     *sdr.Graph
	replicaID [32]byte
	// column returns the labels of node v in layers 1..L (row l−1 is layer
	// l); ok is false for a node the sector does not hold.
	column              func(v uint32) (rows []hash.Domain, ok bool)
	treeD, treeC, treeR prover
	commC, commRLast    hash.Domain
}

// commR is Poseidon₂(comm_c, comm_r_last) with the arity-2 MerkleTree tag.
func commR(commC, commRLast hash.Domain) (hash.Domain, error) {
	r, err := merkle.Poseidon{}.Node([]hash.Domain{commC, commRLast})
	if err != nil {
		return hash.Domain{}, fmt.Errorf("gen: comm_r: %w", err)
	}
	return r, nil
}

// columnLeaf is a column's leaf in tree C: Poseidon of its L rows with the
// arity-L MerkleTree tag (L = 11 or 2).
func columnLeaf(rows []hash.Domain) (hash.Domain, error) {
	return merkle.Poseidon{}.Node(rows)
}

// zeroTreeD is the all-zero binary SHA-254 tree of a sector: zero data.
func zeroTreeD(nodes uint64) (*merkle.Sparse, error) {
	return merkle.NewSparse(merkle.Sha254{}, merkle.ShapeBinary, nodes, nil)
}
