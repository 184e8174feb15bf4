package aggregate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FileDigest is the manifest's digest: BLAKE2b-512's first 16 bytes, hex
// (for "abc", the RFC 7693 vector ba80a53f981c4d0d6a2797b69f12f6e9…); a
// development SRS is not the mainnet file.
func TestFileDigest(t *testing.T) {
	dir := t.TempDir()
	abc := filepath.Join(dir, "abc")
	if err := os.WriteFile(abc, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	dev, err := WriteDevSRS(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
		err        error
	}{
		{abc, "ba80a53f981c4d0d6a2797b69f12f6e9", ErrSRSDigest},
		{dev, "", ErrSRSDigest},
		{filepath.Join(dir, "none"), "", os.ErrNotExist},
	} {
		d, err := FileDigest(tc.path)
		if tc.want != "" && (err != nil || d != tc.want) {
			t.Errorf("%s: digest %q, %v; want %q", tc.path, d, err, tc.want)
		}
		err = CheckSRSDigest(tc.path)
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: CheckSRSDigest: %v, want %v", tc.path, err, tc.err)
		}
		if errors.Is(err, ErrSRSDigest) && !strings.Contains(err.Error(), SRSDigest) {
			t.Errorf("%s: %v does not name the mainnet digest", tc.path, err)
		}
	}
}
