package filecoin

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"testing"
)

func TestPoRepID(t *testing.T) {
	for _, p := range SealProofs() {
		id := PoRepID(p)
		want := make([]byte, 32)
		want[0] = byte(p) // ids < 256: the first LE byte; nonce and the rest zero
		if hex.EncodeToString(id[:]) != hex.EncodeToString(want) {
			t.Errorf("PoRepID(%v) = %x", p, id)
		}
	}
}

func TestProverID(t *testing.T) {
	tests := []struct {
		actor uint64
		want  string // LEB128 payload of the f0 address
	}{
		{0, "00"},
		{1, "01"},
		{127, "7f"},
		{128, "8001"},
		{1000, "e807"},
		{1234567, "87ad4b"},
		{^uint64(0), "ffffffffffffffffff01"},
	}
	for _, tc := range tests {
		id := ProverID(tc.actor)
		payload, _ := hex.DecodeString(tc.want)
		var want [32]byte
		copy(want[:], payload)
		if id != want {
			t.Errorf("ProverID(%d) = %x, want %x", tc.actor, id, want)
		}
	}
}

func TestReplicaID(t *testing.T) {
	prover := ProverID(1000)
	var ticket, commD [32]byte
	for i := range ticket {
		ticket[i], commD[i] = byte(i), byte(0xa0+i%16)
	}
	porep := PoRepID(StackedDrg32GiBV1_1)
	got := ReplicaID(prover, 0x0102030405060708, ticket, commD, porep)

	h := sha256.New()
	h.Write(prover[:])
	var sector [8]byte
	binary.BigEndian.PutUint64(sector[:], 0x0102030405060708)
	h.Write(sector[:])
	h.Write(ticket[:])
	h.Write(commD[:])
	h.Write(porep[:])
	var want [32]byte
	h.Sum(want[:0])
	want[31] &= 0x3f
	if got != want {
		t.Fatalf("ReplicaID = %x, want %x", got, want)
	}
	if got[31]&0xc0 != 0 {
		t.Fatalf("top bits set: %x", got[31])
	}
	// Any input changes it; the sector number is big-endian.
	if ReplicaID(prover, 0x0807060504030201, ticket, commD, porep) == got {
		t.Error("sector byte order does not matter")
	}
}
