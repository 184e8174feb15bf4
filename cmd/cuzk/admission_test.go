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

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/device/cuda"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/memory"
)

// planOf plans every request as the given circuit, with one partition
// of reserve bytes.
type planOf struct {
	circuit string
	reserve uint64
}

func (p planOf) Plan(context.Context, *engine.Request) (*engine.Plan, error) {
	return &engine.Plan{CircuitID: p.circuit, Partitions: []engine.Partition{{Footprint: engine.Footprint{Reserve: p.reserve}}}}, nil
}

// admissionPlanner plans with Planner, then checks the plan as the
// daemon's engine does at Submit (engine.Config.ParamsBytes and
// ParamsAvailable, newDaemonEngine): the daemon's admission without an
// engine.
type admissionPlanner struct {
	engine.Planner
	params *daemonParams
}

func (p admissionPlanner) Plan(ctx context.Context, req *engine.Request) (*engine.Plan, error) {
	plan, err := p.Planner.Plan(ctx, req)
	if err != nil || plan == nil {
		return plan, err
	}
	if err := engine.FitsBesideParams(plan, p.params.sizeOf(plan.CircuitID), p.params.budget); err != nil {
		return nil, err
	}
	if err := p.params.available(plan.CircuitID); err != nil {
		return nil, err
	}
	return plan, nil
}

// TestDaemonAdmitsBesideParams: the daemon's engine refuses at Submit a
// synthetic job a partition of which fits in the memory budget alone but
// not beside its parameters (ResourceExhausted with the bytes), before it
// takes the circuit in.
func TestDaemonAdmitsBesideParams(t *testing.T) {
	sc := synthetic.Default(1 << 14)
	req := engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: circuits.SyntheticDescriptor(sc, 1)}
	plan, err := circuits.New().Plan(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	reserve := plan.Partitions[0].Reserve
	params, err := circuits.DevParamsBytes(circuits.SyntheticID(sc))
	if err != nil {
		t.Fatal(err)
	}
	// a total whose engine share is between the partition and the two
	total := reserve + params/2
	for {
		if e, _ := splitBudget(total); e.Limit() > reserve+params/4 {
			break
		}
		total += params / 16
	}
	dir := t.TempDir()
	cfg := testDaemonConfig(t, dir)
	cfg.Memory.TotalBudget = config.Budget{Bytes: config.Size(total)}
	eng, _, _, err := newDaemonEngine(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if limit := eng.Budget().Limit(); limit <= reserve || limit >= reserve+params {
		t.Fatalf("budget %d: the test wants it between the partition's %d and %d with its parameters", limit, reserve, reserve+params)
	}
	_, _, err = eng.Submit(context.Background(), req)
	if !errors.Is(err, engine.ErrNoMemory) || !strings.Contains(err.Error(), "beside its parameters") {
		t.Fatalf("submit: %v, want ErrNoMemory beside its parameters", err)
	}
}

func TestAdmissionPlanner(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.SRS.ParamCache = dir
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	params, _ := newDaemonParams(cfg, memory.New(1<<30), log)
	path, err := params.files.Path("porep-2k")
	if err != nil {
		t.Fatal(err)
	}
	_, err = admissionPlanner{Planner: planOf{"porep-2k", 1 << 20}, params: params}.Plan(context.Background(), &engine.Request{})
	if !errors.Is(err, engine.ErrParamsMissing) || !strings.Contains(err.Error(), path) {
		t.Fatalf("missing parameter file: %v, want ErrParamsMissing naming %s", err, path)
	}
	if err := os.WriteFile(path, make([]byte, 600<<20>>4), 0o600); err != nil { // a 37.5 MiB "file"
		t.Fatal(err)
	}
	if _, err := (admissionPlanner{Planner: planOf{"porep-2k", 1 << 20}, params: params}).Plan(context.Background(), &engine.Request{}); err != nil {
		t.Errorf("a partition that fits beside its parameters: %v", err)
	}
	_, err = admissionPlanner{Planner: planOf{"porep-2k", 1<<30 - 1<<20}, params: params}.Plan(context.Background(), &engine.Request{})
	if !errors.Is(err, engine.ErrNoMemory) || !strings.Contains(err.Error(), "beside its parameters") {
		t.Errorf("a partition that fits alone but not beside its parameters: %v, want ErrNoMemory", err)
	}
	// A file larger than the budget: refused beside it, unless the GPUs'
	// loader streams it from the file, which decodes nothing of it into
	// host memory (the partition fits beside the load's buffers).
	if err := os.Truncate(path, 2<<30); err != nil { // sparse
		t.Fatal(err)
	}
	_, err = admissionPlanner{Planner: planOf{"porep-2k", 1 << 20}, params: params}.Plan(context.Background(), &engine.Request{})
	if !errors.Is(err, engine.ErrNoMemory) {
		t.Errorf("parameters larger than the budget: %v, want ErrNoMemory", err)
	}
	params.noHostCopy = func(p string) bool { return p == path }
	if _, err := (admissionPlanner{Planner: planOf{"porep-2k", 1<<30 - cuda.FillBytes}, params: params}).Plan(context.Background(), &engine.Request{}); err != nil {
		t.Errorf("parameters streamed from their file: %v", err)
	}
	cfg.Daemon.Dev = true // the file would be generated
	devParams, _ := newDaemonParams(cfg, memory.New(1<<30), log)
	os.Remove(path)
	if _, err := (admissionPlanner{Planner: planOf{"porep-2k", 1 << 20}, params: devParams}).Plan(context.Background(), &engine.Request{}); err != nil {
		t.Errorf("--dev, missing file: %v", err)
	}
}

// PreloadSRS of a circuit whose file is missing is FailedPrecondition
// naming the file.
func TestDaemonPreloadMissingFile(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzkm")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := testDaemonConfig(t, dir)
	cfg.Daemon.Dev = false
	c, _ := startDaemon(t, cfg)
	_, _, err = c.Preload(context.Background(), "porep-2k")
	st := status.Convert(errors.Unwrap(err))
	if st.Code() != codes.FailedPrecondition || !strings.Contains(st.Message(), filepath.Join(dir, "params")) {
		t.Fatalf("preload with the file missing: %v, want FailedPrecondition naming the file", err)
	}
}

func TestDevIDsBounded(t *testing.T) {
	var d devIDs
	for i := range maxDevParamSets {
		if err := d.admit(fmt.Sprint("synthetic-", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.admit("synthetic-0"); err != nil {
		t.Errorf("an id taken in before: %v", err)
	}
	if err := d.admit("synthetic-new"); !errors.Is(err, engine.ErrNoMemory) {
		t.Errorf("id %d: %v, want ErrNoMemory", maxDevParamSets+1, err)
	}
}

// With witness-only synthesis, PreloadSRS also prepares the circuit's
// compiled system: its file is in the cache directory afterwards.
func TestDaemonPreloadPreparesSystem(t *testing.T) {
	dir := t.TempDir()
	if _, err := circuits.SetupFilecoin(context.Background(), "wpost-2k", dir, false, nil); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.SRS.ParamCache = dir
	params, _ := newDaemonParams(cfg, memory.New(1<<30), slog.New(slog.NewTextHandler(io.Discard, nil)))
	sysDir := filepath.Join(dir, "r1cs")
	params.systems = circuits.NewSystems(sysDir)
	if _, _, err := params.Preload(context.Background(), "wpost-2k"); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(sysDir, "wpost-2k-*.r1cs"))
	if len(files) != 1 {
		t.Fatalf("compiled systems after the preload: %v, want one wpost-2k file", files)
	}
}
