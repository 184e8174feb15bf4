package srs

import "testing"

// The registries' stems are the names rust-fil-proofs' parameters.json
// gives the production files (the 32 and 64 GiB PoSt and SnapDeals ones
// below, copied from it), and every family has an id per sector size.
func TestFilecoinParams(t *testing.T) {
	for id, want := range map[string]string{
		"wpost-32g":   "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc",
		"wpost-64g":   "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def",
		"winning-32g": "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e",
		"winning-64g": "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c",
		"snap-32g":    "empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18",
		"snap-64g":    "empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7",
		"porep-32g":   "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820",
	} {
		if got := FilecoinParams[id]; got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	for _, family := range []string{"porep-", "winning-", "wpost-", "snap-"} {
		for _, size := range []string{"2k", "8m", "512m", "32g", "64g"} {
			if FilecoinParams[family+size] == "" {
				t.Errorf("no parameter file for %s%s", family, size)
			}
		}
	}
	if len(FilecoinParams) != 20 {
		t.Errorf("%d ids, want 20 (4 families × 5 sizes)", len(FilecoinParams))
	}
}
