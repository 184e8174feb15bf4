// BLS12-381 G1 (y^2 = x^3 + 4) in affine and XYZZ coordinates (ec/xyzz.cuh
// over Fp).
//
// Affine points have gnark-crypto's G1Affine memory layout: X then Y, each
// an fp.Element (12 words, Montgomery): 96 bytes. (0, 0) is the point at
// infinity. XYZZ: X, Y, ZZ, ZZZ, 192 bytes; ZZ = 0 is the point at infinity.
#pragma once

#include <string.h>

#include "../ff/field.cuh"
#include "xyzz.cuh"

typedef affine_t<fp_t> g1_affine;
typedef xyzz_t<fp_t> g1_xyzz;

// The standard generator of G1 (gnark-crypto's g1Gen), in Montgomery form.
inline g1_affine g1_generator() {
  const uint64_t gx[6] = {0x5cb38790fd530c16ull, 0x7817fc679976fff5ull, 0x154f95c7143ba1c1ull,
                          0xf0ae6acdf3d0e747ull, 0xedce6ecc21dbf440ull, 0x120177419e0bfb75ull};
  const uint64_t gy[6] = {0xbaac93d50ce72271ull, 0x8c22631a7918fd8eull, 0xdd595f13570725ceull,
                          0x51ac582950405194ull, 0x0e1c8c3fad0059c0ull, 0x0bbc3efc5008a26aull};
  g1_affine G;
  memcpy(G.x.v, gx, 48);
  memcpy(G.y.v, gy, 48);
  return G;
}
