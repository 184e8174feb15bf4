package filecoin

import (
	"encoding/base32"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrBadCID reports a string or JSON value that is not the commitment CID
// asked for.
var ErrBadCID = errors.New("filecoin: bad commitment CID")

// Multiformats codes of Filecoin's commitment CIDs (go-fil-commcid).
const (
	codecUnsealed = 0xf101 // fil-commitment-unsealed: comm_d
	codecSealed   = 0xf102 // fil-commitment-sealed: comm_r
	hashSha254    = 0x1012 // sha2-256-trunc254-padded
	hashPoseidon  = 0xb401 // poseidon-bls12_381-a2-fc1
	cidV1         = 1
	digestLen     = 32
)

// base32 lower case without padding, multibase prefix 'b'.
var base32Lower = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// commitment is one kind of commitment CID.
type commitment struct {
	name        string
	codec, hash uint64
}

var (
	commDKind = commitment{"comm_d", codecUnsealed, hashSha254}
	commRKind = commitment{"comm_r", codecSealed, hashPoseidon}
)

// CommDCID is comm_d as a CIDv1 string: fil-commitment-unsealed, multihash
// sha2-256-trunc254-padded, multibase base32 ("baga6ea4sea…").
func CommDCID(d [32]byte) string { return commDKind.encode(d) }

// CommRCID is comm_r as a CIDv1 string: fil-commitment-sealed, multihash
// poseidon-bls12_381-a2-fc1, multibase base32 ("bagboea4b5abc…").
func CommRCID(r [32]byte) string { return commRKind.encode(r) }

// ParseCommDCID reads the 32 bytes of comm_d from its CID string.
func ParseCommDCID(s string) ([32]byte, error) { return commDKind.parse(s) }

// ParseCommRCID reads the 32 bytes of comm_r from its CID string.
func ParseCommRCID(s string) ([32]byte, error) { return commRKind.parse(s) }

func (k commitment) encode(digest [32]byte) string {
	b := make([]byte, 0, 4*binary.MaxVarintLen64+digestLen)
	b = binary.AppendUvarint(b, cidV1)
	b = binary.AppendUvarint(b, k.codec)
	b = binary.AppendUvarint(b, k.hash)
	b = binary.AppendUvarint(b, digestLen)
	b = append(b, digest[:]...)
	return "b" + base32Lower.EncodeToString(b)
}

func (k commitment) parse(s string) ([32]byte, error) {
	var d [32]byte
	fail := func(format string, a ...any) ([32]byte, error) {
		return [32]byte{}, fmt.Errorf("%w: %s %q: %s", ErrBadCID, k.name, s, fmt.Sprintf(format, a...))
	}
	if len(s) < 2 || s[0] != 'b' {
		return fail("want multibase base32 (prefix 'b')")
	}
	b, err := base32Lower.DecodeString(s[1:])
	if err != nil {
		return fail("base32: %v", err)
	}
	// Trailing bits a decoder ignores would give one commitment many names.
	if base32Lower.EncodeToString(b) != s[1:] {
		return fail("base32 is not canonical")
	}
	var fields [4]uint64
	for i, what := range [4]string{"version", "codec", "multihash code", "digest length"} {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return fail("truncated or overlong varint (%s)", what)
		}
		if n != len(binary.AppendUvarint(nil, v)) {
			return fail("varint not minimally encoded (%s)", what)
		}
		fields[i], b = v, b[n:]
	}
	switch {
	case fields[0] != cidV1:
		return fail("CID version %d, want 1", fields[0])
	case fields[1] != k.codec:
		return fail("codec %#x, want %#x", fields[1], k.codec)
	case fields[2] != k.hash:
		return fail("multihash code %#x, want %#x", fields[2], k.hash)
	case fields[3] != digestLen:
		return fail("digest length %d, want %d", fields[3], digestLen)
	case len(b) != digestLen:
		return fail("%d digest bytes, want %d", len(b), digestLen)
	}
	copy(d[:], b)
	return d, nil
}

// CID is a commitment CID (comm_d or comm_r) as go-cid's Cid marshals it in
// JSON: {"/":"<string>"}, and null for the zero value.
type CID struct{ str string }

// UnsealedCID is comm_d's CID.
func UnsealedCID(d [32]byte) CID { return CID{CommDCID(d)} }

// SealedCID is comm_r's CID.
func SealedCID(r [32]byte) CID { return CID{CommRCID(r)} }

// ParseCID accepts a comm_d or comm_r CID string.
func ParseCID(s string) (CID, error) {
	if _, err := ParseCommDCID(s); err == nil {
		return CID{s}, nil
	}
	if _, err := ParseCommRCID(s); err == nil {
		return CID{s}, nil
	}
	return CID{}, fmt.Errorf("%w: %q is neither a comm_d nor a comm_r CID", ErrBadCID, s)
}

// String is the CID string, "" for the zero value.
func (c CID) String() string { return c.str }

// Defined reports whether c holds a CID.
func (c CID) Defined() bool { return c.str != "" }

// CommD returns the comm_d bytes, or an error if c is not a comm_d CID.
func (c CID) CommD() ([32]byte, error) { return ParseCommDCID(c.str) }

// CommR returns the comm_r bytes, or an error if c is not a comm_r CID.
func (c CID) CommR() ([32]byte, error) { return ParseCommRCID(c.str) }

// MarshalJSON writes {"/":"<cid>"}, or null when c is undefined.
func (c CID) MarshalJSON() ([]byte, error) {
	if !c.Defined() {
		return []byte("null"), nil
	}
	return json.Marshal(struct {
		S string `json:"/"`
	}{c.str})
}

// UnmarshalJSON reads {"/":"<cid>"} (a comm_d or comm_r CID) or null.
func (c *CID) UnmarshalJSON(b []byte) error {
	var obj *struct {
		S *string `json:"/"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("%w: %v", ErrBadCID, err)
	}
	if obj == nil {
		*c = CID{}
		return nil
	}
	if obj.S == nil {
		return fmt.Errorf("%w: JSON object without \"/\"", ErrBadCID)
	}
	v, err := ParseCID(*obj.S)
	if err != nil {
		return err
	}
	*c = v
	return nil
}
