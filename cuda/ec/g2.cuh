// BLS12-381 G2 (y^2 = x^3 + 4(u + 1) over Fp2) in affine and XYZZ
// coordinates (ec/xyzz.cuh over Fp2: a = 0, so G1's formulas and edge cases).
//
// Affine points have gnark-crypto's G2Affine memory layout: X.A0, X.A1,
// Y.A0, Y.A1, each an fp.Element (Montgomery): 192 bytes; (0, 0) is the
// point at infinity. XYZZ: X, Y, ZZ, ZZZ, each an E2: 384 bytes; ZZ = 0 is
// the point at infinity.
#pragma once

#include <string.h>

#include "../ff/fp2.cuh"
#include "xyzz.cuh"

// G2's XYZZ addition and doubling are out of line on the device (xyzz.cuh).
template <>
struct xyzz_out_of_line<fp2_t> {
  static constexpr bool value = true;
};

typedef affine_t<fp2_t> g2_affine;
typedef xyzz_t<fp2_t> g2_xyzz;

// The standard generator of G2 (gnark-crypto's g2Gen), in Montgomery form.
inline g2_affine g2_generator() {
  const uint64_t w[4][6] = {
      {0xf5f28fa202940a10ull, 0xb3f5fb2687b4961aull, 0xa1a893b53e2ae580ull, 0x9894999d1a3caee9ull,
       0x6f67b7631863366bull, 0x058191924350bcd7ull},
      {0xa5a9c0759e23f606ull, 0xaaa0c59dbccd60c3ull, 0x3bb17e18e2867806ull, 0x1b1ab6cc8541b367ull,
       0xc2b6ed0ef2158547ull, 0x11922a097360edf3ull},
      {0x4c730af860494c4aull, 0x597cfa1f5e369c5aull, 0xe7e6856caa0a635aull, 0xbbefb5e96e0d495full,
       0x07d3a975f0ef25a2ull, 0x0083fd8e7e80dae5ull},
      {0xadc0fc92df64b05dull, 0x18aa270a2b1461dcull, 0x86adac6a3be4eba0ull, 0x79495c4ec93da33aull,
       0xe7175850a43ccaedull, 0x0b2bc2a163de1bf2ull}};
  g2_affine G;
  memcpy(G.x.a0.v, w[0], 48);
  memcpy(G.x.a1.v, w[1], 48);
  memcpy(G.y.a0.v, w[2], 48);
  memcpy(G.y.a1.v, w[3], 48);
  return G;
}

// The curve's b = 4(u + 1) in Montgomery form (host checks).
inline fp2_t g2_b() {
  const fp_t four = fp_t::one().dbl().dbl();
  return {four, four};
}
