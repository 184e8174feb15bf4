// Kernels of the synthetic SRS (cuzk_srs_synthetic): distinct multiples of
// the generator, point i of the vector with offset off being
// ((i + off) mod 4096 + 1)·G + (((i + off) >> 12) mod 2^17 + 1)·4097·G.
#pragma once

#include "../ec/g1.cuh"

// small multiples: tab[j] = (j+1)*step*G
__global__ void synth_table(g1_xyzz* tab, uint32_t n, uint64_t step, g1_affine G) {
  uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  uint64_t k = (uint64_t)(j + 1) * step;
  g1_xyzz acc = g1_xyzz::inf();
  for (int b = 63; b >= 0; b--) {
    acc = acc.dbl();
    if ((k >> b) & 1) acc.add_affine(G);
  }
  tab[j] = acc;
}

// point i = T1[i & 4095] + T2[(i >> 12) % n2] (+ off): distinct multiples of G; batch inversion per thread.
__global__ void __launch_bounds__(128) synth_points(g1_affine* out, uint64_t n, uint64_t off,
                                                    const g1_xyzz* T1, const g1_xyzz* T2, uint32_t n2) {
  const int CH = 16;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t b = t * CH;
  if (b >= n) return;
  g1_xyzz p[CH];
  fp_t acc[CH];
  fp_t run = fp_t::one();
  for (int k = 0; k < CH; k++) {
    uint64_t i = b + k + off;
    p[k] = T1[i & 4095];
    p[k].add(T2[(i >> 12) % n2]);
    acc[k] = run;
    run = run * (p[k].ZZ * p[k].ZZZ);
  }
  fp_t inv = run.inv();
  for (int k = CH - 1; k >= 0; k--) {
    fp_t d = p[k].ZZ * p[k].ZZZ;
    fp_t zinv = inv * acc[k];
    inv = inv * d;
    if (b + k < n) {
      g1_affine a;
      a.x = p[k].X * (zinv * p[k].ZZZ);
      a.y = p[k].Y * (zinv * p[k].ZZ);
      out[b + k] = a;
    }
  }
}
