package circuits

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
)

// FilecoinFiles finds the parameter files of Filecoin circuit ids
// ("porep-2k", "winning-2k", "wpost-2k", "snap-2k" …) in a parameter cache directory (FIL_PROOFS_PARAMETER_CACHE
// or srs.param_cache), under their real names. A file that is there is used
// as it is, real or development. A missing one is an error naming the
// path, except with Dev: then a development setup (SetupFilecoin) writes it,
// once per id however many callers wait for it, so that tests and
// benchmarks need no download.
//
// As an engine.ParamsSource it also loads them (header checked with
// CheckFilecoinParams) and keeps them in memory, for in-process engines; a
// daemon reads them through its srs cache and uses only Ensure.
type FilecoinFiles struct {
	Dir string
	Dev bool
	Log *slog.Logger // nil: silent

	mu     sync.Mutex
	setups map[string]*fileSetup
	loaded map[string]*devEntry
}

var _ engine.ParamsSource = (*FilecoinFiles)(nil)

type fileSetup struct {
	done chan struct{} // closed when err is set
	err  error
}

// Path is where the .params file of id is looked for.
func (f *FilecoinFiles) Path(id string) (string, error) {
	c, err := lookupFilecoin(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(f.Dir, c.paramsFile), nil
}

// Ensure returns nil when id is not a Filecoin circuit id or its file is
// in place (generating it first with Dev).
func (f *FilecoinFiles) Ensure(ctx context.Context, id string) error {
	path, err := f.Path(id)
	if err != nil {
		return nil
	}
	if _, err := os.Stat(path); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s parameters: %w", id, err)
	}
	if !f.Dev {
		return fmt.Errorf("%s parameters not found: %s (fetch the Filecoin parameters into the parameter cache, or generate development ones: `cuzk setup --proof-type <name>`, or a daemon with --dev)", id, path)
	}
	f.mu.Lock()
	if f.setups == nil {
		f.setups = make(map[string]*fileSetup)
	}
	s, ok := f.setups[id]
	if !ok {
		s = &fileSetup{done: make(chan struct{})}
		f.setups[id] = s
		// Detached from ctx: other callers may be waiting for the same file.
		go func() {
			defer close(s.done)
			if f.Log != nil {
				f.Log.Info("generating development parameters (minutes)", "circuit", id, "dir", f.Dir)
			}
			_, s.err = SetupFilecoin(context.Background(), id, f.Dir, false, f.Log)
			f.mu.Lock()
			delete(f.setups, id) // done or failed: the next call looks again
			f.mu.Unlock()
		}()
	}
	f.mu.Unlock()
	select {
	case <-s.done:
		return s.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Acquire loads the parameters of a Filecoin circuit id once and keeps
// them; release is a no-op.
func (f *FilecoinFiles) Acquire(ctx context.Context, id string) (*groth16.Params, func(), error) {
	path, err := f.Path(id)
	if err != nil {
		return nil, nil, err
	}
	f.mu.Lock()
	if f.loaded == nil {
		f.loaded = make(map[string]*devEntry)
	}
	e, ok := f.loaded[id]
	if !ok {
		e = &devEntry{ready: make(chan struct{})}
		f.loaded[id] = e
		go func() {
			defer close(e.ready)
			if e.err = f.Ensure(context.Background(), id); e.err == nil {
				if e.p, e.err = groth16.ReadParams(path, groth16.ReadOptions{}); e.err == nil {
					e.err = CheckFilecoinParams(id, e.p)
				}
			}
			if e.err != nil {
				f.mu.Lock()
				delete(f.loaded, id) // a later call retries
				f.mu.Unlock()
			}
		}()
	}
	f.mu.Unlock()
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	if e.err != nil {
		return nil, nil, e.err
	}
	return e.p, func() {}, nil
}
