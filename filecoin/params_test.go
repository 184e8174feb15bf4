package filecoin

import (
	"encoding/json"
	"os"
	"testing"
)

// testdata/parameters.json is rust-fil-proofs' parameter manifest: every
// PoRep proof's .params and .vk names must be in it.
func TestParamsFilesInManifest(t *testing.T) {
	raw, err := os.ReadFile("testdata/parameters.json")
	if err != nil {
		t.Fatal(err)
	}
	var manifest map[string]struct {
		CID        string `json:"cid"`
		Digest     string `json:"digest"`
		SectorSize uint64 `json:"sector_size"`
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatal(err)
	}
	for _, p := range SealProofs() {
		info, _ := p.Info()
		for _, name := range []string{info.ParamsFile(), info.VKFile()} {
			e, ok := manifest[name]
			if !ok {
				t.Errorf("%v: %s not in parameters.json", p, name)
				continue
			}
			if e.SectorSize != info.SectorSize {
				t.Errorf("%v: %s is for sector size %d", p, name, e.SectorSize)
			}
		}
	}
}

func TestParamsStem(t *testing.T) {
	tests := []struct {
		p    SealProof
		stem string
	}{
		{StackedDrg32GiBV1_1, "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"},
		{StackedDrg64GiBV1_1, "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2"},
		// NI and synthetic reuse the interactive files.
		{StackedDrg32GiBV1_2_Feat_NonInteractivePoRep, "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"},
		{StackedDrg32GiBV1_1_Feat_SyntheticPoRep, "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"},
		{StackedDrg32GiBV1, "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"},
	}
	for _, tc := range tests {
		info, _ := tc.p.Info()
		if got := info.ParamsStem(); got != tc.stem {
			t.Errorf("%v: stem %s, want %s", tc.p, got, tc.stem)
		}
		if got := info.ParamsFile(); got != "v28-"+tc.stem+".params" {
			t.Errorf("%v: ParamsFile %s", tc.p, got)
		}
		if got := info.VKFile(); got != "v28-"+tc.stem+".vk" {
			t.Errorf("%v: VKFile %s", tc.p, got)
		}
	}
	info, _ := StackedDrg2KiBV1.Info()
	want := "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 64; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: 2, max_count: 2 }, tree: merkletree-poseidon_hasher-8-0-0 }"
	if got := info.ParamsIdentifier(); got != want {
		t.Errorf("identifier\n got %s\nwant %s", got, want)
	}
}
