package update

import (
	"errors"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/internal/paramstest"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

func TestInfo(t *testing.T) {
	for _, tc := range []struct {
		p                                 Proof
		name                              string
		size                              uint64
		partitions, challenges, apex, h   int
		hSelect                           uint64
		treeR                             merkle.Shape
		levels, challengeBits, apexHeight int
		kAndHSelect0, kAndHSelectLast     uint64
		seal                              filecoin.SealProof
		perDigest, digests                int
	}{
		{StackedDrg2KiBV1, "StackedDrg2KiBV1", 2 << 10, 1, 10, 8, 1, 1, merkle.Shape800, 6, 6, 3, 1, 1, filecoin.StackedDrg2KiBV1_1, 42, 1},
		{StackedDrg8MiBV1, "StackedDrg8MiBV1", 8 << 20, 4, 10, 128, 10, 8, merkle.Shape800, 18, 16, 9, 32, 35, filecoin.StackedDrg8MiBV1_1, 15, 1},
		{StackedDrg512MiBV1, "StackedDrg512MiBV1", 512 << 20, 16, 86, 128, 10, 8, merkle.Shape800, 24, 20, 13, 128, 143, filecoin.StackedDrg512MiBV1_1, 12, 8},
		{StackedDrg32GiBV1, "StackedDrg32GiBV1", 32 << 30, 16, 86, 128, 10, 8, merkle.Shape880, 30, 26, 19, 128, 143, filecoin.StackedDrg32GiBV1_1, 9, 10},
		{StackedDrg64GiBV1, "StackedDrg64GiBV1", 64 << 30, 16, 86, 128, 10, 8, merkle.Shape882, 31, 27, 20, 128, 143, filecoin.StackedDrg64GiBV1_1, 9, 10},
	} {
		i, err := tc.p.Info()
		if err != nil {
			t.Fatal(err)
		}
		got := []any{i.Name, i.SectorSize, i.Nodes, i.Partitions, i.Challenges, i.ApexLeaves, i.H, i.HSelect, i.TreeR,
			i.TreeDLevels, i.ChallengeBits(), i.ApexHeight(), i.KAndHSelect(0), i.KAndHSelect(i.Partitions - 1), i.SealProof,
			i.ChallengesPerDigest(), i.DigestsPerPartition()}
		want := []any{tc.name, tc.size, tc.size / 32, tc.partitions, tc.challenges, tc.apex, tc.h, tc.hSelect, tc.treeR,
			tc.levels, tc.challengeBits, tc.apexHeight, tc.kAndHSelect0, tc.kAndHSelectLast, tc.seal, tc.perDigest, tc.digests}
		for j := range got {
			if got[j] != want[j] {
				t.Errorf("%v: field %d = %v, want %v", tc.p, j, got[j], want[j])
			}
		}
		if i.Hs[3] != i.H || i.Hs[0] > i.Hs[5] {
			t.Errorf("%v: hs %v", tc.p, i.Hs)
		}
	}
}

func TestNames(t *testing.T) {
	for _, p := range Proofs() {
		q, err := ParseProof(p.String())
		if err != nil || q != p {
			t.Errorf("ParseProof(%q) = %v, %v", p.String(), q, err)
		}
		info, _ := p.Info()
		c, err := ParseCircuitID(info.CircuitID())
		if err != nil || c.Proof != p {
			t.Errorf("ParseCircuitID(%q) = %v, %v", info.CircuitID(), c.Proof, err)
		}
	}
	for _, bad := range []Proof{-1, 5, 1 << 40} {
		if _, err := bad.Info(); !errors.Is(err, ErrUnknownProof) {
			t.Errorf("%d: %v", bad, err)
		}
		if bad.String() == "" {
			t.Errorf("%d: empty name", bad)
		}
	}
	for _, name := range []string{"", "StackedDrg2KiBV1_1", "stackeddrg2kibv1"} {
		if _, err := ParseProof(name); !errors.Is(err, ErrUnknownProof) {
			t.Errorf("ParseProof(%q): %v", name, err)
		}
	}
	for _, id := range []string{"", "snap-", "snap-16m", "porep-32g", "snap-32G"} {
		if _, err := ParseCircuitID(id); !errors.Is(err, ErrUnknownProof) {
			t.Errorf("ParseCircuitID(%q): %v", id, err)
		}
	}
	ids := map[string]bool{}
	for _, p := range Proofs() {
		info, _ := p.Info()
		ids[info.CircuitID()] = true
	}
	for _, id := range []string{"snap-2k", "snap-8m", "snap-512m", "snap-32g", "snap-64g"} {
		if !ids[id] {
			t.Errorf("no proof has circuit id %s", id)
		}
	}
}

// TestForSealProof: every seal proof of a size, whatever its generation,
// maps to the update proof of the size (go-state-types
// RegisteredSealProof.RegisteredUpdateProof).
func TestForSealProof(t *testing.T) {
	for _, sp := range filecoin.SealProofs() {
		p, err := ForSealProof(sp)
		if err != nil {
			t.Fatal(err)
		}
		si, _ := sp.Info()
		info, _ := p.Info()
		if info.SectorSize != si.SectorSize || Proof(sp%5) != p {
			t.Errorf("%v → %v", sp, p)
		}
	}
	if _, err := ForSealProof(99); err == nil {
		t.Error("unknown seal proof accepted")
	}
}

// TestParamsFiles: the names are those of rust-fil-proofs' parameter
// manifest, for the right sector size.
func TestParamsFiles(t *testing.T) {
	manifest := paramstest.Manifest(t, "testdata/parameters.json")
	for _, p := range Proofs() {
		info, _ := p.Info()
		paramstest.CheckFiles(t, manifest, info.Name, info.SectorSize, info.ParamsFile(), info.VKFile())
	}
}
