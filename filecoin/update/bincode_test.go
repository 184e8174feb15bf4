package update_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/filecoin/update"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// TestBincodeLayout: a hand-built one-challenge-shaped proof encodes field
// by field as bincode 1.x lays out the serde structs.
func TestBincodeLayout(t *testing.T) {
	d := func(b byte) hash.Domain { return hash.Domain{b} }
	el := func(idx int, sib ...byte) merkle.PathElement {
		e := merkle.PathElement{Index: idx}
		for _, s := range sib {
			e.Siblings = append(e.Siblings, d(s))
		}
		return e
	}
	p := &update.PartitionProof{CommC: d(1), ApexLeaves: []hash.Domain{d(2), d(3)},
		Challenges: []update.ChallengeProof{{
			ROld: c1.MerkleProof{Kind: c1.KindTop, Base: []merkle.PathElement{el(1, 4)}, Sub: []merkle.PathElement{el(0, 5)},
				Top: []merkle.PathElement{el(1, 6)}, Root: d(7), Leaf: d(8)},
			DNew: c1.MerkleProof{Kind: c1.KindSingle, Base: []merkle.PathElement{el(1, 9)}, Root: d(10), Leaf: d(11)},
			RNew: c1.MerkleProof{Kind: c1.KindSub, Base: []merkle.PathElement{el(0, 12)}, Sub: []merkle.PathElement{el(1, 13)},
				Root: d(14), Leaf: d(15)},
		}}}
	var want []byte
	u32 := func(v uint32) { want = binary.LittleEndian.AppendUint32(want, v) }
	u64 := func(v uint64) { want = binary.LittleEndian.AppendUint64(want, v) }
	dom := func(b byte) { x := d(b); want = append(want, x[:]...) }
	path := func(idx uint64, sib byte) { u64(1); u64(1); dom(sib); u64(idx) }
	dom(1)
	u64(2)
	dom(2)
	dom(3)
	u64(1)
	u32(2) // Top: base, sub, top, root, leaf
	path(1, 4)
	path(0, 5)
	path(1, 6)
	dom(7)
	dom(8)
	u32(0) // Single: root, leaf, path
	dom(10)
	dom(11)
	path(1, 9)
	u32(1) // Sub: base, sub, root, leaf
	path(0, 12)
	path(1, 13)
	dom(14)
	dom(15)
	got, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("encoding\n%x\nwant\n%x", got, want)
	}
	p.Challenges[0].DNew.Base[0].Index = -1
	if _, err := p.MarshalBinary(); err == nil {
		t.Error("negative index encoded")
	}
}

// TestDecodeErrors: malformed bytes are rejected with ErrBadVanillaProof
// naming the field.
func TestDecodeErrors(t *testing.T) {
	s := generated(t, update.StackedDrg2KiBV1)
	good := s.VanillaProofs[0]
	info := s.Info
	// 2 KiB offsets: comm_c 0, apex count 32, apex leaves 40, challenge
	// count 296, the first proof_r_old at 304 (variant, root 308, leaf 340,
	// path count 372, level 0 hashes count 380, hashes 388, index 612).
	put64 := func(off int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[off:], v); return b }
	}
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"empty", func([]byte) []byte { return nil }, "comm_c: truncated"},
		{"short comm_c", func(b []byte) []byte { return b[:20] }, "comm_c: truncated at offset 0"},
		{"non-canonical comm_c", func(b []byte) []byte { b[31] = 0xff; return b }, "comm_c: "},
		{"apex count", put64(32, 9), "apex_leafs: length 9 at offset 32, want 8"},
		{"huge apex count", put64(32, 1<<62), "apex_leafs: length"},
		{"non-canonical apex leaf", func(b []byte) []byte { b[40+3*32+31] = 0xc0; return b }, "apex_leafs[3]"},
		{"challenge count", put64(296, 11), "challenge_proofs: length 11"},
		{"variant", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[304:], 1); return b }, "challenge_proofs[0].proof_r_old.variant: 1 at offset 304, want 0 (Single)"},
		{"path count", put64(372, 3), "challenge_proofs[0].proof_r_old.path: length 3"},
		{"hashes count", put64(380, 8), "challenge_proofs[0].proof_r_old.path[0].hashes: length 8"},
		{"index", put64(612, 8), "challenge_proofs[0].proof_r_old.path[0].index: 8 at offset 612, arity 8"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }, "challenge_proofs[9].proof_r_new.path[1].index: truncated"},
		{"trailing byte", func(b []byte) []byte { return append(b, 0) }, "1 bytes after the proof"},
	} {
		b := tc.edit(append([]byte{}, good...))
		_, err := update.DecodePartitionProof(b, info)
		if !errors.Is(err, update.ErrBadVanillaProof) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrBadVanillaProof naming %q", tc.name, err, tc.want)
		}
	}
	other, _ := update.StackedDrg8MiBV1.Info()
	if _, err := update.DecodePartitionProof(good, other); !errors.Is(err, update.ErrBadVanillaProof) {
		t.Errorf("2 KiB proof as 8 MiB: %v", err)
	}
	if _, err := update.DecodePartitionProof(good, update.Info{Name: "bogus"}); err == nil {
		t.Error("decoded with an empty Info")
	}
}
