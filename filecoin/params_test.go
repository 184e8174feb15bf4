package filecoin

import (
	"testing"

	"github.com/cuzk-project/cuzk/filecoin/internal/paramstest"
)

// testdata/parameters.json is rust-fil-proofs' parameter manifest: every
// PoRep proof's .params and .vk names must be in it.
func TestParamsFilesInManifest(t *testing.T) {
	manifest := paramstest.Manifest(t, "testdata/parameters.json")
	for _, p := range SealProofs() {
		info, _ := p.Info()
		paramstest.CheckFiles(t, manifest, info.Name, info.SectorSize, info.ParamsFile(), info.VKFile())
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
