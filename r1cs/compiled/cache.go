package compiled

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Cache keeps compiled systems as files <Dir>/<key>-<digest hex>.r1cs.
//
// The key names a circuit shape and must change whenever the circuit's
// constraints may change (include the circuit id and a version of the
// gadget code): the cache cannot tell a stale file from a current one. Keys
// are file-name safe: letters, digits, '.', '_' and '-'.
//
// A Cache must not be copied after first use.
type Cache struct {
	Dir string

	// OnStoreError, when set, is told that a built system could not be
	// written (a full or read-only disk) and is returned in memory
	// instead, so that the caller's work goes on: the next process builds
	// it again. Without it the write's error is Load's.
	OnStoreError func(key string, err error)

	mu    sync.Mutex
	calls map[string]*cacheCall
}

// cacheCall is one key's load in flight; the callers that arrive meanwhile
// wait for it and open its file.
type cacheCall struct {
	done chan struct{}
	path string
	err  error
}

// ErrCacheConflict: a key has files of more than one digest.
var ErrCacheConflict = errors.New("cache holds several systems for one key")

const cacheExt = ".r1cs"

// Load returns key's system from the cache, or calls build, writes its
// result atomically (a temporary file renamed into place) and returns it.
// Concurrent calls for one key build once; each caller gets its own System
// (its own mapping of the same file) and closes it. A file that fails to
// decode (corrupt, another layout version) is removed and rebuilt.
func (c *Cache) Load(key string, build func() (*System, error)) (*System, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if c.Dir == "" {
		return nil, errors.New("compiled: cache: no directory")
	}
	c.mu.Lock()
	if call, ok := c.calls[key]; ok {
		c.mu.Unlock()
		<-call.done
		switch {
		case call.err != nil:
			return nil, call.err
		case call.path == "": // kept in memory by the first caller: build another
			return c.Load(key, build)
		}
		return Open(call.path)
	}
	call := &cacheCall{done: make(chan struct{})}
	if c.calls == nil {
		c.calls = make(map[string]*cacheCall)
	}
	c.calls[key] = call
	c.mu.Unlock()

	call.err = fmt.Errorf("compiled: cache %s: the build did not return", key) // until it does
	defer func() {
		c.mu.Lock()
		delete(c.calls, key)
		c.mu.Unlock()
		close(call.done)
	}()
	s, stored, err := c.load(key, build)
	call.err = err
	if err == nil && stored {
		call.path = c.path(key, s.Digest)
	}
	return s, err
}

func (c *Cache) path(key string, d [32]byte) string {
	return filepath.Join(c.Dir, key+"-"+hex.EncodeToString(d[:])+cacheExt)
}

// load is Load's work: the system, and whether it is in its file.
func (c *Cache) load(key string, build func() (*System, error)) (*System, bool, error) {
	s, err := c.lookup(key)
	if s != nil || err != nil {
		return s, true, err
	}
	built, err := build()
	if err != nil {
		return nil, false, fmt.Errorf("compiled: cache %s: build: %w", key, err)
	}
	path := c.path(key, built.Digest)
	if err := c.store(path, built); err != nil {
		err = fmt.Errorf("compiled: cache %s: %w", key, err)
		if c.OnStoreError == nil {
			built.Close()
			return nil, false, err
		}
		c.OnStoreError(key, err)
		return built, false, nil
	}
	built.Close()
	s, err = Open(path)
	return s, err == nil, err
}

// lookup opens key's file if there is one; (nil, nil) when there is none
// (or there was one that did not decode, now removed).
func (c *Cache) lookup(key string) (*System, error) {
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		// A directory that cannot be read is one that cannot be written
		// either: with OnStoreError the build goes on (and says so).
		if errors.Is(err, fs.ErrNotExist) || c.OnStoreError != nil {
			return nil, nil
		}
		return nil, fmt.Errorf("compiled: cache: %w", err)
	}
	var found []string
	for _, e := range entries {
		if _, ok := digestInName(e.Name(), key); ok && e.Type().IsRegular() {
			found = append(found, e.Name())
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, fmt.Errorf("compiled: cache %s: %w: %s", key, ErrCacheConflict, strings.Join(found, ", "))
	}
	path := filepath.Join(c.Dir, found[0])
	s, err := Open(path)
	if err == nil {
		if d, _ := digestInName(found[0], key); d != s.Digest {
			s.Close()
			err = fmt.Errorf("%w: name says %x, content %x", ErrDigestMismatch, d, s.Digest)
		}
	}
	switch {
	case err == nil:
		return s, nil
	case errors.Is(err, ErrMalformed) || errors.Is(err, ErrVersion) || errors.Is(err, ErrDigestMismatch):
		if rerr := os.Remove(path); rerr != nil {
			return nil, fmt.Errorf("compiled: cache: remove bad file: %w (it failed with: %v)", rerr, err)
		}
		return nil, nil
	default:
		return nil, fmt.Errorf("compiled: cache %s: %w", key, err)
	}
}

// digestInName parses <key>-<64 hex>.r1cs.
func digestInName(name, key string) ([32]byte, bool) {
	var d [32]byte
	rest, ok := strings.CutPrefix(name, key+"-")
	if !ok {
		return d, false
	}
	h, ok := strings.CutSuffix(rest, cacheExt)
	if !ok || len(h) != 64 {
		return d, false
	}
	if _, err := hex.Decode(d[:], []byte(h)); err != nil {
		return d, false
	}
	return d, true
}

// store writes s to path through a temporary file in the same directory,
// synced, then renamed: a reader sees the whole file or none.
func (c *Cache) store(path string, s *System) (err error) {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.Dir, ".tmp-*"+cacheExt)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = Write(f, s); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	if d, derr := os.Open(c.Dir); derr == nil { // make the rename durable where the OS allows
		_ = d.Sync()
		d.Close()
	}
	return nil
}

func checkKey(key string) error {
	if key == "" || key == "." || key == ".." || len(key) > 200 {
		return fmt.Errorf("compiled: cache: bad key %q", key)
	}
	for _, r := range key {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return fmt.Errorf("compiled: cache: bad key %q: only letters, digits, '.', '_' and '-'", key)
		}
	}
	return nil
}
