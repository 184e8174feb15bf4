package c1

import (
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

// Output is a SealCommitPhase1Output: the vanilla proofs of every partition
// and the values C2 takes as given. Field elements (CommR, CommD, ReplicaID
// and every tree node) are little-endian; Seed and Ticket are raw bytes.
type Output struct {
	// RegisteredProof is the serde name of the seal proof, e.g.
	// "StackedDrg32GiBV1_1".
	RegisteredProof string
	// VanillaKey is the VanillaSealProof variant the proofs are filed
	// under: always the …V1 name of the sector size, e.g. "StackedDrg32GiBV1".
	VanillaKey string
	// Partitions holds Partitions × Challenges proofs.
	Partitions [][]Proof
	CommR      hash.Domain
	CommD      hash.Domain
	ReplicaID  hash.Domain
	Seed       hash.Domain
	Ticket     hash.Domain
}

// Info is the registered proof's parameters, or the zero SealInfo when
// RegisteredProof names no known proof (Decode never returns such an
// Output).
func (o *Output) Info() filecoin.SealInfo {
	info, err := o.info()
	if err != nil {
		return filecoin.SealInfo{}
	}
	return info
}

func (o *Output) info() (filecoin.SealInfo, error) {
	p, err := filecoin.ParseSealProof(o.RegisteredProof)
	if err != nil {
		return filecoin.SealInfo{}, err
	}
	return p.Info()
}

// CommRLast is the root of tree R (the last layer's replica tree) as the
// first proof states it; Verify checks that every proof agrees.
func (o *Output) CommRLast() hash.Domain {
	if len(o.Partitions) == 0 || len(o.Partitions[0]) == 0 {
		return hash.Domain{}
	}
	return o.Partitions[0][0].CommRLastProof.Root
}

// CommC is the root of tree C (the column tree) as the first proof states
// it; Verify checks that every proof agrees.
func (o *Output) CommC() hash.Domain {
	if len(o.Partitions) == 0 || len(o.Partitions[0]) == 0 {
		return hash.Domain{}
	}
	return o.Partitions[0][0].ReplicaColumnProofs.CX.Inclusion.Root
}

// Proof is the vanilla proof of one challenge (storage-proofs-porep
// stacked::vanilla::Proof).
type Proof struct {
	// CommDProofs opens the challenged node's data in tree D (binary
	// SHA-254, always Single).
	CommDProofs MerkleProof
	// CommRLastProof opens the challenged node's replica (the last label
	// plus the data) in tree R.
	CommRLastProof      MerkleProof
	ReplicaColumnProofs ReplicaColumnProofs
	// LabelingProofs holds one proof per layer, layer 1 first.
	LabelingProofs []LabelingProof
	// EncodingProof repeats the last layer's labeling proof: the encoding
	// key is the last label.
	EncodingProof LabelingProof
}

// Challenge is the challenged node as the circuit takes it: the node of the
// first labeling proof.
func (p *Proof) Challenge() uint64 {
	if len(p.LabelingProofs) == 0 {
		return 0
	}
	return p.LabelingProofs[0].Node
}

// ReplicaColumnProofs opens tree C at the challenged node (CX) and at its
// parents: 6 DRG parents, then 8 expander parents, in the graph's order.
type ReplicaColumnProofs struct {
	CX         ColumnProof
	DRGParents []ColumnProof
	ExpParents []ColumnProof
}

// ColumnProof is one column of tree C: the labels of node Index in every
// layer (Rows[l-1] is layer l's label) and the opening of their Poseidon
// hash in tree C.
type ColumnProof struct {
	Index     uint32
	Rows      []hash.Domain
	Inclusion MerkleProof
}

// LabelingProof states the label of Node in layer LayerIndex by its 37
// (expanded) parent labels. The encoding proof has the same fields.
type LabelingProof struct {
	Parents    []hash.Domain
	LayerIndex uint32
	Node       uint64
}
