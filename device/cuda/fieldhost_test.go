package cuda

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFieldHostCheck builds cuda/test/field_host.cc with the host's C++
// compiler and runs it: the device's field arithmetic (the wide Montgomery
// product and the carry-chain add/sub, with the carry flag emulated) against
// the portable C++, so that the GPU's arithmetic is checked on every machine
// that has a compiler, GPU or not. It skips where there is none.
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
	src, err := filepath.Abs(filepath.Join("..", "..", "cuda", "test", "field_host.cc"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "field_host")
	out, err := exec.Command(cxx, "-O2", "-std=c++17", "-Wno-unknown-pragmas", "-o", bin, src).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cxx, err, out)
	}
	pairs := "200000"
	if testing.Short() {
		pairs = "20000"
	}
	out, err = exec.Command(bin, pairs).CombinedOutput()
	t.Logf("%s", out)
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("field host check failed: %v", err)
	}
}
