package sdr

import "math/bits"

// chachaBlock is the ChaCha block function (Bernstein's original layout:
// 64-bit block counter in words 12–13, 64-bit stream id in words 14–15, here
// always stream 0) with the given number of rounds, as rand_chacha 0.3's
// ChaCha8Rng runs it with rounds = 8: key = the 32-byte seed read as eight
// little-endian words, counter from 0. out is the 16 output words.
func chachaBlock(key *[8]uint32, counter uint64, rounds int, out *[16]uint32) {
	const c0, c1, c2, c3 = 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574
	x0, x1, x2, x3 := uint32(c0), uint32(c1), uint32(c2), uint32(c3)
	x4, x5, x6, x7 := key[0], key[1], key[2], key[3]
	x8, x9, x10, x11 := key[4], key[5], key[6], key[7]
	x12, x13, x14, x15 := uint32(counter), uint32(counter>>32), uint32(0), uint32(0)

	for i := 0; i < rounds; i += 2 {
		// Column round.
		x0, x4, x8, x12 = quarterRound(x0, x4, x8, x12)
		x1, x5, x9, x13 = quarterRound(x1, x5, x9, x13)
		x2, x6, x10, x14 = quarterRound(x2, x6, x10, x14)
		x3, x7, x11, x15 = quarterRound(x3, x7, x11, x15)
		// Diagonal round.
		x0, x5, x10, x15 = quarterRound(x0, x5, x10, x15)
		x1, x6, x11, x12 = quarterRound(x1, x6, x11, x12)
		x2, x7, x8, x13 = quarterRound(x2, x7, x8, x13)
		x3, x4, x9, x14 = quarterRound(x3, x4, x9, x14)
	}

	out[0], out[1], out[2], out[3] = x0+c0, x1+c1, x2+c2, x3+c3
	out[4], out[5], out[6], out[7] = x4+key[0], x5+key[1], x6+key[2], x7+key[3]
	out[8], out[9], out[10], out[11] = x8+key[4], x9+key[5], x10+key[6], x11+key[7]
	out[12], out[13], out[14], out[15] = x12+uint32(counter), x13+uint32(counter>>32), x14, x15
}

func quarterRound(a, b, c, d uint32) (uint32, uint32, uint32, uint32) {
	a += b
	d = bits.RotateLeft32(d^a, 16)
	c += d
	b = bits.RotateLeft32(b^c, 12)
	a += b
	d = bits.RotateLeft32(d^a, 8)
	c += d
	b = bits.RotateLeft32(b^c, 7)
	return a, b, c, d
}
