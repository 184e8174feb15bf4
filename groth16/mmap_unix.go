//go:build unix

package groth16

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps path read-only (mapped); when mapping fails (or noMmap is
// set) it reads the file instead. release undoes either.
func mapFile(path string, noMmap bool) (b []byte, release func(), mapped bool, err error) {
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
	if size == 0 {
		return nil, nil, false, fmt.Errorf("%s: %w: empty file", path, ErrMalformed)
	}
	if int64(int(size)) != size {
		return nil, nil, false, fmt.Errorf("%s: file too large to map (%d bytes)", path, size)
	}
	if !noMmap {
		m, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
		if err == nil {
			_ = unix.Madvise(m, unix.MADV_SEQUENTIAL)
			return m, func() { _ = unix.Munmap(m) }, true, nil
		}
	}
	b, err = os.ReadFile(path)
	if err != nil {
		return nil, nil, false, err
	}
	return b, func() {}, false, nil
}

// dropMapped lets the kernel take back the pages of the file mapping m
// (mapFile's, mapped) that lie wholly inside m[lo:hi]: the process's
// resident size stops counting them; they are read from the file again if
// touched.
func dropMapped(m []byte, lo, hi int) {
	page := os.Getpagesize()
	lo = (lo + page - 1) / page * page
	hi = hi / page * page
	if lo < hi {
		_ = unix.Madvise(m[lo:hi], unix.MADV_DONTNEED)
	}
}
