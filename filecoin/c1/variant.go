package c1

import "github.com/cuzk-project/cuzk/hash"

// variant is the serde layout of one ProofData variant: its fields in
// declaration order (the order serde writes them) and what each holds.
// Single's path is the base path; Sub and Top name theirs base_proof,
// sub_proof and top_proof.
type variant struct {
	fields []string
	slots  []slot
}

// slot is what a variant field holds: one of a MerkleProof's paths or
// domains.
type slot uint8

const (
	slotBase slot = iota
	slotSub
	slotTop
	slotRoot
	slotLeaf
)

// variants are indexed by ProofKind.
var variants = [...]variant{
	KindSingle: {[]string{"root", "leaf", "path"}, []slot{slotRoot, slotLeaf, slotBase}},
	KindSub:    {[]string{"base_proof", "sub_proof", "root", "leaf"}, []slot{slotBase, slotSub, slotRoot, slotLeaf}},
	KindTop: {[]string{"base_proof", "sub_proof", "top_proof", "root", "leaf"},
		[]slot{slotBase, slotSub, slotTop, slotRoot, slotLeaf}},
}

// isPath reports whether s holds a path (else a domain).
func (s slot) isPath() bool { return s <= slotTop }

// path is m's path of a path slot.
func (m *MerkleProof) path(s slot) *[]PathElement {
	switch s {
	case slotSub:
		return &m.Sub
	case slotTop:
		return &m.Top
	}
	return &m.Base
}

// domain is m's domain of a domain slot.
func (m *MerkleProof) domain(s slot) *hash.Domain {
	if s == slotLeaf {
		return &m.Leaf
	}
	return &m.Root
}
