package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

func TestIsSyntheticDescriptor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{"synthetic":{"constraints":1024}}`, true},
		{"  \n{\"synthetic\":{}}", true},
		{`{"synthetic":`, true}, // malformed: the registry would still take it as one
		{`{"other":1,"synthetic":null}`, true},
		{`{"SectorNum":7,"Phase1Out":"eyJzeW50aGV0aWMiOjF9","SectorSize":2048}`, false},
		{`["synthetic"]`, false},
		{`synthetic`, false},
		{``, false},
	} {
		if got := isSyntheticDescriptor([]byte(tc.in)); got != tc.want {
			t.Errorf("isSyntheticDescriptor(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// Without --dev the daemon refuses synthetic jobs and their parameters
// with InvalidArgument naming the switch, and generates nothing; it keeps
// answering the rest.
func TestDaemonWithoutDev(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzkn")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := testDaemonConfig(t, dir)
	cfg.Daemon.Dev = false
	c, stop := startDaemon(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sc := synthetic.Default(1 << 8)
	id := circuits.SyntheticID(sc)
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"synthetic job", func() error {
			_, err := c.Prove(ctx, &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT,
				VanillaProof: circuits.SyntheticDescriptor(sc, 2)})
			return err
		}, "synthetic jobs need a daemon started with --dev"},
		{"malformed synthetic job", func() error {
			_, err := c.Prove(ctx, &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT,
				VanillaProof: []byte(`{"synthetic":`)})
			return err
		}, "synthetic jobs need a daemon started with --dev"},
		{"synthetic preload", func() error { _, _, err := c.Preload(ctx, id); return err }, "started with --dev"},
		{"anything else", func() error {
			_, err := c.Prove(ctx, &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT, VanillaProof: []byte("garbage")})
			return err
		}, "bad vanilla proof"},
	} {
		err := tc.call()
		if st := status.Convert(errors.Unwrap(err)); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), tc.want) {
			t.Errorf("%s: %v, want InvalidArgument containing %q", tc.name, err, tc.want)
		}
	}
	if was, _, err := c.Evict(ctx, id); err != nil || was {
		t.Errorf("evict %s: %v %v, want not loaded", id, was, err)
	}
	st, err := c.Status(ctx)
	if err != nil || len(st.LoadedSrs) != 0 || st.TotalProofsCompleted != 0 {
		t.Errorf("status: %v %v", st, err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cache", "cuzk")); !os.IsNotExist(err) {
		t.Errorf("a daemon without --dev wrote into the dev parameter cache: %v", err)
	}
}
