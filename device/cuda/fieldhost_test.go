package cuda

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFieldHostCheck builds host checks of the device's field arithmetic
// with the host's C++ compiler and runs them, so that the GPU's arithmetic
// is checked on every machine that has a compiler, GPU or not (it skips
// where there is none): field_host.cc, the wide Montgomery product and the
// carry-chain add/sub with the carry flag emulated, against the portable
// C++; fp52_host.cc, the Fp product on the FP64 pipe (ff/fp52.cuh, its limb
// products split by FMAs rounded toward zero), against fp_t's.
func TestFieldHostCheck(t *testing.T) {
	cxx := os.Getenv("CXX")
	if cxx == "" {
		for _, c := range []string{"c++", "g++", "clang++"} {
			if _, err := exec.LookPath(c); err == nil {
				cxx = c
				break
			}
		}
	}
	if cxx == "" {
		t.Skip("no C++ compiler (set CXX)")
	}
	pairs := "200000"
	if testing.Short() {
		pairs = "20000"
	}
	for _, tc := range []struct {
		src   string
		flags []string
	}{
		{src: "field_host.cc"},
		{src: "fp52_host.cc", flags: []string{"-frounding-math"}},
	} {
		t.Run(tc.src, func(t *testing.T) {
			src, err := filepath.Abs(filepath.Join("..", "..", "cuda", "test", tc.src))
			if err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(t.TempDir(), strings.TrimSuffix(tc.src, ".cc"))
			args := append([]string{"-O2", "-std=c++17", "-Wno-unknown-pragmas"}, tc.flags...)
			out, err := exec.Command(cxx, append(args, "-o", bin, src)...).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", cxx, err, out)
			}
			out, err = exec.Command(bin, pairs).CombinedOutput()
			t.Logf("%s", out)
			if err != nil || !strings.Contains(string(out), "PASS") {
				t.Fatalf("%s: host check failed: %v", tc.src, err)
			}
		})
	}
}
