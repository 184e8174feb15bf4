package srs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

// TestCorruptFileMarkedBad loads a parameter file with a point off the
// curve: the load fails with ErrBadParams naming the file and the reason,
// and so do every later Acquire, Preload and Bad without reading the file
// again, until the file is replaced; then it loads.
func TestCorruptFileMarkedBad(t *testing.T) {
	p, err := groth16.Setup(mulCircuit{3, 5}, []byte("srs test"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mul.params")
	if err := groth16.WriteParams(path, p); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), good...)
	bad[len(bad)-groth16.G1Size/2] ^= 0x01 // a coordinate of the last point: off the curve
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	var reads atomic.Int32
	read := ReadParamsLoader(groth16.ReadOptions{})
	c := New(Config{
		Circuits: map[string]Source{"mul": {Path: path}},
		Budget:   memory.New(1 << 20),
		Load: func(ctx context.Context, id, path string) (*groth16.Params, error) {
			reads.Add(1)
			return read(ctx, id, path)
		},
	})
	ctx := context.Background()
	_, _, err = c.Acquire(ctx, "mul")
	if !errors.Is(err, ErrBadParams) || !errors.Is(err, groth16.ErrNotOnCurve) || !strings.Contains(err.Error(), path) {
		t.Fatalf("corrupt file: %v, want ErrBadParams naming %s and the bad point", err, path)
	}
	t.Logf("corrupt file: %v", err)
	for i := range 3 {
		if _, _, err := c.Acquire(ctx, "mul"); !errors.Is(err, ErrBadParams) {
			t.Errorf("acquire %d after the failed load: %v", i, err)
		}
	}
	if _, _, err := c.Preload(ctx, "mul"); !errors.Is(err, ErrBadParams) {
		t.Errorf("preload: %v", err)
	}
	if err := c.Bad("mul"); !errors.Is(err, ErrBadParams) {
		t.Errorf("Bad: %v", err)
	}
	if st := c.Status()[0]; !strings.Contains(st.Bad, "not on curve") {
		t.Errorf("status of the bad entry: %+v", st)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("the bad file was read %d times, want once", n)
	}

	// Replaced by a good file (a new modification time): it loads.
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if err := c.Bad("mul"); err != nil {
		t.Errorf("Bad after the file was replaced: %v", err)
	}
	_, release, err := c.Acquire(ctx, "mul")
	if err != nil {
		t.Fatalf("after the file was replaced: %v", err)
	}
	release()
	if st := c.Status()[0]; st.Tier != Hot || st.Bad != "" {
		t.Errorf("status after the file was replaced: %+v", st)
	}
}

// TestWhichLoadErrorsMark: only an error that says the file is bad marks
// the entry; one of the load's circumstances is tried again next time.
func TestWhichLoadErrorsMark(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		mark bool
	}{
		{"malformed", fmt.Errorf("x.params: %w: truncated", groth16.ErrMalformed), true},
		{"another circuit", fmt.Errorf("%w: porep-32g parameters have 3 ic points", groth16.ErrParamsMismatch), true},
		{"not in subgroup", fmt.Errorf("l[7]: %w", groth16.ErrNotInSubgroup), true},
		{"non-canonical", fmt.Errorf("h[0]: %w", groth16.ErrNonCanonical), true},
		{"device out of memory", errors.New("cuda: out of memory"), false},
		{"cancelled", context.Canceled, false},
		{"budget", fmt.Errorf("reserve: %w", errors.New("memory budget exhausted")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "a.params")
			if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			f := &fakeLoader{fail: func(string, int) error { return tc.err }}
			c := New(Config{Circuits: map[string]Source{"a": {Path: path, Size: unit}}, Load: f.load})
			if _, _, err := c.Acquire(context.Background(), "a"); !errors.Is(err, tc.err) || errors.Is(err, ErrBadParams) != tc.mark {
				t.Fatalf("first load: %v (marked bad: want %v)", err, tc.mark)
			}
			_, _, err := c.Acquire(context.Background(), "a")
			want := 2
			if tc.mark {
				want = 1
			}
			if f.count("a") != want || errors.Is(c.Bad("a"), ErrBadParams) != tc.mark {
				t.Errorf("second acquire: %v after %d loads, want %d", err, f.count("a"), want)
			}
		})
	}
}
