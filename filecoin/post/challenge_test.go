package post_test

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/post"
)

func TestChallengeIndex(t *testing.T) {
	for _, tc := range []struct {
		api                  filecoin.APIVersion
		sector, perSector, n int
		want                 uint64
	}{
		{filecoin.APIV1_0, 0, 10, 7, 7},
		{filecoin.APIV1_0, 3, 10, 4, 34},
		{filecoin.APIV1_1, 3, 10, 4, 34},
		{filecoin.APIV1_2, 3, 10, 4, 4},
		{filecoin.APIV1_0, 2349 + 5, 10, 9, 23549}, // partition 1, sector 5 at 32 GiB
		{filecoin.APIV1_2, 2349 + 5, 10, 9, 9},
		{filecoin.APIV1_0, 65, 1, 0, 65}, // WinningPoSt circuit sector 65
	} {
		if got := post.ChallengeIndex(tc.api, tc.sector, tc.perSector, tc.n); got != tc.want {
			t.Errorf("ChallengeIndex(%s, %d, %d, %d) = %d, want %d", tc.api, tc.sector, tc.perSector, tc.n, got, tc.want)
		}
	}
}

// TestWinningSectorChallenges restates the sector selection of
// storage-proofs-post fallback/vanilla.rs generate_sector_challenge (prover
// id first, then the randomness, then n as u64) and checks the edges. No
// published known answer exists for it.
func TestWinningSectorChallenges(t *testing.T) {
	rand := [32]byte{1, 2, 3, 31: 0x3f}
	prover := filecoin.ProverID(1000)
	for _, setLen := range []uint64{1, 2, 7, 1 << 40} {
		got := post.WinningSectorChallenges(rand, prover, setLen, 3)
		for n, c := range got {
			var buf []byte
			buf = append(buf, prover[:]...)
			buf = append(buf, rand[:]...)
			buf = binary.LittleEndian.AppendUint64(buf, uint64(n))
			h := sha256.Sum256(buf)
			if want := binary.LittleEndian.Uint64(h[:8]) % setLen; c != want {
				t.Errorf("set %d challenge %d: %d, want %d", setLen, n, c, want)
			}
		}
		if len(got) != 3 {
			t.Errorf("%d challenges", len(got))
		}
	}
	if got := post.WinningSectorChallenges(rand, prover, 0, 1); got != nil {
		t.Errorf("empty set: %v", got)
	}
	// Swapping prover id and randomness changes the pick (the order matters).
	a := post.WinningSectorChallenges(rand, prover, 1<<40, 1)[0]
	b := post.WinningSectorChallenges(prover, rand, 1<<40, 1)[0]
	if a == b {
		t.Error("prover id and randomness commute")
	}
}
