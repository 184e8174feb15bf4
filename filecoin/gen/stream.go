package gen

import (
	"crypto/sha256"
	"encoding/binary"
)

// draw is the generator's deterministic stream: SHA-256("cuzk/gen/" ‖ tag ‖
// u64_le(seed) ‖ u64_le(i) for each index). Every value is addressed by what
// it is for (the ticket, the label of node v in layer l), so no value
// depends on the order the others are drawn in.
func draw(seed uint64, tag string, idx ...uint64) [32]byte {
	h := sha256.New()
	h.Write([]byte("cuzk/gen/"))
	h.Write([]byte(tag))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	for _, i := range idx {
		binary.LittleEndian.PutUint64(b[:], i)
		h.Write(b[:])
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// drawElement is draw with the top two bits cleared: a canonical scalar,
// little-endian.
func drawElement(seed uint64, tag string, idx ...uint64) [32]byte {
	d := draw(seed, tag, idx...)
	d[31] &= 0x3f
	return d
}

// drawNonZero is drawElement redrawn (with a counter) until it is not zero,
// as C2 rejects a zero seed.
func drawNonZero(seed uint64, tag string) [32]byte {
	for n := uint64(0); ; n++ {
		d := drawElement(seed, tag, n)
		if d != ([32]byte{}) {
			return d
		}
	}
}
