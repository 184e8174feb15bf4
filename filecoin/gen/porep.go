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
	if dense && info.Nodes > DenseMaxNodes {
		return nil, fmt.Errorf("%w: %s: %s challenges depend on comm_r, so all %d nodes would have to be labelled (dense generation stops at %d nodes, 8 MiB); only interactive proofs are generated sparsely",
			ErrTooLarge, info.Name, info.Feature, info.Nodes, DenseMaxNodes)
	}
	if o.Sector > math.MaxInt64 {
		return nil, fmt.Errorf("gen: sector number %d does not fit Curio's int64", o.Sector)
	}
	total := 1 + info.Layers + 2 + info.Partitions + 1 // parents, layers, trees C and R, partitions, JSON
	if dense {
		total++ // column hashes
	}
	done := 0
	step := func() {
		done++
		if progress != nil {
			progress(done, total)
		}
	}

	g, err := sdr.GraphFor(info)
	if err != nil {
		return nil, fmt.Errorf("gen: graph: %w", err)
	}
	treeD, err := zeroTreeD(info.Nodes)
	if err != nil {
		return nil, fmt.Errorf("gen: tree D: %w", err)
	}
	commD := treeD.Root()
	ticket := drawNonZero(o.Seed, "ticket")
	seed := drawNonZero(o.Seed, "seed")
	replicaID := filecoin.ReplicaID(filecoin.ProverID(o.Miner), o.Sector, ticket, commD, filecoin.PoRepID(info.Proof))

	s := &sector{info: info, graph: g, replicaID: replicaID, treeD: treeD}
	var challenges [][]uint64
	var rCommR hash.Domain
	if dense {
		step() // the parents are computed with the first layer
		dc, err := labelDense(ctx, g, replicaID, info.Layers, info.Nodes, step)
		if err != nil {
			return nil, err
		}
		tc, tr, err := denseTrees(dc, info.TreeR, info.Nodes, step)
		if err != nil {
			return nil, err
		}
		s.column, s.treeC, s.treeR = dc.column, tc, tr
		s.commC, s.commRLast = tc.Root(), tr.Root()
		if rCommR, err = commR(s.commC, s.commRLast); err != nil {
			return nil, err
		}
		for k := range info.Partitions {
			ch, err := sdr.Challenges(info, replicaID, seed, rCommR, k)
			if err != nil {
				return nil, fmt.Errorf("gen: partition %d challenges: %w", k, err)
			}
			challenges = append(challenges, ch)
		}
	} else {
		var all []uint64
		for k := range info.Partitions {
			ch := sdr.InteractiveChallenges(replicaID, seed, info.Nodes, k, info.Challenges)
			challenges = append(challenges, ch)
			all = append(all, ch...)
		}
		slices.Sort(all)
		all = slices.Compact(all)
		sc, err := labelSparse(ctx, g, replicaID, info.Layers, o.Seed, all, step)
		if err != nil {
			return nil, err
		}
		tc, tr, err := sparseTrees(sc, info.TreeR, info.Nodes, step)
		if err != nil {
			return nil, err
		}
		s.column, s.treeC, s.treeR = sc.column, tc, tr
		s.commC, s.commRLast = tc.Root(), tr.Root()
		if rCommR, err = commR(s.commC, s.commRLast); err != nil {
			return nil, err
		}
	}

	out := &c1.Output{
		RegisteredProof: info.Name,
		VanillaKey:      info.VanillaKey,
		Partitions:      make([][]c1.Proof, info.Partitions),
		CommR:           rCommR,
		CommD:           commD,
		ReplicaID:       replicaID,
		Seed:            seed,
		Ticket:          ticket,
	}
	for k, ch := range challenges {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out.Partitions[k] = make([]c1.Proof, len(ch))
		for i, c := range ch {
			if out.Partitions[k][i], err = s.prove(c); err != nil {
				return nil, fmt.Errorf("gen: partition %d challenge %d (node %d): %w", k, i, c, err)
			}
		}
		step()
	}

	js, err := out.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("gen: C1 JSON: %w", err)
	}
	step()
	return &PoRep{
		Output:   out,
		Envelope: &c1.Envelope{SectorNum: int64(o.Sector), Phase1Out: js, SectorSize: info.SectorSize},
		Info: filecoin.SealVerifyInfo{
			SealProof:             info.Proof,
			SectorID:              filecoin.SectorID{Miner: o.Miner, Number: o.Sector},
			Randomness:            ticket[:],
			InteractiveRandomness: seed[:],
			SealedCID:             filecoin.SealedCID(rCommR),
			UnsealedCID:           filecoin.UnsealedCID(commD),
		},
		CommC:     s.commC,
		CommRLast: s.commRLast,
		Dense:     dense,
	}, nil
}
