package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/groth16"
)

// verifyOptions are the flags of `cuzk verify`.
type verifyOptions struct {
	vk     string
	proof  string
	inputs string

	public    string // a PoRep seal's public data instead of an inputs file
	paramsDir string
}

const verifyLong = `Verifies Groth16 proofs; exit 0 when valid, 1 when invalid, 2 when verification could not run.

Without --public: the partition proofs of --proof (192 bytes each) against --vk, every one with
the public inputs of --inputs (cuzk prove writes <proof>.inputs.json).

With --public seal.json (go-state-types' SealVerifyInfo JSON, as cuzk gen-vanilla --public
writes it and cuzk prove --public fills it): a PoRep seal proof from its public data alone, as
filecoin-ffi's verify_seal does: replica_id from the miner, sector, ticket, comm_d and porep_id,
the challenges from the seed, every partition's inputs from them. The proof is the file's Proof,
or --proof; the key --vk, or the real .vk name in --params-dir (default
$FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters).

  cuzk verify --public seal.json --params-dir ./params`

func newVerifyCmd() *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Verify a proof (one or several concatenated partitions) against a .vk, or a PoRep seal from its public data; exit 0 valid, 1 invalid",
		Long:  verifyLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.public != "" {
				if err := notWith(cmd, "public", "inputs"); err != nil {
					return err
				}
				if cmd.Flags().Changed("vk") && cmd.Flags().Changed("params-dir") {
					return errors.New("give --vk or --params-dir, not both")
				}
				return o.runPublic(cmd.OutOrStdout(), cmd.Flags().Changed("vk"), cmd.Flags().Changed("proof"))
			}
			if cmd.Flags().Changed("params-dir") {
				return errors.New("--params-dir goes with --public")
			}
			return o.run(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&o.vk, "vk", "dev.vk", ".vk file")
	cmd.Flags().StringVar(&o.proof, "proof", "proof.bin", "proof file")
	cmd.Flags().StringVar(&o.inputs, "inputs", "", "public inputs JSON (default: <proof>.inputs.json)")
	cmd.Flags().StringVar(&o.public, "public", "", "a PoRep seal's SealVerifyInfo JSON: verify from its public data")
	cmd.Flags().StringVar(&o.paramsDir, "params-dir", "", "with --public: the parameter directory holding the real .vk name")
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

// runPublic verifies a PoRep seal proof from its public data.
func (o *verifyOptions) runPublic(w io.Writer, vkGiven, proofGiven bool) error {
	seal, err := readSeal(o.public)
	if err != nil {
		return err
	}
	info, err := seal.SealProof.Info()
	if err != nil {
		return err
	}
	vkFile := o.vk
	if !vkGiven {
		vkFile = filepath.Join(paramsDir(o.paramsDir), info.VKFile())
	}
	vk, err := groth16.ReadVerifyingKey(vkFile)
	if err != nil {
		return err
	}
	if proofGiven {
		if seal.Proof, err = os.ReadFile(o.proof); err != nil {
			return err
		}
	}
	if len(seal.Proof) == 0 {
		return fmt.Errorf("%s has no Proof (cuzk prove --public fills it), and no --proof was given", o.public)
	}
	err = porep.VerifySeal(vk, seal)
	if errors.Is(err, porep.ErrBadSeal) {
		// Public data no honest seal has (a commitment that is no field
		// element, a proof of the wrong length): no proof is valid for it.
		fmt.Fprintf(w, "invalid (%v)\n", err)
		return exitError{1}
	}
	return verdict(w, err)
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
