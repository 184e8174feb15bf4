package srs

import (
	"path/filepath"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/filecoin/update"
)

// FilecoinParams maps the cuzk circuit ids to the stems of their v28
// production parameter files (the names in rust-fil-proofs'
// parameters.json). The .params file is "v28-" + stem + ".params". Every
// entry comes from its family's registry: PoRep from filecoin ("porep-2k" …
// "porep-64g"), WinningPoSt and WindowPoSt from filecoin/post
// ("winning-2k" …, "wpost-2k" …), SnapDeals from filecoin/update
// ("snap-2k" … "snap-64g"), one per sector size.
var FilecoinParams = filecoinParams()

func filecoinParams() map[string]string {
	m := make(map[string]string)
	for _, p := range filecoin.SealProofs() {
		if info, err := p.Info(); err == nil {
			m[info.CircuitID()] = info.ParamsStem()
		}
	}
	for _, p := range post.Proofs() {
		if info, err := p.Info(); err == nil {
			m[info.CircuitID()] = info.ParamsStem()
		}
	}
	for _, p := range update.Proofs() {
		if info, err := p.Info(); err == nil {
			m[info.CircuitID()] = info.ParamsStem()
		}
	}
	return m
}

// FilecoinSources returns a Source for every id of FilecoinParams, with its
// .params file in dir (the param_cache directory). Sizes are left to be
// read from the files when first loaded.
func FilecoinSources(dir string) map[string]Source {
	out := make(map[string]Source, len(FilecoinParams))
	for id, stem := range FilecoinParams {
		out[id] = Source{Path: filepath.Join(dir, "v28-"+stem+".params")}
	}
	return out
}
