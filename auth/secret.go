package auth

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// SecretBytes is the length of a secret that Init writes: HS256 wants at
// least the hash's 32 bytes.
const SecretBytes = 32

// SecretFileMode is the mode of a secret file: the owner's alone.
const SecretFileMode = 0o600

// Secret is the HMAC key tokens are signed with. Whoever holds it can
// mint an admin token.
type Secret []byte

// ErrSecretExists is returned by Init for a path that exists: a new
// secret would silently invalidate every token issued under the old one.
var ErrSecretExists = errors.New("auth: secret file already exists")

// NewSecret returns SecretBytes random bytes.
func NewSecret() (Secret, error) {
	s := make(Secret, SecretBytes)
	if _, err := rand.Read(s); err != nil {
		return nil, fmt.Errorf("auth: generating secret: %w", err)
	}
	return s, nil
}

// Init creates the secret file at path (hex text, SecretFileMode) with a
// new random secret and returns it. It never overwrites a file.
func Init(path string) (Secret, error) {
	s, err := NewSecret()
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, SecretFileMode)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%w: %s", ErrSecretExists, path)
	}
	if err != nil {
		return nil, fmt.Errorf("auth: creating secret file: %w", err)
	}
	_, werr := f.WriteString(hex.EncodeToString(s) + "\n")
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("auth: writing secret file %s: %w", path, err)
	}
	return s, nil
}

// ReadSecret reads a secret file that Init wrote. It refuses a file that
// its group or others may read or write (as ssh refuses a private key),
// and a secret shorter than SecretBytes.
func ReadSecret(path string) (Secret, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("auth: secret file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("auth: secret file %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("auth: secret file %s has mode %#o; it must be readable by its owner only (chmod 600)", path, perm)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth: reading secret file: %w", err)
	}
	s, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("auth: secret file %s: not hex: %w", path, err)
	}
	if len(s) < SecretBytes {
		return nil, fmt.Errorf("auth: secret file %s holds %d bytes, want at least %d", path, len(s), SecretBytes)
	}
	return s, nil
}
