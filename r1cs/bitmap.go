package r1cs

import "math/bits"

// Bitmap is a growable bit vector, bit i in word i/64 at position i%64.
// It records densities: bit i is set when variable i has a non-zero
// coefficient somewhere in the tracked matrix.
type Bitmap struct {
	Words []uint64
	N     int // number of bits
}

// NewBitmap returns a bitmap of n clear bits.
func NewBitmap(n int) *Bitmap {
	return &Bitmap{Words: make([]uint64, (n+63)/64), N: n}
}

// Len is the number of bits.
func (b *Bitmap) Len() int { return b.N }

// Grow appends one clear bit.
func (b *Bitmap) Grow() {
	if b.N%64 == 0 {
		b.Words = append(b.Words, 0)
	}
	b.N++
}

// Set sets bit i.
func (b *Bitmap) Set(i int) { b.Words[i>>6] |= 1 << (uint(i) & 63) }

// Get reports bit i.
func (b *Bitmap) Get(i int) bool { return b.Words[i>>6]>>(uint(i)&63)&1 == 1 }

// PopCount counts the set bits.
func (b *Bitmap) PopCount() int {
	n := 0
	for _, w := range b.Words {
		n += bits.OnesCount64(w)
	}
	return n
}

// Clone copies b.
func (b *Bitmap) Clone() *Bitmap {
	return &Bitmap{Words: append([]uint64(nil), b.Words...), N: b.N}
}
