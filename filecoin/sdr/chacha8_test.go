package sdr

import (
	"encoding/binary"
	"encoding/hex"
	"testing"

	"golang.org/x/crypto/chacha20"
)

// With 20 rounds, stream 0 and a counter below 2^32, the block function is
// IETF ChaCha20 with an all-zero nonce; the same code runs 8 rounds for
// ChaCha8.
func TestChachaBlockMatchesChaCha20(t *testing.T) {
	var keyBytes [32]byte
	for i := range keyBytes {
		keyBytes[i] = byte(7*i + 3)
	}
	var key [8]uint32
	for i := range key {
		key[i] = binary.LittleEndian.Uint32(keyBytes[4*i:])
	}
	for _, counter := range []uint32{0, 1, 2, 1000, 1<<32 - 1} {
		c, err := chacha20.NewUnauthenticatedCipher(keyBytes[:], make([]byte, 12))
		if err != nil {
			t.Fatal(err)
		}
		c.SetCounter(counter)
		var want [64]byte
		c.XORKeyStream(want[:], want[:])
		var out [16]uint32
		chachaBlock(&key, uint64(counter), 20, &out)
		for i, w := range out {
			if got := binary.LittleEndian.Uint32(want[4*i:]); got != w {
				t.Fatalf("counter %d word %d: %08x, want %08x", counter, i, w, got)
			}
		}
	}
}

// ChaCha8, 256-bit all-zero key, zero IV: the first keystream block
// (draft-strombergson-chacha-test-vectors, TC1).
func TestChacha8ZeroKey(t *testing.T) {
	want := "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42"
	var key [8]uint32
	var out [16]uint32
	chachaBlock(&key, 0, 8, &out)
	var b [64]byte
	for i, w := range out {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	if got := hex.EncodeToString(b[:]); got != want {
		t.Errorf("ChaCha8 zero key block 0\n got %s\nwant %s", got, want)
	}
}
