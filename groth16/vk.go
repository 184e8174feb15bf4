package groth16

import (
	"fmt"
	"io"
	"os"
)

// VerifyingKeySize is the size of an encoded verifying key with nIC points
// in IC: the first bytes of the matching `.params` file.
func VerifyingKeySize(nIC int) int { return vkFixedSize + 4 + nIC*G1Size }

// WriteTo writes vk in bellperson's layout (VerifyingKey::write), which is
// also the prefix of the `.params` file.
func (vk *VerifyingKey) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	writeVK(cw, vk)
	return cw.n, cw.err
}

// MarshalBinary returns the `.vk` image of vk.
func (vk *VerifyingKey) MarshalBinary() ([]byte, error) {
	buf := make(sliceWriter, 0, VerifyingKeySize(len(vk.IC)))
	_, err := vk.WriteTo(&buf)
	return buf, err
}

// WriteVerifyingKey writes vk to a new `.vk` file at path.
func WriteVerifyingKey(path string, vk *VerifyingKey) error {
	return writeFile(path, vk.WriteTo)
}

// ReadVerifyingKey reads a `.vk` file.
func ReadVerifyingKey(path string) (*VerifyingKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("vk: %w", err)
	}
	vk, err := DecodeVerifyingKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return vk, nil
}

// DecodeVerifyingKey decodes a `.vk` image with full checks (canonical,
// on curve, subgroup); IC points may not be the identity. Trailing bytes
// are an error.
func DecodeVerifyingKey(b []byte) (*VerifyingKey, error) {
	vk := new(VerifyingKey)
	r := reader{file: "vk", b: b}
	if err := r.verifyingKey(vk, 0); err != nil {
		return nil, err
	}
	if err := r.end(); err != nil {
		return nil, err
	}
	return vk, nil
}

// ReadVerifyingKeyFromParams decodes only the verifying key at the start of
// a `.params` file, ignoring the rest.
func ReadVerifyingKeyFromParams(path string) (*VerifyingKey, error) {
	b, release, _, err := mapFile(path, false)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	defer release()
	vk := new(VerifyingKey)
	r := reader{file: "params", b: b}
	if err := r.verifyingKey(vk, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return vk, nil
}
