package aggregate

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/crypto/blake2b"
)

// SRSDigest is the mainnet SRSFile's digest as Filecoin's parameter
// manifest records it: the first 16 bytes of the file's BLAKE2b-512, hex.
const SRSDigest = "ae20310138f5ba81451d723f858e3797"

// ErrSRSDigest reports an SRS file whose digest is not SRSDigest: not the
// ceremony's file (a development SRS, another file, a corrupt download).
var ErrSRSDigest = errors.New("aggregate: not the mainnet SnarkPack SRS")

// FileDigest is a parameter file's digest in the manifest's form: the
// first 16 bytes of BLAKE2b-512 over the whole file, hex. It reads the
// whole file (the mainnet SRS is about 300 MB).
func FileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h, err := blake2b.New512(nil)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// CheckSRSDigest reads the SRS file at path whole and returns nil when it
// is the mainnet one, an error wrapping ErrSRSDigest naming both digests
// when not.
func CheckSRSDigest(path string) error {
	d, err := FileDigest(path)
	if err != nil {
		return err
	}
	if d != SRSDigest {
		return fmt.Errorf("%w: %s has digest %s, the ceremony's file %s", ErrSRSDigest, path, d, SRSDigest)
	}
	return nil
}
