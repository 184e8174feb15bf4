package c1

import (
	"math/rand/v2"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

// randomDomain is a random canonical domain (the top two bits clear, as
// every SHA-254 and label value has them; well below r).
func randomDomain(rng *rand.Rand) hash.Domain {
	var d hash.Domain
	for i := 0; i < 32; i += 8 {
		v := rng.Uint64()
		for j := range 8 {
			d[i+j] = byte(v >> (8 * j))
		}
	}
	d[31] &= 0x3f
	return d
}

func randomDomains(rng *rand.Rand, n int) []hash.Domain {
	ds := make([]hash.Domain, n)
	for i := range ds {
		ds[i] = randomDomain(rng)
	}
	return ds
}

func randomPath(rng *rand.Rand, levels, arity int) []PathElement {
	p := make([]PathElement, levels)
	for l := range p {
		p[l] = PathElement{Index: rng.IntN(arity), Siblings: randomDomains(rng, arity-1)}
	}
	return p
}

func randomMerkle(rng *rand.Rand, t treeShape) MerkleProof {
	m := MerkleProof{Kind: t.kind, Base: randomPath(rng, t.baseLevels, t.baseArity),
		Root: randomDomain(rng), Leaf: randomDomain(rng)}
	if t.kind >= KindSub {
		m.Sub = randomPath(rng, 1, t.sub)
	}
	if t.kind == KindTop {
		m.Top = randomPath(rng, 1, t.top)
	}
	return m
}

// randomOutput is an Output of p's shape filled with random values: it
// decodes, but does not verify.
func randomOutput(t testing.TB, p filecoin.SealProof, seed uint64) *Output {
	t.Helper()
	info, err := p.Info()
	if err != nil {
		t.Fatal(err)
	}
	sh, err := shapeOf(info)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	column := func() ColumnProof {
		return ColumnProof{Index: rng.Uint32(), Rows: randomDomains(rng, info.Layers), Inclusion: randomMerkle(rng, sh.treeR)}
	}
	labeling := func(layer uint32, node uint64) LabelingProof {
		return LabelingProof{Parents: randomDomains(rng, TotalParents), LayerIndex: layer, Node: node}
	}
	o := &Output{RegisteredProof: info.Name, VanillaKey: info.VanillaKey,
		CommR: randomDomain(rng), CommD: randomDomain(rng), ReplicaID: randomDomain(rng),
		Seed: randomDomain(rng), Ticket: randomDomain(rng)}
	o.Seed[31] |= 0xc0 // raw bytes, not a field element
	for range info.Partitions {
		part := make([]Proof, info.Challenges)
		for i := range part {
			node := rng.Uint64N(info.Nodes)
			pr := &part[i]
			pr.CommDProofs = randomMerkle(rng, sh.treeD)
			pr.CommRLastProof = randomMerkle(rng, sh.treeR)
			pr.ReplicaColumnProofs.CX = column()
			for range DRGParents {
				pr.ReplicaColumnProofs.DRGParents = append(pr.ReplicaColumnProofs.DRGParents, column())
			}
			for range ExpParents {
				pr.ReplicaColumnProofs.ExpParents = append(pr.ReplicaColumnProofs.ExpParents, column())
			}
			for l := 1; l <= info.Layers; l++ {
				pr.LabelingProofs = append(pr.LabelingProofs, labeling(uint32(l), node))
			}
			pr.EncodingProof = labeling(uint32(info.Layers), node)
		}
		o.Partitions = append(o.Partitions, part)
	}
	return o
}

func mustMarshal(t testing.TB, o *Output) []byte {
	t.Helper()
	b, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
