// Kernels of the synthetic SRS (cuzk_srs_synthetic, and its B_G2 through
// cuzk_srs_synthetic_bg2): distinct multiples of the generator, point i of
// the vector with offset off being
// ((i + off) mod 4096 + 1)·G + (((i + off) >> 12) mod n2 + 1)·4097·G.
// Templates over the point types (A affine, P XYZZ): synthetic.cu
// instantiates G1's, synthetic_g2.cu G2's.
#pragma once

#include "../ec/g1.cuh"
#include "../ec/g2.cuh"

// small multiples: tab[j] = (j+1)*step*G
template <class A, class P>
__global__ void synth_table(P* tab, uint32_t n, uint64_t step, A G) {
  uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  uint64_t k = (uint64_t)(j + 1) * step;
  P acc = P::inf();
  for (int b = 63; b >= 0; b--) {
    acc = acc.dbl();
    if ((k >> b) & 1) acc.add_affine(G);
  }
  tab[j] = acc;
}

// point i = T1[i & 4095] + T2[(i >> 12) % n2] (+ off): distinct multiples of G; batch inversion per thread.
template <class A, class P>
__global__ void __launch_bounds__(128) synth_points(A* out, uint64_t n, uint64_t off,
                                                    const P* T1, const P* T2, uint32_t n2) {
  typedef decltype(P::ZZ) F;
  const int CH = 16;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t b = t * CH;
  if (b >= n) return;
  P p[CH];
  F acc[CH];
  F run = F::one();
  for (int k = 0; k < CH; k++) {
    uint64_t i = b + k + off;
    p[k] = T1[i & 4095];
    p[k].add(T2[(i >> 12) % n2]);
    acc[k] = run;
    run = run * (p[k].ZZ * p[k].ZZZ);
  }
  F inv = run.inv();
  for (int k = CH - 1; k >= 0; k--) {
    F d = p[k].ZZ * p[k].ZZZ;
    F zinv = inv * acc[k];
    inv = inv * d;
    if (b + k < n) {
      A a;
      a.x = p[k].X * (zinv * p[k].ZZZ);
      a.y = p[k].Y * (zinv * p[k].ZZ);
      out[b + k] = a;
    }
  }
}
