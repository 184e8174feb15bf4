//go:build !unix

package compiled

import "os"

// mapFile reads path into memory (no mapping on this platform).
func mapFile(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return b, func() {}, nil
}
