package gen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
)

func generateT(t *testing.T, o PoRepOptions) *PoRep {
	t.Helper()
	last, total := 0, 0
	p, err := GeneratePoRep(context.Background(), o, func(done, tot int) {
		if done != last+1 || (total != 0 && tot != total) {
			t.Errorf("progress %d/%d after %d/%d", done, tot, last, total)
		}
		last, total = done, tot
	})
	if err != nil {
		t.Fatalf("%s: %v", o.Proof, err)
	}
	if last != total {
		t.Errorf("%s: progress ended at %d/%d", o.Proof, last, total)
	}
	return p
}

// TestGenerate checks the C1 of every size and feature the generator makes
// with its own checks and with c1.Verify, and checks what goes around it:
// the JSON decodes to the same output, the envelope, the public data.
func TestGenerate(t *testing.T) {
	for _, tc := range []struct {
		proof filecoin.SealProof
		long  bool
	}{
		{filecoin.StackedDrg2KiBV1, false},
		{filecoin.StackedDrg2KiBV1_1, false},
		{filecoin.StackedDrg8MiBV1_1, false},
		{filecoin.StackedDrg512MiBV1_1, false},
		{filecoin.StackedDrg2KiBV1_1_Feat_SyntheticPoRep, false},
		{filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, false},
		{filecoin.StackedDrg8MiBV1_1_Feat_SyntheticPoRep, true},
		{filecoin.StackedDrg8MiBV1_2_Feat_NonInteractivePoRep, true},
		{filecoin.StackedDrg32GiBV1_1, true},
		{filecoin.StackedDrg64GiBV1_1, true},
	} {
		t.Run(tc.proof.String(), func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("long")
			}
			start := time.Now()
			p := generateT(t, PoRepOptions{Proof: tc.proof, Seed: 7, Miner: 1000, Sector: 42})
			t.Logf("generated in %v, C1 JSON %d bytes", time.Since(start).Round(time.Millisecond), len(p.Envelope.Phase1Out))
			checkGenerated(t, p)
		})
	}
}

func checkGenerated(t *testing.T, p *PoRep) {
	t.Helper()
	if err := checkPoRep(p); err != nil {
		t.Fatal(err)
	}
	if err := c1.Verify(p.Output); err != nil {
		t.Fatalf("c1.Verify: %v", err)
	}
	info := p.Output.Info()
	env, err := c1.DecodeEnvelope(p.Envelope.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if env.SectorNum != int64(p.Info.Number) || env.SectorSize != info.SectorSize || !bytes.Equal(env.Phase1Out, p.Envelope.Phase1Out) {
		t.Fatalf("envelope round trip: %d %d", env.SectorNum, env.SectorSize)
	}
	back, err := c1.Decode(env.Phase1Out)
	if err != nil {
		t.Fatal(err)
	}
	js, err := back.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(js, p.Envelope.Phase1Out) {
		t.Fatal("C1 JSON does not survive a decode and re-encode")
	}
	o := p.Output
	si := p.Info
	if si.SealProof != info.Proof || si.DealIDs != nil || si.Proof != nil ||
		!bytes.Equal(si.Randomness, o.Ticket[:]) || !bytes.Equal(si.InteractiveRandomness, o.Seed[:]) {
		t.Fatalf("seal verify info %+v", si)
	}
	if r, err := si.SealedCID.CommR(); err != nil || r != o.CommR {
		t.Fatalf("sealed CID %s: %v", si.SealedCID, err)
	}
	if d, err := si.UnsealedCID.CommD(); err != nil || d != o.CommD {
		t.Fatalf("unsealed CID %s: %v", si.UnsealedCID, err)
	}
	if _, err := json.Marshal(si); err != nil {
		t.Fatal(err)
	}
}

// TestDenseInteractive labels an interactive sector densely (as the
// synthetic and non-interactive proofs are) to check that path against the
// interactive challenges too.
func TestDenseInteractive(t *testing.T) {
	info, err := filecoin.StackedDrg2KiBV1_1.Info()
	if err != nil {
		t.Fatal(err)
	}
	p, err := generate(context.Background(), info, PoRepOptions{Proof: info.Proof, Seed: 3}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkGenerated(t, p)
}

func TestDeterministic(t *testing.T) {
	for _, proof := range []filecoin.SealProof{filecoin.StackedDrg2KiBV1_1, filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep} {
		a := generateT(t, PoRepOptions{Proof: proof, Seed: 11, Miner: 5, Sector: 6})
		b := generateT(t, PoRepOptions{Proof: proof, Seed: 11, Miner: 5, Sector: 6})
		if !bytes.Equal(a.Envelope.Encode(), b.Envelope.Encode()) {
			t.Errorf("%s: the same options give different envelopes", proof)
		}
		c := generateT(t, PoRepOptions{Proof: proof, Seed: 12, Miner: 5, Sector: 6})
		if a.Output.CommR == c.Output.CommR || a.Output.Ticket == c.Output.Ticket || a.Output.Seed == c.Output.Seed {
			t.Errorf("%s: seeds 11 and 12 share comm_r, ticket or seed", proof)
		}
	}
}

// TestSharedColumn finds 2 KiB sectors where one challenged node is a
// parent of another (with 64 nodes and 14 parents it is common) and
// requires that node's column, computed, to be the one both proofs carry.
func TestSharedColumn(t *testing.T) {
	found := 0
	for seed := uint64(0); seed < 64 && found < 3; seed++ {
		p := generateT(t, PoRepOptions{Proof: filecoin.StackedDrg2KiBV1_1, Seed: seed})
		proofs := p.Output.Partitions[0]
		for i := range proofs {
			for j := range proofs {
				cx := proofs[i].ReplicaColumnProofs.CX
				rc := proofs[j].ReplicaColumnProofs
				for _, col := range append(append([]c1.ColumnProof(nil), rc.DRGParents...), rc.ExpParents...) {
					if i == j || col.Index != cx.Index {
						continue
					}
					found++
					for l := range cx.Rows {
						if col.Rows[l] != cx.Rows[l] {
							t.Fatalf("seed %d: node %d, challenged and a parent of node %d, has two columns", seed, cx.Index, rc.CX.Index)
						}
					}
				}
			}
		}
		if err := checkPoRep(p); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	if found == 0 {
		t.Fatal("no challenged node is another's parent in 64 seeds")
	}
	t.Logf("%d challenged nodes that are another challenge's parent", found)
}

// TestEmptySectorCommD checks comm_d against the published unsealed CIDs of
// empty sectors.
func TestEmptySectorCommD(t *testing.T) {
	b, err := os.ReadFile("testdata/empty_sector_cids.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		CIDs map[string]string `json:"cids"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, proof := range filecoin.SealProofs() {
		info, err := proof.Info()
		if err != nil {
			t.Fatal(err)
		}
		want, ok := v.CIDs[strconv.FormatUint(info.SectorSize, 10)]
		if !ok {
			continue
		}
		d, err := zeroTreeD(info.Nodes)
		if err != nil {
			t.Fatal(err)
		}
		if got := filecoin.CommDCID(d.Root()); got != want {
			t.Errorf("%s: comm_d %s, want %s", proof, got, want)
		}
		checked++
	}
	if checked != 8 {
		t.Errorf("checked %d proofs, want 8 (32 and 64 GiB of four generations)", checked)
	}
}

func TestTooLarge(t *testing.T) {
	for _, proof := range []filecoin.SealProof{
		filecoin.StackedDrg32GiBV1_1_Feat_SyntheticPoRep,
		filecoin.StackedDrg64GiBV1_2_Feat_NonInteractivePoRep,
		filecoin.StackedDrg512MiBV1_1_Feat_SyntheticPoRep,
	} {
		if _, err := GeneratePoRep(context.Background(), PoRepOptions{Proof: proof}, nil); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v, want ErrTooLarge", proof, err)
		}
	}
	if _, err := GeneratePoRep(context.Background(), PoRepOptions{Proof: 99}, nil); !errors.Is(err, filecoin.ErrUnknownProof) {
		t.Errorf("proof 99: %v, want ErrUnknownProof", err)
	}
	if _, err := GeneratePoRep(context.Background(), PoRepOptions{Proof: filecoin.StackedDrg2KiBV1_1, Sector: 1 << 63}, nil); err == nil {
		t.Error("sector 2^63 accepted")
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GeneratePoRep(ctx, PoRepOptions{Proof: filecoin.StackedDrg2KiBV1_1}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("%v, want context.Canceled", err)
	}
}

func BenchmarkGenerate32GiB(b *testing.B) {
	for b.Loop() {
		if _, err := GeneratePoRep(context.Background(), PoRepOptions{Proof: filecoin.StackedDrg32GiBV1_1, Seed: 1}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerate8MiBSynthetic(b *testing.B) {
	for b.Loop() {
		if _, err := GeneratePoRep(context.Background(), PoRepOptions{Proof: filecoin.StackedDrg8MiBV1_1_Feat_SyntheticPoRep, Seed: 1}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
