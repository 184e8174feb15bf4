package gen

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/filecoin/sdr"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// GeneratePoRep makes the C1 output of a zero-data sector of o.Proof's size
// for miner o.Miner, sector o.Sector, with the ticket, the interactive seed
// and every chosen label drawn from o.Seed.
//
// Interactive proofs are generated sparsely in time and memory independent
// of the sector size (32 GiB: 180 challenges, about 2,700 columns).
// Synthetic and non-interactive proofs label the whole sector and fail with
// ErrTooLarge above DenseMaxNodes.
//
// progress, when not nil, is called with the steps done out of the total
// after each step, from the calling goroutine. GeneratePoRep stops with
// ctx's error between steps.
func GeneratePoRep(ctx context.Context, o PoRepOptions, progress func(done, total int)) (*PoRep, error) {
	info, err := o.Proof.Info()
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	dense := info.Feature != filecoin.Interactive
	return generate(ctx, info, o, dense, progress)
}

// generate is GeneratePoRep with the labelling chosen by the caller: tests
// also label interactive sectors densely.
func generate(ctx context.Context, info filecoin.SealInfo, o PoRepOptions, dense bool, progress func(done, total int)) (*PoRep, error) {
	if err := checkGenerate(info, o, dense); err != nil {
		return nil, err
	}
	step := progressSteps(info, dense, progress)
	ticket := drawNonZero(o.Seed, "ticket")
	seed := drawNonZero(o.Seed, "seed")
	s, commD, err := newSector(info, o, ticket)
	if err != nil {
		return nil, err
	}
	var challenges [][]uint64
	var rCommR hash.Domain
	if dense {
		rCommR, challenges, err = s.sealDense(ctx, seed, step)
	} else {
		rCommR, challenges, err = s.sealSparse(ctx, o.Seed, seed, step)
	}
	if err != nil {
		return nil, err
	}
	out := &c1.Output{
		RegisteredProof: info.Name,
		VanillaKey:      info.VanillaKey,
		CommR:           rCommR,
		CommD:           commD,
		ReplicaID:       s.replicaID,
		Seed:            seed,
		Ticket:          ticket,
	}
	if out.Partitions, err = s.provePartitions(ctx, challenges, step); err != nil {
		return nil, err
	}
	return s.porep(o, out, dense, step)
}

// checkGenerate refuses what generate cannot make: a dense sector above
// DenseMaxNodes and a sector number Curio's envelope cannot carry.
func checkGenerate(info filecoin.SealInfo, o PoRepOptions, dense bool) error {
	if dense && info.Nodes > DenseMaxNodes {
		return fmt.Errorf("%w: %s: %s challenges depend on comm_r, so all %d nodes would have to be labelled (dense generation stops at %d nodes, 8 MiB); only interactive proofs are generated sparsely",
			ErrTooLarge, info.Name, info.Feature, info.Nodes, DenseMaxNodes)
	}
	if o.Sector > math.MaxInt64 {
		return fmt.Errorf("gen: sector number %d does not fit Curio's int64", o.Sector)
	}
	return nil
}

// progressSteps returns the function generate calls after each step: it
// counts the step and reports it to progress, when not nil. The steps are
// the parents, each layer, the column hashes (dense only), trees C and R,
// each partition and the JSON.
func progressSteps(info filecoin.SealInfo, dense bool, progress func(done, total int)) func() {
	total := 1 + info.Layers + 2 + info.Partitions + 1
	if dense {
		total++
	}
	done := 0
	return func() {
		done++
		if progress != nil {
			progress(done, total)
		}
	}
}

// newSector starts the sector of o with the given ticket: its graph, its
// zero-data tree D (whose root, comm_d, it returns) and its replica id.
// The columns and trees C and R are left to the labelling.
func newSector(info filecoin.SealInfo, o PoRepOptions, ticket [32]byte) (*sector, hash.Domain, error) {
	g, err := sdr.GraphFor(info)
	if err != nil {
		return nil, hash.Domain{}, fmt.Errorf("gen: graph: %w", err)
	}
	treeD, err := zeroTreeD(info.Nodes)
	if err != nil {
		return nil, hash.Domain{}, fmt.Errorf("gen: tree D: %w", err)
	}
	commD := treeD.Root()
	replicaID := filecoin.ReplicaID(filecoin.ProverID(o.Miner), o.Sector, ticket, commD, filecoin.PoRepID(info.Proof))
	return &sector{info: info, graph: g, replicaID: replicaID, treeD: treeD}, commD, nil
}

// sealDense labels every node of s and builds its trees, then draws each
// partition's challenges by s's feature: they may depend on the comm_r it
// returns.
func (s *sector) sealDense(ctx context.Context, seed [32]byte, step func()) (hash.Domain, [][]uint64, error) {
	step() // the parents are computed with the first layer
	dc, err := labelDense(ctx, s.graph, s.replicaID, s.info.Layers, s.info.Nodes, step)
	if err != nil {
		return hash.Domain{}, nil, err
	}
	tc, tr, err := denseTrees(dc, s.info.TreeR, s.info.Nodes, step)
	if err != nil {
		return hash.Domain{}, nil, err
	}
	rCommR, err := s.setTrees(dc.column, tc, tr)
	if err != nil {
		return hash.Domain{}, nil, err
	}
	challenges := make([][]uint64, 0, s.info.Partitions)
	for k := range s.info.Partitions {
		ch, err := sdr.Challenges(s.info, s.replicaID, seed, rCommR, k)
		if err != nil {
			return hash.Domain{}, nil, fmt.Errorf("gen: partition %d challenges: %w", k, err)
		}
		challenges = append(challenges, ch)
	}
	return rCommR, challenges, nil
}

// sealSparse draws each partition's interactive challenges first, then
// labels only the challenged nodes of s (their other parents' columns drawn
// from drawSeed) and builds its trees over them. It returns comm_r and the
// challenges.
func (s *sector) sealSparse(ctx context.Context, drawSeed uint64, seed [32]byte, step func()) (hash.Domain, [][]uint64, error) {
	challenges := make([][]uint64, 0, s.info.Partitions)
	var all []uint64
	for k := range s.info.Partitions {
		ch := sdr.InteractiveChallenges(s.replicaID, seed, s.info.Nodes, k, s.info.Challenges)
		challenges = append(challenges, ch)
		all = append(all, ch...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	sc, err := labelSparse(ctx, s.graph, s.replicaID, s.info.Layers, drawSeed, all, step)
	if err != nil {
		return hash.Domain{}, nil, err
	}
	tc, tr, err := sparseTrees(sc, s.info.TreeR, s.info.Nodes, step)
	if err != nil {
		return hash.Domain{}, nil, err
	}
	rCommR, err := s.setTrees(sc.column, tc, tr)
	if err != nil {
		return hash.Domain{}, nil, err
	}
	return rCommR, challenges, nil
}

// setTrees gives s its columns and trees C and R and returns comm_r.
func (s *sector) setTrees(column func(v uint32) ([]hash.Domain, bool), treeC, treeR *merkle.Sparse) (hash.Domain, error) {
	s.column, s.treeC, s.treeR = column, treeC, treeR
	s.commC, s.commRLast = treeC.Root(), treeR.Root()
	return commR(s.commC, s.commRLast)
}

// provePartitions cuts the vanilla proof of every challenge, one partition
// (one step) at a time, stopping with ctx's error between partitions.
func (s *sector) provePartitions(ctx context.Context, challenges [][]uint64, step func()) ([][]c1.Proof, error) {
	partitions := make([][]c1.Proof, len(challenges))
	for k, ch := range challenges {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		partitions[k] = make([]c1.Proof, len(ch))
		for i, c := range ch {
			var err error
			if partitions[k][i], err = s.prove(c); err != nil {
				return nil, fmt.Errorf("gen: partition %d challenge %d (node %d): %w", k, i, c, err)
			}
		}
		step()
	}
	return partitions, nil
}

// porep wraps out, the C1 of s, as Curio sends it (the JSON is the last
// step) with the sector's public data.
func (s *sector) porep(o PoRepOptions, out *c1.Output, dense bool, step func()) (*PoRep, error) {
	js, err := out.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("gen: C1 JSON: %w", err)
	}
	step()
	ticket, seed := out.Ticket, out.Seed
	return &PoRep{
		Output:   out,
		Envelope: &c1.Envelope{SectorNum: int64(o.Sector), Phase1Out: js, SectorSize: s.info.SectorSize},
		Info: filecoin.SealVerifyInfo{
			SealProof:             s.info.Proof,
			SectorID:              filecoin.SectorID{Miner: o.Miner, Number: o.Sector},
			Randomness:            ticket[:],
			InteractiveRandomness: seed[:],
			SealedCID:             filecoin.SealedCID(out.CommR),
			UnsealedCID:           filecoin.UnsealedCID(out.CommD),
		},
		CommC:     s.commC,
		CommRLast: s.commRLast,
		Dense:     dense,
	}, nil
}
