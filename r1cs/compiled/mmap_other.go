//go:build !unix

package compiled

import "os"

// mapFile reads path into memory (no mapping on this platform).
func mapFile(path string) ([]byte, func(), bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, false, err
	}
	return b, func() {}, false, nil
}

// dropPages does nothing without mappings.
func dropPages([]byte) {}
