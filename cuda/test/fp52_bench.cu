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

#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      exit(2);                                                                       \
    }                                                                                \
  } while (0)

template <class T, class K>
static float best_ms(K kernel, const T* a, const T* b, T* out, int n, int reps, int threads) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  float best = 1e30f;
  for (int run = 0; run < 4; run++) {  // the first warms up
    CK(cudaEventRecord(e0));
    kernel<<<(n + threads - 1) / threads, threads>>>(a, b, out, n, reps);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (run > 0 && ms < best) best = ms;
  }
  return best;
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
    const float m52 = best_ms(chain52, da52, db52, do52, n, reps, threads);
    const float m32 = best_ms(chain32, da32, db32, do32, n, reps, threads);
    const double muls = (double)n * reps;
    printf("%s, %d threads a block: fp_t %.3g mul/s (%.2f ms), fp52 %.3g mul/s (%.2f ms): fp52 takes x%.2f of fp_t's time\n",
           prop.name, threads, muls / (m32 * 1e-3), m32, muls / (m52 * 1e-3), m52, m52 / m32);
  }
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
  if (argc < 2 || strcmp(argv[1], "host") != 0) bad += device_check_and_bench();
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
