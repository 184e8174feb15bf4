package sdr

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"slices"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
)

func TestSyntheticKnownAnswers(t *testing.T) {
	raw, err := os.ReadFile("testdata/synthetic_challenges.json")
	if err != nil {
		t.Fatal(err)
	}
	var kat struct {
		Nodes     uint64   `json:"sector_nodes"`
		ReplicaFr uint64   `json:"replica_id_fr"`
		CommRFr   uint64   `json:"comm_r_fr"`
		Synth     int      `json:"num_synth_challenges"`
		PoRep     int      `json:"num_porep_challenges"`
		Rand      byte     `json:"porep_challenge_randomness_byte"`
		WantSynth []uint64 `json:"expected_synth_challenges"`
		WantPoRep []uint64 `json:"expected_porep_challenges"`
	}
	if err := json.Unmarshal(raw, &kat); err != nil {
		t.Fatal(err)
	}
	// A small Fr's repr: its little-endian bytes.
	var rid, commR, seed [32]byte
	binary.LittleEndian.PutUint64(rid[:], kat.ReplicaFr)
	binary.LittleEndian.PutUint64(commR[:], kat.CommRFr)
	for i := range seed {
		seed[i] = kat.Rand
	}
	s := NewSyntheticCount(rid, commR, kat.Nodes, kat.Synth)
	if got := s.All(); !slices.Equal(got, kat.WantSynth) {
		t.Errorf("synthetic set %v\nwant %v", got, kat.WantSynth)
	}
	for i := kat.Synth - 1; i >= 0; i-- {
		if got := s.Challenge(i); got != kat.WantSynth[i] {
			t.Errorf("Challenge(%d) = %d, want %d", i, got, kat.WantSynth[i])
		}
	}
	if got := s.PartitionChallenges(seed, 0, kat.PoRep); !slices.Equal(got, kat.WantPoRep) {
		t.Errorf("PoRep challenges %v\nwant %v", got, kat.WantPoRep)
	}
	// Partitions are consecutive slices of one selection stream.
	var joined []uint64
	for k := 0; k < 5; k++ {
		joined = append(joined, s.PartitionChallenges(seed, k, 2)...)
	}
	if !slices.Equal(joined, kat.WantPoRep) {
		t.Errorf("5 partitions × 2: %v, want %v", joined, kat.WantPoRep)
	}
}

func TestSyntheticDefault(t *testing.T) {
	var rid, commR, seed [32]byte
	rid[0], commR[0], seed[0] = 1, 2, 3
	if n := NewSynthetic(rid, commR, 64).Count(); n != 64 {
		t.Errorf("2 KiB count %d", n)
	}
	s := NewSynthetic(rid, commR, 1<<30)
	if s.Count() != 1<<18 {
		t.Errorf("32 GiB count %d", s.Count())
	}
	all := s.All()
	for _, i := range []int{0, 1, 2, 77, 1<<18 - 1} {
		if c := s.Challenge(i); c != all[i] || c < 1 || c >= 1<<30 {
			t.Errorf("challenge %d: %d vs %d", i, c, all[i])
		}
	}
	if s.Challenge(1<<18) != 0 || s.Challenge(-1) != 0 {
		t.Error("out-of-range challenge not 0")
	}
	ch := SyntheticChallenges(rid, commR, seed, 1<<30, 3, 18)
	idx := s.PartitionIndexes(seed, 3, 18)
	for i := range ch {
		if ch[i] != all[idx[i]] {
			t.Fatalf("challenge %d: %d, want synthetic %d = %d", i, ch[i], idx[i], all[idx[i]])
		}
	}
}

// The reduction against math/big, and the hash input layout.
func TestInteractiveChallenges(t *testing.T) {
	var rid, seed [32]byte
	for i := range rid {
		rid[i], seed[i] = byte(i), byte(3*i+1)
	}
	for _, nodes := range []uint64{2, 64, 1 << 18, 1 << 30, 1 << 31} {
		got := InteractiveChallenges(rid, seed, nodes, 2, 18)
		for i, c := range got {
			var buf [68]byte
			copy(buf[:], rid[:])
			copy(buf[32:], seed[:])
			binary.LittleEndian.PutUint32(buf[64:], uint32(18*2+i))
			h := sha256.Sum256(buf[:])
			slices.Reverse(h[:])
			want := new(big.Int).SetBytes(h[:])
			want.Mod(want, new(big.Int).SetUint64(nodes-1))
			if c != want.Uint64()+1 {
				t.Fatalf("nodes %d challenge %d: %d, want %d", nodes, i, c, want.Uint64()+1)
			}
		}
	}
	// Partitions are consecutive slices of one sequence.
	all := InteractiveChallenges(rid, seed, 1<<30, 0, 180)
	for k := 0; k < 10; k++ {
		if got := InteractiveChallenges(rid, seed, 1<<30, k, 18); !slices.Equal(got, all[18*k:18*k+18]) {
			t.Fatalf("partition %d differs", k)
		}
	}
	if InteractiveChallenges(rid, seed, 1, 0, 2) != nil || InteractiveChallenges(rid, seed, 64, 0, 0) != nil {
		t.Error("degenerate request not nil")
	}
}

func TestNIChallenges(t *testing.T) {
	var rid, commR [32]byte
	rid[5], commR[7] = 9, 11
	got := NIChallenges(rid, commR, 1<<30, 125, 18)
	buf := append([]byte("filecoin.io|PoRep|1|NonInteractive|1"), rid[:]...)
	buf = append(buf, commR[:]...)
	buf = binary.LittleEndian.AppendUint32(buf, 125*18+17)
	h := sha256.Sum256(buf)
	if got[17] != challengeOf(h[:], 1<<30) {
		t.Errorf("NI challenge 17 of partition 125: %d", got[17])
	}
}

func TestChallengesDispatch(t *testing.T) {
	var rid, seed, commR [32]byte
	rid[0], seed[0], commR[0] = 1, 2, 3
	for _, p := range filecoin.SealProofs() {
		info, _ := p.Info()
		last := info.Partitions - 1
		got, err := Challenges(info, rid, seed, commR, last)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		var want []uint64
		switch info.Feature {
		case filecoin.Interactive:
			want = InteractiveChallenges(rid, seed, info.Nodes, last, info.Challenges)
		case filecoin.NonInteractive:
			want = NIChallenges(rid, commR, info.Nodes, last, info.Challenges)
		case filecoin.Synthetic:
			want = SyntheticChallenges(rid, commR, seed, info.Nodes, last, info.Challenges)
		}
		if !slices.Equal(got, want) || len(got) != info.Challenges {
			t.Errorf("%v: %v, want %v", p, got, want)
		}
		for _, c := range got {
			if c < 1 || c >= info.Nodes {
				t.Errorf("%v: challenge %d out of [1, %d)", p, c, info.Nodes)
			}
		}
		for _, k := range []int{-1, info.Partitions} {
			if _, err := Challenges(info, rid, seed, commR, k); !errors.Is(err, ErrBadChallenge) {
				t.Errorf("%v partition %d: %v", p, k, err)
			}
		}
	}
	if _, err := Challenges(filecoin.SealInfo{Partitions: 1}, rid, seed, commR, 0); !errors.Is(err, ErrBadChallenge) {
		t.Errorf("empty info: %v", err)
	}
}
