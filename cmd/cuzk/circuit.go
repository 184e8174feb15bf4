package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
)

// circuitFlags select a synthetic circuit for setup and prove.
type circuitFlags struct {
	circuit     string
	constraints int
	inputs      int
	seed        uint64
}

func (f *circuitFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.circuit, "circuit", "synthetic", "circuit family (synthetic)")
	c.Flags().IntVar(&f.constraints, "constraints", 1<<16, "total R1CS rows, input constraints included")
	c.Flags().IntVar(&f.inputs, "inputs", -1, "public inputs, ONE excluded (-1: the family's default)")
	c.Flags().Uint64Var(&f.seed, "seed", 1, "circuit seed")
}

func (f *circuitFlags) build() (*synthetic.Circuit, error) {
	if f.circuit != "synthetic" {
		return nil, fmt.Errorf("unknown circuit %q (known: synthetic)", f.circuit)
	}
	cfg := synthetic.Default(f.constraints)
	cfg.Seed = f.seed
	if f.inputs >= 0 {
		cfg.Inputs = f.inputs
	}
	return synthetic.New(cfg)
}

// vkPath is the .vk written beside a .params file.
func vkPath(params string) string {
	return strings.TrimSuffix(params, ".params") + ".vk"
}

// inputsPath is proof.bin → proof.inputs.json.
func inputsPath(proof string) string {
	if i := strings.LastIndexByte(proof, '.'); i > strings.LastIndexByte(proof, '/') {
		proof = proof[:i]
	}
	return proof + ".inputs.json"
}
