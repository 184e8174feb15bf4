package srs

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cuzk-project/cuzk/groth16"
)

// ErrBadParams is returned for a circuit whose parameter file failed its
// checks when it was loaded (a malformed file, a point off the curve or
// outside the subgroup, the header of another circuit): the entry stays
// marked, and Acquire, Preload and Bad answer it at once without reading
// the file again, until the file changes (its size or modification time).
var ErrBadParams = errors.New("srs: parameter file failed its checks")

// badFile is the parameter file of an entry that failed its checks: which
// file (its size and modification time when the load began) and why.
type badFile struct {
	size  int64
	mtime time.Time
	err   error // the load's error, ErrBadParams wrapped in it
}

// fileFault reports whether a load's error says the file itself is bad,
// as opposed to the load's circumstances (a context that ended, the memory
// budget, a device out of memory): only such an error marks the entry.
func fileFault(err error) bool {
	for _, e := range []error{groth16.ErrMalformed, groth16.ErrParamsMismatch, groth16.ErrBadPointEncoding,
		groth16.ErrNonCanonical, groth16.ErrNotOnCurve, groth16.ErrNotInSubgroup, groth16.ErrPointAtInfinity} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// fileStamp is a file's size and modification time (ok false when it
// cannot be read: then nothing is marked, and the next load says why).
func fileStamp(path string) (size int64, mtime time.Time, ok bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, time.Time{}, false
	}
	return fi.Size(), fi.ModTime(), true
}

// badError is the error of a load of id from path that failed its checks
// with err.
func badError(id, path string, err error) error {
	if strings.Contains(err.Error(), path) {
		return fmt.Errorf("%w: %s parameters: %w (refused until the file is replaced)", ErrBadParams, id, err)
	}
	return fmt.Errorf("%w: %s parameters %s: %w (refused until the file is replaced)", ErrBadParams, id, path, err)
}

// Bad is ErrBadParams (naming the file and the reason) while circuit id's
// parameter file is the one that failed its checks; nil otherwise, for an
// unknown id too. It reads the file's size and modification time, not the
// file: an admission check may call it for every request.
func (c *Cache) Bad(id string) error {
	c.mu.Lock()
	e, ok := c.entries[id]
	c.mu.Unlock()
	if !ok {
		return nil
	}
	return c.stillBad(e)
}

// stillBad is e's mark while its file is unchanged; a changed file (or one
// gone) clears the mark, so that the next load reads it.
func (c *Cache) stillBad(e *entry) error {
	c.mu.Lock()
	b := e.bad
	c.mu.Unlock()
	if b == nil {
		return nil
	}
	size, mtime, ok := fileStamp(e.src.Path)
	if ok && size == b.size && mtime.Equal(b.mtime) {
		return b.err
	}
	c.mu.Lock()
	if e.bad == b {
		e.bad = nil
	}
	c.mu.Unlock()
	return nil
}
