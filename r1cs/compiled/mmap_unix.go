//go:build unix

package compiled

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps path read-only, or reads it where mapping fails. release
// undoes either.
func mapFile(path string) (b []byte, release func(), err error) {
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
	if size < headerSize {
		return nil, nil, fmt.Errorf("%s: %w: %d bytes", path, ErrMalformed, size)
	}
	if int64(int(size)) != size {
		return nil, nil, fmt.Errorf("%s: file too large to map (%d bytes)", path, size)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err == nil {
		_ = unix.Madvise(m, unix.MADV_WILLNEED)
		return m, func() { _ = unix.Munmap(m) }, nil
	}
	b, err = os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return b, func() {}, nil
}
