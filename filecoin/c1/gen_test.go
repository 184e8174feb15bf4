package c1_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/filecoin/gen"
)

// TestGenerated: C1 outputs from filecoin/gen (an independent builder of
// vanilla proofs) verify, and their JSON and envelope round-trip. The
// 32 GiB and 64 GiB ones also time Decode and Verify at full size.
func TestGenerated(t *testing.T) {
	proofs := []filecoin.SealProof{filecoin.StackedDrg2KiBV1_1, filecoin.StackedDrg8MiBV1_1}
	if !testing.Short() {
		proofs = append(proofs, filecoin.StackedDrg32GiBV1_1, filecoin.StackedDrg64GiBV1_1)
	}
	for _, p := range proofs {
		t.Run(p.String(), func(t *testing.T) {
			start := time.Now()
			g, err := gen.GeneratePoRep(context.Background(), gen.PoRepOptions{Proof: p, Seed: 77, Miner: 1000, Sector: 5}, nil)
			if err != nil {
				t.Fatal(err)
			}
			generated := time.Since(start)
			b, err := g.Output.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			start = time.Now()
			o, err := c1.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			decoded := time.Since(start)
			start = time.Now()
			if err := c1.Verify(o); err != nil {
				t.Fatal(err)
			}
			verified := time.Since(start)
			if o.CommC() != g.CommC || o.CommRLast() != g.CommRLast {
				t.Fatal("roots differ from the generator's")
			}
			env := g.Envelope.Encode()
			_, eo, err := c1.DecodeEnvelopeOutput(env)
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := eo.MarshalJSON(); !bytes.Equal(again, b) {
				t.Fatal("envelope output differs")
			}
			t.Logf("%s: %d bytes; generate %v, decode %v, verify %v", p, len(b), generated.Round(time.Millisecond),
				decoded.Round(time.Millisecond), verified.Round(time.Millisecond))
		})
	}
}
