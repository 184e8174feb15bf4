package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/srs"
)

// corruptParams writes development parameters for id into dir and flips
// a bit of a point in the middle of the file (off the curve); it returns
// the file's path and its good bytes.
func corruptParams(t *testing.T, id, dir string) (path string, good []byte) {
	t.Helper()
	path, err := circuits.SetupFilecoin(context.Background(), id, dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	good, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), good...)
	i := len(bad) / 2
	i -= i % groth16.G1Size // a point's first coordinate, whichever query it is in
	bad[i+groth16.G1Size/4] ^= 0x01
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, good
}

// replaceFile puts good back as a new file (a later modification time).
func replaceFile(t *testing.T, path string, good []byte) {
	t.Helper()
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

// A parameter file that failed its checks is refused at submit
// (admission planner) and at preload with ErrBadParams naming it, without
// being read again, until it is replaced.
func TestAdmissionRefusesBadParams(t *testing.T) {
	dir := t.TempDir()
	path, good := corruptParams(t, "wpost-2k", dir)
	cfg := config.Default()
	cfg.SRS.ParamCache = dir
	params, _ := newDaemonParams(cfg, memory.New(1<<30), slog.New(slog.NewTextHandler(io.Discard, nil)))
	plan := admissionPlanner{Planner: planOf{"wpost-2k", 1 << 20}, params: params}
	ctx := context.Background()
	if _, err := plan.Plan(ctx, &engine.Request{}); err != nil {
		t.Fatalf("before any load: %v (the file is not known to be bad yet)", err)
	}
	_, _, err := params.Preload(ctx, "wpost-2k")
	if !errors.Is(err, srs.ErrBadParams) || !strings.Contains(err.Error(), path) {
		t.Fatalf("preload of the corrupt file: %v, want ErrBadParams naming %s", err, path)
	}
	t0 := time.Now()
	for i := range 3 {
		if _, err := plan.Plan(ctx, &engine.Request{}); !errors.Is(err, srs.ErrBadParams) || !strings.Contains(err.Error(), path) {
			t.Errorf("submit %d after the failed load: %v, want ErrBadParams naming %s", i, err, path)
		}
		if _, _, err := params.Acquire(ctx, "wpost-2k"); !errors.Is(err, srs.ErrBadParams) {
			t.Errorf("admission %d after the failed load: %v", i, err)
		}
	}
	if took := time.Since(t0); took > time.Second {
		t.Errorf("refusing took %v: the file was read again", took)
	}
	replaceFile(t, path, good)
	if _, err := plan.Plan(ctx, &engine.Request{}); err != nil {
		t.Errorf("submit after the file was replaced: %v", err)
	}
	if _, _, err := params.Preload(ctx, "wpost-2k"); err != nil {
		t.Errorf("preload after the file was replaced: %v", err)
	}
}

// PreloadSRS of a corrupt parameter file answers FailedPrecondition naming
// the file, the first time and every time after, until it is replaced.
func TestDaemonPreloadBadParams(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzkb")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := testDaemonConfig(t, dir)
	cfg.Daemon.Dev = false
	path, good := corruptParams(t, "wpost-2k", cfg.SRS.ParamCache)
	c, _ := startDaemon(t, cfg)
	for i := range 2 {
		_, _, err := c.Preload(context.Background(), "wpost-2k")
		st := status.Convert(errors.Unwrap(err))
		if st.Code() != codes.FailedPrecondition || !strings.Contains(st.Message(), filepath.Base(path)) {
			t.Fatalf("preload %d of the corrupt file: %v, want FailedPrecondition naming %s", i, err, path)
		}
	}
	replaceFile(t, path, good)
	if _, _, err := c.Preload(context.Background(), "wpost-2k"); err != nil {
		t.Errorf("preload after the file was replaced: %v", err)
	}
}

// The synthetic circuit past the bound of a --dev daemon is refused at
// submit (ResourceExhausted naming it), not accepted and failed at
// admission.
func TestAdmissionBoundsDevParams(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	cfg := config.Default()
	cfg.SRS.ParamCache = t.TempDir()
	cfg.Daemon.Dev = true
	params, _ := newDaemonParams(cfg, memory.New(1<<30), slog.New(slog.NewTextHandler(io.Discard, nil)))
	id := func(i int) string {
		return fmt.Sprintf("synthetic-c%d-i7-bf0.75-ad0.997-bd0.25-s1", 64+i)
	}
	for i := range maxDevParamSets {
		if _, err := (admissionPlanner{Planner: planOf{id(i), 1 << 10}, params: params}).Plan(context.Background(), &engine.Request{}); err != nil {
			t.Fatalf("synthetic circuit %d: %v", i, err)
		}
	}
	next := id(maxDevParamSets)
	_, err := admissionPlanner{Planner: planOf{next, 1 << 10}, params: params}.Plan(context.Background(), &engine.Request{})
	if !errors.Is(err, engine.ErrNoMemory) || !strings.Contains(err.Error(), next) {
		t.Errorf("synthetic circuit %d at submit: %v, want ErrNoMemory naming %s", maxDevParamSets+1, err, next)
	}
	if _, err := (admissionPlanner{Planner: planOf{id(0), 1 << 10}, params: params}).Plan(context.Background(), &engine.Request{}); err != nil {
		t.Errorf("a synthetic circuit taken in before: %v", err)
	}
}
