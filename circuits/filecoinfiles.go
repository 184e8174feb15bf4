package circuits

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

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

	setups shared[struct{}] // not kept: after a setup, the disk is looked at again
	loaded shared[*groth16.Params]
}

var _ engine.ParamsSource = (*FilecoinFiles)(nil)

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
	_, err = f.setups.get(ctx, id, false, func() (struct{}, error) {
		if f.Log != nil {
			f.Log.Info("generating development parameters (minutes)", "circuit", id, "dir", f.Dir)
		}
		_, err := SetupFilecoin(context.Background(), id, f.Dir, false, f.Log)
		return struct{}{}, err
	})
	return err
}

// Acquire loads the parameters of a Filecoin circuit id once and keeps
// them; release is a no-op.
func (f *FilecoinFiles) Acquire(ctx context.Context, id string) (*groth16.Params, func(), error) {
	path, err := f.Path(id)
	if err != nil {
		return nil, nil, err
	}
	p, err := f.loaded.get(ctx, id, true, func() (*groth16.Params, error) {
		if err := f.Ensure(context.Background(), id); err != nil {
			return nil, err
		}
		p, err := groth16.ReadParams(path, groth16.ReadOptions{})
		if err == nil {
			err = CheckFilecoinParams(id, p)
		}
		return p, err
	})
	if err != nil {
		return nil, nil, err
	}
	return p, func() {}, nil
}
