package porep

import (
	"errors"
	"reflect"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/hash"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
)

// output is the instance as a one-partition C1 output of proof p. Labeling
// and encoding proofs carry only what the circuit reads (the node).
func (in *instance) output(t testing.TB, p filecoin.SealProof) *c1.Output {
	t.Helper()
	info, err := p.Info()
	if err != nil {
		t.Fatal(err)
	}
	open := func(tree *hmerkle.Tree, shape hmerkle.Shape, i uint64) c1.MerkleProof {
		t.Helper()
		np, err := tree.Prove(int(i))
		if err != nil {
			t.Fatal(err)
		}
		var m c1.MerkleProof
		if err := m.FromNative(np, shape); err != nil {
			t.Fatal(err)
		}
		return m
	}
	column := func(v uint64) c1.ColumnProof {
		c := c1.ColumnProof{Index: uint32(v), Inclusion: open(in.treeC, info.TreeR, v)}
		for l := range in.labels {
			c.Rows = append(c.Rows, in.labels[l][v])
		}
		return c
	}
	o := &c1.Output{
		RegisteredProof: info.Name,
		VanillaKey:      info.VanillaKey,
		CommR:           hash.DomainOf(&in.part.CommR),
		CommD:           in.treeD.Root(),
		ReplicaID:       in.replicaID,
		Partitions:      [][]c1.Proof{nil},
	}
	for i, c := range in.challenges {
		v := c1.Proof{
			CommDProofs:    open(in.treeD, hmerkle.Shape{Base: 2}, c),
			CommRLastProof: open(in.treeR, info.TreeR, c),
			ReplicaColumnProofs: c1.ReplicaColumnProofs{
				CX: column(c),
			},
			EncodingProof: c1.LabelingProof{LayerIndex: uint32(len(in.labels)), Node: c},
		}
		for j, par := range in.parents[i] {
			if j < DRGParents {
				v.ReplicaColumnProofs.DRGParents = append(v.ReplicaColumnProofs.DRGParents, column(uint64(par)))
			} else {
				v.ReplicaColumnProofs.ExpParents = append(v.ReplicaColumnProofs.ExpParents, column(uint64(par)))
			}
		}
		for l := range in.labels {
			v.LabelingProofs = append(v.LabelingProofs, c1.LabelingProof{LayerIndex: uint32(l + 1), Node: c})
		}
		o.Partitions[0] = append(o.Partitions[0], v)
	}
	return o
}

func TestNewPartition(t *testing.T) {
	in := newInstance(t, config2KiB, 4)
	o := in.output(t, filecoin.StackedDrg2KiBV1_1)
	got, err := NewPartition(o, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in.part) {
		t.Fatalf("NewPartition differs from the instance:\n got %+v\nwant %+v", got, in.part)
	}
}

func TestNewPartitionErrors(t *testing.T) {
	in := newInstance(t, config2KiB, 5)
	tests := []struct {
		name string
		k    int
		f    func(o *c1.Output)
	}{
		{"partition out of range", 1, func(*c1.Output) {}},
		{"negative partition", -1, func(*c1.Output) {}},
		{"unknown proof", 0, func(o *c1.Output) { o.RegisteredProof = "StackedDrg3KiBV1" }},
		{"non-canonical comm_r", 0, func(o *c1.Output) { o.CommR[31] = 0xff }},
		{"non-canonical row", 0, func(o *c1.Output) { o.Partitions[0][1].ReplicaColumnProofs.ExpParents[2].Rows[0][31] = 0xff }},
		{"inconsistent comm_c", 0, func(o *c1.Output) { o.Partitions[0][1].ReplicaColumnProofs.CX.Inclusion.Root[0] ^= 1 }},
		{"inconsistent comm_r_last", 0, func(o *c1.Output) { o.Partitions[0][1].CommRLastProof.Root[0] ^= 1 }},
		{"missing DRG column", 0, func(o *c1.Output) {
			rc := &o.Partitions[0][0].ReplicaColumnProofs
			rc.DRGParents = rc.DRGParents[:5]
		}},
		{"short column", 0, func(o *c1.Output) {
			c := &o.Partitions[0][0].ReplicaColumnProofs.DRGParents[1]
			c.Rows = c.Rows[:1]
		}},
		{"short comm_d path", 0, func(o *c1.Output) {
			m := &o.Partitions[0][0].CommDProofs
			m.Base = m.Base[:len(m.Base)-1]
		}},
		{"too many challenges", 0, func(o *c1.Output) { o.Partitions[0] = append(o.Partitions[0], o.Partitions[0][0]) }},
		{"no labeling proofs", 0, func(o *c1.Output) { o.Partitions[0][0].LabelingProofs = nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := in.output(t, filecoin.StackedDrg2KiBV1_1)
			tc.f(o)
			if _, err := NewPartition(o, tc.k); !errors.Is(err, c1.ErrBadVanillaProof) {
				t.Fatalf("err = %v, want ErrBadVanillaProof", err)
			} else {
				t.Log(err)
			}
		})
	}
}
