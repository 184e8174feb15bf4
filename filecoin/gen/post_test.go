package gen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/post"
)

// TestGeneratePoSt makes a WinningPoSt of every size and WindowPoSt
// partitions of every small size and API version, and checks them with
// filecoin/post: the vanilla bytes decode, the partition verifies, its
// inputs are the public data's, and the request says what Curio's client
// says.
func TestGeneratePoSt(t *testing.T) {
	ctx := context.Background()
	for p := post.StackedDrgWinning2KiBV1; p <= post.StackedDrgWinning64GiBV1; p++ {
		w, err := GenerateWinningPoSt(ctx, WinningOptions{Proof: p, Seed: 7, Miner: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(w.Sectors, []uint64{1, 2, 3, 4, 5, 6, 7, 8}) || !slices.Contains(w.Sectors, w.Challenged) {
			t.Fatalf("%s: set %v, challenged %d", p, w.Sectors, w.Challenged)
		}
		if w.Randomness[31]&0xc0 != 0 {
			t.Fatalf("%s: randomness not masked", p)
		}
		want := fmt.Sprintf("winpost-1000-%x", w.Randomness[:8])
		if r := w.Request; r.RequestID != want || r.Priority != "CRITICAL" || r.PartitionIndex != 0 || r.MinerID != 1000 {
			t.Fatalf("%s: request %+v", p, r)
		}
		s, err := post.DecodeSectorProof(w.Request.VanillaProofs[0])
		if err != nil {
			t.Fatal(err)
		}
		part, err := post.NewWinning(w.Info, w.Randomness, s)
		if err != nil {
			t.Fatal(err)
		}
		if err := part.Verify(); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if _, in, err := w.Public.PublicInputs(); err != nil || len(in) != 132 {
			t.Fatalf("%s: %d inputs, %v", p, len(in), err)
		}
		if c := w.Public.ChallengedSectors[0]; c.SealProof != filecoin.StackedDrg2KiBV1_1+filecoin.SealProof(p) || c.SectorNumber != w.Challenged {
			t.Fatalf("%s: challenged sector %+v", p, c)
		}
	}
	for _, p := range []post.Proof{post.StackedDrgWindow2KiBV1, post.StackedDrgWindow8MiBV1, post.StackedDrgWindow512MiBV1,
		post.StackedDrgWindow2KiBV1_1, post.StackedDrgWindow8MiBV1_1, post.StackedDrgWindow512MiBV1_1} {
		for k := range 2 {
			w, err := GenerateWindowPoSt(ctx, WindowOptions{Proof: p, Seed: 7, Miner: 1000, Partition: k})
			if err != nil {
				t.Fatal(err)
			}
			// Default set: k+1 full partitions of 2, sectors 1 … 2(k+1).
			if w.Partitions != k+1 || len(w.Proofs) != 2 || w.Proofs[0].SectorID != uint64(2*k+1) {
				t.Fatalf("%s partition %d: %d partitions, %d proofs", p, k, w.Partitions, len(w.Proofs))
			}
			want := fmt.Sprintf("wdpost-1000-%d-%d", k, w.Randomness[:8])
			if r := w.Request; r.RequestID != want || r.Priority != "HIGH" || r.PartitionIndex != uint32(k) {
				t.Fatalf("%s: request %+v", p, r)
			}
			part, err := post.NewWindow(w.Info, w.Randomness, w.Proofs, k)
			if err != nil {
				t.Fatal(err)
			}
			if err := part.Verify(); err != nil {
				t.Fatalf("%s partition %d: %v", p, k, err)
			}
			_, in, err := w.Public.PublicInputs()
			if err != nil {
				t.Fatal(err)
			}
			got := part.PublicInputs()
			if len(in) != k+1 || !slices.EqualFunc(got, in[k], func(a, b fr.Element) bool { return a.Equal(&b) }) {
				t.Fatalf("%s partition %d: inputs differ from the public data's", p, k)
			}
		}
	}
}

// TestGeneratePoStDeterministic: one seed, one output; another seed,
// another output; a sector's proof does not depend on which partition was
// asked for.
func TestGeneratePoStDeterministic(t *testing.T) {
	ctx := context.Background()
	gen := func(seed uint64, k int) *WindowPoSt {
		w, err := GenerateWindowPoSt(ctx, WindowOptions{Proof: post.StackedDrgWindow8MiBV1, Seed: seed, Miner: 9,
			Sectors: []uint64{40, 10, 30, 20}, Partition: k})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	js := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := gen(1, 1), gen(1, 1), gen(2, 1)
	if !bytes.Equal(js(a.Request), js(b.Request)) || !bytes.Equal(js(a.Public), js(b.Public)) {
		t.Fatal("the same options gave different outputs")
	}
	if bytes.Equal(js(a.Request), js(c.Request)) {
		t.Fatal("different seeds gave the same output")
	}
	// The set is taken in sector-number order: partition 1 is {30, 40}.
	if a.Proofs[0].SectorID != 30 || a.Proofs[1].SectorID != 40 {
		t.Fatalf("partition 1 holds %d, %d", a.Proofs[0].SectorID, a.Proofs[1].SectorID)
	}
	// Partition 0's public data is partition 1's: every sector's comm_r.
	if p0 := gen(1, 0); !bytes.Equal(js(p0.Public), js(a.Public)) {
		t.Fatal("the public data depends on the partition asked for")
	}
	w1, _ := GenerateWinningPoSt(ctx, WinningOptions{Proof: post.StackedDrgWinning2KiBV1, Seed: 3, Miner: 4})
	w2, _ := GenerateWinningPoSt(ctx, WinningOptions{Proof: post.StackedDrgWinning2KiBV1, Seed: 3, Miner: 4})
	if !bytes.Equal(js(w1), js(w2)) {
		t.Fatal("WinningPoSt is not deterministic")
	}
}

func TestGeneratePoStBad(t *testing.T) {
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"window proof for winning", postErr(GenerateWinningPoSt(ctx, WinningOptions{Proof: post.StackedDrgWindow2KiBV1})), "is not a WinningPoSt proof"},
		{"winning proof for window", postErr(GenerateWindowPoSt(ctx, WindowOptions{Proof: post.StackedDrgWinning2KiBV1})), "is not a WindowPoSt proof"},
		{"unknown", postErr(GenerateWindowPoSt(ctx, WindowOptions{Proof: 15})), "unknown registered PoSt proof"},
		{"twice", postErr(GenerateWinningPoSt(ctx, WinningOptions{Proof: 0, Sectors: []uint64{1, 2, 1}})), "sector 1 named twice"},
		{"partition past the sectors", postErr(GenerateWindowPoSt(ctx, WindowOptions{Proof: 5, Sectors: []uint64{1, 2, 3}, Partition: 2})),
			"partition 2 of a proof over 3 sectors (2 partitions of 2)"},
		{"negative partition", postErr(GenerateWindowPoSt(ctx, WindowOptions{Proof: 5, Partition: -1})), "partition -1"},
		{"cancelled", postErr(GenerateWindowPoSt(cancelled, WindowOptions{Proof: 5})), "context canceled"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, tc.err, tc.want)
		}
	}
	if err := postErr(GenerateWindowPoSt(cancelled, WindowOptions{Proof: 5})); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func postErr[T any](_ T, err error) error { return err }

// TestGenerateWindowPoStFull makes full 32 and 64 GiB WindowPoSt
// partitions (2349 and 2300 sparse sectors) and verifies them.
func TestGenerateWindowPoStFull(t *testing.T) {
	if testing.Short() {
		t.Skip("full 32/64 GiB partitions")
	}
	for _, p := range []post.Proof{post.StackedDrgWindow32GiBV1_1, post.StackedDrgWindow64GiBV1_1} {
		start := time.Now()
		w, err := GenerateWindowPoSt(context.Background(), WindowOptions{Proof: p, Seed: 1, Miner: 1000})
		if err != nil {
			t.Fatal(err)
		}
		generated := time.Since(start)
		part, err := post.NewWindow(w.Info, w.Randomness, w.Proofs, 0)
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		if err := part.Verify(); err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, b := range w.Request.VanillaProofs {
			size += len(b)
		}
		t.Logf("%s: %d sectors generated in %v, %d vanilla bytes, verified in %v", w.Info.Name, len(w.Proofs), generated, size, time.Since(start))
	}
}
