package compiled

import "fmt"

// Open maps the file at path (read-only; on unix an mmap, so the arrays
// cost no heap and share the page cache) and decodes it as Read does,
// verifying the digest and Validate's invariants. Close unmaps it.
func Open(path string) (*System, error) {
	b, release, mapped, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("compiled: open: %w", err)
	}
	s, err := decode(b, release)
	if err != nil {
		release()
		return nil, fmt.Errorf("compiled: open %s: %w", path, err)
	}
	if mapped {
		s.pages = b
	}
	return s, nil
}
