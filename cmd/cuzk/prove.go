package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
)

// circuitFlags select a circuit for setup and prove.
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

func init() {
	var cf circuitFlags
	var out, setupSeed string
	setup := &cobra.Command{
		Use:   "setup",
		Short: "Generate development parameters (.params and .vk) for a circuit; NOT for production",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := cf.build()
			if err != nil {
				return err
			}
			start := time.Now()
			p, err := groth16.Setup(c, []byte(setupSeed))
			if err != nil {
				return err
			}
			if err := groth16.WriteParams(out, p); err != nil {
				return err
			}
			if err := groth16.WriteVerifyingKey(vkPath(out), &p.VK); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s in %v (dev parameters: not for production)\n",
				out, vkPath(out), time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	cf.register(setup)
	setup.Flags().StringVar(&out, "out", "dev.params", "output .params path (the .vk goes beside it)")
	setup.Flags().StringVar(&setupSeed, "setup-seed", "cuzk-dev", "seed of the toxic waste (dev only)")
	rootCmd.AddCommand(setup)

	var pf circuitFlags
	var params, proofOut string
	var checked bool
	prove := &cobra.Command{
		Use:   "prove",
		Short: "Prove a circuit in-process on the CPU device and write the proof and its public inputs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := pf.build()
			if err != nil {
				return err
			}
			p, err := groth16.ReadParams(params, groth16.ReadOptions{Checked: checked})
			if err != nil {
				return err
			}
			start := time.Now()
			proof, inputs, err := groth16.Prove(context.Background(), cpu.New(0), p, c, nil)
			if err != nil {
				return err
			}
			pvk, err := groth16.PrepareVerifyingKey(&p.VK)
			if err != nil {
				return err
			}
			if err := groth16.Verify(pvk, &proof, inputs); err != nil {
				return fmt.Errorf("self-check of the new proof failed: %w", err)
			}
			b := proof.Bytes()
			if err := os.WriteFile(proofOut, b[:], 0o644); err != nil {
				return err
			}
			js, err := encodeInputs(inputs)
			if err != nil {
				return err
			}
			inPath := inputsPath(proofOut)
			if err := os.WriteFile(inPath, js, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s (proved and verified in %v)\n",
				proofOut, inPath, time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	pf.register(prove)
	prove.Flags().StringVar(&params, "params", "dev.params", ".params file")
	prove.Flags().StringVar(&proofOut, "out", "proof.bin", "output proof path (inputs go to <name>.inputs.json)")
	prove.Flags().BoolVar(&checked, "checked", false, "subgroup-check every parameter point while loading")
	rootCmd.AddCommand(prove)

	var vk, proofPath, inputsArg string
	verify := &cobra.Command{
		Use:   "verify",
		Short: "Verify a proof (one or several concatenated partitions) against a .vk; exit 0 valid, 1 invalid",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			key, err := groth16.ReadVerifyingKey(vk)
			if err != nil {
				return err
			}
			pvk, err := groth16.PrepareVerifyingKey(key)
			if err != nil {
				return err
			}
			pb, err := os.ReadFile(proofPath)
			if err != nil {
				return err
			}
			in := inputsArg
			if in == "" {
				in = inputsPath(proofPath)
			}
			ib, err := os.ReadFile(in)
			if err != nil {
				return err
			}
			inputs, err := decodeInputs(ib)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			proofs, err := groth16.DecodeProofs(pb)
			if err != nil {
				fmt.Fprintf(out, "invalid (%v)\n", err)
				return exitError{1}
			}
			all := make([][]fr.Element, len(proofs))
			for i := range all {
				all[i] = inputs
			}
			err = groth16.BatchVerify(pvk, proofs, all, nil)
			switch {
			case err == nil:
				fmt.Fprintln(out, "valid")
				return nil
			case errors.Is(err, groth16.ErrInvalidProof), errors.Is(err, groth16.ErrInputCount):
				fmt.Fprintf(out, "invalid (%v)\n", err)
				return exitError{1}
			default:
				return err
			}
		},
	}
	verify.Flags().StringVar(&vk, "vk", "dev.vk", ".vk file")
	verify.Flags().StringVar(&proofPath, "proof", "proof.bin", "proof file")
	verify.Flags().StringVar(&inputsArg, "inputs", "", "public inputs JSON (default: <proof>.inputs.json)")
	rootCmd.AddCommand(verify)
}

// inputsPath is proof.bin → proof.inputs.json.
func inputsPath(proof string) string {
	if i := strings.LastIndexByte(proof, '.'); i > strings.LastIndexByte(proof, '/') {
		proof = proof[:i]
	}
	return proof + ".inputs.json"
}
