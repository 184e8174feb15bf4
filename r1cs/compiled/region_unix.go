//go:build unix && !linux

package compiled

import "golang.org/x/sys/unix"

func mapAnon(n int) ([]byte, error) {
	return unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
}

// remapAnon maps anew and copies (no mremap here).
func remapAnon(b []byte, n int) ([]byte, error) {
	nb, err := mapAnon(n)
	if err != nil {
		return nil, err
	}
	copy(nb, b)
	_ = unix.Munmap(b)
	return nb, nil
}

func unmapAnon(b []byte) { _ = unix.Munmap(b) }
