package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/gen"
)

func newGenVanillaCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gen-vanilla",
		Short: "Generate synthetic vanilla proofs and the requests that carry them, for every proof kind",
		Args:  genVanillaFamily,
		// A misspelt family finds no subcommand, leaving its flags to
		// this command: the error says which families there are.
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return errors.New("name what to generate: cuzk gen-vanilla porep|winning-post|window-post|snap …")
		},
	}
	cmd.AddCommand(newGenVanillaPoRepCmd(), newGenVanillaPoStCmd(kindWinning), newGenVanillaPoStCmd(kindWindow), newGenVanillaSnapCmd())
	for _, sub := range cmd.Commands() {
		sub.Aliases = familySpellings(sub.Name())
	}
	return cmd
}

// genVanillaFamily refuses the argument gen-vanilla found no subcommand
// for: not a proof kind, or one in a case of its own (subcommand names
// are matched exactly).
func genVanillaFamily(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	family, err := proofFamily(args[0])
	if err != nil {
		return fmt.Errorf("gen-vanilla %s: %w", args[0], err)
	}
	return fmt.Errorf("gen-vanilla %s: write it %s (or one of %s)", args[0], family, strings.Join(familySpellings(family), ", "))
}

// genPoRepOptions are the flags of `cuzk gen-vanilla porep`.
type genPoRepOptions struct {
	proofType string
	seed      uint64
	miner     uint64
	sector    uint64
	out       string
	public    string
	raw       string
}

const genPoRepLong = `Generates the C1 output of a zero-data sector of the given registered proof (any size; an
interactive 32 GiB one in seconds, without sealing anything), deterministic from --seed, and writes:

  --out     the request as Curio's client sends it for that sector: the protobuf JSON of
            cuzk.v1.SubmitProofRequest (POREP_SEAL_COMMIT, the C1 in Curio's envelope as
            vanilla_proof), for grpcurl -d @ … cuzk.v1.ProvingEngine/SubmitProof, or
            cuzk check / cuzk prove --request;
  --public  the sector's public data as go-state-types' SealVerifyInfo JSON, Proof empty
            (cuzk prove --public fills it, cuzk verify --public checks it);
  --raw     the bare C1 JSON, as filecoin-ffi's seal_commit_phase1 writes it.

  cuzk gen-vanilla porep --proof-type StackedDrg2KiBV1_1 --seed 1 --out req.json --public seal.json`

func newGenVanillaPoRepCmd() *cobra.Command {
	o := &genPoRepOptions{}
	cmd := &cobra.Command{
		Use:   "porep --proof-type <name> --seed N --out req.json [--public seal.json] [--raw c1.json]",
		Short: "Generate a PoRep C1 (Curio's C2 request) for any registered seal proof",
		Long:  genPoRepLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.proofType, "proof-type", "", "registered seal proof, e.g. StackedDrg32GiBV1_1 (required)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the ticket, the interactive seed and every chosen label")
	f.Uint64Var(&o.miner, "miner", 1000, "miner actor id (the prover id)")
	f.Uint64Var(&o.sector, "sector", 1, "sector number")
	f.StringVar(&o.out, "out", "", "request file to write (required)")
	f.StringVar(&o.public, "public", "", "SealVerifyInfo JSON to write")
	f.StringVar(&o.raw, "raw", "", "bare C1 JSON to write")
	return cmd
}

func (o *genPoRepOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	if o.proofType == "" || o.out == "" {
		return errors.New("--proof-type and --out are required")
	}
	proof, err := filecoin.ParseSealProof(o.proofType)
	if err != nil {
		return fmt.Errorf("--proof-type %q: %w", o.proofType, err)
	}
	info, err := proof.Info()
	if err != nil {
		return fmt.Errorf("--proof-type %q: %w", o.proofType, err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	progress, clear := stepProgress(stderr, "gen-vanilla "+info.Name)
	t0 := time.Now()
	p, err := gen.GeneratePoRep(ctx, gen.PoRepOptions{Proof: proof, Seed: o.seed, Miner: o.miner, Sector: o.sector}, progress)
	clear()
	if err != nil {
		return err
	}
	took := time.Since(t0)
	envelope := p.Envelope.Encode()
	if err := writeRequest(o.out, porepRequest(info, o.miner, o.sector, envelope)); err != nil {
		return err
	}
	wrote := o.out
	if o.public != "" {
		if err := writeSeal(o.public, &p.Info); err != nil {
			return err
		}
		wrote += ", " + o.public
	}
	if o.raw != "" {
		if err := os.WriteFile(o.raw, p.Envelope.Phase1Out, 0o644); err != nil {
			return err
		}
		wrote += ", " + o.raw
	}
	fmt.Fprintf(stdout, "wrote %s: %s C1 of miner f0%d sector %d (seed %d), %d partitions × %d challenges, %s envelope, generated in %v\n",
		wrote, info.Name, o.miner, o.sector, o.seed, info.Partitions, info.Challenges,
		config.Size(len(envelope)).Human(), took.Round(time.Millisecond))
	return nil
}
