package gen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin/update"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

func generateSnapT(t *testing.T, p update.Proof, seed uint64, structured bool) *Snap {
	t.Helper()
	info, err := p.Info()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	s, err := generateSnap(context.Background(), info, SnapOptions{Proof: p, Seed: seed, Miner: 1000, Sector: 42}, structured)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v structured=%v: generated in %v", p, structured, time.Since(t0))
	return s
}

// checkSnap verifies every partition, the encodings and the public data.
func checkSnap(t *testing.T, s *Snap) {
	t.Helper()
	t0 := time.Now()
	if len(s.Partitions) != s.Info.Partitions || len(s.VanillaProofs) != s.Info.Partitions {
		t.Fatalf("%d/%d partitions, want %d", len(s.Partitions), len(s.VanillaProofs), s.Info.Partitions)
	}
	for k := range s.Info.Partitions {
		if err := s.Partition(k).Verify(); err != nil {
			t.Fatal(err)
		}
		d, err := update.DecodePartitionProof(s.VanillaProofs[k], s.Info)
		if err != nil {
			t.Fatal(err)
		}
		q := s.Partition(k)
		q.Proof = d
		if err := q.Verify(); err != nil {
			t.Fatalf("decoded partition %d: %v", k, err)
		}
	}
	rOld, rNew, dNew, err := s.Public.Comms()
	if err != nil || rOld != s.CommROld || rNew != s.CommRNew || dNew != s.CommDNew || s.Public.UpdateProofType != s.Info.Proof {
		t.Fatalf("public data %+v: %v", s.Public, err)
	}
	if s.CommROld == s.CommRNew {
		t.Fatal("comm_r_old = comm_r_new")
	}
	t.Logf("%v: %d partitions of %d bytes verified in %v", s.Info.Proof, s.Info.Partitions, len(s.VanillaProofs[0]), time.Since(t0))
}

func TestGenerateSnap(t *testing.T) {
	for _, tc := range []struct {
		p          update.Proof
		structured bool
		short      bool
	}{
		{update.StackedDrg2KiBV1, false, true},
		{update.StackedDrg2KiBV1, true, true},
		{update.StackedDrg8MiBV1, true, true},
		{update.StackedDrg8MiBV1, false, false},
		{update.StackedDrg512MiBV1, true, false},
		{update.StackedDrg32GiBV1, true, false},
		{update.StackedDrg64GiBV1, true, false},
	} {
		t.Run(fmt.Sprintf("%v/structured=%v", tc.p, tc.structured), func(t *testing.T) {
			if testing.Short() && !tc.short {
				t.Skip("not in -short")
			}
			s := generateSnapT(t, tc.p, 1, tc.structured)
			if s.Structured != tc.structured {
				t.Fatal("Structured not recorded")
			}
			checkSnap(t, s)
		})
	}
}

// TestGenerateSnapChoosesConstruction: dense up to 8 MiB, structured above.
func TestGenerateSnapChoosesConstruction(t *testing.T) {
	s, err := GenerateSnap(context.Background(), SnapOptions{Proof: update.StackedDrg2KiBV1, Seed: 3, Miner: 5, Sector: 6})
	if err != nil {
		t.Fatal(err)
	}
	if s.Structured || s.Miner != 5 || s.Sector != 6 {
		t.Fatalf("2 KiB: structured %v, miner %d, sector %d", s.Structured, s.Miner, s.Sector)
	}
	checkSnap(t, s)
	if _, err := GenerateSnap(context.Background(), SnapOptions{Proof: 9}); !errors.Is(err, update.ErrUnknownProof) {
		t.Errorf("unknown proof: %v", err)
	}
	if !testing.Short() {
		s, err := GenerateSnap(context.Background(), SnapOptions{Proof: update.StackedDrg512MiBV1, Seed: 3})
		if err != nil || !s.Structured {
			t.Fatalf("512 MiB: %v", err)
		}
	}
}

func TestSnapDeterministic(t *testing.T) {
	a := generateSnapT(t, update.StackedDrg2KiBV1, 7, false)
	b := generateSnapT(t, update.StackedDrg2KiBV1, 7, false)
	c := generateSnapT(t, update.StackedDrg2KiBV1, 8, false)
	if !bytes.Equal(a.VanillaProofs[0], b.VanillaProofs[0]) || a.CommRNew != b.CommRNew {
		t.Error("same seed, different proofs")
	}
	if bytes.Equal(a.VanillaProofs[0], c.VanillaProofs[0]) || a.CommRNew == c.CommRNew || a.CommC == c.CommC {
		t.Error("different seeds, same proofs")
	}
	d := generateSnapT(t, update.StackedDrg8MiBV1, 7, true)
	e := generateSnapT(t, update.StackedDrg8MiBV1, 7, true)
	for k := range d.VanillaProofs {
		if !bytes.Equal(d.VanillaProofs[k], e.VanillaProofs[k]) {
			t.Errorf("structured partition %d differs between runs", k)
		}
	}
}

// TestStructuredTreesAreTrees: the patterned and encoded trees are exactly
// the full trees over their leaves — every leaf materialised, hashed by
// merkle.Sparse — with the same roots and openings, and every new replica
// leaf is old + data·rho.
func TestStructuredTreesAreTrees(t *testing.T) {
	for _, p := range []update.Proof{update.StackedDrg2KiBV1, update.StackedDrg8MiBV1} {
		if testing.Short() && p != update.StackedDrg2KiBV1 {
			continue
		}
		info, _ := p.Info()
		s := &Snap{Info: info, CommC: drawElement(5, "snap/comm_c")}
		rOld, d, rNew, err := s.structuredTrees(5)
		if err != nil {
			t.Fatal(err)
		}
		po, pd, en := rOld.(*patternTree), d.(*patternTree), rNew.(*encodedTree)
		phi, err := update.Phi(s.CommDNew, s.CommROld)
		if err != nil {
			t.Fatal(err)
		}
		rhos := map[uint64]fr.Element{}
		for i := uint64(0); i < info.Nodes; i += info.Nodes >> info.H {
			rhos[info.High(i)] = update.Rho(phi, info.High(i))
		}
		old := make(map[uint64]hash.Domain, info.Nodes)
		data := make(map[uint64]hash.Domain, info.Nodes)
		enc := make(map[uint64]hash.Domain, info.Nodes)
		for i := range info.Nodes {
			old[i], _ = po.node(0, i)
			data[i], _ = pd.node(0, i)
			o, _ := old[i].Element()
			v, _ := data[i].Element()
			if o.IsZero() || v.IsZero() {
				t.Fatalf("%v: leaf %d is zero", p, i)
			}
			r := update.Encode(o, v, rhos[info.High(i)])
			enc[i] = hash.DomainOf(&r)
			if got, _ := en.node(0, i); got != enc[i] {
				t.Fatalf("%v: new replica leaf %d = %s, want %s", p, i, got, enc[i])
			}
		}
		for _, tc := range []struct {
			name   string
			h      merkle.Hasher
			shape  merkle.Shape
			leaves map[uint64]hash.Domain
			tree   snapTree
		}{
			{"old replica", merkle.Poseidon{}, info.TreeR, old, rOld},
			{"tree D", merkle.Sha254{}, merkle.ShapeBinary, data, d},
			{"new replica", merkle.Poseidon{}, info.TreeR, enc, rNew},
		} {
			full, err := merkle.NewSparse(tc.h, tc.shape, info.Nodes, tc.leaves)
			if err != nil {
				t.Fatal(err)
			}
			if full.Root() != tc.tree.Root() {
				t.Fatalf("%v %s: root %s, full tree %s", p, tc.name, tc.tree.Root(), full.Root())
			}
			for _, i := range []uint64{0, 1, 9, info.Nodes / 3, info.Nodes - 1} {
				a, _ := full.Prove(i)
				b, err := tc.tree.Prove(i)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("%v %s: opening of %d differs", p, tc.name, i)
				}
			}
		}
	}
}

// TestStructuredSiblings: in a structured sector every opening has, at
// every level, a sibling unlike the node, and the openings' leaves vary.
func TestStructuredSiblings(t *testing.T) {
	p := update.StackedDrg8MiBV1
	if !testing.Short() {
		p = update.StackedDrg32GiBV1
	}
	s := generateSnapT(t, p, 2, true)
	leaves := map[hash.Domain]bool{}
	for _, pp := range s.Partitions {
		for i := range pp.Challenges {
			c := &pp.Challenges[i]
			for name, m := range map[string]*merkle.Proof{"old": c.ROld.Native(), "data": c.DNew.Native(), "new": c.RNew.Native()} {
				leaves[m.Leaf] = true
				cur := m.Leaf
				h := merkle.Hasher(merkle.Poseidon{})
				if name == "data" {
					h = merkle.Sha254{}
				}
				for l, e := range m.Path {
					unlike := false
					for _, sib := range e.Siblings {
						unlike = unlike || sib != cur
					}
					if !unlike {
						t.Fatalf("challenge %d %s level %d: every sibling equals the node", i, name, l)
					}
					children := append(append(append([]hash.Domain{}, e.Siblings[:e.Index]...), cur), e.Siblings[e.Index:]...)
					cur, _ = h.Node(children)
				}
			}
		}
	}
	if len(leaves) < 6 {
		t.Errorf("only %d distinct leaves opened", len(leaves))
	}
}

// TestSnapBadEncoding: a sector whose new replica is not old + data·rho is
// caught at the encoding check, with every opening still valid.
func TestSnapBadEncoding(t *testing.T) {
	info, _ := update.StackedDrg2KiBV1.Info()
	one := fr.One()
	wrong := func(old, data, rho fr.Element) fr.Element {
		r := update.Encode(old, data, rho)
		r.Add(&r, &one)
		return r
	}
	s, err := generateSnapWith(context.Background(), info, SnapOptions{Proof: info.Proof, Seed: 4}, false,
		func(s *Snap) (rOld, d, rNew snapTree, err error) { return s.denseTrees(context.Background(), 4, wrong) })
	if err != nil {
		t.Fatal(err)
	}
	err = s.Partition(0).Verify()
	if !errors.Is(err, update.ErrBadVanillaProof) || !strings.Contains(err.Error(), "challenge 0: proof_r_new.leaf") {
		t.Fatalf("%v, want challenge 0's proof_r_new.leaf named", err)
	}
}

func TestSnapCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, p := range []update.Proof{update.StackedDrg2KiBV1, update.StackedDrg512MiBV1} {
		if _, err := GenerateSnap(ctx, SnapOptions{Proof: p}); !errors.Is(err, context.Canceled) {
			t.Errorf("%v: %v", p, err)
		}
	}
}
