package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/porep"
	cpost "github.com/cuzk-project/cuzk/circuits/post"
	cupdate "github.com/cuzk-project/cuzk/circuits/update"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	fpost "github.com/cuzk-project/cuzk/filecoin/post"
	fupdate "github.com/cuzk-project/cuzk/filecoin/update"
	snarkpack "github.com/cuzk-project/cuzk/groth16/aggregate"
	"github.com/cuzk-project/cuzk/r1cs"
)

// checkUnits is what `cuzk check` needs of a decoded request: the units
// the daemon would prove (PoRep and SnapDeals partitions, the one PoSt
// circuit), the shape of one, and unit k's circuit with its values. The
// circuits are built from the vanilla proofs as the planner builds them,
// but also when the planner refuses the request, so that a refused
// request still shows which constraints fail.
type checkUnits struct {
	describe string // the request, for its first line
	verified string // what the planner's vanilla verification checks
	n        int
	hint     r1cs.Shape
	circuit  func(ctx context.Context, k int) (r1cs.Circuit, error)
}

// unitsOf decodes the request's vanilla proofs; an error means that they
// cannot be read at all.
func unitsOf(req *engine.Request) (*checkUnits, error) {
	switch req.Kind {
	case engine.KindPoRepSealCommit:
		return porepUnits(req)
	case engine.KindWinningPoSt, engine.KindWindowPoStPartition:
		return postUnits(req)
	case engine.KindSnapDealsUpdate:
		return snapUnits(req)
	}
	return nil, fmt.Errorf("proof kind %v", req.Kind)
}

// checkPlanner is the daemon's planner as check runs it: with no
// parameters and, for non-interactive PoRep, an SRS that only says yes.
// The planner wants an SRS before it accepts an NI C1 (its C2 is the
// aggregate of the partition proofs); check proves nothing, so nothing is
// ever aggregated.
func checkPlanner() *circuits.Registry {
	r := circuits.New()
	r.SetAggregationSRS(noAggregation{})
	return r
}

// noAggregation is the AggregationSRS of checkPlanner.
type noAggregation struct{}

func (noAggregation) Check() error { return nil }

func (noAggregation) Keys(int) (*snarkpack.ProverKey, *snarkpack.VerifierKey, error) {
	return nil, nil, errors.New("cuzk check aggregates nothing: it has no SnarkPack SRS")
}

// porepDescribe is the request line of a PoRep C1: for non-interactive
// PoRep also the challenges in all and the aggregate a C2 would be.
func porepDescribe(info filecoin.SealInfo, sector int64) string {
	s := fmt.Sprintf("%s (%s), sector %d, %d partitions × %d challenges",
		info.Name, info.CircuitID(), sector, info.Partitions, info.Challenges)
	if info.Feature != filecoin.NonInteractive {
		return s
	}
	n := 2
	for n < info.Partitions {
		n <<= 1
	}
	return s + fmt.Sprintf(" = %d challenges, non-interactive (challenges from comm_r); its C2 aggregates the %d partition proofs (padded to %d, %d bytes)",
		info.Partitions*info.Challenges, info.Partitions, n, snarkpack.Size(n))
}

func porepUnits(req *engine.Request) (*checkUnits, error) {
	env, out, err := c1.DecodeEnvelopeOutput(req.VanillaProof)
	if err != nil {
		return nil, err
	}
	info := out.Info()
	hint, err := porep.ConfigFor(info).Shape()
	if err != nil {
		return nil, err
	}
	return &checkUnits{
		describe: porepDescribe(info, env.SectorNum),
		verified: porepVerified(info),
		n:        info.Partitions,
		hint:     hint,
		circuit: func(ctx context.Context, k int) (r1cs.Circuit, error) {
			p, err := porep.NewPartition(out, k)
			if err != nil {
				return nil, err
			}
			p.Ctx = ctx
			return p, nil
		},
	}, nil
}

func porepVerified(info filecoin.SealInfo) string {
	if info.Feature == filecoin.NonInteractive {
		return "paths, columns, labels, encoding, challenges from comm_r"
	}
	return "paths, columns, labels, encoding, challenges"
}

func postUnits(req *engine.Request) (*checkUnits, error) {
	info, err := fpost.Proof(req.RegisteredProof).Info()
	if err != nil {
		return nil, fmt.Errorf("registered_proof: %w", err)
	}
	v, err := fpost.FromRequest(info, req.Randomness, req.VanillaProofs, int(req.PartitionIndex))
	if err != nil {
		return nil, err
	}
	hint, err := cpost.ConfigFor(info).Shape()
	if err != nil {
		return nil, err
	}
	describe := fmt.Sprintf("%s (%s), WinningPoSt of sector %d: %d openings", info.Name, info.CircuitID(),
		v.Sectors[0].SectorID, info.VanillaChallenges())
	if !info.Winning {
		describe = fmt.Sprintf("%s (%s), WindowPoSt partition_index %d: %d sectors (%d circuit sectors × %d challenges)",
			info.Name, info.CircuitID(), req.PartitionIndex, v.Given, info.SectorCount, info.Challenges)
	}
	return &checkUnits{
		describe: describe,
		verified: "openings of tree R, comm_r, leaf challenges",
		n:        1,
		hint:     hint,
		circuit: func(ctx context.Context, _ int) (r1cs.Circuit, error) {
			c, err := cpost.NewPartition(v)
			if err != nil {
				return nil, err
			}
			c.Ctx = ctx
			return c, nil
		},
	}, nil
}

func snapUnits(req *engine.Request) (*checkUnits, error) {
	info, err := fupdate.Proof(req.RegisteredProof).Info()
	if err != nil {
		return nil, fmt.Errorf("registered_proof: %w", err)
	}
	comms := fupdate.Partition{Info: info}
	if comms.CommROld, err = fupdate.ParseCommR(req.CommROld, "comm_r_old"); err != nil {
		return nil, err
	}
	if comms.CommDNew, err = fupdate.ParseCommD(req.CommDNew, "comm_d_new"); err != nil {
		return nil, err
	}
	if comms.CommRNew, err = fupdate.ParseCommR(req.CommRNew, "comm_r_new"); err != nil {
		return nil, err
	}
	if len(req.VanillaProofs) == 0 {
		return nil, fmt.Errorf("vanilla_proofs: none, %v has %d partitions", info.Proof, info.Partitions)
	}
	hint, err := cupdate.ConfigFor(info).Shape()
	if err != nil {
		return nil, err
	}
	return &checkUnits{
		describe: fmt.Sprintf("%s (%s), sector %d, %d partition proofs (%d partitions × %d challenges)",
			info.Name, info.CircuitID(), req.SectorNumber, len(req.VanillaProofs), info.Partitions, info.Challenges),
		verified: "openings of the three trees, comms, apex tree, encoding, challenges",
		n:        len(req.VanillaProofs),
		hint:     hint,
		circuit: func(ctx context.Context, k int) (r1cs.Circuit, error) {
			proof, err := fupdate.DecodePartitionProof(req.VanillaProofs[k], info)
			if err != nil {
				return nil, fmt.Errorf("vanilla_proofs[%d]: %w", k, err)
			}
			v := comms
			v.K, v.Proof = k, proof
			c, err := cupdate.NewPartition(&v)
			if err != nil {
				return nil, err
			}
			c.Ctx = ctx
			return c, nil
		},
	}, nil
}
