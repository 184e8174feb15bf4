package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/groth16"
)

// verifyOptions are the flags of `cuzk verify`.
type verifyOptions struct {
	vk     string
	proof  string
	inputs string

	public    string // a proof's public data instead of an inputs file
	paramsDir string
	partition int

	aggregate string // a SnarkPack aggregate of the --public seals
	devSRS    bool   // a non-interactive PoRep's aggregate: the development SRS of a --dev daemon
}

const verifyLong = `Verifies Groth16 proofs; exit 0 when valid, 1 when invalid, 2 when verification could not run.

Without --public: the partition proofs of --proof (192 bytes each) against --vk, every one with
the public inputs of --inputs (cuzk prove writes <proof>.inputs.json).

With --public FILE.json: a Filecoin proof from its public data alone, as the chain verifies it,
every public input computed here, all partitions in one batch. FILE.json is go-state-types' JSON
(as cuzk gen-vanilla --public writes it and cuzk prove --public fills it), told apart by its
fields:

  SealVerifyInfo         PoRep: replica_id from the miner, sector, ticket, comm_d and porep_id,
                         the challenges from the seed (verify_seal); for a non-interactive
                         PoRep the challenges from comm_r and the proof one SnarkPack aggregate
                         of its partitions, checked with v28-fil-inner-product-v1.srs beside the
                         .vk (--dev-srs: the development SRS a --dev daemon uses without one);
  WinningPoStVerifyInfo  the challenged sector's comm_r and its 66 leaves from the randomness;
  WindowPoStVerifyInfo   the deadline's sectors in number order, SectorCount per partition,
                         10 leaves each from the randomness;
  ReplicaUpdateInfo      SnapDeals: k_and_h_select and the three comms, per partition.

The proof is the file's (Proof, Proofs[0].ProofBytes) or --proof's: partitions × 192 bytes, or
with --partition K one partition's (a WindowPoSt partition request's proof). The key is --vk,
or the real .vk name in --params-dir (default $FIL_PROOFS_PARAMETER_CACHE, else
/var/tmp/filecoin-proof-parameters).

  cuzk verify --public seal.json --params-dir ./params
  cuzk verify --public window.json --partition 1 --proof p1.bin --params-dir ./params

With --aggregate AGG.bin: a SnarkPack aggregate of a commit batch (cuzk aggregate writes it)
against --public s1.json,s2.json,… (SealVerifyInfo files in batch order) and the SRS
v28-fil-inner-product-v1.srs in --params-dir.

  cuzk verify --aggregate agg.bin --public s1.json,s2.json,s3.json,s4.json --params-dir ./params`

func newVerifyCmd() *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Verify a proof (one or several concatenated partitions) against a .vk, or a Filecoin proof from its public data; exit 0 valid, 1 invalid",
		Long:  verifyLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.aggregate != "" {
				if err := notWith(cmd, "aggregate", "inputs", "proof", "partition"); err != nil {
					return err
				}
				if o.public == "" {
					return errors.New("--aggregate needs --public: the sectors' SealVerifyInfo files, comma-separated, in batch order")
				}
				return o.runAggregate(cmd.OutOrStdout(), cmd.Flags().Changed("vk"))
			}
			if o.public != "" {
				if err := notWith(cmd, "public", "inputs"); err != nil {
					return err
				}
				if cmd.Flags().Changed("vk") && cmd.Flags().Changed("params-dir") {
					return errors.New("give --vk or --params-dir, not both")
				}
				return o.runPublic(cmd.OutOrStdout(), cmd.Flags().Changed("vk"), cmd.Flags().Changed("proof"))
			}
			for _, n := range []string{"params-dir", "partition"} {
				if cmd.Flags().Changed(n) {
					return fmt.Errorf("--%s goes with --public", n)
				}
			}
			return o.run(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.vk, "vk", "dev.vk", ".vk file")
	f.StringVar(&o.proof, "proof", "proof.bin", "proof file")
	f.StringVar(&o.inputs, "inputs", "", "public inputs JSON (default: <proof>.inputs.json)")
	f.StringVar(&o.public, "public", "", "public data JSON (SealVerifyInfo, WinningPoStVerifyInfo, WindowPoStVerifyInfo, ReplicaUpdateInfo): verify from it")
	f.StringVar(&o.paramsDir, "params-dir", "", "with --public: the parameter directory holding the real .vk name")
	f.IntVar(&o.partition, "partition", -1, "with --public: verify only partition K (from 0)")
	f.BoolVar(&o.devSRS, "dev-srs", false, "with --public of a non-interactive PoRep: check its aggregate with the development SnarkPack SRS a --dev daemon uses without an SRS file (never for mainnet)")
	f.StringVar(&o.aggregate, "aggregate", "", "a SnarkPack aggregate: verify it against --public's SealVerifyInfo files (comma-separated, batch order)")
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

// runPublic verifies a Filecoin proof from its public data.
func (o *verifyOptions) runPublic(w io.Writer, vkGiven, proofGiven bool) error {
	if o.partition < -1 {
		return fmt.Errorf("--partition %d: want a partition index from 0", o.partition)
	}
	d, err := readPublic(o.public)
	if err != nil {
		return err
	}
	_, vkFile := d.circuit()
	if vkGiven {
		vkFile = o.vk
	} else {
		vkFile = filepath.Join(paramsDir(o.paramsDir), vkFile)
	}
	vk, err := groth16.ReadVerifyingKey(vkFile)
	if err != nil {
		return err
	}
	proof := d.proof()
	if proofGiven {
		if proof, err = os.ReadFile(o.proof); err != nil {
			return err
		}
	}
	if len(proof) == 0 {
		return fmt.Errorf("%s has no proof (cuzk prove --public fills it), and no --proof was given", o.public)
	}
	if v, ok := nonInteractiveSeal(d); ok {
		return o.verifyNonInteractive(w, v, vk, proof)
	}
	err = verifyPublic(d, vk, proof, o.partition)
	if errors.Is(err, errBadPublic) {
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
