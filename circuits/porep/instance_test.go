package porep

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
	"github.com/cuzk-project/cuzk/gadgets/label"
	gmerkle "github.com/cuzk-project/cuzk/gadgets/merkle"
	"github.com/cuzk-project/cuzk/hash"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/hash/poseidon"
)

// instance is a small, self-consistent sealed sector: random data and
// labels, except that the challenged nodes' labels are computed from their
// parents' columns, with trees D, C and R built over them. The parents are
// random nodes, not the SDR graph's: the circuit proves the parents' indices
// only through its public inputs.
type instance struct {
	part       *Partition
	challenges []uint64
	parents    [][DRGParents + ExpanderParents]uint32

	replicaID           hash.Domain
	labels              [][]hash.Domain // labels[layer-1][node]
	treeD, treeC, treeR *hmerkle.Tree
}

func newInstance(t testing.TB, cfg Config, seed uint64) *instance {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 0x706f726570))
	n := int(cfg.Nodes)
	in := &instance{replicaID: circuittest.RandomDomain(r)}
	data := make([]hash.Domain, n)
	for i := range data {
		data[i] = circuittest.RandomDomain(r)
	}
	in.labels = make([][]hash.Domain, cfg.Layers)
	for l := range in.labels {
		in.labels[l] = make([]hash.Domain, n)
		for i := range in.labels[l] {
			in.labels[l][i] = circuittest.RandomDomain(r)
		}
	}
	in.drawChallenges(r, cfg)
	in.labelChallenged(t, cfg)
	in.buildTrees(t, cfg, data)
	in.part = in.partition(t, cfg, data)
	return in
}

// drawChallenges draws distinct challenges in [1, nodes) and, per challenge,
// parents among the other nodes.
func (in *instance) drawChallenges(r *rand.Rand, cfg Config) {
	challenged := make(map[uint64]bool)
	for len(in.challenges) < cfg.Challenges {
		c := 1 + r.Uint64N(cfg.Nodes-1)
		if !challenged[c] {
			challenged[c] = true
			in.challenges = append(in.challenges, c)
		}
	}
	for range in.challenges {
		var ps [DRGParents + ExpanderParents]uint32
		for j := range ps {
			for {
				ps[j] = uint32(r.Uint64N(cfg.Nodes))
				if !challenged[uint64(ps[j])] {
					break
				}
			}
		}
		in.parents = append(in.parents, ps)
	}
}

// labelChallenged replaces the challenged nodes' random labels by the labels of
// their parents' rows, layer by layer.
func (in *instance) labelChallenged(t testing.TB, cfg Config) {
	t.Helper()
	labels := in.labels
	for i, c := range in.challenges {
		ps := in.parents[i]
		for layer := 1; layer <= cfg.Layers; layer++ {
			var base [][32]byte
			for _, p := range ps[:DRGParents] {
				base = append(base, labels[layer-1][p])
			}
			if layer > 1 {
				for _, p := range ps[DRGParents:] {
					base = append(base, labels[layer-2][p])
				}
			}
			var expanded [][32]byte
			for len(expanded)+len(base) <= label.TotalParents {
				expanded = append(expanded, base...)
			}
			expanded = append(expanded, base[:label.TotalParents-len(expanded)]...)
			l, err := label.Native(in.replicaID, uint32(layer), c, expanded)
			if err != nil {
				t.Fatal(err)
			}
			labels[layer-1][c] = l
		}
	}
}

// buildTrees builds tree D over data, tree C over the column hashes and
// tree R over the replica (last label + data).
func (in *instance) buildTrees(t testing.TB, cfg Config, data []hash.Domain) {
	t.Helper()
	n := int(cfg.Nodes)
	columns := make([]hash.Domain, n)
	replica := make([]hash.Domain, n)
	row := make([]fr.Element, cfg.Layers)
	for v := range n {
		for l := range row {
			row[l] = circuittest.Element(t, in.labels[l][v])
		}
		h, err := poseidon.HashMerkleTree(row)
		if err != nil {
			t.Fatal(err)
		}
		columns[v] = hash.DomainOf(&h)
		d := circuittest.Element(t, data[v])
		d.Add(&d, &row[cfg.Layers-1])
		replica[v] = hash.DomainOf(&d)
	}
	var err error
	if in.treeD, err = hmerkle.NewSha254(data); err != nil {
		t.Fatal(err)
	}
	if in.treeC, err = hmerkle.NewPoseidon(cfg.TreeR, columns); err != nil {
		t.Fatal(err)
	}
	if in.treeR, err = hmerkle.NewPoseidon(cfg.TreeR, replica); err != nil {
		t.Fatal(err)
	}
}

// partition is the instance's partition: its comms and, per challenge, the
// openings of the trees.
func (in *instance) partition(t testing.TB, cfg Config, data []hash.Domain) *Partition {
	t.Helper()
	path := func(tree *hmerkle.Tree, i uint64) []gmerkle.PathElement {
		t.Helper()
		p, err := tree.Prove(int(i))
		if err != nil {
			t.Fatal(err)
		}
		els, _, _, err := gmerkle.PathFromProof(p)
		if err != nil {
			t.Fatal(err)
		}
		return els
	}
	column := func(v uint32) Column {
		col := Column{Rows: make([]fr.Element, cfg.Layers), Path: path(in.treeC, uint64(v))}
		for l := range col.Rows {
			col.Rows[l] = circuittest.Element(t, in.labels[l][v])
		}
		return col
	}

	commC, commRLast := circuittest.Element(t, in.treeC.Root()), circuittest.Element(t, in.treeR.Root())
	commR, err := poseidon.HashMerkleTree([]fr.Element{commC, commRLast})
	if err != nil {
		t.Fatal(err)
	}
	p := &Partition{
		Config:    cfg,
		ReplicaID: circuittest.Element(t, in.replicaID),
		CommD:     circuittest.Element(t, in.treeD.Root()),
		CommR:     commR,
		CommRLast: commRLast,
		CommC:     commC,
	}
	for i, c := range in.challenges {
		ch := Challenge{
			Node:          c,
			DataLeaf:      circuittest.Element(t, data[c]),
			CommDPath:     path(in.treeD, c),
			CommRLastPath: path(in.treeR, c),
			CommCPath:     path(in.treeC, c),
		}
		for j := range ch.DRG {
			ch.DRG[j] = column(in.parents[i][j])
		}
		for j := range ch.Exp {
			ch.Exp[j] = column(in.parents[i][DRGParents+j])
		}
		p.Challenges = append(p.Challenges, ch)
	}
	return p
}
