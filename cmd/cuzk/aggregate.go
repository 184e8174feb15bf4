package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/aggregate"
	"github.com/cuzk-project/cuzk/groth16"
)

// aggregateOptions are the flags of `cuzk aggregate`.
type aggregateOptions struct {
	proofs    string
	public    string
	paramsDir string
	vk        string
	out       string
	devSRS    bool
	checkSRS  bool
}

const aggregateLong = `Aggregates the seal proofs of a commit batch into one SnarkPack (V2) proof, as filecoin-ffi's
AggregateSealProofs does for ProveCommitSectors3, verifies the aggregate, and writes its bytes.

--public lists the sectors' SealVerifyInfo files in batch order (as cuzk gen-vanilla porep
--public writes them and cuzk prove --public fills them): one miner, one seal proof, interactive
PoRep. --proofs lists each sector's C2 proof (partitions × 192 bytes) in the same order; without it
each file's Proof field is used. The partition proofs, sector after sector, are padded to a power
of two by repeating the last; the transcript binds every sector's seed and comm_r in order, so the
aggregate verifies only with the same files in the same order (cuzk verify --aggregate).

The SRS is v28-fil-inner-product-v1.srs in --params-dir (default $FIL_PROOFS_PARAMETER_CACHE, else
/var/tmp/filecoin-proof-parameters), the file Filecoin's ceremony produced. --dev-srs writes a
development SRS there when the directory has none: its secret follows from a public seed, so
anyone can forge aggregates under it; it is for development and tests, never for mainnet.
--check-srs reads the whole SRS file first and refuses it unless its digest is the ceremony file's
(the first 16 bytes of its BLAKE2b-512, as the parameter manifest records it).

  cuzk aggregate --public s1.json,s2.json,s3.json,s4.json --params-dir ./params --out agg.bin
  cuzk verify --aggregate agg.bin --public s1.json,s2.json,s3.json,s4.json --params-dir ./params`

func newAggregateCmd() *cobra.Command {
	o := &aggregateOptions{}
	cmd := &cobra.Command{
		Use:   "aggregate --public s1.json,… [--proofs p1.bin,…] --out agg.bin",
		Short: "Aggregate a commit batch's seal proofs into one SnarkPack proof (verified before it is written)",
		Long:  aggregateLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.public, "public", "", "the sectors' SealVerifyInfo JSON files, comma-separated, in batch order")
	f.StringVar(&o.proofs, "proofs", "", "the sectors' C2 proof files, comma-separated, in the same order (default: each file's Proof)")
	f.StringVar(&o.paramsDir, "params-dir", "", "parameter directory holding v28-fil-inner-product-v1.srs and the .vk")
	f.StringVar(&o.vk, "vk", "", "the PoRep .vk (default: its real name in --params-dir)")
	f.StringVar(&o.out, "out", "", "aggregate proof file to write")
	f.BoolVar(&o.devSRS, "dev-srs", false, "write a development SRS (forgeable; never for mainnet) into --params-dir when it has none")
	f.BoolVar(&o.checkSRS, "check-srs", false, "refuse an SRS file whose digest is not the mainnet one's (reads the whole file)")
	return cmd
}

func (o *aggregateOptions) run(ctx context.Context, w, ew io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.public == "" || o.out == "" {
		return errors.New("give --public (the sectors' SealVerifyInfo files) and --out")
	}
	seals, err := readSeals(o.public)
	if err != nil {
		return err
	}
	proofs := make([][]byte, len(seals))
	if o.proofs != "" {
		files := splitList(o.proofs)
		if len(files) != len(seals) {
			return fmt.Errorf("--proofs has %d files, --public %d: one proof per sector", len(files), len(seals))
		}
		for i, f := range files {
			if proofs[i], err = os.ReadFile(f); err != nil {
				return err
			}
		}
	} else {
		for i := range seals {
			if len(seals[i].Proof) == 0 {
				return fmt.Errorf("%s has no proof (cuzk prove --public fills it), and no --proofs was given", splitList(o.public)[i])
			}
			proofs[i] = seals[i].Proof
		}
	}
	dir := paramsDir(o.paramsDir)
	if o.devSRS {
		if err := o.writeDevSRS(dir, ew, seals); err != nil {
			return err
		}
	}
	if o.checkSRS {
		if err := aggregate.CheckSRSDigest(filepath.Join(dir, aggregate.SRSFile)); err != nil {
			return fmt.Errorf("--check-srs: %w", err)
		}
	}
	srs, err := aggregate.ReadSRS(dir)
	if err != nil {
		return fmt.Errorf("reading the SnarkPack SRS: %w (--dev-srs writes a development one)", err)
	}
	vk, err := readSealVK(o.vk, o.paramsDir, seals)
	if err != nil {
		return err
	}
	agg, err := aggregate.AggregateSeals(ctx, srs, seals, proofs)
	if err != nil {
		return err
	}
	if err := aggregate.VerifySeals(srs, vk, seals, agg, nil); err != nil {
		return fmt.Errorf("the aggregate does not verify, so it is not written: %w%s", err, badSectors(vk, seals, proofs))
	}
	if err := os.WriteFile(o.out, agg, 0o644); err != nil {
		return err
	}
	info, _ := seals[0].SealProof.Info() // checked by AggregateSeals
	n := len(seals) * info.Partitions
	fmt.Fprintf(w, "aggregated %d sectors (%d partition proofs, padded to %d) into %d bytes, verified: %s\n",
		len(seals), n, aggregate.TargetLen(n), len(agg), o.out)
	return nil
}

// writeDevSRS writes a development SRS into dir unless dir has an SRS
// file already, large enough for this batch or for 256 proofs.
func (o *aggregateOptions) writeDevSRS(dir string, ew io.Writer, seals []filecoin.SealVerifyInfo) error {
	info, err := seals[0].SealProof.Info()
	if err != nil {
		return fmt.Errorf("%s: SealProof %d: %w", splitList(o.public)[0], seals[0].SealProof, err)
	}
	path, err := aggregate.WriteDevSRS(dir, max(len(seals)*info.Partitions, 256))
	switch {
	case errors.Is(err, fs.ErrExist):
		fmt.Fprintf(ew, "--dev-srs: %s exists; using it as it is\n", path)
		return nil
	case err != nil:
		return err
	}
	fmt.Fprintf(ew, "wrote a DEVELOPMENT SRS to %s: anyone can forge aggregates under it; never use it for mainnet\n", path)
	return nil
}

// readSealVK reads vkFlag, or the seal proof's .vk in the parameter
// directory.
func readSealVK(vkFlag, dirFlag string, seals []filecoin.SealVerifyInfo) (*groth16.VerifyingKey, error) {
	if vkFlag != "" {
		return groth16.ReadVerifyingKey(vkFlag)
	}
	info, err := seals[0].SealProof.Info()
	if err != nil {
		return nil, fmt.Errorf("SealProof %d: %w", seals[0].SealProof, err)
	}
	return groth16.ReadVerifyingKey(filepath.Join(paramsDir(dirFlag), info.VKFile()))
}

// badSectors names the sectors whose own proofs do not verify, the usual
// reason an aggregate fails.
func badSectors(vk *groth16.VerifyingKey, seals []filecoin.SealVerifyInfo, proofs [][]byte) string {
	var bad []string
	for i := range seals {
		if err := verifyPublic(sealData{&seals[i]}, vk, proofs[i], -1); err != nil {
			bad = append(bad, fmt.Sprintf("sector %d (number %d): %v", i, seals[i].Number, err))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return "; proofs that do not verify on their own: " + strings.Join(bad, "; ")
}

// readSeals reads a comma-separated list of SealVerifyInfo files.
func readSeals(list string) ([]filecoin.SealVerifyInfo, error) {
	files := splitList(list)
	seals := make([]filecoin.SealVerifyInfo, len(files))
	for i, f := range files {
		d, err := readPublic(f)
		if err != nil {
			return nil, err
		}
		s, ok := d.(sealData)
		if !ok {
			return nil, fmt.Errorf("%s is a %s; aggregation takes SealVerifyInfo files", f, d.form())
		}
		seals[i] = *s.v
	}
	return seals, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// runAggregate is `cuzk verify --aggregate`: the aggregate against the
// sectors' public data, exit codes as verify's.
func (o *verifyOptions) runAggregate(w io.Writer, vkGiven bool) error {
	seals, err := readSeals(o.public)
	if err != nil {
		return err
	}
	agg, err := os.ReadFile(o.aggregate)
	if err != nil {
		return err
	}
	vkFlag := ""
	if vkGiven {
		vkFlag = o.vk
	}
	vk, err := readSealVK(vkFlag, o.paramsDir, seals)
	if err != nil {
		return err
	}
	srs, err := aggregate.ReadSRS(paramsDir(o.paramsDir))
	if err != nil {
		return fmt.Errorf("reading the SnarkPack SRS: %w", err)
	}
	err = aggregate.VerifySeals(srs, vk, seals, agg, nil)
	if errors.Is(err, aggregate.ErrInvalid) || errors.Is(err, aggregate.ErrBadBatch) {
		fmt.Fprintf(w, "invalid (%v)\n", err)
		return exitError{1}
	}
	return verdict(w, err)
}
