//go:build unix

package compiled

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps path read-only, or reads it where mapping fails (mapped
// false). release undoes either.
func mapFile(path string) (b []byte, release func(), mapped bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, false, err
	}
	size := st.Size()
	if size < headerSize {
		return nil, nil, false, fmt.Errorf("%s: %w: %d bytes", path, ErrMalformed, size)
	}
	if int64(int(size)) != size {
		return nil, nil, false, fmt.Errorf("%s: file too large to map (%d bytes)", path, size)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err == nil {
		_ = unix.Madvise(m, unix.MADV_WILLNEED)
		return m, func() { _ = unix.Munmap(m) }, true, nil
	}
	b, err = os.ReadFile(path)
	if err != nil {
		return nil, nil, false, err
	}
	return b, func() {}, false, nil
}

// dropPages lets the kernel take back a read-only file mapping's pages;
// they are read from the file again when next touched.
func dropPages(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_DONTNEED)
	}
}
