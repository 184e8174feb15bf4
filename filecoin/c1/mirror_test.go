package c1

import (
	"encoding/json"

	"github.com/cuzk-project/cuzk/hash"
)

// The mirror types restate the serde structs (rust-filecoin-proofs-api
// SealCommitPhase1Output; storage-proofs-porep stacked vanilla Proof,
// ReplicaColumnProof, ColumnProof, Column, LabelingProof, EncodingProof;
// storage-proofs-core MerkleProof, ProofData, SingleProof, SubProof,
// TopProof, InclusionPath, PathElement) as encoding/json structs with the
// fields in declaration order. encoding/json writes them compactly in that
// order with [32]byte as an array of numbers, exactly as serde_json does:
// an encoder independent of MarshalJSON to compare it with.
type (
	mOutput struct {
		RegisteredProof string                `json:"registered_proof"`
		VanillaProofs   map[string][][]mProof `json:"vanilla_proofs"`
		CommR           [32]byte              `json:"comm_r"`
		CommD           [32]byte              `json:"comm_d"`
		ReplicaID       [32]byte              `json:"replica_id"`
		Seed            [32]byte              `json:"seed"`
		Ticket          [32]byte              `json:"ticket"`
	}
	mProof struct {
		CommDProofs         mMerkle  `json:"comm_d_proofs"`
		CommRLastProof      mMerkle  `json:"comm_r_last_proof"`
		ReplicaColumnProofs mReplica `json:"replica_column_proofs"`
		LabelingProofs      []mLabel `json:"labeling_proofs"`
		EncodingProof       mLabel   `json:"encoding_proof"`
	}
	mReplica struct {
		CX         mColumnProof   `json:"c_x"`
		DRGParents []mColumnProof `json:"drg_parents"`
		ExpParents []mColumnProof `json:"exp_parents"`
	}
	mColumnProof struct {
		Column         mColumn `json:"column"`
		InclusionProof mMerkle `json:"inclusion_proof"`
	}
	mColumn struct {
		Index uint32     `json:"index"`
		Rows  [][32]byte `json:"rows"`
		H     any        `json:"_h"`
	}
	mLabel struct {
		Parents    [][32]byte `json:"parents"`
		LayerIndex uint32     `json:"layer_index"`
		Node       uint64     `json:"node"`
	}
	mMerkle struct {
		Data mData `json:"data"`
	}
	mData struct {
		Single *mSingle `json:"Single,omitempty"`
		Sub    *mSub    `json:"Sub,omitempty"`
		Top    *mTop    `json:"Top,omitempty"`
	}
	mSingle struct {
		Root [32]byte `json:"root"`
		Leaf [32]byte `json:"leaf"`
		Path mPath    `json:"path"`
	}
	mSub struct {
		BaseProof mPath    `json:"base_proof"`
		SubProof  mPath    `json:"sub_proof"`
		Root      [32]byte `json:"root"`
		Leaf      [32]byte `json:"leaf"`
	}
	mTop struct {
		BaseProof mPath    `json:"base_proof"`
		SubProof  mPath    `json:"sub_proof"`
		TopProof  mPath    `json:"top_proof"`
		Root      [32]byte `json:"root"`
		Leaf      [32]byte `json:"leaf"`
	}
	mPath struct {
		Path []mElem `json:"path"`
	}
	mElem struct {
		Hashes [][32]byte `json:"hashes"`
		Index  int        `json:"index"`
	}
)

func mDomains(ds []hash.Domain) [][32]byte {
	out := make([][32]byte, len(ds))
	for i := range ds {
		out[i] = ds[i]
	}
	return out
}

func mPathOf(p []PathElement) mPath {
	out := mPath{Path: []mElem{}}
	for _, e := range p {
		out.Path = append(out.Path, mElem{Hashes: mDomains(e.Siblings), Index: e.Index})
	}
	return out
}

func mMerkleOf(m *MerkleProof) mMerkle {
	switch m.Kind {
	case KindSingle:
		return mMerkle{mData{Single: &mSingle{m.Root, m.Leaf, mPathOf(m.Base)}}}
	case KindSub:
		return mMerkle{mData{Sub: &mSub{mPathOf(m.Base), mPathOf(m.Sub), m.Root, m.Leaf}}}
	}
	return mMerkle{mData{Top: &mTop{mPathOf(m.Base), mPathOf(m.Sub), mPathOf(m.Top), m.Root, m.Leaf}}}
}

func mColumnOf(c *ColumnProof) mColumnProof {
	return mColumnProof{mColumn{Index: c.Index, Rows: mDomains(c.Rows)}, mMerkleOf(&c.Inclusion)}
}

func mLabelOf(l *LabelingProof) mLabel {
	return mLabel{mDomains(l.Parents), l.LayerIndex, l.Node}
}

func mirrorJSON(o *Output) ([]byte, error) {
	m := mOutput{RegisteredProof: o.RegisteredProof, VanillaProofs: map[string][][]mProof{},
		CommR: o.CommR, CommD: o.CommD, ReplicaID: o.ReplicaID, Seed: o.Seed, Ticket: o.Ticket}
	parts := [][]mProof{}
	for _, part := range o.Partitions {
		ps := []mProof{}
		for i := range part {
			p := &part[i]
			r := &p.ReplicaColumnProofs
			mp := mProof{CommDProofs: mMerkleOf(&p.CommDProofs), CommRLastProof: mMerkleOf(&p.CommRLastProof),
				ReplicaColumnProofs: mReplica{CX: mColumnOf(&r.CX)}, EncodingProof: mLabelOf(&p.EncodingProof)}
			for j := range r.DRGParents {
				mp.ReplicaColumnProofs.DRGParents = append(mp.ReplicaColumnProofs.DRGParents, mColumnOf(&r.DRGParents[j]))
			}
			for j := range r.ExpParents {
				mp.ReplicaColumnProofs.ExpParents = append(mp.ReplicaColumnProofs.ExpParents, mColumnOf(&r.ExpParents[j]))
			}
			for j := range p.LabelingProofs {
				mp.LabelingProofs = append(mp.LabelingProofs, mLabelOf(&p.LabelingProofs[j]))
			}
			ps = append(ps, mp)
		}
		parts = append(parts, ps)
	}
	m.VanillaProofs[o.VanillaKey] = parts
	return json.Marshal(m)
}
