package c1

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/sdr"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/hash/poseidon"
)

// sealed is a small sector sealed in memory: every label, tree D, C and R.
type sealed struct {
	info      filecoin.SealInfo
	replicaID hash.Domain
	labels    [][][32]byte // [layer−1][node]
	rows      [][]hash.Domain
	treeD     *merkle.Tree
	treeC     *merkle.Tree
	treeR     *merkle.Tree
}

// seal labels a sector of random data as the sealer would.
func seal(t testing.TB, p filecoin.SealProof, rng *rand.Rand) *sealed {
	t.Helper()
	info, err := p.Info()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sdr.GraphFor(info)
	if err != nil {
		t.Fatal(err)
	}
	s := &sealed{info: info, replicaID: randomDomain(rng)}
	if s.labels, err = sdr.Labels(g, s.replicaID, info.Layers); err != nil {
		t.Fatal(err)
	}
	n := int(info.Nodes)
	data := randomDomains(rng, n)
	replica := make([]hash.Domain, n)
	s.rows = make([][]hash.Domain, n)
	for v := range n {
		s.rows[v] = make([]hash.Domain, info.Layers)
		for l := range info.Layers {
			s.rows[v][l] = s.labels[l][v]
		}
		var enc fr.Element
		key, d := mustElement(t, s.labels[info.Layers-1][v]), mustElement(t, data[v])
		enc.Add(&key, &d)
		replica[v] = hash.DomainOf(&enc)
	}
	if s.treeD, err = merkle.NewSha254(data); err != nil {
		t.Fatal(err)
	}
	s.buildTreeC(t)
	if s.treeR, err = merkle.NewPoseidon(info.TreeR, replica); err != nil {
		t.Fatal(err)
	}
	return s
}

// buildTreeC commits to s.rows: leaf v is the Poseidon hash of node v's
// column.
func (s *sealed) buildTreeC(t testing.TB) {
	t.Helper()
	cols := make([]hash.Domain, len(s.rows))
	for v, rows := range s.rows {
		pre := make([]fr.Element, len(rows))
		for l := range rows {
			pre[l] = mustElement(t, rows[l])
		}
		h, err := poseidon.HashMerkleTree(pre)
		if err != nil {
			t.Fatal(err)
		}
		cols[v] = hash.DomainOf(&h)
	}
	var err error
	if s.treeC, err = merkle.NewPoseidon(s.info.TreeR, cols); err != nil {
		t.Fatal(err)
	}
}

func mustElement(t testing.TB, d [32]byte) fr.Element {
	e, err := hash.Domain(d).Element()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// output is the C1 output of the sealed sector for seed: the vanilla
// proofs of every partition's challenges.
func (s *sealed) output(t testing.TB, seed hash.Domain) *Output {
	t.Helper()
	info := s.info
	g, err := sdr.GraphFor(info)
	if err != nil {
		t.Fatal(err)
	}
	commR, err := merkle.Poseidon{}.Node([]hash.Domain{s.treeC.Root(), s.treeR.Root()})
	if err != nil {
		t.Fatal(err)
	}
	o := &Output{RegisteredProof: info.Name, VanillaKey: info.VanillaKey, CommR: commR,
		CommD: s.treeD.Root(), ReplicaID: s.replicaID, Seed: seed, Ticket: hash.Domain{1, 2, 3}}
	open := func(tree *merkle.Tree, shape merkle.Shape, i uint64) MerkleProof {
		p, err := tree.Prove(int(i))
		if err != nil {
			t.Fatal(err)
		}
		var m MerkleProof
		if err := m.FromNative(p, shape); err != nil {
			t.Fatal(err)
		}
		return m
	}
	column := func(i uint64) ColumnProof {
		return ColumnProof{Index: uint32(i), Rows: s.rows[i], Inclusion: open(s.treeC, info.TreeR, i)}
	}
	for k := range info.Partitions {
		cs, err := sdr.Challenges(info, s.replicaID, seed, commR, k)
		if err != nil {
			t.Fatal(err)
		}
		part := make([]Proof, len(cs))
		for i, c := range cs {
			p := &part[i]
			p.CommDProofs = open(s.treeD, merkle.ShapeBinary, c)
			p.CommRLastProof = open(s.treeR, info.TreeR, c)
			var parents [sdr.Degree]uint32
			g.Parents(uint32(c), &parents)
			p.ReplicaColumnProofs.CX = column(c)
			for j, q := range parents {
				if j < DRGParents {
					p.ReplicaColumnProofs.DRGParents = append(p.ReplicaColumnProofs.DRGParents, column(uint64(q)))
				} else {
					p.ReplicaColumnProofs.ExpParents = append(p.ReplicaColumnProofs.ExpParents, column(uint64(q)))
				}
			}
			for layer := 1; layer <= info.Layers; layer++ {
				var drg [DRGParents][32]byte
				var exp [ExpParents][32]byte
				for j := range drg {
					drg[j] = s.labels[layer-1][parents[j]]
				}
				if layer > 1 {
					for j := range exp {
						exp[j] = s.labels[layer-2][parents[DRGParents+j]]
					}
				}
				ex := sdr.ExpandParents(layer, &drg, &exp)
				ps := make([]hash.Domain, TotalParents)
				for j := range ex {
					ps[j] = ex[j]
				}
				p.LabelingProofs = append(p.LabelingProofs, LabelingProof{Parents: ps, LayerIndex: uint32(layer), Node: c})
			}
			last := p.LabelingProofs[info.Layers-1]
			p.EncodingProof = LabelingProof{Parents: append([]hash.Domain(nil), last.Parents...), LayerIndex: last.LayerIndex, Node: c}
		}
		o.Partitions = append(o.Partitions, part)
	}
	return o
}
