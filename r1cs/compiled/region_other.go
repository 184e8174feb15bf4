//go:build !unix

package compiled

// Without mappings the build lives on the Go heap.
func mapAnon(n int) ([]byte, error) { return make([]byte, n), nil }

func remapAnon(b []byte, n int) ([]byte, error) {
	nb := make([]byte, n)
	copy(nb, b)
	return nb, nil
}

func unmapAnon([]byte) {}
