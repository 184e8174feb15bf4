package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/groth16"
)

// TestSetupStreamed: `cuzk setup` streams the file groth16.Setup would
// write, byte for byte, and prints the phases' summary; a bad --device is
// refused before any work.
func TestSetupStreamed(t *testing.T) {
	dir := t.TempDir()
	params := filepath.Join(dir, "dev.params")
	out, code := run(t, "setup", "--constraints", "2048", "--seed", "4", "--setup-seed", "s", "--out", params)
	if code != 0 {
		t.Fatalf("setup: %d %s", code, out)
	}
	for _, want := range []string{"phase", "evaluate", "b_g2", "b_g1", "total", "fixed-base on cpu"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	cfg := synthetic.Default(2048)
	cfg.Seed = 4
	c, err := synthetic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.Setup(c, []byte("s"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustRead(t, params), want) {
		t.Error("the streamed .params differs from groth16.Setup's")
	}
	vk, err := groth16.ReadVerifyingKey(vkPath(params))
	if err != nil {
		t.Fatal(err)
	}
	if len(vk.IC) != len(p.VK.IC) || !vk.AlphaG1.Equal(&p.VK.AlphaG1) {
		t.Error("the .vk differs from groth16.Setup's")
	}
	for _, args := range [][]string{
		{"setup", "--device", "gpu", "--out", filepath.Join(dir, "x.params")},
		{"setup", "--proof-type", "StackedDrg2KiBV1_1", "--device", "tpu", "--params-dir", dir},
	} {
		if out, code := run(t, args...); code == 0 || !strings.Contains(out, "want cpu or cuda") {
			t.Errorf("%v: exit %d, %q; want the --device error", args, code, out)
		}
	}
}
