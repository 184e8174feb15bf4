//go:build !unix

package groth16

import "os"

// mapFile reads path into memory (no mapping on this platform).
func mapFile(path string, _ bool) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return b, func() {}, nil
}
