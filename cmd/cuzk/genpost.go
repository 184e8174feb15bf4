package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	"github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/filecoin/update"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// genProofOptions are the flags of `cuzk gen-vanilla winning-post`,
// `window-post` and `snap`.
type genProofOptions struct {
	kind      string // kindWinning, kindWindow or kindSnap
	proofType string
	seed      uint64
	miner     uint64
	sectors   string // the PoSt sector numbers
	sector    uint64 // the SnapDeals sector
	partition int
	out       string
	public    string
}

const genPoStLong = `Generates the vanilla proofs of a %s for any registered size, deterministic from
--seed, without a sealed sector (sparse trees R: only the challenged leaves and their paths), and
writes:

  --out     the request as Curio's client sends it: the protobuf JSON of
            cuzk.v1.SubmitProofRequest (%s, priority %s, one bincode
            FallbackPoStSectorProof per sector in vanilla_proofs, the randomness%s),
            for grpcurl -d @ … cuzk.v1.ProvingEngine/Prove, cuzk check or cuzk prove --request;
  --public  the public data as go-state-types' %s JSON, ProofBytes empty
            (cuzk prove --public fills it, cuzk verify --public checks it).

%s

  %s`

const genSnapLong = `Generates the vanilla proofs of a SnapDeals update of a sector of any registered size,
deterministic from --seed (up to 8 MiB every leaf drawn; above, patterned trees that cost a few
hashes per level), and writes:

  --out     the request as Curio's client sends it: the protobuf JSON of
            cuzk.v1.SubmitProofRequest (SNAP_DEALS_UPDATE, priority NORMAL, one bincode
            PartitionProof per partition in vanilla_proofs, comm_r_old, comm_r_new and
            comm_d_new as the raw 32-byte digests Curio's client takes out of the CIDs),
            for grpcurl -d @ … cuzk.v1.ProvingEngine/Prove, cuzk check or cuzk prove --request;
  --public  the public data as go-state-types' ReplicaUpdateInfo JSON, Proof empty
            (cuzk prove --public fills it, cuzk verify --public checks it).

--proof-type is a registered update proof (StackedDrg2KiBV1 … StackedDrg64GiBV1), or the seal
proof of the sector (StackedDrg2KiBV1_1 …).

  cuzk gen-vanilla snap --proof-type StackedDrg2KiBV1 --seed 1 --out req.json --public update.json`

func newGenVanillaPoStCmd(kind string) *cobra.Command {
	o := &genProofOptions{kind: kind}
	var use, short, long string
	switch kind {
	case kindWinning:
		use = "winning-post --proof-type <name> --seed N --out req.json [--public winning.json] [--miner M] [--sectors LIST]"
		short = "Generate a WinningPoSt's vanilla proof (Curio's WINNING_POST request) for any registered size"
		long = fmt.Sprintf(genPoStLong, "WinningPoSt", "WINNING_POST", "CRITICAL", "", "WinningPoStVerifyInfo",
			`--sectors is the miner's proving set (default 1-8); the challenged sector is drawn from it
with the randomness and the miner's prover id, as the chain draws it.`,
			"cuzk gen-vanilla winning-post --proof-type StackedDrgWinning2KiBV1 --seed 1 --out req.json --public winning.json")
	case kindWindow:
		use = "window-post --proof-type <name> --seed N --out req.json [--public window.json] [--miner M] [--sectors LIST] [--partition K]"
		short = "Generate a WindowPoSt partition's vanilla proofs (Curio's WINDOW_POST_PARTITION request) for any registered size"
		long = fmt.Sprintf(genPoStLong, "WindowPoSt partition", "WINDOW_POST_PARTITION", "HIGH", " and partition_index",
			"WindowPoStVerifyInfo",
			`--sectors are the sector numbers of the whole deadline's proof (default: --partition + 1 full
partitions), taken in increasing order and cut into partitions of the proof's sector count;
--partition K is the partition the request proves. The public data holds every partition's
sectors: its ProofBytes are the partitions' proofs concatenated, and cuzk prove --public fills
partition K's 192 bytes (cuzk verify --partition K checks one).`,
			"cuzk gen-vanilla window-post --proof-type StackedDrgWindow2KiBV1_2 --seed 1 --partition 1 --out req.json --public window.json")
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.sectors, "sectors", "", "sector numbers, e.g. 1-8 or 3,5,7-9 (default: see above)")
	if kind == kindWindow {
		f.IntVar(&o.partition, "partition", 0, "the partition of the deadline's proof the request proves (partition_index)")
	}
	return cmd
}

func newGenVanillaSnapCmd() *cobra.Command {
	o := &genProofOptions{kind: kindSnap}
	cmd := &cobra.Command{
		Use:   "snap --proof-type <name> --seed N --out req.json [--public update.json] [--miner M] [--sector S]",
		Short: "Generate a SnapDeals update's vanilla proofs (Curio's SNAP_DEALS_UPDATE request) for any registered size",
		Long:  genSnapLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.register(cmd)
	cmd.Flags().Uint64Var(&o.sector, "sector", 1, "sector number")
	return cmd
}

func (o *genProofOptions) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.proofType, "proof-type", "", "registered proof (required)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the randomness and every drawn value")
	f.Uint64Var(&o.miner, "miner", 1000, "miner actor id (the prover id)")
	f.StringVar(&o.out, "out", "", "request file to write (required)")
	f.StringVar(&o.public, "public", "", "public data JSON to write")
}

// generated is what a generator made: the request, its public data and a
// line for people.
type generated struct {
	req     *cuzkv1.SubmitProofRequest
	public  publicData
	summary string
}

func (o *genProofOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	if o.proofType == "" || o.out == "" {
		return errors.New("--proof-type and --out are required")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	sectors, err := parseSectors(o.sectors)
	if err != nil {
		return fmt.Errorf("--sectors %q: %w", o.sectors, err)
	}
	stop := elapsedProgress(stderr, "gen-vanilla "+o.kind+" "+o.proofType)
	t0 := time.Now()
	var g *generated
	switch o.kind {
	case kindWinning:
		g, err = o.winning(ctx, sectors)
	case kindWindow:
		g, err = o.window(ctx, sectors)
	default:
		g, err = o.snap(ctx)
	}
	stop()
	if err != nil {
		return err
	}
	took := time.Since(t0)
	if err := writeRequest(o.out, g.req); err != nil {
		return err
	}
	wrote := o.out
	if o.public != "" {
		if err := writePublic(o.public, g.public); err != nil {
			return err
		}
		wrote += ", " + o.public
	}
	size := 0
	for _, b := range g.req.VanillaProofs {
		size += len(b)
	}
	fmt.Fprintf(stdout, "wrote %s: %s (seed %d), %d vanilla proofs of %s, generated in %v\n",
		wrote, g.summary, o.seed, len(g.req.VanillaProofs), config.Size(size).Human(), took.Round(time.Millisecond))
	return nil
}

func (o *genProofOptions) postProof() (post.Proof, error) {
	if _, err := lookupProof(o.kind, o.proofType); err != nil {
		return 0, fmt.Errorf("--proof-type %q: %w", o.proofType, err)
	}
	return post.ParseProof(o.proofType)
}

func (o *genProofOptions) winning(ctx context.Context, sectors []uint64) (*generated, error) {
	p, err := o.postProof()
	if err != nil {
		return nil, err
	}
	w, err := gen.GenerateWinningPoSt(ctx, gen.WinningOptions{Proof: p, Seed: o.seed, Miner: o.miner, Sectors: sectors})
	if err != nil {
		return nil, err
	}
	req, err := postRequest(w.Request)
	if err != nil {
		return nil, err
	}
	public := w.Public
	return &generated{req, &winningData{&public, w.Info},
		fmt.Sprintf("%s WinningPoSt of miner f0%d, sector %d challenged of %d", w.Info.Name, o.miner, w.Challenged, len(w.Sectors))}, nil
}

func (o *genProofOptions) window(ctx context.Context, sectors []uint64) (*generated, error) {
	p, err := o.postProof()
	if err != nil {
		return nil, err
	}
	w, err := gen.GenerateWindowPoSt(ctx, gen.WindowOptions{Proof: p, Seed: o.seed, Miner: o.miner, Sectors: sectors, Partition: o.partition})
	if err != nil {
		return nil, err
	}
	req, err := postRequest(w.Request)
	if err != nil {
		return nil, err
	}
	public := w.Public
	return &generated{req, &windowData{&public, w.Info},
		fmt.Sprintf("%s WindowPoSt of miner f0%d, partition %d of %d (%d of %d sectors)", w.Info.Name, o.miner,
			w.Partition, w.Partitions, len(w.Proofs), len(w.Public.ChallengedSectors))}, nil
}

func (o *genProofOptions) snap(ctx context.Context) (*generated, error) {
	p, err := update.ParseProof(o.proofType)
	if err != nil {
		seal, serr := filecoin.ParseSealProof(o.proofType)
		if serr != nil {
			return nil, fmt.Errorf("--proof-type %q: neither an update nor a seal proof: %w", o.proofType, err)
		}
		if p, err = update.ForSealProof(seal); err != nil {
			return nil, fmt.Errorf("--proof-type %q: %w", o.proofType, err)
		}
	}
	s, err := gen.GenerateSnap(ctx, gen.SnapOptions{Proof: p, Seed: o.seed, Miner: o.miner, Sector: o.sector})
	if err != nil {
		return nil, err
	}
	req := snapRequest(s)
	public := s.Public
	return &generated{req, &snapData{&public, s.Info},
		fmt.Sprintf("%s SnapDeals update of miner f0%d sector %d, %d partitions × %d challenges", s.Info.Name, o.miner, o.sector,
			s.Info.Partitions, s.Info.Challenges)}, nil
}

// postRequest is the SubmitProofRequest of a generated PoSt, as Curio's
// client fills it (curio lib/ffi cuzk_funcs.go WinningPoStCuzk,
// WindowPoStCuzk): no sector number, the randomness with byte 31 masked.
func postRequest(r gen.PoStRequest) (*cuzkv1.SubmitProofRequest, error) {
	kind, ok := cuzkv1.ProofKind_value[r.ProofKind]
	if !ok {
		return nil, fmt.Errorf("gen: proof kind %q", r.ProofKind)
	}
	priority, ok := cuzkv1.Priority_value[r.Priority]
	if !ok {
		return nil, fmt.Errorf("gen: priority %q", r.Priority)
	}
	return &cuzkv1.SubmitProofRequest{
		RequestId:       r.RequestID,
		ProofKind:       cuzkv1.ProofKind(kind),
		SectorSize:      r.SectorSize,
		RegisteredProof: r.RegisteredProof,
		Priority:        cuzkv1.Priority(priority),
		VanillaProofs:   r.VanillaProofs,
		MinerId:         r.MinerID,
		Randomness:      r.Randomness,
		PartitionIndex:  r.PartitionIndex,
	}, nil
}

// snapRequest is the SubmitProofRequest of a generated update as Curio's
// client fills it (curio lib/ffi cuzk_funcs.go ProveUpdateCuzk): the id
// "snap-<miner>-<sector>", normal priority, and the three comms as the
// raw 32-byte digests go-fil-commcid takes out of their CIDs
// (CIDToReplicaCommitmentV1, CIDToDataCommitmentV1).
func snapRequest(s *gen.Snap) *cuzkv1.SubmitProofRequest {
	return &cuzkv1.SubmitProofRequest{
		RequestId:       fmt.Sprintf("snap-%d-%d", s.Miner, s.Sector),
		ProofKind:       cuzkv1.ProofKind_SNAP_DEALS_UPDATE,
		SectorSize:      s.Info.SectorSize,
		RegisteredProof: uint64(s.Info.Proof),
		Priority:        cuzkv1.Priority_NORMAL,
		VanillaProofs:   s.VanillaProofs,
		SectorNumber:    s.Sector,
		MinerId:         s.Miner,
		CommROld:        s.CommROld[:],
		CommRNew:        s.CommRNew[:],
		CommDNew:        s.CommDNew[:],
	}
}

// parseSectors reads a list of sector numbers and ranges ("1-8",
// "3,5,7-9"); "" is none (the generator's default).
func parseSectors(s string) ([]uint64, error) {
	if s == "" {
		return nil, nil
	}
	const most = 1 << 20 // far above a deadline's sectors
	var out []uint64
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a sector number", part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a range of sector numbers", part)
			}
		}
		if b-a >= most || len(out)+int(b-a) >= most {
			return nil, fmt.Errorf("more than %d sectors", most)
		}
		for n := a; ; n++ {
			out = append(out, n)
			if n == b {
				break
			}
		}
	}
	return out, nil
}
