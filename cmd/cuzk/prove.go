package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
)

// proveOptions are the flags of `cuzk prove`.
type proveOptions struct {
	circuit circuitFlags
	params  string
	out     string
	checked bool
}

func newProveCmd() *cobra.Command {
	o := &proveOptions{}
	cmd := &cobra.Command{
		Use:   "prove",
		Short: "Prove a circuit in-process on the CPU device and write the proof and its public inputs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	o.circuit.register(cmd)
	cmd.Flags().StringVar(&o.params, "params", "dev.params", ".params file")
	cmd.Flags().StringVar(&o.out, "out", "proof.bin", "output proof path (inputs go to <name>.inputs.json)")
	cmd.Flags().BoolVar(&o.checked, "checked", false, "subgroup-check every parameter point while loading")
	return cmd
}

// run proves the synthetic circuit with the given parameters, checks the
// proof, and writes it with its public inputs beside it.
func (o *proveOptions) run(ctx context.Context, w io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	c, err := o.circuit.build()
	if err != nil {
		return err
	}
	p, err := groth16.ReadParams(o.params, groth16.ReadOptions{Checked: o.checked})
	if err != nil {
		return err
	}
	start := time.Now()
	proof, inputs, err := groth16.Prove(ctx, cpu.New(0), p, c, nil)
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
	if err := os.WriteFile(o.out, b[:], 0o644); err != nil {
		return err
	}
	js, err := encodeInputs(inputs)
	if err != nil {
		return err
	}
	inPath := inputsPath(o.out)
	if err := os.WriteFile(inPath, js, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s and %s (proved and verified in %v)\n",
		o.out, inPath, time.Since(start).Round(time.Millisecond))
	return nil
}
