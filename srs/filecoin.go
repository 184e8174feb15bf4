package srs

import (
	"path/filepath"

	"github.com/cuzk-project/cuzk/filecoin"
)

// FilecoinParams maps the cuzk circuit ids to the stems of their v28
// production parameter files (the names in rust-fil-proofs'
// parameters.json). The .params file is "v28-" + stem + ".params". The PoRep
// entries, one per sector size, come from the filecoin package's registry
// ("porep-2k" … "porep-64g"); PoSt and SnapDeals are listed here until their
// circuits land.
var FilecoinParams = filecoinParams()

func filecoinParams() map[string]string {
	m := map[string]string{
		"wpost-32g":   "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc",
		"wpost-64g":   "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def",
		"winning-32g": "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e",
		"winning-64g": "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c",
		"snap-32g":    "empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18",
		"snap-64g":    "empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7",
	}
	for _, p := range filecoin.SealProofs() {
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
