package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/config"
)

// run executes the root command with args and returns stdout and the exit
// code main would use.
func run(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out bytes.Buffer
	root := newRootCmd()
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	var ee exitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.code
	default:
		return out.String() + err.Error(), 2
	}
}

func TestSetupProveVerify(t *testing.T) {
	dir := t.TempDir()
	params := filepath.Join(dir, "dev.params")
	proof := filepath.Join(dir, "proof.bin")
	if out, code := run(t, "setup", "--constraints", "1024", "--seed", "3", "--out", params); code != 0 {
		t.Fatalf("setup: %d %s", code, out)
	}
	if out, code := run(t, "prove", "--constraints", "1024", "--seed", "3", "--params", params, "--out", proof); code != 0 {
		t.Fatalf("prove: %d %s", code, out)
	}
	vk := filepath.Join(dir, "dev.vk")
	out, code := run(t, "verify", "--vk", vk, "--proof", proof)
	if code != 0 || !strings.Contains(out, "valid") {
		t.Fatalf("verify: %d %s", code, out)
	}

	// A flipped proof byte and a changed public input are invalid (exit 1).
	b, err := os.ReadFile(proof)
	if err != nil {
		t.Fatal(err)
	}
	b[100] ^= 0x01
	bad := filepath.Join(dir, "bad.bin")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := run(t, "verify", "--vk", vk, "--proof", bad, "--inputs", filepath.Join(dir, "proof.inputs.json")); code != 1 || !strings.Contains(out, "invalid") {
		t.Fatalf("tampered proof: %d %s", code, out)
	}
	in, err := decodeInputs(mustRead(t, filepath.Join(dir, "proof.inputs.json")))
	if err != nil {
		t.Fatal(err)
	}
	in[0].SetUint64(12345)
	js, _ := encodeInputs(in)
	badIn := filepath.Join(dir, "bad.inputs.json")
	if err := os.WriteFile(badIn, js, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := run(t, "verify", "--vk", vk, "--proof", proof, "--inputs", badIn); code != 1 || !strings.Contains(out, "invalid") {
		t.Fatalf("changed input: %d %s", code, out)
	}
	// Parameters for another circuit are refused with a clear error.
	if out, code := run(t, "prove", "--constraints", "2048", "--params", params, "--out", proof); code == 0 {
		t.Fatalf("prove with mismatched params succeeded: %s", out)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeInputsRejects(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"not json", `{`, "inputs:"},
		{"no array", `{}`, "no \"inputs\""},
		{"not decimal", `{"inputs":["0x12"]}`, "not a decimal"},
		{"negative", `{"inputs":["-1"]}`, "not a canonical"},
		{"too large", `{"inputs":["52435875175126190479447740508185965837690552500527637822603658699938581184513"]}`, "not a canonical"},
	} {
		if _, err := decodeInputs([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func FuzzDecodeInputs(f *testing.F) {
	f.Add([]byte(`{"inputs":["1","2"]}`))
	f.Add([]byte(`{"inputs":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := decodeInputs(b)
		if err != nil {
			return
		}
		js, err := encodeInputs(in)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeInputs(js)
		if err != nil || len(again) != len(in) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// TestProveDevSRSFlag: --dev-srs checks a non-interactive PoRep's
// aggregate before --public is filled, so it goes with --public (and that
// with --request); refused before anything is read.
func TestProveDevSRSFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"prove", "--dev-srs"}, "--dev-srs goes with --request"},
		{[]string{"prove", "--request", "no-such.json", "--dev-srs"}, "--dev-srs goes with --public"},
	} {
		out, code := run(t, tc.args...)
		if code == 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, %q; want a refusal saying %q", tc.args, code, out, tc.want)
		}
	}
}

// TestProveConfig: the one-shot engine's configuration: the device, the
// budget, and with CUDA the streamed points read from the parameter file
// (a set the GPU cannot hold whole is never decoded into host memory).
func TestProveConfig(t *testing.T) {
	for _, tc := range []struct {
		device   string
		budget   float64
		fromFile bool
		bytes    config.Size
		err      string
	}{
		{"cpu", 0, false, 0, ""},
		{"cuda", 32, true, 32 << 30, ""},
		{"cuda", 0, true, 0, ""},
		{"tpu", 0, false, 0, `--device "tpu"`},
		{"cpu", -1, false, 0, "--budget -1"},
	} {
		o := proveOptions{device: tc.device, budgetGiB: tc.budget}
		cfg, err := o.config("/params")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s, budget %v: error %v, want one naming %s", tc.device, tc.budget, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s, budget %v: %v", tc.device, tc.budget, err)
		}
		if cfg.Device.Kind != tc.device || cfg.Device.StreamFromFile != tc.fromFile || cfg.SRS.ParamCache != "/params" {
			t.Errorf("%s: kind %q, stream_from_file %v, param_cache %q", tc.device, cfg.Device.Kind, cfg.Device.StreamFromFile, cfg.SRS.ParamCache)
		}
		if tc.budget > 0 && cfg.Memory.TotalBudget.Bytes != tc.bytes {
			t.Errorf("%s: budget %v bytes, want %v", tc.device, cfg.Memory.TotalBudget.Bytes, tc.bytes)
		}
		if tc.budget == 0 && !cfg.Memory.TotalBudget.Auto {
			t.Errorf("%s: budget 0 is not the automatic one", tc.device)
		}
	}
}
