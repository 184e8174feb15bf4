//go:build unix

package groth16

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps path read-only; when mapping fails (or noMmap is set) it
// reads the file instead. release undoes either.
func mapFile(path string, noMmap bool) (b []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if size == 0 {
		return nil, nil, fmt.Errorf("%s: %w: empty file", path, ErrMalformed)
	}
	if int64(int(size)) != size {
		return nil, nil, fmt.Errorf("%s: file too large to map (%d bytes)", path, size)
	}
	if !noMmap {
		m, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
		if err == nil {
			_ = unix.Madvise(m, unix.MADV_SEQUENTIAL)
			return m, func() { _ = unix.Munmap(m) }, nil
		}
	}
	b, err = os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return b, func() {}, nil
}
