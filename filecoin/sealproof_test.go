package filecoin

import (
	"errors"
	"testing"

	"github.com/cuzk-project/cuzk/hash/merkle"
)

// Names and ids as in rust-filecoin-proofs-api src/registry.rs
// (RegisteredSealProof and REGISTERED_PROOF_IDS); API versions from its
// version(); partitions and challenges from rust-fil-proofs constants.rs.
func TestSealProofTable(t *testing.T) {
	tests := []struct {
		p          SealProof
		name       string
		vanilla    string
		size       uint64
		layers     int
		partitions int
		challenges int
		shape      merkle.Shape
		treeD      int
		api        APIVersion
		feature    PoRepFeature
	}{
		{0, "StackedDrg2KiBV1", "StackedDrg2KiBV1", 2 << 10, 2, 1, 2, merkle.Shape800, 6, APIV1_0, Interactive},
		{1, "StackedDrg8MiBV1", "StackedDrg8MiBV1", 8 << 20, 2, 1, 2, merkle.Shape800, 18, APIV1_0, Interactive},
		{2, "StackedDrg512MiBV1", "StackedDrg512MiBV1", 512 << 20, 2, 1, 2, merkle.Shape800, 24, APIV1_0, Interactive},
		{3, "StackedDrg32GiBV1", "StackedDrg32GiBV1", 32 << 30, 11, 10, 18, merkle.Shape880, 30, APIV1_0, Interactive},
		{4, "StackedDrg64GiBV1", "StackedDrg64GiBV1", 64 << 30, 11, 10, 18, merkle.Shape882, 31, APIV1_0, Interactive},
		{5, "StackedDrg2KiBV1_1", "StackedDrg2KiBV1", 2 << 10, 2, 1, 2, merkle.Shape800, 6, APIV1_1, Interactive},
		{6, "StackedDrg8MiBV1_1", "StackedDrg8MiBV1", 8 << 20, 2, 1, 2, merkle.Shape800, 18, APIV1_1, Interactive},
		{7, "StackedDrg512MiBV1_1", "StackedDrg512MiBV1", 512 << 20, 2, 1, 2, merkle.Shape800, 24, APIV1_1, Interactive},
		{8, "StackedDrg32GiBV1_1", "StackedDrg32GiBV1", 32 << 30, 11, 10, 18, merkle.Shape880, 30, APIV1_1, Interactive},
		{9, "StackedDrg64GiBV1_1", "StackedDrg64GiBV1", 64 << 30, 11, 10, 18, merkle.Shape882, 31, APIV1_1, Interactive},
		{10, "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", "StackedDrg2KiBV1", 2 << 10, 2, 1, 2, merkle.Shape800, 6, APIV1_2, Synthetic},
		{11, "StackedDrg8MiBV1_1_Feat_SyntheticPoRep", "StackedDrg8MiBV1", 8 << 20, 2, 1, 2, merkle.Shape800, 18, APIV1_2, Synthetic},
		{12, "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", "StackedDrg512MiBV1", 512 << 20, 2, 1, 2, merkle.Shape800, 24, APIV1_2, Synthetic},
		{13, "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", "StackedDrg32GiBV1", 32 << 30, 11, 10, 18, merkle.Shape880, 30, APIV1_2, Synthetic},
		{14, "StackedDrg64GiBV1_1_Feat_SyntheticPoRep", "StackedDrg64GiBV1", 64 << 30, 11, 10, 18, merkle.Shape882, 31, APIV1_2, Synthetic},
		{15, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "StackedDrg2KiBV1", 2 << 10, 2, 13, 2, merkle.Shape800, 6, APIV1_2, NonInteractive},
		{16, "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep", "StackedDrg8MiBV1", 8 << 20, 2, 13, 2, merkle.Shape800, 18, APIV1_2, NonInteractive},
		{17, "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep", "StackedDrg512MiBV1", 512 << 20, 2, 13, 2, merkle.Shape800, 24, APIV1_2, NonInteractive},
		{18, "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", "StackedDrg32GiBV1", 32 << 30, 11, 126, 18, merkle.Shape880, 30, APIV1_2, NonInteractive},
		{19, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", "StackedDrg64GiBV1", 64 << 30, 11, 126, 18, merkle.Shape882, 31, APIV1_2, NonInteractive},
	}
	if got := len(SealProofs()); got != len(tests) {
		t.Fatalf("SealProofs: %d proofs, want %d", got, len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info, err := tc.p.Info()
			if err != nil {
				t.Fatal(err)
			}
			want := SealInfo{
				Proof: tc.p, Name: tc.name, VanillaKey: tc.vanilla, SectorSize: tc.size, Nodes: tc.size / 32,
				Layers: tc.layers, Partitions: tc.partitions, Challenges: tc.challenges, TreeR: tc.shape,
				TreeDLevels: tc.treeD, API: tc.api, Feature: tc.feature,
			}
			if info != want {
				t.Errorf("Info:\n got %+v\nwant %+v", info, want)
			}
			if uint64(1)<<info.TreeDLevels != info.Nodes {
				t.Errorf("2^TreeDLevels = %d, nodes %d", uint64(1)<<info.TreeDLevels, info.Nodes)
			}
			if tc.p.String() != tc.name {
				t.Errorf("String = %q", tc.p.String())
			}
			p, err := ParseSealProof(tc.name)
			if err != nil || p != tc.p {
				t.Errorf("ParseSealProof(%q) = %d, %v", tc.name, p, err)
			}
		})
	}
}

func TestSealProofUnknown(t *testing.T) {
	for _, p := range []SealProof{-1, 20, 1 << 40} {
		if _, err := p.Info(); !errors.Is(err, ErrUnknownProof) {
			t.Errorf("%d.Info() error %v, want ErrUnknownProof", p, err)
		}
		if got, want := p.String(), "SealProof("; len(got) < len(want) || got[:len(want)] != want {
			t.Errorf("%d.String() = %q", p, got)
		}
	}
	for _, name := range []string{"", "StackedDrg32GiBV1_2", "stackeddrg32gibv1", "StackedDrg32GiBV1_1 ", "8"} {
		if _, err := ParseSealProof(name); !errors.Is(err, ErrUnknownProof) {
			t.Errorf("ParseSealProof(%q) error %v, want ErrUnknownProof", name, err)
		}
	}
}

func TestVersionStrings(t *testing.T) {
	for v, want := range map[APIVersion]string{APIV1_0: "1.0.0", APIV1_1: "1.1.0", APIV1_2: "1.2.0", 7: "APIVersion(7)"} {
		if v.String() != want {
			t.Errorf("%d: %q, want %q", v, v.String(), want)
		}
	}
}
