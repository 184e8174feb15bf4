package update

import (
	"encoding/base32"
	"fmt"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

// Curio's cuzk client (curio lib/ffi/cuzk_funcs.go ProveUpdateCuzk) sends
// comm_r_old, comm_r_new and comm_d_new as the raw 32-byte digests it takes
// out of the CIDs with go-fil-commcid (CIDToReplicaCommitmentV1,
// CIDToDataCommitmentV1), not as cid.Bytes(). ParseCommR and ParseCommD
// take those 32 bytes; they also take a binary CIDv1 of the right kind
// (cid.Bytes(): 40 bytes for comm_r, 39 for comm_d), which cannot be
// mistaken for a digest.

// base32Lower is multibase 'b': RFC 4648 lower case without padding.
var base32Lower = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// ParseCommR reads a comm_r field of a request (field names it in errors):
// 32 raw bytes or a binary fil-commitment-sealed CIDv1. The digest must be a
// canonical scalar.
func ParseCommR(b []byte, field string) (hash.Domain, error) {
	return parseComm(b, field, filecoin.ParseCommRCID)
}

// ParseCommD is ParseCommR for comm_d (fil-commitment-unsealed).
func ParseCommD(b []byte, field string) (hash.Domain, error) {
	return parseComm(b, field, filecoin.ParseCommDCID)
}

func parseComm(b []byte, field string, parseCID func(string) ([32]byte, error)) (hash.Domain, error) {
	var d hash.Domain
	switch {
	case len(b) == 32:
		d = hash.Domain(b)
	case len(b) > 32:
		v, err := parseCID("b" + base32Lower.EncodeToString(b))
		if err != nil {
			return hash.Domain{}, fmt.Errorf("%w: %s: %d bytes are neither a 32-byte digest nor its binary CID: %w", ErrBadComm, field, len(b), err)
		}
		d = v
	default:
		return hash.Domain{}, fmt.Errorf("%w: %s: %d bytes, want a 32-byte digest", ErrBadComm, field, len(b))
	}
	if _, err := d.Element(); err != nil {
		return hash.Domain{}, fmt.Errorf("%w: %s: %w", ErrBadComm, field, err)
	}
	return d, nil
}
