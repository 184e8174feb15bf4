package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/device/cuda"
	"github.com/cuzk-project/cuzk/engine"
)

// available is the daemon's engine.Config.ParamsAvailable: it refuses at
// submit a job whose parameters could never be had, instead of accepting
// it and failing it on every retry: one whose parameter file is missing
// from srs.param_cache (FailedPrecondition naming the file; with
// daemon.dev the file is generated instead), or failed its checks (until
// it is replaced). It takes a synthetic id in (bounded: maxDevParamSets),
// so that the one past the bound is refused at submit, not failed at
// admission. The engine asks it once the plan fits in the memory budget
// beside its parameters (sizeOf, engine.Config.ParamsBytes).
func (d *daemonParams) available(id string) error {
	if err := d.checkFile(id); err != nil {
		return err
	}
	if err := d.cache.Bad(id); err != nil {
		return err // FailedPrecondition naming the file
	}
	return d.register(id)
}

// checkFile is ErrParamsMissing naming the file when id is a Filecoin
// circuit whose parameter file is not in the cache and cannot be
// generated (no daemon.dev).
func (d *daemonParams) checkFile(id string) error {
	if d.files.Dev {
		return nil
	}
	path, err := d.files.Path(id)
	if err != nil {
		return nil // not a Filecoin circuit id
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s parameters not found: %s (fetch the Filecoin parameters into srs.param_cache, or run a daemon with --dev to generate development ones)",
			engine.ErrParamsMissing, id, path)
	}
	return nil
}

// sizeOf is what the parameters of id take in host memory, as far as it
// is known before they are loaded: the cache's figure, else the bound of
// a synthetic id, else the load's buffers for a file the GPUs load
// without a host copy (noHostCopy), else the size of the parameter file
// (points are stored uncompressed, as in memory); 0 when unknown.
func (d *daemonParams) sizeOf(id string) uint64 {
	for _, e := range d.cache.Status() {
		if e.CircuitID == id && e.SizeBytes > 0 {
			return e.SizeBytes
		}
	}
	if isSynthetic(id) {
		n, _ := circuits.DevParamsBytes(id)
		return n
	}
	path, err := d.files.Path(id)
	if err != nil {
		return 0
	}
	if d.noHostCopy != nil && d.noHostCopy(path) {
		return cuda.FillBytes
	}
	if fi, err := os.Stat(path); err == nil {
		return uint64(fi.Size())
	}
	return 0
}

// maxDevParamSets bounds the synthetic circuits a --dev daemon will set
// up: each new id a request names costs a setup (CPU) and a file in the
// user cache directory, so without a bound a client could fill the disk.
const maxDevParamSets = 64

// devIDs is the set of synthetic ids a daemon has taken in.
type devIDs struct {
	mu  sync.Mutex
	ids map[string]bool
}

// admit takes id in, or refuses it with ErrNoMemory (ResourceExhausted)
// when maxDevParamSets others were taken in.
func (d *devIDs) admit(id string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ids[id] {
		return nil
	}
	if len(d.ids) >= maxDevParamSets {
		return fmt.Errorf("%w: %s: this daemon already set up %d synthetic circuits (the most it will); use one of those or restart it",
			engine.ErrNoMemory, id, maxDevParamSets)
	}
	if d.ids == nil {
		d.ids = map[string]bool{}
	}
	d.ids[id] = true
	return nil
}
