package circuits

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin"
	fpost "github.com/cuzk-project/cuzk/filecoin/post"
	fupdate "github.com/cuzk-project/cuzk/filecoin/update"
	"github.com/cuzk-project/cuzk/groth16"
)

// Every family's circuit ids name the files of their registry and are
// checked against their own shapes; other ids are unknown.
func TestFilecoinCircuitIDs(t *testing.T) {
	seal, _ := filecoin.StackedDrg2KiBV1_1.Info()
	winning, _ := fpost.StackedDrgWinning2KiBV1.Info()
	window, _ := fpost.StackedDrgWindow8MiBV1_1.Info()
	snap, _ := fupdate.StackedDrg2KiBV1.Info()
	for _, tc := range []struct {
		id, params string
		rows, in   int // the circuit's rows (input rows not counted) and inputs with ONE
	}{
		{"porep-2k", seal.ParamsFile(), 0, 0},
		{"winning-2k", winning.ParamsFile(), 90_750, 133},
		{"wpost-8m", window.ParamsFile(), 64_266, 23},
		{"snap-2k", snap.ParamsFile(), 1_705_039, 5},
	} {
		t.Run(tc.id, func(t *testing.T) {
			c, err := lookupFilecoin(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if c.paramsFile != tc.params || c.vkFile != strings.TrimSuffix(tc.params, ".params")+".vk" {
				t.Errorf("files %s, %s; want %s and its .vk", c.paramsFile, c.vkFile, tc.params)
			}
			f := &FilecoinFiles{Dir: "/p"}
			if path, err := f.Path(tc.id); err != nil || path != filepath.Join("/p", tc.params) {
				t.Errorf("Path: %s, %v", path, err)
			}
			s, err := c.shape()
			if err != nil {
				t.Fatal(err)
			}
			if tc.rows != 0 && (s.Constraints != tc.rows+tc.in || s.Inputs != tc.in) {
				t.Errorf("shape %d rows, %d inputs; want %d + %d input rows, %d", s.Constraints, s.Inputs, tc.rows, tc.in, tc.in)
			}
			domain := groth16.Shape{Constraints: s.Constraints}.DomainSize()
			fits := func(ic, l, h int) *groth16.Params {
				return &groth16.Params{VK: groth16.VerifyingKey{IC: make([]bls12381.G1Affine, ic)},
					L: make([]bls12381.G1Affine, l), H: make([]bls12381.G1Affine, h)}
			}
			if err := CheckFilecoinParams(tc.id, fits(s.Inputs, s.Aux, domain-1)); err != nil {
				t.Errorf("parameters of the circuit's shape: %v", err)
			}
			for _, p := range []*groth16.Params{
				fits(s.Inputs+1, s.Aux, domain-1), fits(s.Inputs, s.Aux-1, domain-1), fits(s.Inputs, s.Aux, 2*domain-1),
			} {
				if err := CheckFilecoinParams(tc.id, p); !errors.Is(err, groth16.ErrParamsMismatch) {
					t.Errorf("ic %d, l %d, h %d: %v, want ErrParamsMismatch", len(p.VK.IC), len(p.L), len(p.H), err)
				}
			}
		})
	}
	for _, id := range []string{"porep-4k", "winning-", "wpost-32G", "snap", "synthetic-c1024-i2-s1", ""} {
		if _, err := lookupFilecoin(id); !errors.Is(err, engine.ErrUnknownCircuit) {
			t.Errorf("%q: %v, want ErrUnknownCircuit", id, err)
		}
		if _, err := (&FilecoinFiles{}).Path(id); !errors.Is(err, engine.ErrUnknownCircuit) {
			t.Errorf("Path(%q): %v, want ErrUnknownCircuit", id, err)
		}
		if _, err := SetupFilecoin(context.Background(), id, t.TempDir(), false, nil); !errors.Is(err, engine.ErrUnknownCircuit) {
			t.Errorf("SetupFilecoin(%q): %v, want ErrUnknownCircuit", id, err)
		}
	}
	if err := CheckFilecoinParams("synthetic-c1024-i2-s1", &groth16.Params{}); err != nil {
		t.Errorf("an id of another family: %v, want unchecked", err)
	}
}

// The WindowPoSt 2 KiB setup (21,866 rows, 2 s) writes both files
// under the real names, the loaded parameters pass the shape check, and a
// second setup does not replace them.
func TestSetupFilecoinPoSt(t *testing.T) {
	dir := t.TempDir()
	info, _ := fpost.StackedDrgWindow2KiBV1_1.Info()
	path, err := SetupFilecoin(context.Background(), "wpost-2k", dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, info.ParamsFile()) {
		t.Errorf("path %s", path)
	}
	if _, err := os.Stat(filepath.Join(dir, info.VKFile())); err != nil {
		t.Error(err)
	}
	f := &FilecoinFiles{Dir: dir}
	p, release, err := f.Acquire(context.Background(), "wpost-2k")
	if err != nil {
		t.Fatal(err)
	}
	release()
	if len(p.VK.IC) != 23 {
		t.Errorf("%d IC points, want 23", len(p.VK.IC))
	}
	if _, err := SetupFilecoin(context.Background(), "wpost-2k", dir, false, nil); err == nil || !strings.Contains(err.Error(), "not replacing") {
		t.Errorf("second setup: %v", err)
	}
}
