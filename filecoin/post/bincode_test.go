package post_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	"github.com/cuzk-project/cuzk/filecoin/post"
)

// TestDecodeRoundTrip re-encodes generated proofs of all three variants
// (Single at 2 KiB, Sub at 32 GiB, Top at 64 GiB) byte for byte and checks
// their sizes: 24,960 B per 32 GiB WindowPoSt sector (the real file's),
// 164,064 B for a 32 GiB WinningPoSt proof.
func TestDecodeRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		proof post.Proof
		kind  c1.ProofKind
		size  int
	}{
		{post.StackedDrgWinning2KiBV1, c1.KindSingle, 66*(4+64+8+2*240) + 120},
		{post.StackedDrgWinning32GiBV1, c1.KindSub, 164064},
		{post.StackedDrgWinning64GiBV1, c1.KindTop, 66*(4+64+8+9*240+8+240+8+(8+32+8)) + 120},
		{post.StackedDrgWindow32GiBV1_1, c1.KindSub, 24960},
		{post.StackedDrgWindow64GiBV1_1, c1.KindTop, 10*(4+64+8+9*240+8+240+8+(8+32+8)) + 120},
	} {
		info, _ := tc.proof.Info()
		var b []byte
		if info.Winning {
			w, err := gen.GenerateWinningPoSt(context.Background(), gen.WinningOptions{Proof: tc.proof, Seed: 3, Miner: 1234})
			if err != nil {
				t.Fatal(err)
			}
			b = w.Request.VanillaProofs[0]
		} else {
			w, err := gen.GenerateWindowPoSt(context.Background(), gen.WindowOptions{Proof: tc.proof, Seed: 3, Miner: 1234, Sectors: []uint64{5}})
			if err != nil {
				t.Fatal(err)
			}
			b = w.Request.VanillaProofs[0]
		}
		if len(b) != tc.size {
			t.Errorf("%s: %d bytes, want %d", info.Name, len(b), tc.size)
		}
		s, err := post.DecodeSectorProof(b)
		if err != nil {
			t.Fatalf("%s: %v", info.Name, err)
		}
		if s.Inclusion[0].Kind != tc.kind {
			t.Errorf("%s: %s proofs", info.Name, s.Inclusion[0].Kind)
		}
		if err := s.CheckShape(info); err != nil {
			t.Errorf("%s: %v", info.Name, err)
		}
		if again, err := s.MarshalBinary(); err != nil || !bytes.Equal(again, b) {
			t.Errorf("%s: MarshalBinary differs (%v)", info.Name, err)
		}
	}
}

// TestDecodeBad feeds broken bytes: every one is refused with
// ErrBadVanillaProof naming the field, none panics.
func TestDecodeBad(t *testing.T) {
	b, _, _ := golden(t)
	// Every cut in the header and the first opening, then every 97th byte.
	for n := 0; n < len(b); n++ {
		if n > 3000 && n%97 != 0 {
			continue
		}
		if _, err := post.DecodeSectorProof(b[:n]); !errors.Is(err, post.ErrBadVanillaProof) {
			t.Fatalf("%d of %d bytes: %v", n, len(b), err)
		}
	}
	put64 := func(off int, v uint64) []byte {
		c := bytes.Clone(b)
		binary.LittleEndian.PutUint64(c[off:], v)
		return c
	}
	put32 := func(off int, v uint32) []byte {
		c := bytes.Clone(b)
		binary.LittleEndian.PutUint32(c[off:], v)
		return c
	}
	// Offsets: sector_id 0, comm_r 8, sectors 40, inclusion count 48, first
	// opening 56: variant, base_proof count 60, its first element's hash
	// count 68, hashes 76…300, index 300.
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"trailing byte", append(bytes.Clone(b), 0), "1 bytes after the proof"},
		{"no sector proof", put64(40, 0), "vanilla_proof.sectors: offset 48: 0 sector proofs, want 1"},
		{"two sector proofs", put64(40, 2), "2 sector proofs, want 1"},
		{"huge opening count", put64(48, 1<<62), "inclusion_proofs: offset 48: length 4611686018427387904"},
		{"variant", put32(56, 3), "inclusion_proofs[0]: offset 56: variant 3"},
		{"huge path", put64(60, 1<<40), "inclusion_proofs[0].Sub.base_proof.path: offset 60: length"},
		{"huge hashes", put64(68, 100), "inclusion_proofs[0].Sub.base_proof.path[0].hashes: offset 68: length 100"},
		{"index", put64(300, 8), "inclusion_proofs[0].Sub.base_proof.path[0].index: offset 300: 8 among 8 children"},
	} {
		_, err := post.DecodeSectorProof(tc.b)
		if !errors.Is(err, post.ErrBadVanillaProof) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %q", tc.name, err, tc.want)
		}
	}
	// What has no bincode form is refused, not written.
	s, _ := post.DecodeSectorProof(b)
	s.Inclusion[0].Kind = c1.KindSingle
	if _, err := s.MarshalBinary(); err == nil {
		t.Error("a Single proof with a sub path was written")
	}
	s.Inclusion[0].Kind = c1.KindSub
	s.Inclusion[0].Base[0].Index = 8
	if _, err := s.MarshalBinary(); err == nil {
		t.Error("index 8 of 8 children was written")
	}
}
