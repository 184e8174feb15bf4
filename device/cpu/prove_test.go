package cpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/groth16"
)

// TestProveVerify proves synthetic circuits of several shapes with this
// device against dev parameters and verifies the proofs; a changed public
// input must fail.
func TestProveVerify(t *testing.T) {
	cfgs := []synthetic.Config{
		synthetic.Default(64),
		synthetic.Default(1000),
		{Constraints: 2, Inputs: 0, BoolFraction: 0.5, ADensity: 1, BDensity: 1, Seed: 2},
		{Constraints: 300, Inputs: 50, BoolFraction: 0, ADensity: 1, BDensity: 1, Seed: 3},
		{Constraints: 513, Inputs: 1, BoolFraction: 1, ADensity: 0.5, BDensity: 0.1, Seed: 4},
		{Constraints: 256, Inputs: 3, BoolFraction: 0.9, ADensity: 0, BDensity: 0, Seed: 5},
	}
	if !testing.Short() {
		cfgs = append(cfgs, synthetic.Default(1<<12), synthetic.Config{
			Constraints: 5000, Inputs: 20, BoolFraction: 0.75, ADensity: 0.997, BDensity: 0.25, Seed: 6})
	}
	d := New(0)
	ctx := context.Background()
	rnd := rand.NewChaCha8([32]byte{1})
	for _, cfg := range cfgs {
		t.Run(fmt.Sprintf("n=%d/in=%d/bool=%v/A=%v/B=%v", cfg.Constraints, cfg.Inputs, cfg.BoolFraction, cfg.ADensity, cfg.BDensity), func(t *testing.T) {
			c, err := synthetic.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			p, err := groth16.Setup(c, []byte(fmt.Sprint("device/cpu test ", cfg.Seed)))
			if err != nil {
				t.Fatal(err)
			}
			pvk, err := groth16.PrepareVerifyingKey(&p.VK)
			if err != nil {
				t.Fatal(err)
			}
			proof, inputs, err := groth16.Prove(ctx, d, p, c, rnd)
			if err != nil {
				t.Fatal(err)
			}
			want := c.PublicInputs()
			if len(inputs) != len(want) {
				t.Fatalf("Prove returned %d inputs, want %d", len(inputs), len(want))
			}
			for i := range want {
				if inputs[i] != want[i] {
					t.Fatalf("public input %d differs from the circuit's", i)
				}
			}
			if err := groth16.Verify(pvk, &proof, inputs); err != nil {
				t.Fatalf("proof does not verify: %v", err)
			}
			if len(inputs) > 0 {
				bad := append(inputs[:0:0], inputs...)
				bad[len(bad)/2].SetUint64(12345)
				if err := groth16.Verify(pvk, &proof, bad); !errors.Is(err, groth16.ErrInvalidProof) {
					t.Fatalf("changed input: Verify = %v, want ErrInvalidProof", err)
				}
			}
		})
	}
}

// TestProveVerifyRandomShapes proves and verifies 20 random synthetic
// shapes (1–50 inputs, up to 2^14 rows, dense to bit-heavy witnesses).
func TestProveVerifyRandomShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("20 setups: skipped in -short")
	}
	r := rand.New(rand.NewPCG(21, 22))
	d := New(0)
	ctx := context.Background()
	rnd := rand.NewChaCha8([32]byte{2})
	for i := 0; i < 20; i++ {
		inputs := 1 + r.IntN(50)
		logN := 1 + r.Float64()*13 // up to 2^14 rows
		cfg := synthetic.Config{
			Constraints:  max(inputs+2, int(math.Exp2(logN))),
			Inputs:       inputs,
			BoolFraction: []float64{0, 0.5, 0.75, 0.95}[r.IntN(4)],
			ADensity:     r.Float64(),
			BDensity:     r.Float64(),
			Seed:         r.Uint64(),
		}
		if i == 19 {
			cfg.Constraints = 1 << 14
		}
		c, err := synthetic.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p, err := groth16.Setup(c, []byte(fmt.Sprint("random shape ", i)))
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		pvk, err := groth16.PrepareVerifyingKey(&p.VK)
		if err != nil {
			t.Fatal(err)
		}
		proof, in, err := groth16.Prove(ctx, d, p, c, rnd)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		if err := groth16.Verify(pvk, &proof, in); err != nil {
			t.Fatalf("%+v: proof does not verify: %v", cfg, err)
		}
		in[r.IntN(len(in))].SetUint64(7)
		if err := groth16.Verify(pvk, &proof, in); !errors.Is(err, groth16.ErrInvalidProof) {
			t.Fatalf("%+v: changed input: Verify = %v, want ErrInvalidProof", cfg, err)
		}
	}
}
