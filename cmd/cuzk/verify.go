package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/groth16"
)

// verifyOptions are the flags of `cuzk verify`.
type verifyOptions struct {
	vk     string
	proof  string
	inputs string
}

func newVerifyCmd() *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Verify a proof (one or several concatenated partitions) against a .vk; exit 0 valid, 1 invalid",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&o.vk, "vk", "dev.vk", ".vk file")
	cmd.Flags().StringVar(&o.proof, "proof", "proof.bin", "proof file")
	cmd.Flags().StringVar(&o.inputs, "inputs", "", "public inputs JSON (default: <proof>.inputs.json)")
	return cmd
}

// run checks every partition proof of the file against the one set of
// public inputs.
func (o *verifyOptions) run(w io.Writer) error {
	key, err := groth16.ReadVerifyingKey(o.vk)
	if err != nil {
		return err
	}
	pvk, err := groth16.PrepareVerifyingKey(key)
	if err != nil {
		return err
	}
	pb, err := os.ReadFile(o.proof)
	if err != nil {
		return err
	}
	in := o.inputs
	if in == "" {
		in = inputsPath(o.proof)
	}
	ib, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	inputs, err := decodeInputs(ib)
	if err != nil {
		return err
	}
	proofs, err := groth16.DecodeProofs(pb)
	if err != nil {
		fmt.Fprintf(w, "invalid (%v)\n", err)
		return exitError{1}
	}
	all := make([][]fr.Element, len(proofs))
	for i := range all {
		all[i] = inputs
	}
	return verdict(w, groth16.BatchVerify(pvk, proofs, all, nil))
}

// verdict prints valid or invalid for a verification's result: exit 0
// when valid, 1 when the proof is invalid, 2 (the error) when
// verification could not run.
func verdict(w io.Writer, err error) error {
	switch {
	case err == nil:
		fmt.Fprintln(w, "valid")
		return nil
	case errors.Is(err, groth16.ErrInvalidProof), errors.Is(err, groth16.ErrInputCount):
		fmt.Fprintf(w, "invalid (%v)\n", err)
		return exitError{1}
	default:
		return err
	}
}
