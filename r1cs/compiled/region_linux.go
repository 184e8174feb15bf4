//go:build linux

package compiled

import "golang.org/x/sys/unix"

func mapAnon(n int) ([]byte, error) {
	return unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
}

// remapAnon lets the kernel move the pages: no copy, no second peak.
func remapAnon(b []byte, n int) ([]byte, error) {
	return unix.Mremap(b, n, unix.MREMAP_MAYMOVE)
}

func unmapAnon(b []byte) { _ = unix.Munmap(b) }
