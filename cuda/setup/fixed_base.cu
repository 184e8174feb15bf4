// cuzk_fixed_base_g1: out[i] = affine([scalars[i]]·base) for the setup's G1
// queries (the kernels and the comb: fixed_base.cuh). The table is built on
// the device per call; the scalars go up and the points come back in chunks
// of at most FB_CHUNK, each chunk: upload, comb sums (XYZZ), batch
// conversion to affine, download, on the context's main stream.
#include <string.h>

#include "../context.hpp"
#include "fixed_base.cuh"

static const uint64_t FB_CHUNK = 1ull << 24;  // 368 bytes of device memory per point: 6.2 GB
static const uint32_t FB_AFFINE_BATCH = 32;   // points per inversion in fb_affine

// The base must be the identity, (0, 0), or a point of the curve with
// canonical coordinates (subgroup membership is the caller's).
static bool valid_base(const g1_affine& b) {
  if (b.is_inf()) return true;
  if (fp_t::geq_mod(b.x.v) || fp_t::geq_mod(b.y.v)) return false;
  const fp_t four = fp_t::one().dbl().dbl();
  return b.y.sqr() == b.x.sqr() * b.x + four;
}

extern "C" int cuzk_fixed_base_g1(cuzk_ctx* ctx, const void* base, const void* scalars, uint64_t n, void* out) {
  if (!ctx || !base || (n && (!scalars || !out))) return set_err(CUZK_ERR_ARG, "fixed_base_g1: null argument");
  if (n == 0) return 0;
  g1_affine B;
  memcpy(&B, base, sizeof B);
  if (!valid_base(B)) return set_err(CUZK_ERR_ARG, "fixed_base_g1: the base is not a point of G1's curve");
  CK(cudaSetDevice(ctx->dev));
  cudaStream_t s = ctx->main;

  device_buffer tab, sc, xyzz, aff;
  TRY(tab.allocate(FB_TABLE * sizeof(g1_affine)));
  uint64_t chunk = n < FB_CHUNK ? n : FB_CHUNK;
  for (;;) {  // smaller chunks where the device has less memory free
    if (sc.allocate(chunk * sizeof(fr_t)) == 0 && xyzz.allocate(chunk * sizeof(g1_xyzz)) == 0 &&
        aff.allocate(chunk * sizeof(g1_affine)) == 0)
      break;
    if (chunk <= (1u << 16)) return CUZK_ERR_MEM;  // the message is the failed cudaMalloc's
    chunk /= 2;
  }
  fb_table<<<(FB_TABLE + 127) / 128, 128, 0, s>>>(tab.as<g1_affine>(), B);
  CKL();

  const char* in = static_cast<const char*>(scalars);
  char* dst = static_cast<char*>(out);
  for (uint64_t off = 0; off < n; off += chunk) {
    const uint64_t c = n - off < chunk ? n - off : chunk;
    CK(cudaMemcpyAsync(sc.get(), in + off * sizeof(fr_t), c * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    fb_mul<<<(c + 127) / 128, 128, 0, s>>>(xyzz.as<g1_xyzz>(), sc.as<fr_t>(), c, tab.as<g1_affine>());
    CKL();
    const uint64_t threads = (c + FB_AFFINE_BATCH - 1) / FB_AFFINE_BATCH;
    fb_affine<<<(threads + 127) / 128, 128, 0, s>>>(aff.as<g1_affine>(), xyzz.as<g1_xyzz>(), c);
    CKL();
    CK(cudaMemcpyAsync(dst + off * sizeof(g1_affine), aff.get(), c * sizeof(g1_affine), cudaMemcpyDeviceToHost, s));
  }
  CK(cudaStreamSynchronize(s));
  return 0;
}
