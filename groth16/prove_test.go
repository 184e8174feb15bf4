package groth16

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// detReader is a deterministic io.Reader for r, s and batch weights.
type detReader struct{ rng *rand.Rand }

func newDetReader(seed uint64) *detReader {
	return &detReader{rand.New(rand.NewPCG(seed, 42))}
}

func (d *detReader) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte(d.rng.Uint32())
	}
	return len(b), nil
}

type proveCase struct {
	name string
	circ randCircuit
	long bool // only without -short
}

func proveCases() []proveCase {
	var cs []proveCase
	add := func(inputs, rows int, bits, long bool) {
		seed := uint64(len(cs) + 1)
		cs = append(cs, proveCase{
			name: fmt.Sprintf("in%d_rows%d_bits%v", inputs, rows, bits),
			circ: randCircuit{Seed: seed, Inputs: inputs, Rows: rows, BitHeavy: bits},
			long: long,
		})
	}
	add(1, 1, false, false) // a single gate
	add(1, 3, false, false)
	add(2, 4, true, false)
	add(3, 5, false, false)
	add(5, 8, true, false)
	add(7, 17, false, false) // just over a power of two
	add(10, 31, true, false)
	add(12, 32, false, false)
	add(1, 64, true, false)
	add(20, 100, false, false)
	add(50, 51, false, false) // rows barely above inputs
	add(50, 128, true, false)
	add(33, 255, false, false)
	add(4, 513, true, false)
	add(17, 1000, false, false)
	add(45, 1024, true, false)
	add(2, 2049, false, false)
	add(9, 4096, true, false)
	add(25, 4097, false, true)
	add(50, 8192, true, true)
	add(3, 16384, false, false)
	add(30, 16384, true, true)
	return cs
}

func TestProveVerify(t *testing.T) {
	for _, tc := range proveCases() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("large circuit; run without -short")
			}
			c := tc.circ
			p, err := Setup(&c, []byte(tc.name))
			if err != nil {
				t.Fatalf("Setup: %v", err)
			}
			proof, inputs, err := Prove(context.Background(), refDevice{}, p, &c, newDetReader(c.Seed))
			if err != nil {
				t.Fatalf("Prove: %v", err)
			}
			if len(inputs) != c.Inputs {
				t.Fatalf("%d inputs, want %d", len(inputs), c.Inputs)
			}
			pvk, err := PrepareVerifyingKey(&p.VK)
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(pvk, &proof, inputs); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			// A wrong public input must fail.
			bad := append([]fr.Element(nil), inputs...)
			var one fr.Element
			one.SetOne()
			bad[len(bad)-1].Add(&bad[len(bad)-1], &one)
			if err := Verify(pvk, &proof, bad); !errors.Is(err, ErrInvalidProof) {
				t.Fatalf("Verify with a wrong input: %v, want ErrInvalidProof", err)
			}
		})
	}
}
