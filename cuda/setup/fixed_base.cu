// cuzk_fixed_base_g1 and cuzk_fixed_base_g2: out[i] = affine([scalars[i]]·base)
// for the setup's queries (the kernels and the comb: fixed_base.cuh). The
// table is built on the device per call; the scalars go up and the points
// come back in chunks, each chunk: upload, comb sums (XYZZ), batch
// conversion to affine, download, on the context's main stream.
#include <string.h>

#include "../context.hpp"
#include "fixed_base.cuh"

// Points per chunk: G1 needs 368 bytes of device memory per point (6.2 GB
// at 2^24), G2 608 (5.1 GB at 2^23).
static const uint64_t FB_CHUNK_G1 = 1ull << 24, FB_CHUNK_G2 = 1ull << 23;
static const uint32_t FB_AFFINE_BATCH = 32;  // points per inversion in fb_affine

static bool canonical(const fp_t& x) { return !fp_t::geq_mod(x.v); }
static bool canonical(const fp2_t& x) { return canonical(x.a0) && canonical(x.a1); }

// The curve's b: 4 for G1, 4(u + 1) for G2.
static fp_t curve_b(const fp_t&) { return fp_t::one().dbl().dbl(); }
static fp2_t curve_b(const fp2_t&) { return g2_b(); }

// The base must be the identity, (0, 0), or a point of the curve with
// canonical coordinates (subgroup membership is the caller's).
template <class F>
static bool valid_base(const affine_t<F>& b) {
  if (b.is_inf()) return true;
  if (!canonical(b.x) || !canonical(b.y)) return false;
  return b.y.sqr() == b.x.sqr() * b.x + curve_b(b.x);
}

template <class F>
static int fixed_base(cuzk_ctx* ctx, const char* name, uint64_t max_chunk, const void* base, const void* scalars,
                      uint64_t n, void* out) {
  typedef affine_t<F> A;
  typedef xyzz_t<F> X;
  if (!ctx || !base || (n && (!scalars || !out))) return set_err(CUZK_ERR_ARG, "%s: null argument", name);
  if (n == 0) return 0;
  A B;
  memcpy(&B, base, sizeof B);
  if (!valid_base(B)) return set_err(CUZK_ERR_ARG, "%s: the base is not a point of the curve", name);
  CK(cudaSetDevice(ctx->dev));
  cudaStream_t s = ctx->main;

  device_buffer tab, sc, xyzz, aff;
  TRY(tab.allocate(FB_TABLE * sizeof(A)));
  uint64_t chunk = n < max_chunk ? n : max_chunk;
  for (;;) {  // smaller chunks where the device has less memory free
    if (sc.allocate(chunk * sizeof(fr_t)) == 0 && xyzz.allocate(chunk * sizeof(X)) == 0 &&
        aff.allocate(chunk * sizeof(A)) == 0)
      break;
    if (chunk <= (1u << 16)) return CUZK_ERR_MEM;  // the message is the failed cudaMalloc's
    chunk /= 2;
  }
  fb_table<F><<<(FB_TABLE + 127) / 128, 128, 0, s>>>(tab.as<A>(), B);
  CKL();

  const char* in = static_cast<const char*>(scalars);
  char* dst = static_cast<char*>(out);
  for (uint64_t off = 0; off < n; off += chunk) {
    const uint64_t c = n - off < chunk ? n - off : chunk;
    CK(cudaMemcpyAsync(sc.get(), in + off * sizeof(fr_t), c * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    fb_mul<F><<<(c + 127) / 128, 128, 0, s>>>(xyzz.as<X>(), sc.as<fr_t>(), c, tab.as<A>());
    CKL();
    const uint64_t threads = (c + FB_AFFINE_BATCH - 1) / FB_AFFINE_BATCH;
    fb_affine<F><<<(threads + 127) / 128, 128, 0, s>>>(aff.as<A>(), xyzz.as<X>(), c);
    CKL();
    CK(cudaMemcpyAsync(dst + off * sizeof(A), aff.get(), c * sizeof(A), cudaMemcpyDeviceToHost, s));
  }
  CK(cudaStreamSynchronize(s));
  return 0;
}

extern "C" int cuzk_fixed_base_g1(cuzk_ctx* ctx, const void* base, const void* scalars, uint64_t n, void* out) {
  return fixed_base<fp_t>(ctx, "fixed_base_g1", FB_CHUNK_G1, base, scalars, n, out);
}

extern "C" int cuzk_fixed_base_g2(cuzk_ctx* ctx, const void* base, const void* scalars, uint64_t n, void* out) {
  return fixed_base<fp2_t>(ctx, "fixed_base_g2", FB_CHUNK_G2, base, scalars, n, out);
}
