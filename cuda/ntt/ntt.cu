// The NTT host driver (ntt.hpp) and the C ABI's cuzk_ntt and cuzk_h.
#include <string>
#include <vector>

#include "../context.hpp"
#include "../util/profile.hpp"
#include "kernels.cuh"
#include "ntt.hpp"

static uint32_t ntt_npasses(uint32_t lgn, uint32_t max_t) { return (lgn + max_t - 1) / max_t; }

// The 256-thread shape only where it needs fewer passes than the 128-thread one.
static bool ntt_wide(uint32_t lgn) {
  return ntt_npasses(lgn, ntt_wide_t::max_t) < ntt_npasses(lgn, ntt_narrow::max_t);
}

// Pass sizes, most significant first, as even as possible.
static void ntt_split(uint32_t lgn, uint32_t max_t, std::vector<uint32_t>& ts) {
  uint32_t P = ntt_npasses(lgn, max_t);
  ts.clear();
  for (uint32_t i = 0; i < P; i++) ts.push_back(lgn / P + (i < lgn % P ? 1 : 0));
}

// What every pass of one transform shares.
struct ntt_pass_args {
  fr_t* d;
  uint32_t lgn;
  const fr_t* W;   // w_1024 powers for the direction
  pow_tab tw;      // powers of w_n for the direction
  const fr_t* Wd;  // w_(2^18) powers for the direction
};

template <bool DIF, class SH>
static int ntt_launch(const ntt_pass_args& a, uint32_t t, uint32_t s, const pow_tab* in, const pow_tab* out,
                      cudaStream_t st) {
  const pow_tab none = {nullptr, nullptr};
  const uint64_t groups = (1ull << a.lgn) >> t, G = SH::elems >> t;
  const size_t smem = 32 * SH::elems;
  if (smem > 48 * 1024)  // beyond the default limit: opt in (per device, so at every launch)
    CK(cudaFuncSetAttribute(ntt_pass<DIF, SH>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  ntt_pass<DIF, SH><<<(groups + G - 1) / G, SH::threads, smem, st>>>(
      a.d, a.lgn, t, s, a.W, a.tw, s + t <= 18 ? a.Wd : nullptr, in ? *in : none, in != nullptr,
      out ? *out : none, out != nullptr);
  return 0;
}

// One pass of 2^t-point groups at stride 2^s in the shape that suits it:
// strided passes in the several-group shape (whole row segments), else the
// wide shape where it saves a pass, else the narrow one.
static int ntt_pass_any(const ntt_pass_args& a, bool dif, bool wide, uint32_t t, uint32_t s, const pow_tab* in,
                        const pow_tab* out, cudaStream_t st) {
  if (s > 0 && t <= ntt_big::max_t && (ntt_big::elems >> t) >= 4)
    return dif ? ntt_launch<true, ntt_big>(a, t, s, in, out, st) : ntt_launch<false, ntt_big>(a, t, s, in, out, st);
  if (wide)
    return dif ? ntt_launch<true, ntt_wide_t>(a, t, s, in, out, st)
               : ntt_launch<false, ntt_wide_t>(a, t, s, in, out, st);
  return dif ? ntt_launch<true, ntt_narrow>(a, t, s, in, out, st) : ntt_launch<false, ntt_narrow>(a, t, s, in, out, st);
}

int ntt_dev(cuzk_ctx* ctx, fr_t* d, uint32_t lgn, bool dif, bool inverse, const pow_tab* in_scale,
            const pow_tab* out_scale, cudaStream_t st) {
  if (lgn == 0) return 0;
  if (lgn > 28) return set_err(CUZK_ERR_ARG, "ntt: lgn %u > 28", lgn);
  ntt_tables* T;
  TRY(ctx->ntt.tables(lgn, &T));
  const ntt_pass_args a = {d, lgn, ctx->ntt.w1024(inverse), inverse ? T->w_inv : T->w_fwd, ctx->ntt.w18(inverse)};
  if (lgn == 1) {
    const pow_tab none = {nullptr, nullptr};
    ntt_size2<<<1, 1, 0, st>>>(d, in_scale ? *in_scale : none, in_scale != nullptr, out_scale ? *out_scale : none,
                               out_scale != nullptr);
    CKL();
    return 0;
  }
  const bool wide = ntt_wide(lgn);
  std::vector<uint32_t> ts;
  ntt_split(lgn, wide ? ntt_wide_t::max_t : ntt_narrow::max_t, ts);
  const int P = (int)ts.size();
  profile pf(st, ctx->cfg.profile);
  // DIF passes from the top (s decreasing to 0), DIT passes in the reverse order.
  uint32_t s = dif ? lgn : 0;
  for (int k = 0; k < P; k++) {
    const int i = dif ? k : P - 1 - k;
    const uint32_t t = ts[i];
    if (dif) s -= t;
    const pow_tab* in = (dif ? i == 0 : i == P - 1) ? in_scale : nullptr;
    const pow_tab* out = (dif ? i == P - 1 : i == 0) ? out_scale : nullptr;
    TRY(ntt_pass_any(a, dif, wide, t, s, in, out, st));
    CKL();
    if (pf.on())
      pf.mark(std::string(dif ? "ntt dif" : "ntt dit") + " lg" + std::to_string(lgn) + " t" + std::to_string(t) +
              " s" + std::to_string(s));
    if (!dif) s += t;
  }
  return 0;
}

extern "C" int cuzk_ntt(cuzk_ctx* ctx, void* data, uint32_t lgn, uint32_t mode) {
  if (!ctx || !data) return set_err(CUZK_ERR_ARG, "ntt: nil argument");
  if (lgn > 28) return set_err(CUZK_ERR_ARG, "ntt: lgn %u > 28", lgn);
  CK(cudaSetDevice(ctx->dev));
  uint64_t n = 1ull << lgn;
  TRY(ctx->h.a.ensure(n * 32));
  CK(cudaMemcpyAsync(ctx->h.a.get(), data, n * 32, cudaMemcpyHostToDevice, ctx->main));
  ntt_tables* T;
  TRY(ctx->ntt.tables(lgn, &T));
  bool coset = mode & CUZK_NTT_COSET;
  uint32_t m = mode & 3;
  bool dif = m == CUZK_NTT_FWD_DIF || m == CUZK_NTT_INV_DIF;
  bool inv = m >= 2;
  const pow_tab* in = nullptr;
  const pow_tab* out = nullptr;
  if (!inv && coset) in = &T->coset_fwd;
  if (inv) out = coset ? &T->coset_inv_n : &T->inv_n;
  TRY(ntt_dev(ctx, ctx->h.a.as<fr_t>(), lgn, dif, inv, in, out, ctx->main));
  CK(cudaMemcpyAsync(data, ctx->h.a.get(), n * 32, cudaMemcpyDeviceToHost, ctx->main));
  CK(cudaStreamSynchronize(ctx->main));
  return 0;
}

// With c given (bellperson's sequence, 7 transforms): a, b and c to the
// coset g·<w> (g = 7) through their coefficients, (a·b - c)/Z there, back
// to coefficients.
//
// c_ab: c holds a copy of a, and c = a∘b (an honest witness's C·w: every
// row has a·b = c) is formed before b's transforms. Then h is the upper
// half of the coefficients of P = a(X)·b(X) (P = (X^n - 1)·P_hi + P mod
// (X^n - 1), and c(X) = P mod (X^n - 1)), which 6 transforms give: with z a
// primitive 2n-th root of unity, P on <w> is c and P on z·<w> is a·b there,
// so for k < n
//   p_k + p_(k+n) = iNTT(c)_k,   p_k - p_(k+n) = z^-k · iNTT(a·b on z·<w>)_k,
// and h_k = p_(k+n) is half their difference (the 1/2 rides on the scales).
int h_dev(cuzk_ctx* ctx, uint32_t lgn, cudaStream_t st, cudaEvent_t* ready, bool c_ab) {
  ntt_tables* T;
  TRY(ctx->ntt.tables(lgn, &T));
  fr_t* v[3] = {ctx->h.a.as<fr_t>(), ctx->h.b.as<fr_t>(), ctx->h.c.as<fr_t>()};
  const uint64_t n = 1ull << lgn;
  const unsigned nbl = (unsigned)((n + 255) / 256);
  // a and b (and c when given) to the coset through their coefficients
  const pow_tab* to_coset = c_ab ? &T->zeta_fwd_n : &T->coset_fwd_n;
  for (int i = 0; i < (c_ab ? 2 : 3); i++) {
    if (ready && ready[i]) CK(cudaStreamWaitEvent(st, ready[i], 0));
    if (c_ab && i == 1) {
      mul_inplace<<<nbl, 256, 0, st>>>(v[2], v[1], n);
      CKL();
    }
    TRY(ntt_dev(ctx, v[i], lgn, true, true, nullptr, to_coset, st));
    TRY(ntt_dev(ctx, v[i], lgn, false, false, nullptr, nullptr, st));
  }
  if (c_ab) {
    mul_inplace<<<nbl, 256, 0, st>>>(v[0], v[1], n);
    CKL();
    TRY(ntt_dev(ctx, v[0], lgn, true, true, nullptr, &T->zeta_inv_2n, st));
    TRY(ntt_dev(ctx, v[2], lgn, true, true, nullptr, &T->inv_2n, st));
    sub_from<<<nbl, 256, 0, st>>>(v[0], v[2], n);
    CKL();
    return 0;
  }
  h_pointwise<<<nbl, 256, 0, st>>>(v[0], v[1], v[2], T->zinv, n);
  CKL();
  TRY(ntt_dev(ctx, v[0], lgn, true, true, nullptr, &T->coset_inv_n, st));
  return 0;
}

int upload_padded(void* dst, const void* src, uint64_t nrows, uint64_t n, cudaStream_t st) {
  if (nrows) CK(cudaMemcpyAsync(dst, src, nrows * 32, cudaMemcpyHostToDevice, st));
  if (n > nrows) CK(cudaMemsetAsync((char*)dst + nrows * 32, 0, (n - nrows) * 32, st));
  return 0;
}

int h_natural(cuzk_ctx* ctx, uint32_t lgn, fr_t* dst, cudaStream_t st) {
  const uint64_t n = 1ull << lgn;
  gather_brev<<<(unsigned)((n - 1 + 255) / 256), 256, 0, st>>>(dst, ctx->h.a.as<fr_t>(), lgn, n - 1);
  CKL();
  return 0;
}

extern "C" int cuzk_h(cuzk_ctx* ctx, const void* a, const void* b, const void* c, uint64_t nrows,
                      uint32_t lgn, void* out) {
  if (!ctx || !a || !b || !c || !out) return set_err(CUZK_ERR_ARG, "h: nil argument");
  if (lgn < 1 || lgn > 28) return set_err(CUZK_ERR_ARG, "h: lgn %u out of [1, 28]", lgn);
  const uint64_t n = 1ull << lgn;
  if (nrows > n) return set_err(CUZK_ERR_ARG, "h: %llu rows exceed the domain 2^%u", (unsigned long long)nrows, lgn);
  CK(cudaSetDevice(ctx->dev));
  TRY(ctx->h.reserve(n));
  const void* src[3] = {a, b, c};
  device_buffer* dst[3] = {&ctx->h.a, &ctx->h.b, &ctx->h.c};
  for (int i = 0; i < 3; i++) TRY(upload_padded(dst[i]->get(), src[i], nrows, n, ctx->main));
  TRY(h_dev(ctx, lgn, ctx->main));
  TRY(ctx->tmp.ensure(n * 32));
  TRY(h_natural(ctx, lgn, ctx->tmp.as<fr_t>(), ctx->main));
  CK(cudaMemcpyAsync(out, ctx->tmp.get(), (n - 1) * 32, cudaMemcpyDeviceToHost, ctx->main));
  CK(cudaStreamSynchronize(ctx->main));
  return 0;
}
