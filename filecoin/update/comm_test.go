package update

import (
	"encoding/base32"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

// binaryCID is what cid.Bytes() gives for a commitment CID string.
func binaryCID(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding).DecodeString(s[1:])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseComm(t *testing.T) {
	r := hash.Domain{1, 2, 3}
	d := hash.Domain{4, 5, 6}
	rCID := binaryCID(t, filecoin.CommRCID(r))
	dCID := binaryCID(t, filecoin.CommDCID(d))
	if len(rCID) != 40 || len(dCID) != 39 {
		t.Fatalf("binary CID lengths %d, %d, want 40 and 39", len(rCID), len(dCID))
	}
	big := make([]byte, 32)
	for i := range big {
		big[i] = 0xff
	}
	for _, tc := range []struct {
		name  string
		parse func([]byte, string) (hash.Domain, error)
		in    []byte
		want  hash.Domain
		err   string
	}{
		{"raw comm_r", ParseCommR, r[:], r, ""},
		{"raw comm_d", ParseCommD, d[:], d, ""},
		{"binary comm_r CID", ParseCommR, rCID, r, ""},
		{"binary comm_d CID", ParseCommD, dCID, d, ""},
		{"comm_d CID as comm_r", ParseCommR, dCID, hash.Domain{}, "codec"},
		{"comm_r CID as comm_d", ParseCommD, rCID, hash.Domain{}, "codec"},
		{"31 bytes", ParseCommR, r[:31], hash.Domain{}, "31 bytes"},
		{"empty", ParseCommD, nil, hash.Domain{}, "0 bytes"},
		{"CID with a byte more", ParseCommR, append(append([]byte{}, rCID...), 0), hash.Domain{}, "digest"},
		{"not canonical", ParseCommR, big, hash.Domain{}, "canonical"},
	} {
		got, err := tc.parse(tc.in, "comm_x")
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("%s: %s, %v", tc.name, got, err)
			}
			continue
		}
		if !errors.Is(err, ErrBadComm) || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "comm_x") {
			t.Errorf("%s: %v, want ErrBadComm naming comm_x and %q", tc.name, err, tc.err)
		}
	}
}
