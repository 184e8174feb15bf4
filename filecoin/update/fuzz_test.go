package update_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin/update"
)

// FuzzDecodePartitionProof: any bytes either decode to a proof that
// re-encodes to exactly those bytes and verifies or fails with
// ErrBadVanillaProof, or fail to decode with ErrBadVanillaProof; nothing
// panics. Seeded with a verifying 2 KiB partition and cuts of it.
func FuzzDecodePartitionProof(f *testing.F) {
	s := generated(f, update.StackedDrg2KiBV1)
	good := s.VanillaProofs[0]
	f.Add(good)
	for _, n := range []int{0, 31, 40, 300, 700, len(good) / 2, len(good) - 8} {
		f.Add(good[:n])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := update.DecodePartitionProof(b, s.Info)
		if err != nil {
			if !errors.Is(err, update.ErrBadVanillaProof) {
				t.Fatalf("decode error %v is not ErrBadVanillaProof", err)
			}
			return
		}
		again, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, b) {
			t.Fatal("decoded proof re-encodes differently")
		}
		q := s.Partition(0)
		q.Proof = p
		if err := q.Verify(); err != nil && !errors.Is(err, update.ErrBadVanillaProof) {
			t.Fatalf("verify error %v is not ErrBadVanillaProof", err)
		}
	})
}
