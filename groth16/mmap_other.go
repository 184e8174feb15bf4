//go:build !unix

package groth16

import "os"

// mapFile reads path into memory (no mapping on this platform).
func mapFile(path string, _ bool) ([]byte, func(), bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, false, err
	}
	return b, func() {}, false, nil
}

// dropMapped does nothing: mapFile maps nothing here.
func dropMapped([]byte, int, int) {}
