// The FP64-pipe Fp product (ff/fp52.cuh) against the library's (fp_t):
//   fp52_bench          checks fp52 on the host against fp_t (random pairs,
//                       inputs below p and below 2p), then, where a GPU is
//                       found, the device's fp52 against the host's and both
//                       products' rates (chains of products a thread)
//   fp52_bench host     the host check alone (no GPU needed)
// Build: make cuda-fp52 (bin/fp52_bench; it does not link the library).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "../msm/kernels.cuh"  // ldaff, xyzz_acc
#include "fp52_check.hpp"

__global__ void chain52(const fp52_t* a, const fp52_t* b, fp52_t* out, int n, int reps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fp52_t x = a[i];
  const fp52_t y = b[i];
  for (int r = 0; r < reps; r++) x = fp52_t::mul(x, y);
  out[i] = x;
}

__global__ void chain32(const fp_t* a, const fp_t* b, fp_t* out, int n, int reps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fp_t x = a[i];
  const fp_t y = b[i];
  for (int r = 0; r < reps; r++) x = x * y;
  out[i] = x;
}

// Both pipes at once: each thread carries an fp_t chain and an fp52 chain
// (independent), so the scheduler can issue the FP64 pipe's work between the
// integer pipe's; 2·reps products a thread.
__global__ void chainmix(const fp_t* a, const fp_t* b, fp_t* out, const fp52_t* a52, const fp52_t* b52,
                         fp52_t* out52, int n, int reps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fp_t x = a[i];
  const fp_t y = b[i];
  fp52_t u = a52[i];
  const fp52_t v = b52[i];
  for (int r = 0; r < reps; r++) {
    x = x * y;
    u = fp52_t::mul(u, v);
  }
  out[i] = x;
  out52[i] = u;
}

// A warp's slot on the SM: slots go to the four schedulers in turn, so
// slots 0-3 and 4-7 put one warp of each kind on every scheduler.
__device__ __forceinline__ bool slot_odd() {
  uint32_t w;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(w));
  return (w >> 2) & 1;
}

// The pipes shared by warps: warps in slots 0-3, 8-11, ... run fp_t chains,
// the others fp52 chains (reps products a thread).
__global__ void chainwarps(const fp_t* a, const fp_t* b, fp_t* out, const fp52_t* a52, const fp52_t* b52,
                           fp52_t* out52, int n, int reps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (slot_odd()) {
    fp52_t u = a52[i];
    const fp52_t v = b52[i];
    for (int r = 0; r < reps; r++) u = fp52_t::mul(u, v);
    out52[i] = u;
  } else {
    fp_t x = a[i];
    const fp_t y = b[i];
    for (int r = 0; r < reps; r++) x = x * y;
    out[i] = x;
  }
}

// Bucket accumulation as msm_acc_chunk does it (a thread sums entries
// [j·C, (j+1)·C) of idx in runs of R, each run's sum stored), with fp_t's
// XYZZ (mode 0), the fp52 accumulator (mode 1) or, by warp, both (mode 2:
// by the warp's slot, one of each kind on every scheduler).
template <class Acc>
__device__ __forceinline__ void acc_runs(const g1_affine* pts, const uint32_t* idx, uint64_t b, int C, int R,
                                         g1_xyzz* out) {
  for (int r0 = 0; r0 < C; r0 += R) {
    Acc acc = Acc::inf();
    for (int i = r0; i < r0 + R; i++) {
      const uint32_t v = __ldg(idx + b + i);
      const g1_affine* src = pts + (v & 0x7fffffffu);
      g1_affine p = ldaff(src);
      if (v >> 31) p.y = p.y.neg();
      acc.add(src, v >> 31, p);
    }
    out[(b + r0) / R] = acc.sum();
  }
}

template <int mode>
__global__ void __launch_bounds__(128) acc_kernel(const g1_affine* pts, const uint32_t* idx, int nthreads, int C,
                                                  int R, g1_xyzz* out) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nthreads) return;
  const uint64_t b = (uint64_t)j * C;
  const bool use52 = mode == 1 || (mode == 2 && slot_odd());
  if (use52)
    acc_runs<xyzz52_acc>(pts, idx, b, C, R, out);
  else
    acc_runs<xyzz_acc<g1_affine, g1_xyzz>>(pts, idx, b, C, R, out);
}

#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      exit(2);                                                                       \
    }                                                                                \
  } while (0)

// The best of three timed launches after a warm-up (CUDA events).
template <class L>
static float best_of(L launch) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  float best = 1e30f;
  for (int run = 0; run < 4; run++) {  // the first warms up
    CK(cudaEventRecord(e0));
    launch();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (run > 0 && ms < best) best = ms;
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return best;
}

// XYZZ points equal as points (cross products, no inversion).
static bool same_point(const g1_xyzz& a, const g1_xyzz& b) {
  if (a.is_inf() || b.is_inf()) return a.is_inf() == b.is_inf();
  return a.X * b.ZZ == b.X * a.ZZ && a.Y * b.ZZZ == b.Y * a.ZZZ;
}

static int acc_check_and_bench(const fp52_points& t) {
  const int tab = 1 << 20, nthreads = 1 << 19, C = 128, R = 32;
  std::vector<g1_affine> pts(tab);
  for (int i = 0; i < tab; i++) pts[i] = t.pts[i % t.pts.size()];
  std::vector<uint32_t> idx((size_t)nthreads * C);
  for (auto& v : idx) v = (next() % tab) | ((next() & 1) << 31);
  g1_affine* dp;
  uint32_t* di;
  g1_xyzz* dout;
  const size_t nout = (size_t)nthreads * C / R;
  CK(cudaMalloc(&dp, tab * sizeof(g1_affine)));
  CK(cudaMalloc(&di, idx.size() * 4));
  CK(cudaMalloc(&dout, nout * sizeof(g1_xyzz)));
  CK(cudaMemcpy(dp, pts.data(), tab * sizeof(g1_affine), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(di, idx.data(), idx.size() * 4, cudaMemcpyHostToDevice));
  std::vector<g1_xyzz> ref(nout), got(nout);
  float ms[3];
  int bad = 0;
  for (int mode = 0; mode < 3; mode++) {
    const dim3 grid(nthreads / 128), block(128);
    ms[mode] = best_of([&] {
      if (mode == 0) acc_kernel<0><<<grid, block>>>(dp, di, nthreads, C, R, dout);
      if (mode == 1) acc_kernel<1><<<grid, block>>>(dp, di, nthreads, C, R, dout);
      if (mode == 2) acc_kernel<2><<<grid, block>>>(dp, di, nthreads, C, R, dout);
    });
    CK(cudaMemcpy(mode == 0 ? ref.data() : got.data(), dout, nout * sizeof(g1_xyzz), cudaMemcpyDeviceToHost));
    if (mode > 0) {
      int b = 0;
      for (size_t i = 0; i < nout; i += 61) b += !same_point(ref[i], got[i]);
      printf("device: accumulation mode %d against fp_t's, %zu runs sampled: %s\n", mode, (nout + 60) / 61,
             b ? "FAIL" : "ok");
      bad += b;
    }
  }
  const double adds = (double)nthreads * C;
  printf("accumulation (%d threads, runs of %d): fp_t %.3g add/s (%.2f ms); fp52 %.3g add/s (x%.2f of fp_t's time); "
         "half the warps fp52 %.3g add/s (x%.2f)\n",
         nthreads, R, adds / (ms[0] * 1e-3), ms[0], adds / (ms[1] * 1e-3), ms[1] / ms[0], adds / (ms[2] * 1e-3),
         ms[2] / ms[0]);
  cudaFree(dp);
  cudaFree(di);
  cudaFree(dout);
  return bad;
}

static int device_check_and_bench() {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    printf("device: no GPU, skipped\n");
    return 0;
  }
  const int n = 1 << 20, reps = 256, sample = 4096, sreps = 16;
  std::vector<fp_t> a32(n), b32(n);
  std::vector<fp52_t> a52(n), b52(n);
  for (int i = 0; i < n; i++) {
    a32[i] = random_fp();
    b32[i] = random_fp();
    a52[i] = fp52_t::from_words(a32[i].v);
    b52[i] = fp52_t::from_words(b32[i].v);
  }
  fp52_t *da52, *db52, *do52;
  fp_t *da32, *db32, *do32;
  CK(cudaMalloc(&da52, n * sizeof(fp52_t)));
  CK(cudaMalloc(&db52, n * sizeof(fp52_t)));
  CK(cudaMalloc(&do52, n * sizeof(fp52_t)));
  CK(cudaMalloc(&da32, n * sizeof(fp_t)));
  CK(cudaMalloc(&db32, n * sizeof(fp_t)));
  CK(cudaMalloc(&do32, n * sizeof(fp_t)));
  CK(cudaMemcpy(da52, a52.data(), n * sizeof(fp52_t), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db52, b52.data(), n * sizeof(fp52_t), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(da32, a32.data(), n * sizeof(fp_t), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db32, b32.data(), n * sizeof(fp_t), cudaMemcpyHostToDevice));

  // the device's chains against the host's, bit for bit
  chain52<<<(sample + 127) / 128, 128>>>(da52, db52, do52, sample, sreps);
  CK(cudaDeviceSynchronize());
  std::vector<fp52_t> got(sample);
  CK(cudaMemcpy(got.data(), do52, sample * sizeof(fp52_t), cudaMemcpyDeviceToHost));
  fesetround(FE_TOWARDZERO);
  int bad = 0;
  for (int i = 0; i < sample; i++) {
    fp52_t x = a52[i];
    for (int r = 0; r < sreps; r++) x = fp52_t::mul(x, b52[i]);
    if (memcmp(&x, &got[i], sizeof x) != 0) bad++;
  }
  fesetround(FE_TONEAREST);
  printf("device: fp52 chains of %d against the host's, %d threads: %s\n", sreps, sample, bad ? "FAIL" : "ok");

  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  for (int threads : {128, 256}) {
    const dim3 grid((n + threads - 1) / threads), block(threads);
    const float m52 = best_of([&] { chain52<<<grid, block>>>(da52, db52, do52, n, reps); });
    const float m32 = best_of([&] { chain32<<<grid, block>>>(da32, db32, do32, n, reps); });
    const double muls = (double)n * reps;
    printf("%s, %d threads a block: fp_t %.3g mul/s (%.2f ms), fp52 %.3g mul/s (%.2f ms): fp52 takes x%.2f of fp_t's time\n",
           prop.name, threads, muls / (m32 * 1e-3), m32, muls / (m52 * 1e-3), m52, m52 / m32);
    const float mm = best_of([&] { chainmix<<<grid, block>>>(da32, db32, do32, da52, db52, do52, n, reps); });
    const float mw = best_of([&] { chainwarps<<<grid, block>>>(da32, db32, do32, da52, db52, do52, n, reps); });
    printf("  both pipes: one fp_t and one fp52 chain a thread %.3g mul/s (x%.2f fp_t's rate); half the warps fp52 %.3g mul/s (x%.2f)\n",
           2 * muls / (mm * 1e-3), (2 * muls / mm) / (muls / m32), muls / (mw * 1e-3), m32 / mw);
  }
  fp52_points t(4096);
  bad += acc_check_and_bench(t);
  cudaFree(da52);
  cudaFree(db52);
  cudaFree(do52);
  cudaFree(da32);
  cudaFree(db32);
  cudaFree(do32);
  return bad;
}

int main(int argc, char** argv) {
  int bad = fp52_host_check(200000);
  {
    fp52_points t(64);
    bad += fp52_acc_host_check(t, 200, 40);
  }
  if (argc < 2 || strcmp(argv[1], "host") != 0) bad += device_check_and_bench();
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
