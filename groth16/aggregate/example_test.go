package aggregate_test

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/groth16/aggregate"
)

// Aggregate four Groth16 proofs of one circuit and verify the aggregate
// from its bytes. Dev parameters and a dev SRS: never for mainnet.
func Example() {
	c, err := synthetic.New(synthetic.Default(32))
	if err != nil {
		panic(err)
	}
	params, err := groth16.Setup(c, []byte("example; dev parameters only"))
	if err != nil {
		panic(err)
	}
	var proofs []groth16.Proof
	var inputs [][]fr.Element
	for i := 0; i < 4; i++ {
		proof, in, err := groth16.Prove(context.Background(), cpu.New(0), params, c, nil)
		if err != nil {
			panic(err)
		}
		proofs, inputs = append(proofs, proof), append(inputs, in)
	}

	srs, err := aggregate.DevSRS([]byte("example; dev SRS only"), 4)
	if err != nil {
		panic(err)
	}
	pk, vk, err := srs.Specialize(4)
	if err != nil {
		panic(err)
	}
	include := []byte("what else the aggregate binds")
	agg, err := aggregate.Aggregate(context.Background(), pk, include, proofs)
	if err != nil {
		panic(err)
	}
	b, err := agg.MarshalBinary()
	if err != nil {
		panic(err)
	}
	fmt.Println("bytes:", len(b), "=", aggregate.Size(4))

	dec, err := aggregate.DecodeProof(b)
	if err != nil {
		panic(err)
	}
	fmt.Println("verify:", aggregate.Verify(vk, &params.VK, inputs, dec, include, nil))
	// Output:
	// bytes: 8212 = 8212
	// verify: <nil>
}
