package circuits

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// DevParams provides development parameters for synthetic circuit ids: it
// keeps them in memory once loaded, reads them from Dir/<id>.params when
// there, and otherwise generates them with groth16.Setup (seeded by the id)
// and writes them there for next time. Concurrent requests for one id wait
// for a single load or setup. It implements engine.ParamsSource.
//
// NOT FOR PRODUCTION: anyone who knows the id can derive the trapdoor.
type DevParams struct {
	// Dir caches generated files; "" keeps them in memory only.
	Dir string
	// Log, when set, receives one line per setup or load.
	Log *slog.Logger

	loaded shared[*groth16.Params]
}

var _ engine.ParamsSource = (*DevParams)(nil)

// NewDevParams caches in dir ("" for memory only).
func NewDevParams(dir string) *DevParams { return &DevParams{Dir: dir} }

// DefaultParamsDir is the user cache directory's cuzk/params.
func DefaultParamsDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("circuits: no user cache directory: %w", err)
	}
	return filepath.Join(d, "cuzk", "params"), nil
}

// Acquire returns the parameters of a synthetic circuit id, loading or
// generating them on first use. Ids of other families, and circuits larger
// than a request may ask for (MaxSyntheticConstraints, MaxSyntheticInputs:
// their setup would run for hours), return an error wrapping
// engine.ErrUnknownCircuit.
func (d *DevParams) Acquire(ctx context.Context, id string) (*groth16.Params, func(), error) {
	cfg, err := ParseSyntheticID(id)
	if err != nil {
		return nil, nil, err
	}
	if err := checkLimits(cfg); err != nil {
		return nil, nil, fmt.Errorf("%w: %q: %w", engine.ErrUnknownCircuit, id, err)
	}
	p, err := d.loaded.get(ctx, id, true, func() (*groth16.Params, error) { return d.loadOrSetup(id, cfg) })
	if err != nil {
		return nil, nil, err
	}
	return p, func() {}, nil
}

// Load reads or generates the parameters of a synthetic circuit id as
// Acquire does, but keeps nothing in memory: the caller owns them. The
// daemon loads through an srs cache this way, so that dev parameters are
// charged to the memory budget and evicted when idle like Filecoin ones.
// Concurrent calls for one id each load; the cache makes them one.
func (d *DevParams) Load(ctx context.Context, id string) (*groth16.Params, error) {
	cfg, err := ParseSyntheticID(id)
	if err != nil {
		return nil, err
	}
	if err := checkLimits(cfg); err != nil {
		return nil, fmt.Errorf("%w: %q: %w", engine.ErrUnknownCircuit, id, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return d.loadOrSetup(id, cfg)
}

// Path is where Load caches the parameters of id ("" when Dir is "").
func (d *DevParams) Path(id string) string {
	if d.Dir == "" {
		return ""
	}
	return filepath.Join(d.Dir, id+".params")
}

// DevParamsBytes bounds from above the memory the parameters of a
// synthetic circuit id take once decoded (srs.ParamsBytes of what Load
// returns), for reserving it before they are read or generated. Ids that
// Load would refuse return its error.
func DevParamsBytes(id string) (uint64, error) {
	cfg, err := ParseSyntheticID(id)
	if err != nil {
		return 0, err
	}
	if err := checkLimits(cfg); err != nil {
		return 0, fmt.Errorf("%w: %q: %w", engine.ErrUnknownCircuit, id, err)
	}
	g1 := uint64(unsafe.Sizeof(bls12381.G1Affine{}))
	g2 := uint64(unsafe.Sizeof(bls12381.G2Affine{}))
	inputs := uint64(cfg.Inputs) + 1
	vars := inputs + uint64(cfg.CircuitConstraints())
	// H has one point per domain element, at most.
	domain := uint64(r1cs.DomainSize(cfg.Constraints + int(inputs)))
	vk := uint64(unsafe.Sizeof(groth16.VerifyingKey{}))
	// IC (inputs), L (aux), A and B in G1 (every variable), H, and B in G2.
	return vk + (inputs+vars+2*vars+domain)*g1 + vars*g2, nil
}

func (d *DevParams) loadOrSetup(id string, cfg synthetic.Config) (*groth16.Params, error) {
	t0 := time.Now()
	var path string
	if d.Dir != "" {
		path = filepath.Join(d.Dir, id+".params")
		p, err := groth16.ReadParams(path, groth16.ReadOptions{NoMmap: true})
		if err == nil {
			d.logf("dev params loaded", "circuit", id, "path", path, "took", time.Since(t0))
			return p, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			d.logf("dev params unreadable, regenerating", "circuit", id, "path", path, "err", err)
		}
	}
	c, err := synthetic.New(cfg)
	if err != nil {
		return nil, err
	}
	p, err := groth16.Setup(c, []byte("cuzk synthetic dev params\x00"+id))
	if err != nil {
		return nil, fmt.Errorf("circuits: dev setup of %s: %w", id, err)
	}
	d.logf("dev params generated", "circuit", id, "took", time.Since(t0))
	if path != "" {
		if err := writeAtomic(path, p); err != nil {
			d.logf("dev params not cached", "circuit", id, "err", err)
		}
	}
	return p, nil
}

func (d *DevParams) logf(msg string, args ...any) {
	if d.Log != nil {
		d.Log.Info(msg, args...)
	}
}

// writeAtomic writes p to path through a temporary file and a rename, so
// a concurrent reader never sees half a file.
func writeAtomic(path string, p *groth16.Params) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := p.WriteTo(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
