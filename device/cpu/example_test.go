package cpu_test

import (
	"context"
	"fmt"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
)

// Prove a small synthetic circuit on the CPU device and verify the proof.
func Example() {
	c, err := synthetic.New(synthetic.Default(64))
	if err != nil {
		panic(err)
	}
	params, err := groth16.Setup(c, []byte("example; dev parameters only"))
	if err != nil {
		panic(err)
	}
	proof, inputs, err := groth16.Prove(context.Background(), cpu.New(0), params, c, nil)
	if err != nil {
		panic(err)
	}
	pvk, err := groth16.PrepareVerifyingKey(&params.VK)
	if err != nil {
		panic(err)
	}
	fmt.Println("verify:", groth16.Verify(pvk, &proof, inputs))
	// Output: verify: <nil>
}
