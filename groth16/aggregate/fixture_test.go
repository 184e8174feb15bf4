package aggregate

import (
	"context"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
)

// distinctProofs is how many different Groth16 proofs the fixture makes;
// larger aggregates repeat them (Filecoin pads by repeating, too).
const distinctProofs = 16

// fixture is one small synthetic circuit's dev parameters, proofs of it
// (same public inputs, different r and s) and a dev SRS.
type fixture struct {
	vk     groth16.VerifyingKey
	proofs []groth16.Proof
	inputs []fr.Element
	srs    *SRS
}

var (
	fixtureOnce sync.Once
	fixtureVal  *fixture
	fixtureErr  error
)

// fixtureSRSSize is the largest n the shared dev SRS serves.
const fixtureSRSSize = 128

func getFixture(tb testing.TB) *fixture {
	tb.Helper()
	fixtureOnce.Do(func() { fixtureVal, fixtureErr = newFixture(distinctProofs, fixtureSRSSize) })
	if fixtureErr != nil {
		tb.Fatal(fixtureErr)
	}
	return fixtureVal
}

func newFixture(k, srsSize int) (*fixture, error) {
	c, err := synthetic.New(synthetic.Default(32))
	if err != nil {
		return nil, err
	}
	params, err := groth16.Setup(c, []byte("aggregate tests; dev parameters only"))
	if err != nil {
		return nil, err
	}
	f := &fixture{vk: params.VK}
	dev := cpu.New(0)
	for i := 0; i < k; i++ {
		proof, inputs, err := groth16.Prove(context.Background(), dev, params, c, nil)
		if err != nil {
			return nil, err
		}
		f.proofs = append(f.proofs, proof)
		f.inputs = inputs
	}
	if f.srs, err = DevSRS([]byte("aggregate tests"), srsSize); err != nil {
		return nil, err
	}
	return f, nil
}

// batch returns n proofs (cycling through the distinct ones) and their
// public inputs, one fresh copy per proof.
func (f *fixture) batch(n int) ([]groth16.Proof, [][]fr.Element) {
	proofs := make([]groth16.Proof, n)
	inputs := make([][]fr.Element, n)
	for i := range proofs {
		proofs[i] = f.proofs[i%len(f.proofs)]
		inputs[i] = append([]fr.Element(nil), f.inputs...)
	}
	return proofs, inputs
}
