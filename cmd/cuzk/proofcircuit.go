package main

import (
	"fmt"
	"strings"

	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/filecoin/update"
)

// The proof families, by the names of cuzk gen-vanilla's subcommands.
const (
	kindPoRep   = "porep"
	kindWinning = "winning-post"
	kindWindow  = "window-post"
	kindSnap    = "snap"
)

var proofKinds = []string{kindPoRep, kindWinning, kindWindow, kindSnap}

// proofCircuit is a registered proof's circuit: its family, circuit id,
// parameter file name and a line for people.
type proofCircuit struct {
	kind, id, paramsFile, describe string
}

// lookupProof finds name among the registered proofs of one family:
// rust-filecoin-proofs-api's serde names (and go-state-types' for the
// WindowPoSt V1_1 ids).
func lookupProof(kind, name string) (proofCircuit, error) {
	switch kind {
	case kindPoRep:
		p, err := filecoin.ParseSealProof(name)
		if err != nil {
			return proofCircuit{}, err
		}
		info, err := p.Info()
		if err != nil {
			return proofCircuit{}, err
		}
		return proofCircuit{kind, info.CircuitID(), info.ParamsFile(),
			fmt.Sprintf("%s, every %s PoRep", info.Name, config.Size(info.SectorSize).Human())}, nil
	case kindWinning, kindWindow:
		p, err := post.ParseProof(name)
		if err != nil {
			return proofCircuit{}, err
		}
		info, err := p.Info()
		if err != nil {
			return proofCircuit{}, err
		}
		if info.Winning != (kind == kindWinning) {
			other := map[bool]string{true: "WinningPoSt", false: "WindowPoSt"}
			return proofCircuit{}, fmt.Errorf("%s is a %s proof, not a %s one", info.Name, other[info.Winning], other[!info.Winning])
		}
		describe := fmt.Sprintf("%s, the %s WinningPoSt", info.Name, config.Size(info.SectorSize).Human())
		if !info.Winning {
			describe = fmt.Sprintf("%s, every %s WindowPoSt (V1 and V1_1)", info.Name, config.Size(info.SectorSize).Human())
		}
		return proofCircuit{kind, info.CircuitID(), info.ParamsFile(), describe}, nil
	case kindSnap:
		p, err := update.ParseProof(name)
		if err != nil {
			return proofCircuit{}, err
		}
		info, err := p.Info()
		if err != nil {
			return proofCircuit{}, err
		}
		return proofCircuit{kind, info.CircuitID(), info.ParamsFile(),
			fmt.Sprintf("%s, the %s SnapDeals update", info.Name, config.Size(info.SectorSize).Human())}, nil
	}
	return proofCircuit{}, fmt.Errorf("--kind %q: want one of %s", kind, strings.Join(proofKinds, ", "))
}

// circuitOfProof finds name in the family kind, or with kind "" in every
// family, where it must name exactly one circuit.
func circuitOfProof(name, kind string) (proofCircuit, error) {
	if kind != "" {
		c, err := lookupProof(kind, name)
		if err != nil {
			return proofCircuit{}, fmt.Errorf("--proof-type %q: %w", name, err)
		}
		return c, nil
	}
	var found []proofCircuit
	var sealErr error
	for _, k := range proofKinds {
		c, err := lookupProof(k, name)
		switch {
		case err == nil:
			found = append(found, c)
		case k == kindPoRep:
			sealErr = err
		}
	}
	switch len(found) {
	case 0:
		return proofCircuit{}, fmt.Errorf("--proof-type %q is no registered seal, PoSt or update proof: %w", name, sealErr)
	case 1:
		return found[0], nil
	}
	var names, kinds []string
	for _, c := range found {
		names = append(names, fmt.Sprintf("%s (%s)", c.kind, c.id))
		kinds = append(kinds, "--kind "+c.kind)
	}
	return proofCircuit{}, fmt.Errorf("--proof-type %q names a proof of %s: give %s", name, strings.Join(names, " and "), strings.Join(kinds, " or "))
}
