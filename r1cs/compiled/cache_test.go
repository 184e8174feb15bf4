package compiled_test

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

func TestCacheLoad(t *testing.T) {
	dir := t.TempDir()
	c := &compiled.Cache{Dir: filepath.Join(dir, "sub")} // created on first store
	var builds atomic.Int32
	build := func() (*compiled.System, error) {
		builds.Add(1)
		return compiled.Compile(smallCircuit(), r1cs.Shape{})
	}
	want := compile(t, smallCircuit(), r1cs.Shape{})

	// Concurrent first loads build once.
	const callers = 8
	var wg sync.WaitGroup
	got := make([]*compiled.System, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { got[i], errs[i] = c.Load("small-v1", build) })
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		equalSystems(t, got[i], want)
		got[i].Close()
	}
	if n := builds.Load(); n != 1 {
		t.Fatalf("%d builds, want 1", n)
	}
	name := "small-v1-" + hexDigest(want) + ".r1cs"
	entries, _ := os.ReadDir(c.Dir)
	if len(entries) != 1 || entries[0].Name() != name {
		t.Fatalf("cache holds %v, want only %s", entries, name)
	}

	// A later load (another Cache, as another process) opens the file.
	c2 := &compiled.Cache{Dir: c.Dir}
	s, err := c2.Load("small-v1", func() (*compiled.System, error) { t.Fatal("rebuilt"); return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	equalSystems(t, s, want)
	s.Close()

	// A key that only extends this one is another key.
	if _, err := c2.Load("small", func() (*compiled.System, error) { return nil, errBuild }); !errors.Is(err, errBuild) {
		t.Fatalf("prefix key: %v, want a build", err)
	}

	// A corrupted file is removed and rebuilt.
	path := filepath.Join(c.Dir, name)
	b, _ := os.ReadFile(path)
	b[len(b)-100] ^= 1
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = c2.Load("small-v1", build)
	if err != nil {
		t.Fatal(err)
	}
	equalSystems(t, s, want)
	s.Close()
	if n := builds.Load(); n != 2 {
		t.Fatalf("%d builds after corruption, want 2", n)
	}
}

var errBuild = errors.New("build failed")

func hexDigest(s *compiled.System) string { return hex.EncodeToString(s.Digest[:]) }

func TestCacheErrors(t *testing.T) {
	dir := t.TempDir()
	c := &compiled.Cache{Dir: dir}
	for _, key := range []string{"", "..", "a/b", "a b", "x*"} {
		if _, err := c.Load(key, nil); err == nil {
			t.Errorf("key %q accepted", key)
		}
	}
	if _, err := (&compiled.Cache{}).Load("k", nil); err == nil {
		t.Error("no directory accepted")
	}
	// A failed build leaves no file, and its waiters get its error.
	var wg sync.WaitGroup
	release := make(chan struct{})
	var errs [4]error
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = c.Load("k", func() (*compiled.System, error) { <-release; return nil, errBuild })
		})
	}
	close(release)
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, errBuild) {
			t.Errorf("caller %d: %v, want the build's error", i, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files left: %v", entries)
	}
	// Two digests for one key: the circuit changed under the same key.
	for _, d := range []string{strings.Repeat("ab", 32), strings.Repeat("cd", 32)} {
		if err := os.WriteFile(filepath.Join(dir, "k-"+d+".r1cs"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Load("k", nil); !errors.Is(err, compiled.ErrCacheConflict) {
		t.Fatalf("error %v, want compiled.ErrCacheConflict", err)
	}
}

// A cache that cannot be written: with OnStoreError the built system comes
// back in memory (each concurrent caller gets one of its own) and the
// failure is reported once per build; without it the write's error is
// Load's.
func TestCacheStoreError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(file, "r1cs") // below a regular file: cannot be created, even by root
	want := compile(t, smallCircuit(), r1cs.Shape{})
	var builds atomic.Int32
	build := func() (*compiled.System, error) {
		builds.Add(1)
		return compiled.Compile(smallCircuit(), r1cs.Shape{})
	}

	if _, err := (&compiled.Cache{Dir: dir}).Load("small-v1", build); err == nil {
		t.Fatal("unwritable cache without OnStoreError: no error")
	}

	var reports atomic.Int32
	c := &compiled.Cache{Dir: dir, OnStoreError: func(key string, err error) {
		if key != "small-v1" || err == nil {
			t.Errorf("OnStoreError(%q, %v)", key, err)
		}
		reports.Add(1)
	}}
	builds.Store(0)
	const callers = 4
	var wg sync.WaitGroup
	got := make([]*compiled.System, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { got[i], errs[i] = c.Load("small-v1", build) })
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		equalSystems(t, got[i], want)
		if got[i].MappedBytes() != 0 || got[i].Bytes() == 0 {
			t.Fatalf("caller %d: mapped %d, bytes %d: want a system in memory", i, got[i].MappedBytes(), got[i].Bytes())
		}
	}
	for i := range callers {
		for j := range i {
			if got[i] == got[j] {
				t.Fatalf("callers %d and %d share one System", i, j)
			}
		}
		got[i].Close()
	}
	if b, r := builds.Load(), reports.Load(); b < 1 || r != b {
		t.Fatalf("%d builds, %d reports: want one report a build", b, r)
	}
}
