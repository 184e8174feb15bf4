package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/filecoin/update"
)

// The proof families, by the names of cuzk gen-vanilla's subcommands:
// each is a spelling of its proof kind in engine's table, and every other
// spelling of the kind names it too (proofFamily).
const (
	kindPoRep   = "porep"
	kindWinning = "winning-post"
	kindWindow  = "window-post"
	kindSnap    = "snap"
)

var proofKinds = []string{kindPoRep, kindWinning, kindWindow, kindSnap}

// familyOf is each proof kind's family.
var familyOf = map[engine.ProofKind]string{
	engine.KindPoRepSealCommit:     kindPoRep,
	engine.KindWinningPoSt:         kindWinning,
	engine.KindWindowPoStPartition: kindWindow,
	engine.KindSnapDealsUpdate:     kindSnap,
}

// proofFamily is the family s spells: any spelling of its proof kind
// engine.ParseKind reads.
func proofFamily(s string) (string, error) {
	k, err := engine.LookupKind(s)
	if err != nil {
		return "", err
	}
	return familyOf[k], nil
}

// familySpellings are the spellings of family's kind in engine's table
// (its name, proto name, the proto name in lower case and its aliases)
// other than family itself: its gen-vanilla subcommand's aliases.
func familySpellings(family string) []string {
	var out []string
	for _, k := range engine.Kinds() {
		if familyOf[k.Kind] != family {
			continue
		}
		for _, s := range append([]string{k.Name, k.Proto, strings.ToLower(k.Proto)}, k.Aliases...) {
			if s != family && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// proofCircuit is a registered proof's circuit: its family, circuit id,
// parameter file name and a line for people.
type proofCircuit struct {
	kind, id, paramsFile, describe string
}

// lookupProof finds name among the registered proofs of one family:
// rust-filecoin-proofs-api's serde names (and go-state-types' for the
// WindowPoSt V1_1 ids).
func lookupProof(kind, name string) (proofCircuit, error) {
	kind, err := proofFamily(kind)
	if err != nil {
		return proofCircuit{}, fmt.Errorf("--kind: %w", err)
	}
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
	return proofCircuit{}, fmt.Errorf("--kind: the family %s has no registered proofs", kind) // familyOf names only the families above
}

// circuitOfProof finds name in the family kind, or with kind "" in every
// family, where it must name exactly one circuit.
func circuitOfProof(name, kind string) (proofCircuit, error) {
	if kind != "" {
		if _, err := proofFamily(kind); err != nil {
			return proofCircuit{}, fmt.Errorf("--kind: %w", err)
		}
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
