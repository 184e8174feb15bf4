// The G1 MSM of sppark (Supranational's CUDA library, the reference GPU
// engines use) against ours, in one process on one GPU, as the kernel
// floor's yardstick: the same synthetic points (cuzk_srs_synthetic, read
// back), resident on the device for both, random scalars on the device for
// both (ours: cuzk_bench_msm's, timed by CUDA events; sppark's: msm_t::invoke
// over device scalars, timed on the host: invoke returns once its streams
// are done, its windows summed on the host included), the median of REPS. Before timing, both compute the
// MSM of the same 2^CHECK_LG points and scalars, compared as affine
// points, so a ratio is never taken between different results.
//
//   sppark_msm LO HI [REPS]   MSMs of 2^LO..2^HI points (default 20 26, 3 reps)
//
// Built only by cuda/test/gpu-sppark.sh, against sppark and blst
// checkouts it is given (SPPARK, BLST): neither is part of this repository
// or of the library, and this program links the library's C ABI only.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include <ff/bls12-381.hpp>

#include <ec/jacobian_t.hpp>
#include <ec/xyzz_t.hpp>

typedef jacobian_t<fp_t> point_t;
typedef xyzz_t<fp_t> bucket_t;
typedef bucket_t::affine_t affine_t;
typedef fr_t scalar_t;

#include <msm/pippenger.cuh>

#include "../cuzk.h"

#ifndef __CUDA_ARCH__  // host code only (sppark's host field type is blst's; its kernels are instantiated by pippenger.cuh)

#define OK(x)                                                                            \
  do {                                                                                   \
    if ((x) != 0) {                                                                      \
      printf("ERROR %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cuzk_last_error());         \
      exit(2);                                                                           \
    }                                                                                    \
  } while (0)

static const int check_lg = 16;

// Random scalars below r in Montgomery form (any value below r is one).
static void random_scalars(std::vector<uint64_t>& s, uint64_t n, uint64_t seed) {
  static const uint64_t r3 = 0x73eda753299d7d48ull;  // r's top limb
  s.resize(n * 4);
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (uint64_t i = 0; i < n * 4; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s[i] = (i % 4 == 3) ? x % r3 : x;
  }
}

// An Fp element of 6 little-endian limbs (Montgomery) as sppark's host type.
static fp_t fp_of(const uint64_t* v) {
  fp_t f;
  memcpy(&f, v, 48);
  return f;
}

// Affine x, y (Montgomery limbs) of our XYZZ result (X, Y, ZZ, ZZZ).
static bool affine_of_xyzz(const uint64_t* p, fp_t& x, fp_t& y) {
  const fp_t X = fp_of(p), Y = fp_of(p + 6), ZZ = fp_of(p + 12), ZZZ = fp_of(p + 18);
  if (ZZ.is_zero()) return false;
  x = X * ZZ.reciprocal();
  y = Y * ZZZ.reciprocal();
  return true;
}

// Affine x, y of sppark's Jacobian result.
static bool affine_of_jacobian(const point_t& p, fp_t& x, fp_t& y) {
  const point_t::affine_t a = p;  // jacobian_t converts to its affine type (infinity: zero)
  const uint64_t* v = reinterpret_cast<const uint64_t*>(&a);
  x = fp_of(v);
  y = fp_of(v + 6);
  return !(x.is_zero() && y.is_zero());
}

int main(int argc, char** argv) {
  const int lo = argc > 1 ? atoi(argv[1]) : 20, hi = argc > 2 ? atoi(argv[2]) : 26;
  const int reps = argc > 3 ? atoi(argv[3]) : 3;
  if (lo < check_lg || hi < lo || hi > 28) {
    printf("usage: sppark_msm LO HI [REPS] with %d <= LO <= HI <= 28\n", check_lg);
    return 2;
  }
  const uint64_t N = 1ull << hi;
  cuzk_ctx* ctx = cuzk_ctx_new(0, nullptr);
  if (!ctx) {
    printf("ERROR ctx: %s\n", cuzk_last_error());
    return 2;
  }
  // the points: query h of a synthetic set (distinct multiples of the generator), read back
  cuzk_srs* srs = cuzk_srs_synthetic(0, N, 0, 0, 0);
  if (!srs) {
    printf("ERROR synthetic srs: %s\n", cuzk_last_error());
    return 2;
  }
  std::vector<uint64_t> pts(N * 12);
  OK(cuzk_srs_read(srs, 0, 0, N, pts.data()));
  const affine_t* points = reinterpret_cast<const affine_t*>(pts.data());

  // the same MSM through both: 2^check_lg points and scalars from the host
  {
    const uint64_t n = 1ull << check_lg;
    std::vector<uint64_t> sc;
    random_scalars(sc, n, 7);
    uint64_t ours[24];
    OK(cuzk_msm(ctx, pts.data(), sc.data(), n, ours));
    point_t theirs;
    RustError e = mult_pippenger<bucket_t>(&theirs, points, (size_t)n,
                                           reinterpret_cast<const scalar_t*>(sc.data()), true);
    if (e.code != cudaSuccess) {
      printf("ERROR sppark MSM: %s\n", cudaGetErrorString((cudaError_t)e.code));
      return 2;
    }
    fp_t x0, y0, x1, y1;
    const bool f0 = affine_of_xyzz(ours, x0, y0), f1 = affine_of_jacobian(theirs, x1, y1);
    if (!f0 || !f1 || !(x0 == x1) || !(y0 == y1)) {
      printf("FAIL: the MSM of 2^%d points differs between cuzk and sppark\n", check_lg);
      return 1;
    }
    printf("check: the MSM of 2^%d points is the same point in cuzk and sppark\n", check_lg);
  }

  msm_t<bucket_t, point_t, affine_t, scalar_t> msm{points, (size_t)N};  // sppark's points resident
  std::vector<uint64_t> sc;
  random_scalars(sc, N, 11);
  scalar_t* d_sc = nullptr;
  if (cudaMalloc(&d_sc, N * 32) != cudaSuccess || cudaMemcpy(d_sc, sc.data(), N * 32, cudaMemcpyHostToDevice) != cudaSuccess) {
    printf("ERROR device scalars\n");
    return 2;
  }
  printf("%-6s %12s %12s %9s %8s\n", "lg n", "cuzk ms", "sppark ms", "ratio", "cuzk c");
  for (int lg = lo; lg <= hi; lg++) {
    const uint64_t n = 1ull << lg;
    float ours = 0;
    uint32_t window = 0;
    OK(cuzk_bench_msm(ctx, srs, 0, n, reps, &ours, &window));
    std::vector<float> t;
    for (int r = 0; r <= reps; r++) {  // the first a warm-up
      point_t out;
      const auto t0 = std::chrono::steady_clock::now();  // invoke returns once its streams are done
      RustError e = msm.invoke(out, (const affine_t*)nullptr, (size_t)n, dev_ptr_t<scalar_t>(d_sc, n), true);
      const float ms = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (e.code != cudaSuccess) {
        printf("ERROR sppark MSM 2^%d: %s\n", lg, cudaGetErrorString((cudaError_t)e.code));
        return 2;
      }
      if (r) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    const float theirs = t[t.size() / 2];
    printf("%-6d %12.1f %12.1f %9.3f %8u\n", lg, ours, theirs, ours / theirs, window);
    fflush(stdout);
  }
  cudaFree(d_sc);
  cuzk_srs_free(srs);
  cuzk_ctx_free(ctx);
  return 0;
}
#endif
