package main

import (
	"context"
	"fmt"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/engine"
)

// The development switch (`cuzk daemon --dev`, daemon.dev): a production
// daemon proves only what Filecoin defines. Synthetic job descriptors and
// their generated parameters exist for tests and benchmarks; a daemon
// that accepted them by default would let any client start a development
// setup (minutes of CPU, gigabytes of disk) and would answer a mistyped
// request with a proof of nothing.

// errSyntheticJob is what a daemon without --dev answers a synthetic job
// descriptor with (InvalidArgument).
var errSyntheticJob = fmt.Errorf("%w: synthetic jobs need a daemon started with --dev", engine.ErrInvalidRequest)

// errSyntheticParams refuses a synthetic circuit id's parameters without
// --dev (InvalidArgument, as an unknown circuit id).
func errSyntheticParams(id string) error {
	return fmt.Errorf("%w: %s: synthetic parameters need a daemon started with --dev", engine.ErrUnknownCircuit, id)
}

// productionPlanner is the circuit registry of a daemon without --dev: it
// refuses synthetic job descriptors before the registry plans them.
type productionPlanner struct{ engine.Planner }

func (p productionPlanner) Plan(ctx context.Context, req *engine.Request) (*engine.Plan, error) {
	if isSyntheticDescriptor(req.VanillaProof) {
		return nil, errSyntheticJob
	}
	return p.Planner.Plan(ctx, req)
}

// isSyntheticDescriptor reports whether the registry would take b as a
// synthetic job descriptor (well-formed or not): the registry's own test,
// so nothing it would plan as synthetic gets past productionPlanner.
func isSyntheticDescriptor(b []byte) bool { return circuits.IsSynthetic(b) }
