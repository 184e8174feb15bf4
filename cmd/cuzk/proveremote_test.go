package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/auth"
	"github.com/cuzk-project/cuzk/config"
)

// prove --addr sends a request to a daemon, writes the proof it returns
// and fills the public data, which then verifies: over the unix socket,
// and over TCP with TLS and a write token; a read token is refused and
// writes nothing; a public file of another kind fails before any proof.
func TestProveRemote(t *testing.T) {
	params := testParamsDir(t)
	dir := t.TempDir()
	const proof = "StackedDrgWindow2KiBV1_2"
	f := genProof(t, dir, kindWindow, proof, "window", "--seed", "5", "--sectors", "1-4", "--partition", "1")
	c, err := lookupProof(kindWindow, proof)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(params, c.paramsFile)); err != nil {
		if out, code := run(t, "setup", "--proof-type", proof, "--kind", kindWindow, "--params-dir", params); code != 0 {
			t.Fatalf("setup: exit %d: %s", code, out)
		}
	}
	other := genProof(t, dir, kindWinning, "StackedDrgWinning2KiBV1", "winning", "--seed", "5")

	unixDir, err := os.MkdirTemp("", "cuzkpr")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(unixDir)
	cfg := testDaemonConfig(t, unixDir)
	cfg.Daemon.Dev = false
	cfg.SRS.ParamCache = params
	cfg.Memory.TotalBudget = config.Budget{Bytes: 4 << 30}
	startDaemon(t, cfg)

	sec := newSecureDaemon(t)
	sec.cfg.Daemon.Dev = false
	sec.cfg.SRS.ParamCache = params
	sec.cfg.Memory.TotalBudget = config.Budget{Bytes: 4 << 30}
	startDaemonNoDial(t, sec.cfg)
	waitUp(t, sec.dial(t, auth.Read))

	verify := func(t *testing.T, public string) {
		t.Helper()
		out, code := run(t, "verify", "--public", public, "--params-dir", params, "--partition", "1")
		if code != 0 || !strings.HasPrefix(out, "valid") {
			t.Fatalf("verify --public of the filled file: exit %d: %s", code, out)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"unix", []string{"--addr", cfg.Daemon.Listen}},
		{"tcp-tls-write-token", []string{"--addr", sec.cfg.Daemon.Listen, "--cacert", sec.pki.CA, "--token", sec.token(t, auth.Write)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			public := filepath.Join(dir, tc.name+".json")
			b, err := os.ReadFile(f.public)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(public, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, tc.name+".bin")
			args := append([]string{"prove", "--request", f.req, "--out", out, "--public", public, "--params-dir", params}, tc.args...)
			if text, code := run(t, args...); code != 0 || !strings.Contains(text, "proved and verified by the daemon") {
				t.Fatalf("prove --addr: exit %d: %s", code, text)
			}
			if st, err := os.Stat(out); err != nil || st.Size() != 192 {
				t.Fatalf("the proof file: %v, %v", st, err)
			}
			verify(t, public)
		})
	}

	t.Run("read-token", func(t *testing.T) {
		out := filepath.Join(dir, "refused.bin")
		text, code := run(t, "prove", "--request", f.req, "--out", out, "--addr", sec.cfg.Daemon.Listen,
			"--cacert", sec.pki.CA, "--token", sec.token(t, auth.Read))
		if code == 0 || !strings.Contains(text, "write") {
			t.Fatalf("prove --addr with a read token: exit %d: %s", code, text)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("a refused proof wrote %s: %v", out, err)
		}
	})
	t.Run("public-of-another-kind", func(t *testing.T) {
		text, code := run(t, "prove", "--request", f.req, "--out", filepath.Join(dir, "x.bin"), "--public", other.public,
			"--params-dir", params, "--addr", cfg.Daemon.Listen)
		if code == 0 || !strings.Contains(text, "not of the request's") {
			t.Fatalf("prove --addr with a WinningPoSt public file: exit %d: %s", code, text)
		}
	})
}
