package post_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/internal/paramstest"
	"github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// TestRegistry checks every registered PoSt proof against
// rust-filecoin-proofs-api src/registry.rs (names, versions, sizes) and
// filecoin-proofs constants.rs / parameters.rs (sector and challenge
// counts as the circuit sees them).
func TestRegistry(t *testing.T) {
	type row struct {
		name        string
		winning     bool
		size        uint64
		sectors     int
		challenges  int
		tree        merkle.Shape
		api         filecoin.APIVersion
		circuit     string
		vanillaOpen int
		maxSectors  int
	}
	const (
		k2   = 2 << 10
		m8   = 8 << 20
		m512 = 512 << 20
		g32  = 32 << 30
		g64  = 64 << 30
	)
	v10, v12 := filecoin.APIV1_0, filecoin.APIV1_2
	want := []row{
		{"StackedDrgWinning2KiBV1", true, k2, 66, 1, merkle.Shape800, v10, "winning-2k", 66, 1},
		{"StackedDrgWinning8MiBV1", true, m8, 66, 1, merkle.Shape800, v10, "winning-8m", 66, 1},
		{"StackedDrgWinning512MiBV1", true, m512, 66, 1, merkle.Shape800, v10, "winning-512m", 66, 1},
		{"StackedDrgWinning32GiBV1", true, g32, 66, 1, merkle.Shape880, v10, "winning-32g", 66, 1},
		{"StackedDrgWinning64GiBV1", true, g64, 66, 1, merkle.Shape882, v10, "winning-64g", 66, 1},
		{"StackedDrgWindow2KiBV1", false, k2, 2, 10, merkle.Shape800, v10, "wpost-2k", 10, 2},
		{"StackedDrgWindow8MiBV1", false, m8, 2, 10, merkle.Shape800, v10, "wpost-8m", 10, 2},
		{"StackedDrgWindow512MiBV1", false, m512, 2, 10, merkle.Shape800, v10, "wpost-512m", 10, 2},
		{"StackedDrgWindow32GiBV1", false, g32, 2349, 10, merkle.Shape880, v10, "wpost-32g", 10, 2349},
		{"StackedDrgWindow64GiBV1", false, g64, 2300, 10, merkle.Shape882, v10, "wpost-64g", 10, 2300},
		{"StackedDrgWindow2KiBV1_2", false, k2, 2, 10, merkle.Shape800, v12, "wpost-2k", 10, 2},
		{"StackedDrgWindow8MiBV1_2", false, m8, 2, 10, merkle.Shape800, v12, "wpost-8m", 10, 2},
		{"StackedDrgWindow512MiBV1_2", false, m512, 2, 10, merkle.Shape800, v12, "wpost-512m", 10, 2},
		{"StackedDrgWindow32GiBV1_2", false, g32, 2349, 10, merkle.Shape880, v12, "wpost-32g", 10, 2349},
		{"StackedDrgWindow64GiBV1_2", false, g64, 2300, 10, merkle.Shape882, v12, "wpost-64g", 10, 2300},
	}
	if got := post.Proofs(); len(got) != len(want) {
		t.Fatalf("%d proofs, want %d", len(got), len(want))
	}
	for id, w := range want {
		p := post.Proof(id)
		info, err := p.Info()
		if err != nil {
			t.Fatalf("%d: %v", id, err)
		}
		got := row{info.Name, info.Winning, info.SectorSize, info.SectorCount, info.Challenges, info.TreeR, info.API,
			info.CircuitID(), info.VanillaChallenges(), info.MaxSectors()}
		if got != w {
			t.Errorf("%d:\n got %+v\nwant %+v", id, got, w)
		}
		if info.Proof != p || info.Nodes != w.size/32 || p.String() != w.name {
			t.Errorf("%d: proof %d, nodes %d, String %q", id, info.Proof, info.Nodes, p.String())
		}
		if q, err := post.ParseProof(w.name); err != nil || q != p {
			t.Errorf("ParseProof(%q) = %d, %v", w.name, q, err)
		}
		// go-state-types names ids 10–14 …V1_1 (RegisteredPoStProof_StackedDrgWindow2KiBV1_1).
		if id >= 10 {
			gst := "RegisteredPoStProof_" + strings.TrimSuffix(w.name, "V1_2") + "V1_1"
			if q, err := post.ParseProof(gst); err != nil || q != p {
				t.Errorf("ParseProof(%q) = %d, %v", gst, q, err)
			}
		}
		c, err := post.ParseCircuitID(w.circuit)
		if err != nil || c.CircuitID() != w.circuit || c.ParamsFile() != info.ParamsFile() {
			t.Errorf("ParseCircuitID(%q) = %s, %v", w.circuit, c.Name, err)
		}
		// The seal proofs of the size fit, the others do not.
		for s := range filecoin.SealProof(20) {
			si, _ := s.Info()
			if info.Fits(s) != (si.SectorSize == w.size) {
				t.Errorf("%s Fits(%s) = %v", w.name, s, info.Fits(s))
			}
		}
	}
	for _, bad := range []post.Proof{-1, 15, 1 << 40} {
		if _, err := bad.Info(); !errors.Is(err, post.ErrUnknownProof) {
			t.Errorf("Proof(%d).Info: %v", bad, err)
		}
	}
	for _, bad := range []string{"", "StackedDrgWindow2KiBV1_1_", "StackedDrgWinning2KiBV1_1", "StackedDrg2KiBV1"} {
		if _, err := post.ParseProof(bad); !errors.Is(err, post.ErrUnknownProof) {
			t.Errorf("ParseProof(%q): %v", bad, err)
		}
	}
	for _, bad := range []string{"", "winning-1k", "wpost-", "porep-32g", "window-32g"} {
		if _, err := post.ParseCircuitID(bad); !errors.Is(err, post.ErrUnknownProof) {
			t.Errorf("ParseCircuitID(%q): %v", bad, err)
		}
	}
}

// TestParamsFiles checks the parameter file names against rust-fil-proofs'
// parameters.json: every PoSt proof's .params and .vk are listed with its
// sector size, Window V1 and V1_1 share theirs, and every
// proof-of-spacetime entry of the manifest is some proof's.
func TestParamsFiles(t *testing.T) {
	manifest := paramstest.Manifest(t, "testdata/parameters.json")
	named := map[string]bool{}
	for _, p := range post.Proofs() {
		info, _ := p.Info()
		paramstest.CheckFiles(t, manifest, info.Name, info.SectorSize, info.ParamsFile(), info.VKFile())
		for _, f := range []string{info.ParamsFile(), info.VKFile()} {
			if _, ok := manifest[f]; ok {
				named[f] = true
			}
		}
		if p >= post.StackedDrgWindow2KiBV1_1 {
			v1, _ := (p - 5).Info()
			if v1.ParamsFile() != info.ParamsFile() {
				t.Errorf("%s and %s have different files", v1.Name, info.Name)
			}
		}
	}
	posts := 0
	for f := range manifest {
		if strings.HasPrefix(f, "v28-proof-of-spacetime-") {
			posts++
			if !named[f] {
				t.Errorf("%s is no proof's", f)
			}
		}
	}
	if posts != 20 || len(named) != 20 {
		t.Errorf("%d PoSt files in parameters.json, %d named", posts, len(named))
	}
	w, _ := post.StackedDrgWinning32GiBV1.Info()
	if got, want := w.ParamsIdentifier(), "FallbackPoSt::PublicParams{sector_size: 34359738368, challenge_count: 1, sector_count: 66}"; got != want {
		t.Errorf("identifier %q", got)
	}
}
