package porep

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

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

func randomDomain(r *rand.Rand) hash.Domain {
	var d hash.Domain
	for i := 0; i < 32; i += 8 {
		v := r.Uint64()
		for j := range 8 {
			d[i+j] = byte(v >> (8 * j))
		}
	}
	d[31] &= 0x3f
	return d
}

func mustElement(t testing.TB, d hash.Domain) fr.Element {
	t.Helper()
	e, err := d.Element()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func newInstance(t testing.TB, cfg Config, seed uint64) *instance {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 0x706f726570))
	n := int(cfg.Nodes)
	replicaID := randomDomain(r)
	data := make([]hash.Domain, n)
	for i := range data {
		data[i] = randomDomain(r)
	}
	labels := make([][]hash.Domain, cfg.Layers) // labels[layer-1][node]
	for l := range labels {
		labels[l] = make([]hash.Domain, n)
		for i := range labels[l] {
			labels[l][i] = randomDomain(r)
		}
	}

	// Distinct challenges in [1, nodes), parents among the other nodes.
	in := &instance{}
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
			l, err := label.Native(replicaID, uint32(layer), c, expanded)
			if err != nil {
				t.Fatal(err)
			}
			labels[layer-1][c] = l
		}
	}

	columns := make([]hash.Domain, n)
	replica := make([]hash.Domain, n)
	row := make([]fr.Element, cfg.Layers)
	for v := range n {
		for l := range row {
			row[l] = mustElement(t, labels[l][v])
		}
		h, err := poseidon.HashMerkleTree(row)
		if err != nil {
			t.Fatal(err)
		}
		columns[v] = hash.DomainOf(&h)
		d := mustElement(t, data[v])
		d.Add(&d, &row[cfg.Layers-1])
		replica[v] = hash.DomainOf(&d)
	}
	treeD, err := hmerkle.NewSha254(data)
	if err != nil {
		t.Fatal(err)
	}
	treeC, err := hmerkle.NewPoseidon(cfg.TreeR, columns)
	if err != nil {
		t.Fatal(err)
	}
	treeR, err := hmerkle.NewPoseidon(cfg.TreeR, replica)
	if err != nil {
		t.Fatal(err)
	}

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
		col := Column{Rows: make([]fr.Element, cfg.Layers), Path: path(treeC, uint64(v))}
		for l := range col.Rows {
			col.Rows[l] = mustElement(t, labels[l][v])
		}
		return col
	}

	commC, commRLast := mustElement(t, treeC.Root()), mustElement(t, treeR.Root())
	commR, err := poseidon.HashMerkleTree([]fr.Element{commC, commRLast})
	if err != nil {
		t.Fatal(err)
	}
	p := &Partition{
		Config:    cfg,
		ReplicaID: mustElement(t, replicaID),
		CommD:     mustElement(t, treeD.Root()),
		CommR:     commR,
		CommRLast: commRLast,
		CommC:     commC,
	}
	for i, c := range in.challenges {
		ch := Challenge{
			Node:          c,
			DataLeaf:      mustElement(t, data[c]),
			CommDPath:     path(treeD, c),
			CommRLastPath: path(treeR, c),
			CommCPath:     path(treeC, c),
		}
		for j := range ch.DRG {
			ch.DRG[j] = column(in.parents[i][j])
		}
		for j := range ch.Exp {
			ch.Exp[j] = column(in.parents[i][DRGParents+j])
		}
		p.Challenges = append(p.Challenges, ch)
	}
	in.part = p
	in.replicaID, in.labels = replicaID, labels
	in.treeD, in.treeC, in.treeR = treeD, treeC, treeR
	return in
}
