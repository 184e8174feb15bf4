// cuzk CUDA library: host side of the C ABI (cuzk.h).
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cub/cub.cuh>
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cuzk.h"
#include "msm/kernels.cuh"
#include "ntt/kernels.cuh"

static thread_local std::string g_err;

static int set_err(int code, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  g_err = buf;
  return code;
}

#define CK(call)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess)                                                                \
      return set_err(CUZK_ERR_CUDA, "%s:%d: %s: %s", __FILE__, __LINE__, #call,            \
                     cudaGetErrorString(e_));                                             \
  } while (0)
#define CKL() CK(cudaGetLastError())
#define TRY(x)             \
  do {                     \
    int r_ = (x);          \
    if (r_ != 0) return r_; \
  } while (0)

extern "C" const char* cuzk_last_error(void) { return g_err.c_str(); }

extern "C" int cuzk_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

extern "C" int cuzk_device_info(int dev, char* name, int name_len, uint64_t* total_mem,
                                uint64_t* free_mem, int* sm_count) {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, dev));
  if (name && name_len > 0) {
    strncpy(name, p.name, name_len - 1);
    name[name_len - 1] = 0;
  }
  if (sm_count) *sm_count = p.multiProcessorCount;
  if (total_mem) *total_mem = p.totalGlobalMem;
  if (free_mem) {
    size_t f = 0, t = 0;
    CK(cudaSetDevice(dev));
    CK(cudaMemGetInfo(&f, &t));
    *free_mem = f;
  }
  return 0;
}

// ---------------------------------------------------------------- buffers

struct dbuf {
  void* p = nullptr;
  size_t cap = 0;
  int ensure(size_t n) {
    if (n <= cap) return 0;
    if (p) cudaFree(p);
    p = nullptr;
    cap = 0;
    size_t want = n + n / 8;
    cudaError_t e = cudaMalloc(&p, want);
    if (e != cudaSuccess) {
      cudaGetLastError();
      e = cudaMalloc(&p, n);
      want = n;
    }
    if (e != cudaSuccess) {
      cudaGetLastError();
      p = nullptr;
      return set_err(CUZK_ERR_MEM, "cudaMalloc(%zu): %s", n, cudaGetErrorString(e));
    }
    cap = want;
    return 0;
  }
  void release() {
    if (p) cudaFree(p);
    p = nullptr;
    cap = 0;
  }
  template <class T>
  T* as() {
    return (T*)p;
  }
};

// ---------------------------------------------------------------- profile

// CUZK_PROFILE=1: the NTT passes and the MSM phases are timed with events
// and the stream is synchronized after each call (so overlap is lost);
// totals per phase go to stderr at exit. For experiments only.
struct prof {
  bool on() const { return st != nullptr; }
  struct tot {
    double ms = 0;
    long n = 0;
  };
  static std::map<std::string, tot>& table() {
    static std::map<std::string, tot>* t = [] {
      atexit([] {
        for (auto& kv : prof::table())
          fprintf(stderr, "profile %-28s %10.3f ms total, %6ld calls, %9.3f ms each\n", kv.first.c_str(),
                  kv.second.ms, kv.second.n, kv.second.ms / kv.second.n);
      });
      return new std::map<std::string, tot>();
    }();
    return *t;
  }
  cudaStream_t st = nullptr;
  std::vector<std::pair<std::string, cudaEvent_t>> marks;
  prof(cudaStream_t s, bool on) {
    if (on) st = s;
    mark("");
  }
  void mark(const std::string& name) {  // name: the phase that ends here
    if (!st) return;
    cudaEvent_t e;
    cudaEventCreate(&e);
    cudaEventRecord(e, st);
    marks.push_back({name, e});
  }
  ~prof() {
    if (!st) return;
    cudaStreamSynchronize(st);
    for (size_t i = 1; i < marks.size(); i++) {
      float ms = 0;
      cudaEventElapsedTime(&ms, marks[i - 1].second, marks[i].second);
      tot& t = table()[marks[i].first];
      t.ms += ms;
      t.n++;
    }
    for (auto& m : marks) cudaEventDestroy(m.second);
  }
};

// ---------------------------------------------------------------- NTT tables

struct ntt_tabs {
  uint32_t lgn;
  dbuf buf;  // all tables
  pow_tab w_fwd, w_inv;         // powers of w_n, w_n^-1
  pow_tab coset_fwd;            // g^e
  pow_tab coset_inv_n;          // g^-e / n
  pow_tab inv_n;                // 1/n
  pow_tab coset_fwd_n;          // g^e / n
  pow_tab zeta_fwd_n;           // z^e / n, z the primitive 2n-th root of unity
  pow_tab zeta_inv_2n;          // z^-e / 2n
  pow_tab inv_2n;               // 1/2n
  fr_t zinv;                    // (g^n - 1)^-1
};

static void fill_pow(std::vector<fr_t>& host, size_t off, fr_t base, fr_t c) {
  // lo[j] = base^j, hi[j] = c * base^(j*2^14)
  fr_t x = fr_t::one();
  for (int j = 0; j < 16384; j++) {
    host[off + j] = x;
    x = x * base;
  }
  fr_t step = x;  // base^16384
  fr_t y = c;
  for (int j = 0; j < 16384; j++) {
    host[off + 16384 + j] = y;
    y = y * step;
  }
}

// ---------------------------------------------------------------- context

struct cuzk_ctx {
  int dev;
  cuzk_config cfg;
  cudaStream_t st, st2, st3;  // st3: cuzk_run's uploads
  cudaEvent_t ev[24];
  dbuf W;   // w_1024^k and w_1024^-k, 512 each
  dbuf Wd;  // w_{2^18}^k then w_{2^18}^-k, 2^18 each: the direct inter-pass twiddles
  std::map<uint32_t, ntt_tabs*> ntt;
  dbuf va, vb, vc, tmp;
  dbuf keys, vals, keys2, vals2, cubtmp, starts, buckets, segT, segS, segT2, segS2, red1, red2, win, part1, part2, ba1, ba2;
  dbuf d_scal, d_idx, d_bits, d_bases, d_out;
  dbuf p_scal[3], p_idx[3], p_bits[3];  // cuzk_run's staged tails
};

static int ctx_ntt_tabs(cuzk_ctx* ctx, uint32_t lgn, ntt_tabs** out) {
  auto it = ctx->ntt.find(lgn);
  if (it != ctx->ntt.end()) {
    *out = it->second;
    return 0;
  }
  ntt_tabs* t = new ntt_tabs();
  t->lgn = lgn;
  const int NT = 9;
  std::vector<fr_t> h((size_t)NT * 32768);
  fr_t w = fr_root_of(lgn), wi = w.inv();
  fr_t g = fr_from_u64(7), gi = g.inv();
  fr_t n = fr_from_u64(1ull << lgn), ni = n.inv();
  fr_t z = fr_root_of(lgn + 1), zi = z.inv(), ni2 = fr_from_u64(2ull << lgn).inv();
  fill_pow(h, 0 * 32768, w, fr_t::one());
  fill_pow(h, 1 * 32768, wi, fr_t::one());
  fill_pow(h, 2 * 32768, g, fr_t::one());
  fill_pow(h, 3 * 32768, gi, ni);
  fill_pow(h, 4 * 32768, fr_t::one(), ni);
  fill_pow(h, 5 * 32768, g, ni);
  fill_pow(h, 6 * 32768, z, ni);
  fill_pow(h, 7 * 32768, zi, ni2);
  fill_pow(h, 8 * 32768, fr_t::one(), ni2);
  fr_t gn = g;
  for (uint32_t i = 0; i < lgn; i++) gn = gn.sqr();
  t->zinv = (gn - fr_t::one()).inv();
  int r = t->buf.ensure(h.size() * sizeof(fr_t));
  if (r) {
    delete t;
    return r;
  }
  cudaError_t e = cudaMemcpy(t->buf.p, h.data(), h.size() * sizeof(fr_t), cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    t->buf.release();
    delete t;
    return set_err(CUZK_ERR_CUDA, "ntt tables: %s", cudaGetErrorString(e));
  }
  fr_t* d = t->buf.as<fr_t>();
  pow_tab* tabs[NT] = {&t->w_fwd,       &t->w_inv,      &t->coset_fwd,  &t->coset_inv_n, &t->inv_n,
                       &t->coset_fwd_n, &t->zeta_fwd_n, &t->zeta_inv_2n, &t->inv_2n};
  for (int i = 0; i < NT; i++) {
    tabs[i]->lo = d + (size_t)i * 32768;
    tabs[i]->hi = d + (size_t)i * 32768 + 16384;
  }
  ctx->ntt[lgn] = t;
  *out = t;
  return 0;
}

// Threads of msm_acc_chunks resident at once on the largest device of the
// process (set by cuzk_ctx_new; see msm_chunk).
static std::atomic<uint64_t> acc_slots{0};

static bool msm_window_ok(uint32_t c);

extern "C" cuzk_ctx* cuzk_ctx_new(int dev, const cuzk_config* cfg) {
  const cuzk_config none = {};
  if (!cfg) cfg = &none;
  if ((cfg->msm_window && !msm_window_ok(cfg->msm_window)) ||
      (cfg->msm_seg_lg && (cfg->msm_seg_lg < 12 || cfg->msm_seg_lg > 20))) {
    set_err(CUZK_ERR_ARG, "ctx: msm_window %u or msm_seg_lg %u out of range", cfg->msm_window, cfg->msm_seg_lg);
    return nullptr;
  }
  if (cudaSetDevice(dev) != cudaSuccess) {
    set_err(CUZK_ERR_CUDA, "cudaSetDevice(%d): %s", dev, cudaGetErrorString(cudaGetLastError()));
    return nullptr;
  }
  cuzk_ctx* c = new cuzk_ctx();
  c->dev = dev;
  c->cfg = *cfg;
  if (cudaStreamCreateWithFlags(&c->st, cudaStreamNonBlocking) != cudaSuccess ||
      cudaStreamCreateWithFlags(&c->st2, cudaStreamNonBlocking) != cudaSuccess ||
      cudaStreamCreateWithFlags(&c->st3, cudaStreamNonBlocking) != cudaSuccess) {
    set_err(CUZK_ERR_CUDA, "stream: %s", cudaGetErrorString(cudaGetLastError()));
    delete c;
    return nullptr;
  }
  for (int i = 0; i < 24; i++) cudaEventCreate(&c->ev[i]);
  {
    int blocks = 0, sms = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, msm_acc_chunks, 128, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    const uint64_t v = (uint64_t)blocks * sms * 128;
    uint64_t cur = acc_slots.load();
    while (v > cur && !acc_slots.compare_exchange_weak(cur, v)) {
    }
  }
  std::vector<fr_t> W(1024);
  fr_t w = fr_root_of(10), wi = w.inv(), x = fr_t::one(), y = fr_t::one();
  for (int k = 0; k < 512; k++) {
    W[k] = x;
    W[512 + k] = y;
    x = x * w;
    y = y * wi;
  }
  if (c->W.ensure(1024 * sizeof(fr_t)) ||
      cudaMemcpy(c->W.p, W.data(), 1024 * sizeof(fr_t), cudaMemcpyHostToDevice) != cudaSuccess) {
    delete c;
    return nullptr;
  }
  const size_t nd = 1u << 18;
  std::vector<fr_t> Wd(2 * nd);
  fr_t wd = fr_root_of(18), wdi = wd.inv();
  x = fr_t::one();
  y = fr_t::one();
  for (size_t k = 0; k < nd; k++) {
    Wd[k] = x;
    Wd[nd + k] = y;
    x = x * wd;
    y = y * wdi;
  }
  if (c->Wd.ensure(2 * nd * sizeof(fr_t)) ||
      cudaMemcpy(c->Wd.p, Wd.data(), 2 * nd * sizeof(fr_t), cudaMemcpyHostToDevice) != cudaSuccess) {
    c->W.release();
    delete c;
    return nullptr;
  }
  return c;
}

extern "C" void cuzk_ctx_free(cuzk_ctx* c) {
  if (!c) return;
  cudaSetDevice(c->dev);
  cudaStreamSynchronize(c->st);
  for (auto& kv : c->ntt) {
    kv.second->buf.release();
    delete kv.second;
  }
  dbuf* bufs[] = {&c->W, &c->Wd, &c->va, &c->vb, &c->vc, &c->tmp, &c->keys, &c->vals, &c->keys2,
                  &c->vals2, &c->cubtmp, &c->starts, &c->buckets, &c->segT, &c->segS, &c->segT2, &c->segS2, &c->red1, &c->red2, &c->win, &c->ba1, &c->ba2,
                  &c->part1, &c->part2, &c->d_scal, &c->d_idx, &c->d_bits, &c->d_bases, &c->d_out};
  for (dbuf* b : bufs) b->release();
  for (int i = 0; i < 3; i++) {
    c->p_scal[i].release();
    c->p_idx[i].release();
    c->p_bits[i].release();
  }
  for (int i = 0; i < 24; i++) cudaEventDestroy(c->ev[i]);
  cudaStreamDestroy(c->st);
  cudaStreamDestroy(c->st2);
  cudaStreamDestroy(c->st3);
  delete c;
}

extern "C" void* cuzk_host_alloc(uint64_t bytes) {
  void* p = nullptr;
  if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    set_err(CUZK_ERR_MEM, "cudaHostAlloc(%llu): %s", (unsigned long long)bytes,
            cudaGetErrorString(cudaGetLastError()));
    return nullptr;
  }
  return p;
}
extern "C" void cuzk_host_free(void* p) {
  if (p) cudaFreeHost(p);
}

// ---------------------------------------------------------------- NTT driver

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

struct ntt_pass_args {
  fr_t* d;
  uint32_t lgn;
  const fr_t* W;
  pow_tab tw;
  const fr_t* Wd;
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

// dif: natural -> bit-reversed; otherwise bit-reversed -> natural.
static int ntt_dev(cuzk_ctx* ctx, fr_t* d, uint32_t lgn, bool dif, bool inverse,
                   const pow_tab* in_scale, const pow_tab* out_scale, cudaStream_t st) {
  if (lgn == 0) return 0;
  if (lgn > 28) return set_err(CUZK_ERR_ARG, "ntt: lgn %u > 28", lgn);
  ntt_tabs* T;
  TRY(ctx_ntt_tabs(ctx, lgn, &T));
  const ntt_pass_args a = {d, lgn, ctx->W.as<fr_t>() + (inverse ? 512 : 0), inverse ? T->w_inv : T->w_fwd,
                           ctx->Wd.as<fr_t>() + (inverse ? (1u << 18) : 0)};
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
  prof pf(st, ctx->cfg.profile);
  // DIF passes from the top (s decreasing to 0), DIT passes in the reverse order.
  uint32_t s = dif ? lgn : 0;
  for (int k = 0; k < P; k++) {
    const int i = dif ? k : P - 1 - k;
    const uint32_t t = ts[i];
    if (dif) s -= t;
    const pow_tab* in = (dif ? i == 0 : i == P - 1) ? in_scale : nullptr;
    const pow_tab* out = (dif ? i == P - 1 : i == 0) ? out_scale : nullptr;
    // strided passes: the several-group shape (whole row segments); else
    // the wide shape where it saves a pass, else the narrow one
    int r;
    if (s > 0 && t <= ntt_big::max_t && (ntt_big::elems >> t) >= 4)
      r = dif ? ntt_launch<true, ntt_big>(a, t, s, in, out, st) : ntt_launch<false, ntt_big>(a, t, s, in, out, st);
    else if (wide)
      r = dif ? ntt_launch<true, ntt_wide_t>(a, t, s, in, out, st)
              : ntt_launch<false, ntt_wide_t>(a, t, s, in, out, st);
    else
      r = dif ? ntt_launch<true, ntt_narrow>(a, t, s, in, out, st)
              : ntt_launch<false, ntt_narrow>(a, t, s, in, out, st);
    TRY(r);
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
  TRY(ctx->va.ensure(n * 32));
  CK(cudaMemcpyAsync(ctx->va.p, data, n * 32, cudaMemcpyHostToDevice, ctx->st));
  ntt_tabs* T;
  TRY(ctx_ntt_tabs(ctx, lgn, &T));
  bool coset = mode & CUZK_NTT_COSET;
  uint32_t m = mode & 3;
  bool dif = m == CUZK_NTT_FWD_DIF || m == CUZK_NTT_INV_DIF;
  bool inv = m >= 2;
  const pow_tab* in = nullptr;
  const pow_tab* out = nullptr;
  if (!inv && coset) in = &T->coset_fwd;
  if (inv) out = coset ? &T->coset_inv_n : &T->inv_n;
  TRY(ntt_dev(ctx, ctx->va.as<fr_t>(), lgn, dif, inv, in, out, ctx->st));
  CK(cudaMemcpyAsync(data, ctx->va.p, n * 32, cudaMemcpyDeviceToHost, ctx->st));
  CK(cudaStreamSynchronize(ctx->st));
  return 0;
}

// H on device buffers va, vb, vc (each 2^lgn, zero padded). Result in va, bit-reversed.
// ready[i], if set, is waited for before vector i is used.
//
// With c given (bellperson's sequence, 7 transforms): a, b and c to the
// coset g·<w> (g = 7) through their coefficients, (a·b - c)/Z there, back
// to coefficients.
//
// c_ab: vc holds a copy of a, and c = a∘b (an honest witness's C·w: every
// row has a·b = c) is formed before b's transforms. Then h is the upper
// half of the coefficients of P = a(X)·b(X) (P = (X^n - 1)·P_hi + P mod
// (X^n - 1), and c(X) = P mod (X^n - 1)), which 6 transforms give: with z a
// primitive 2n-th root of unity, P on <w> is c and P on z·<w> is a·b there,
// so for k < n
//   p_k + p_(k+n) = iNTT(c)_k,   p_k - p_(k+n) = z^-k · iNTT(a·b on z·<w>)_k,
// and h_k = p_(k+n) is half their difference (the 1/2 rides on the scales).
static int h_dev(cuzk_ctx* ctx, uint32_t lgn, cudaStream_t st, cudaEvent_t* ready = nullptr, bool c_ab = false) {
  ntt_tabs* T;
  TRY(ctx_ntt_tabs(ctx, lgn, &T));
  fr_t* v[3] = {ctx->va.as<fr_t>(), ctx->vb.as<fr_t>(), ctx->vc.as<fr_t>()};
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

static int upload_one(dbuf* dst, const void* src, uint64_t nrows, uint64_t n, cudaStream_t st) {
  if (nrows) CK(cudaMemcpyAsync(dst->p, src, nrows * 32, cudaMemcpyHostToDevice, st));
  if (n > nrows) CK(cudaMemsetAsync((char*)dst->p + nrows * 32, 0, (n - nrows) * 32, st));
  return 0;
}

static int upload_abc(cuzk_ctx* ctx, const void* a, const void* b, const void* c, uint64_t nrows,
                      uint32_t lgn, cudaStream_t st) {
  uint64_t n = 1ull << lgn;
  if (nrows > n) return set_err(CUZK_ERR_ARG, "h: %llu rows exceed the domain 2^%u", (unsigned long long)nrows, lgn);
  TRY(ctx->va.ensure(n * 32));
  TRY(ctx->vb.ensure(n * 32));
  TRY(ctx->vc.ensure(n * 32));
  const void* src[3] = {a, b, c};
  dbuf* dst[3] = {&ctx->va, &ctx->vb, &ctx->vc};
  for (int i = 0; i < 3; i++) {
    if (nrows) CK(cudaMemcpyAsync(dst[i]->p, src[i], nrows * 32, cudaMemcpyHostToDevice, st));
    if (n > nrows) CK(cudaMemsetAsync((char*)dst[i]->p + nrows * 32, 0, (n - nrows) * 32, st));
  }
  return 0;
}

extern "C" int cuzk_h(cuzk_ctx* ctx, const void* a, const void* b, const void* c, uint64_t nrows,
                      uint32_t lgn, void* out) {
  if (!ctx || !a || !b || !c || !out) return set_err(CUZK_ERR_ARG, "h: nil argument");
  if (lgn < 1 || lgn > 28) return set_err(CUZK_ERR_ARG, "h: lgn %u out of [1, 28]", lgn);
  CK(cudaSetDevice(ctx->dev));
  TRY(upload_abc(ctx, a, b, c, nrows, lgn, ctx->st));
  TRY(h_dev(ctx, lgn, ctx->st));
  uint64_t n = 1ull << lgn;
  TRY(ctx->tmp.ensure(n * 32));
  gather_brev<<<(n - 1 + 255) / 256, 256, 0, ctx->st>>>(ctx->tmp.as<fr_t>(), ctx->va.as<fr_t>(), lgn, n - 1);
  CKL();
  CK(cudaMemcpyAsync(out, ctx->tmp.p, (n - 1) * 32, cudaMemcpyDeviceToHost, ctx->st));
  CK(cudaStreamSynchronize(ctx->st));
  return 0;
}

// ---------------------------------------------------------------- MSM driver

// Window sizes whose top window (255 - c*(ceil(256/c)-1) bits) is not
// nearly empty: with c = 14, 15, 18 or 21 almost every point of the top
// window lands in a handful of buckets. CUZK_MSM_C (one of 16, 19, 20, 22,
// 24) forces the size of the large MSMs, for benchmarks.
static bool msm_window_ok(uint32_t c) { return c == 16 || c == 19 || c == 20 || c == 22 || c == 24; }

static uint32_t msm_window(uint64_t n, uint32_t forced) {
  if (n >= (1ull << 17)) {
    if (forced && n >= (1ull << 22)) return forced;
    // measured on the H200 (docs/gpu-notes.md v6): c = 22 wins at 2^27, 20 at 2^25..2^26
    if (n >= (3ull << 25)) return 22;
    return n >= (1ull << 24) ? 20 : 16;
  }
  if (n >= (1ull << 12)) return 13;  // top window 8 bits
  if (n >= (1ull << 6)) return 8;    // 7 bits
  return 4;
}

// The shape of one MSM: c-bit signed digits, W windows of B buckets, wb
// windows sorted per batch; the weighted bucket sums of a window reduce in
// two levels of segments, L1 buckets then L2 first-level segments each.
struct msm_plan {
  uint32_t c, W, B, wb, L1, K1, L2, K2, lgL1, lgL2;
  uint64_t pairs;  // per batch
};

static uint32_t lg2(uint64_t x) {
  uint32_t r = 0;
  while ((1ull << r) < x) r++;
  return r;
}

static msm_plan msm_plan_for(uint64_t n, const cuzk_config& cfg) {
  msm_plan p;
  p.c = msm_window(n, cfg.msm_window);
  p.W = (256 + p.c - 1) / p.c;
  p.B = 1u << (p.c - 1);
  uint64_t wb = (1ull << 29) / (n ? n : 1);
  p.wb = (uint32_t)(wb < 1 ? 1 : (wb > p.W ? p.W : wb));
  p.pairs = (uint64_t)p.wb * n;
  // about 2^15 first-level segments per batch (CUZK_MSM_SEG = 12..20 for
  // experiments), msm_k2 second-level per window
  const uint32_t seg = cfg.msm_seg_lg ? cfg.msm_seg_lg : 15;
  uint64_t l1 = ((uint64_t)p.wb * p.B) >> seg;
  p.L1 = (uint32_t)(l1 < 1 ? 1 : (l1 > p.B ? p.B : 1ull << lg2(l1)));
  p.K1 = p.B / p.L1;
  p.L2 = p.K1 > msm_k2 ? p.K1 / msm_k2 : 1;
  p.K2 = p.K1 / p.L2;
  p.lgL1 = lg2(p.L1);
  p.lgL2 = lg2(p.L2);
  return p;
}

// Scratch of an MSM of n points (bytes per buffer).
struct msm_scratch {
  size_t pairs, starts, buckets, seg1, seg2, red, win, chunks;
  void max_with(const msm_scratch& o) {
    pairs = std::max(pairs, o.pairs);
    starts = std::max(starts, o.starts);
    buckets = std::max(buckets, o.buckets);
    seg1 = std::max(seg1, o.seg1);
    seg2 = std::max(seg2, o.seg2);
    red = std::max(red, o.red);
    win = std::max(win, o.win);
    chunks = std::max(chunks, o.chunks);
  }
};

static const uint32_t msm_red_fan = 8;  // partial sums per thread in the T1 reduction

// Entries per accumulation chunk: about 2^18 chunks (at least 16 entries
// each), their count a whole number of resident waves so that the last
// wave is not a partial one (a 2^29-entry batch on the H200: 7.76 waves).
static uint64_t msm_chunk(uint64_t np) {
  uint64_t nch = std::min<uint64_t>((np + 15) / 16, 1ull << 18);
  const uint64_t slots = acc_slots.load();
  if (slots && nch > slots) nch = (nch + slots - 1) / slots * slots;
  if (nch == 0) nch = 1;
  return (np + nch - 1) / nch;
}

static msm_scratch msm_scratch_for(uint64_t n, const cuzk_config& cfg) {
  msm_plan p = msm_plan_for(n, cfg);
  const size_t P = sizeof(g1_xyzz);
  msm_scratch s;
  s.pairs = p.pairs * 4;
  s.starts = ((uint64_t)p.wb * p.B + 1) * 4;
  s.buckets = (uint64_t)p.wb * p.B * P;
  s.seg1 = (uint64_t)p.wb * p.K1 * P;
  s.seg2 = (uint64_t)p.wb * p.K2 * P;
  s.red = (std::max<uint64_t>((uint64_t)p.wb * p.K1 / msm_red_fan, p.wb) + 1) * P;
  s.win = p.W * P;
  s.chunks = (p.pairs + msm_chunk(p.pairs) - 1) / msm_chunk(p.pairs) * P;
  return s;
}

// Allocates the scratch for s (and the sort's temporary storage) up front,
// so that MSMs queued on two streams never reallocate under each other.
static int msm_reserve(cuzk_ctx* ctx, const msm_scratch& s) {
  TRY(ctx->keys.ensure(s.pairs));
  TRY(ctx->vals.ensure(s.pairs));
  TRY(ctx->keys2.ensure(s.pairs));
  TRY(ctx->vals2.ensure(s.pairs));
  TRY(ctx->starts.ensure(s.starts));
  TRY(ctx->buckets.ensure(s.buckets));
  TRY(ctx->segT.ensure(s.seg1));
  TRY(ctx->segS.ensure(s.seg1));
  TRY(ctx->segT2.ensure(s.seg2));
  TRY(ctx->segS2.ensure(s.seg2));
  TRY(ctx->red1.ensure(s.red));
  TRY(ctx->red2.ensure(s.red));
  TRY(ctx->win.ensure(s.win));
  TRY(ctx->part1.ensure(s.chunks));
  TRY(ctx->part2.ensure(s.chunks));
  size_t tb = 0;
  CK(cub::DeviceRadixSort::SortPairs(nullptr, tb, ctx->keys.as<uint32_t>(), ctx->keys2.as<uint32_t>(),
                                     ctx->vals.as<uint32_t>(), ctx->vals2.as<uint32_t>(), (int)(s.pairs / 4), 0, 32));
  TRY(ctx->cubtmp.ensure(tb));
  return 0;
}

// out = sum scalars[i] * bases[idx ? idx[i] : i] (+ *extra), on device.
static int msm_dev(cuzk_ctx* ctx, const g1_affine* bases, const fr_t* scalars,
                   const uint32_t* idx, uint64_t n, int brev_lg, const g1_xyzz* extra,
                   g1_xyzz* out, cudaStream_t st) {
  if (n == 0) {
    g1_xyzz inf = g1_xyzz::inf();
    CK(cudaMemcpyAsync(out, &inf, sizeof inf, cudaMemcpyHostToDevice, st));
    if (extra) {
      add_xyzz<<<1, 1, 0, st>>>(out, extra);
      CKL();
    }
    CK(cudaStreamSynchronize(st));  // &inf is on the stack
    return 0;
  }
  if (n >= (1ull << 31)) return set_err(CUZK_ERR_ARG, "msm: %llu points", (unsigned long long)n);
  const msm_plan p = msm_plan_for(n, ctx->cfg);
  TRY(msm_reserve(ctx, msm_scratch_for(n, ctx->cfg)));
  g1_xyzz* T1 = ctx->segT.as<g1_xyzz>();
  g1_xyzz* S1 = ctx->segS.as<g1_xyzz>();
  g1_xyzz* T2 = ctx->segT2.as<g1_xyzz>();
  g1_xyzz* S2 = ctx->segS2.as<g1_xyzz>();
  prof pf(st, ctx->cfg.profile);
  const std::string pn = "msm lg" + std::to_string(lg2(n)) + " ";
  auto mark = [&](const char* what) {
    if (pf.on()) pf.mark(pn + what);
  };
  for (uint32_t w0 = 0; w0 < p.W; w0 += p.wb) {
    uint32_t nb = (uint32_t)((p.W - w0) < p.wb ? (p.W - w0) : p.wb);
    uint64_t np = (uint64_t)nb * n;
    uint32_t nkeys = nb * p.B;
    msm_digits<<<(n + 255) / 256, 256, 0, st>>>(scalars, idx, n, brev_lg, p.c, w0, nb,
                                                ctx->keys.as<uint32_t>(), ctx->vals.as<uint32_t>());
    CKL();
    mark("1 digits");
    int end_bit = 1;
    while ((1u << end_bit) <= nkeys) end_bit++;
    size_t tb2 = ctx->cubtmp.cap;
    CK(cub::DeviceRadixSort::SortPairs(ctx->cubtmp.p, tb2, ctx->keys.as<uint32_t>(),
                                       ctx->keys2.as<uint32_t>(), ctx->vals.as<uint32_t>(),
                                       ctx->vals2.as<uint32_t>(), (int)np, 0, end_bit, st));
    mark("2 sort");
    msm_starts<<<(nkeys + 1 + 255) / 256, 256, 0, st>>>(ctx->keys2.as<uint32_t>(), np, nkeys,
                                                       ctx->starts.as<uint32_t>());
    CKL();
    mark("3 starts");
    uint64_t C = msm_chunk(np);
    uint64_t nch = (np + C - 1) / C;
    msm_acc_chunks<<<(nch + 127) / 128, 128, 0, st>>>(bases, ctx->keys2.as<uint32_t>(), ctx->vals2.as<uint32_t>(),
                                                     ctx->starts.as<uint32_t>(), nkeys, (uint32_t)C,
                                                     ctx->part1.as<g1_xyzz>(), ctx->part2.as<g1_xyzz>(),
                                                     ctx->buckets.as<g1_xyzz>());
    CKL();
    mark("4 acc chunks");
    msm_acc_merge<<<(nkeys + 127) / 128, 128, 0, st>>>(ctx->starts.as<uint32_t>(), nkeys, (uint32_t)C,
                                                      ctx->part1.as<g1_xyzz>(), ctx->part2.as<g1_xyzz>(),
                                                      ctx->buckets.as<g1_xyzz>());
    CKL();
    mark("5 acc merge");
    // level 1: segments of L1 buckets; level 2: segments of L2 of the S1.
    uint32_t nseg1 = nb * p.K1, nseg2 = nb * p.K2;
    msm_segments<<<(nseg1 + 127) / 128, 128, 0, st>>>(ctx->buckets.as<g1_xyzz>(), nseg1, p.L1, T1, S1);
    CKL();
    mark("6 segments 1");
    msm_segments<<<(nseg2 + 127) / 128, 128, 0, st>>>(S1, nseg2, p.L2, T2, S2);
    CKL();
    // T1sum per window: sums of msm_red_fan (or what is left of a window)
    // until one; a small fan keeps each thread's chain of additions short.
    const g1_xyzz* in = T1;
    g1_xyzz* bufs[2] = {ctx->red1.as<g1_xyzz>(), ctx->red2.as<g1_xyzz>()};
    uint64_t K = p.K1;
    for (int r = 0; K > 1; r ^= 1) {
      uint32_t F = K > msm_red_fan ? msm_red_fan : (uint32_t)K;
      uint64_t nout = (uint64_t)nb * (K / F);
      reduce_xyzz<<<(nout + 127) / 128, 128, 0, st>>>(in, (uint64_t)nb * K, F, bufs[r], nout);
      CKL();
      in = bufs[r];
      K /= F;
    }
    msm_windows<<<nb, p.K2, 0, st>>>(in, T2, S2, p.K2, p.lgL1, p.lgL2, ctx->win.as<g1_xyzz>() + w0);
    CKL();
    mark("7 segments 2, windows");
  }
  msm_combine<<<1, 1, 0, st>>>(ctx->win.as<g1_xyzz>(), p.W, p.c, extra, out);
  CKL();
  mark("8 combine");
  return 0;
}

// Batch addition: bases per first-level chunk; the partial sums are reduced 32 at a time.
static const uint32_t batch_chunk = 256;

static uint64_t batch_chunks(uint64_t n) { return n ? (n + batch_chunk - 1) / batch_chunk : 1; }

// Allocates the batch addition's scratch for up to n bases.
static int batch_add_reserve(cuzk_ctx* ctx, uint64_t n) {
  const uint64_t nch = batch_chunks(n);
  TRY(ctx->ba1.ensure(nch * sizeof(g1_xyzz)));
  TRY(ctx->ba2.ensure(((nch + 31) / 32 + 1) * sizeof(g1_xyzz)));
  return 0;
}

// out = sum of bases whose bit is set.
static int batch_add_dev(cuzk_ctx* ctx, const g1_affine* bases, uint64_t n, const uint32_t* bits,
                         g1_xyzz* out, cudaStream_t st) {
  const uint64_t nch = batch_chunks(n);
  TRY(batch_add_reserve(ctx, n));
  prof pf(st, ctx->cfg.profile);
  batch_add_chunks<<<(nch + 127) / 128, 128, 0, st>>>(bases, n, bits, batch_chunk, nch, ctx->ba1.as<g1_xyzz>());
  CKL();
  if (pf.on()) pf.mark("batch add chunks");
  g1_xyzz* in = ctx->ba1.as<g1_xyzz>();
  g1_xyzz* o = ctx->ba2.as<g1_xyzz>();
  uint64_t m = nch;
  while (m > 1) {
    uint64_t mo = (m + 31) / 32;
    reduce_xyzz<<<(mo + 127) / 128, 128, 0, st>>>(in, m, 32, o, mo);
    CKL();
    g1_xyzz* t = in;
    in = o;
    o = t;
    m = mo;
  }
  CK(cudaMemcpyAsync(out, in, sizeof(g1_xyzz), cudaMemcpyDeviceToDevice, st));
  return 0;
}

extern "C" int cuzk_msm(cuzk_ctx* ctx, const void* bases, const void* scalars, uint64_t n, void* out) {
  return cuzk_msm_split(ctx, bases, n, nullptr, scalars, nullptr, n, out);
}

extern "C" int cuzk_msm_split(cuzk_ctx* ctx, const void* bases, uint64_t nbases, const uint32_t* ones,
                              const void* scalars, const uint32_t* idx, uint64_t ntail, void* out) {
  if (!ctx || !out || (nbases && !bases) || (ntail && !scalars))
    return set_err(CUZK_ERR_ARG, "msm: nil argument");
  if (ntail > nbases && idx) return set_err(CUZK_ERR_ARG, "msm: tail longer than the bases");
  CK(cudaSetDevice(ctx->dev));
  cudaStream_t st = ctx->st;
  TRY(ctx->d_bases.ensure(nbases * sizeof(g1_affine) + 1));
  TRY(ctx->d_scal.ensure(ntail * 32 + 1));
  TRY(ctx->d_idx.ensure(ntail * 4 + 1));
  uint64_t nw = (nbases + 31) / 32;
  TRY(ctx->d_bits.ensure(nw * 4 + 4));
  TRY(ctx->d_out.ensure(2 * sizeof(g1_xyzz)));
  if (nbases) CK(cudaMemcpyAsync(ctx->d_bases.p, bases, nbases * sizeof(g1_affine), cudaMemcpyHostToDevice, st));
  if (ntail) CK(cudaMemcpyAsync(ctx->d_scal.p, scalars, ntail * 32, cudaMemcpyHostToDevice, st));
  if (ntail && idx) CK(cudaMemcpyAsync(ctx->d_idx.p, idx, ntail * 4, cudaMemcpyHostToDevice, st));
  g1_xyzz* o = ctx->d_out.as<g1_xyzz>();
  const g1_xyzz* extra = nullptr;
  if (ones) {
    CK(cudaMemcpyAsync(ctx->d_bits.p, ones, nw * 4, cudaMemcpyHostToDevice, st));
    TRY(batch_add_dev(ctx, ctx->d_bases.as<g1_affine>(), nbases, ctx->d_bits.as<uint32_t>(), o + 1, st));
    extra = o + 1;
  }
  if (!idx && ntail > nbases) return set_err(CUZK_ERR_ARG, "msm: more scalars than bases");
  TRY(msm_dev(ctx, ctx->d_bases.as<g1_affine>(), ctx->d_scal.as<fr_t>(), idx ? ctx->d_idx.as<uint32_t>() : nullptr,
              ntail, 0, extra, o, st));
  CK(cudaMemcpyAsync(out, o, sizeof(g1_xyzz), cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  return 0;
}

// ---------------------------------------------------------------- SRS

struct cuzk_srs {
  int dev;
  g1_affine* q[4];
  uint64_t n[4];
};

extern "C" void cuzk_srs_free(cuzk_srs* s) {
  if (!s) return;
  cudaSetDevice(s->dev);
  for (int i = 0; i < 4; i++)
    if (s->q[i]) cudaFree(s->q[i]);
  delete s;
}

static cuzk_srs* srs_alloc(int dev, const uint64_t* n) {
  if (cudaSetDevice(dev) != cudaSuccess) {
    set_err(CUZK_ERR_CUDA, "cudaSetDevice(%d)", dev);
    return nullptr;
  }
  cuzk_srs* s = new cuzk_srs();
  s->dev = dev;
  for (int i = 0; i < 4; i++) {
    s->n[i] = n[i];
    s->q[i] = nullptr;
    if (cudaMalloc(&s->q[i], n[i] * sizeof(g1_affine) + 1) != cudaSuccess) {
      set_err(CUZK_ERR_MEM, "srs: cudaMalloc %llu points: %s", (unsigned long long)n[i],
              cudaGetErrorString(cudaGetLastError()));
      s->q[i] = nullptr;
      cuzk_srs_free(s);
      return nullptr;
    }
  }
  return s;
}

extern "C" cuzk_srs* cuzk_srs_upload(int dev, const void* h, uint64_t nh, const void* l, uint64_t nl,
                                     const void* a, uint64_t na, const void* bg1, uint64_t nb) {
  uint64_t n[4] = {nh, nl, na, nb};
  const void* src[4] = {h, l, a, bg1};
  cuzk_srs* s = srs_alloc(dev, n);
  if (!s) return nullptr;
  for (int i = 0; i < 4; i++) {
    if (n[i] && cudaMemcpy(s->q[i], src[i], n[i] * sizeof(g1_affine), cudaMemcpyHostToDevice) != cudaSuccess) {
      set_err(CUZK_ERR_CUDA, "srs upload: %s", cudaGetErrorString(cudaGetLastError()));
      cuzk_srs_free(s);
      return nullptr;
    }
  }
  return s;
}

extern "C" int cuzk_srs_read(cuzk_srs* s, int q, uint64_t off, uint64_t n, void* out) {
  if (!s || q < 0 || q > 3 || off + n > s->n[q]) return set_err(CUZK_ERR_ARG, "srs read: bad range");
  CK(cudaSetDevice(s->dev));
  CK(cudaMemcpy(out, s->q[q] + off, n * sizeof(g1_affine), cudaMemcpyDeviceToHost));
  return 0;
}

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

extern "C" cuzk_srs* cuzk_srs_synthetic(int dev, uint64_t nh, uint64_t nl, uint64_t na, uint64_t nb) {
  uint64_t n[4] = {nh, nl, na, nb};
  cuzk_srs* s = srs_alloc(dev, n);
  if (!s) return nullptr;
  g1_affine G;
  const uint64_t gx[6] = {0x5cb38790fd530c16ull, 0x7817fc679976fff5ull, 0x154f95c7143ba1c1ull,
                          0xf0ae6acdf3d0e747ull, 0xedce6ecc21dbf440ull, 0x120177419e0bfb75ull};
  const uint64_t gy[6] = {0xbaac93d50ce72271ull, 0x8c22631a7918fd8eull, 0xdd595f13570725ceull,
                          0x51ac582950405194ull, 0x0e1c8c3fad0059c0ull, 0x0bbc3efc5008a26aull};
  memcpy(G.x.v, gx, 48);
  memcpy(G.y.v, gy, 48);
  const uint32_t n2 = 1u << 17;
  g1_xyzz *T1 = nullptr, *T2 = nullptr;
  if (cudaMalloc(&T1, 4096 * sizeof(g1_xyzz)) != cudaSuccess ||
      cudaMalloc(&T2, n2 * sizeof(g1_xyzz)) != cudaSuccess) {
    set_err(CUZK_ERR_MEM, "synthetic srs tables");
    cuzk_srs_free(s);
    return nullptr;
  }
  synth_table<<<4096 / 128, 128>>>(T1, 4096, 1, G);
  synth_table<<<n2 / 128, 128>>>(T2, n2, 4096 + 1, G);
  uint64_t off = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t th = (n[i] + 15) / 16;
    if (th) synth_points<<<(th + 127) / 128, 128>>>(s->q[i], n[i], off, T1, T2, n2);
    off += 977 * (i + 1);
  }
  cudaError_t e = cudaDeviceSynchronize();
  cudaFree(T1);
  cudaFree(T2);
  if (e != cudaSuccess) {
    set_err(CUZK_ERR_CUDA, "synthetic srs: %s", cudaGetErrorString(e));
    cuzk_srs_free(s);
    return nullptr;
  }
  return s;
}

// ---------------------------------------------------------------- run

extern "C" int cuzk_run(cuzk_ctx* ctx, cuzk_srs* srs, const cuzk_job* job, cuzk_result* res) {
  if (!ctx || !srs || !job || !res || (job->nrows && (!job->a || !job->b)))
    return set_err(CUZK_ERR_ARG, "run: nil argument");
  if (ctx->dev != srs->dev) return set_err(CUZK_ERR_ARG, "run: srs on device %d, context on %d", srs->dev, ctx->dev);
  uint32_t lgn = job->lgn;
  if (lgn < 1 || lgn > 28) return set_err(CUZK_ERR_ARG, "run: lgn %u out of [1, 28]", lgn);
  uint64_t m = 1ull << lgn;
  if (srs->n[0] != m - 1)
    return set_err(CUZK_ERR_ARG, "run: srs h has %llu points, domain needs %llu", (unsigned long long)srs->n[0],
                   (unsigned long long)(m - 1));
  CK(cudaSetDevice(ctx->dev));
  cudaStream_t st = ctx->st;
  cudaEvent_t* ev = ctx->ev;
  TRY(ctx->d_out.ensure(8 * sizeof(g1_xyzz)));
  g1_xyzz* o = ctx->d_out.as<g1_xyzz>();
  uint64_t nrows = job->nrows;
  if (nrows > m) return set_err(CUZK_ERR_ARG, "run: %llu rows exceed the domain 2^%u", (unsigned long long)nrows, lgn);
  TRY(ctx->va.ensure(m * 32));
  TRY(ctx->vb.ensure(m * 32));
  TRY(ctx->vc.ensure(m * 32));
  for (int p = 0; p < 3; p++) {
    const cuzk_msm_part& pt = job->part[p];
    if (pt.ntail > 0 && (!pt.scalars || !pt.idx)) return set_err(CUZK_ERR_ARG, "run: part %d: nil tail", p);
    if (pt.ntail > srs->n[p + 1]) return set_err(CUZK_ERR_ARG, "run: part %d: %llu tail scalars for %llu bases", p,
                                                 (unsigned long long)pt.ntail, (unsigned long long)srs->n[p + 1]);
    TRY(ctx->p_scal[p].ensure(pt.ntail * 32 + 32));
    TRY(ctx->p_idx[p].ensure(pt.ntail * 4 + 4));
    TRY(ctx->p_bits[p].ensure((srs->n[p + 1] + 31) / 32 * 4 + 4));
  }
  // Scratch for every MSM of the run, before anything is queued: the tails
  // run on st2 while st runs the NTTs, and nothing may reallocate under them.
  msm_scratch need = msm_scratch_for(m - 1, ctx->cfg);
  uint64_t max_ones = 0;
  for (int p = 0; p < 3; p++) {
    const cuzk_msm_part& pt = job->part[p];
    if (pt.ntail) need.max_with(msm_scratch_for(pt.ntail, ctx->cfg));
    if (pt.ones) max_ones = std::max(max_ones, srs->n[p + 1]);
  }
  TRY(msm_reserve(ctx, need));
  TRY(batch_add_reserve(ctx, max_ones));
  ntt_tabs* T;
  TRY(ctx_ntt_tabs(ctx, lgn, &T));
  // st3 uploads, in the order the work needs them: the L tail first (L
  // starts while the rest uploads), a, b (and c), then the A and B tails.
  // st: the H sequence once a is in, then (after the tails: shared scratch)
  // the H MSM. st2: the L, A and B_G1 MSMs as their inputs arrive,
  // overlapping the NTTs. CUZK_RUN_SERIAL=1 holds the tails back until the
  // NTTs are done, for comparison.
  const bool serial = ctx->cfg.run_serial;
  cudaStream_t st2 = ctx->st2, st3 = ctx->st3;
  cudaEvent_t tail_in[3] = {ev[16], ev[17], ev[18]};
  CK(cudaEventRecord(ev[0], st));
  CK(cudaStreamWaitEvent(st2, ev[0], 0));
  CK(cudaStreamWaitEvent(st3, ev[0], 0));
  auto upload_tail = [&](int p) -> int {
    const cuzk_msm_part& pt = job->part[p];
    uint64_t nw = (srs->n[p + 1] + 31) / 32;
    if (pt.ntail) {
      CK(cudaMemcpyAsync(ctx->p_scal[p].p, pt.scalars, pt.ntail * 32, cudaMemcpyHostToDevice, st3));
      CK(cudaMemcpyAsync(ctx->p_idx[p].p, pt.idx, pt.ntail * 4, cudaMemcpyHostToDevice, st3));
    }
    if (pt.ones && nw) CK(cudaMemcpyAsync(ctx->p_bits[p].p, pt.ones, nw * 4, cudaMemcpyHostToDevice, st3));
    CK(cudaEventRecord(tail_in[p], st3));
    return 0;
  };
  TRY(upload_tail(0));
  TRY(upload_one(&ctx->va, job->a, nrows, m, st3));
  CK(cudaEventRecord(ev[7], st3));
  TRY(upload_one(&ctx->vb, job->b, nrows, m, st3));
  CK(cudaEventRecord(ev[8], st3));
  if (job->c) TRY(upload_one(&ctx->vc, job->c, nrows, m, st3));
  CK(cudaEventRecord(ev[9], st3));
  TRY(upload_tail(1));
  TRY(upload_tail(2));
  CK(cudaEventRecord(ev[10], st3));
  CK(cudaStreamWaitEvent(st, ev[7], 0));
  if (!job->c)  // c = a∘b: keep a copy of a in vc before its NTT
    CK(cudaMemcpyAsync(ctx->vc.p, ctx->va.p, m * 32, cudaMemcpyDeviceToDevice, st));
  CK(cudaEventRecord(ev[1], st));
  cudaEvent_t ready[3] = {nullptr, ev[8], ev[9]};
  TRY(h_dev(ctx, lgn, st, ready, !job->c));
  CK(cudaEventRecord(ev[2], st));
  if (serial) CK(cudaStreamWaitEvent(st2, ev[2], 0));
  for (int p = 0; p < 3; p++) {
    const cuzk_msm_part& pt = job->part[p];
    const g1_affine* bases = srs->q[p + 1];
    uint64_t nb = srs->n[p + 1];
    const g1_xyzz* extra = nullptr;
    CK(cudaStreamWaitEvent(st2, tail_in[p], 0));
    if (p == 0) CK(cudaEventRecord(ev[11], st2));
    if (pt.ones && nb) {
      TRY(batch_add_dev(ctx, bases, nb, ctx->p_bits[p].as<uint32_t>(), o + 4 + p, st2));
      extra = o + 4 + p;
    }
    TRY(msm_dev(ctx, bases, ctx->p_scal[p].as<fr_t>(), ctx->p_idx[p].as<uint32_t>(), pt.ntail, 0, extra, o + 1 + p, st2));
    CK(cudaEventRecord(ev[4 + p], st2));
  }
  CK(cudaStreamWaitEvent(st, ev[6], 0));
  CK(cudaEventRecord(ev[12], st));
  TRY(msm_dev(ctx, srs->q[0], ctx->va.as<fr_t>(), nullptr, m - 1, (int)lgn, nullptr, o + 0, st));
  CK(cudaEventRecord(ev[3], st));
  CK(cudaMemcpyAsync(res->points, o, 4 * sizeof(g1_xyzz), cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  cudaEventElapsedTime(&res->ms_total, ev[0], ev[3]);
  cudaEventElapsedTime(&res->ms_h2d, ev[0], ev[10]);  // all uploads (overlapping the MSMs and NTTs)
  cudaEventElapsedTime(&res->ms_ntt, ev[1], ev[2]);
  cudaEventElapsedTime(&res->ms_msm_h, ev[12], ev[3]);
  cudaEventElapsedTime(&res->ms_msm_l, ev[11], ev[4]);  // L, A, B_G1: on st2, overlapping the NTTs
  cudaEventElapsedTime(&res->ms_msm_a, ev[4], ev[5]);
  cudaEventElapsedTime(&res->ms_msm_b, ev[5], ev[6]);
  return 0;
}

// ---------------------------------------------------------------- benchmarks

__global__ void fill_rand_fr(fr_t* v, uint64_t n, uint64_t seed) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t s = (i + 1) * 0x9e3779b97f4a7c15ull ^ seed;
  fr_t x;
  for (int k = 0; k < 8; k++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x.v[k] = (uint32_t)(s >> 16);
  }
  x.v[7] %= 0x73eda753u;
  v[i] = x;
}

static float median3(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

extern "C" int cuzk_bench_ntt(cuzk_ctx* ctx, uint32_t lgn, int reps, float* ms_fwd, float* ms_inv,
                              float* ms_hseq, float* ms_hseq_ab) {
  if (!ctx || lgn < 1 || lgn > 28 || reps < 1) return set_err(CUZK_ERR_ARG, "bench ntt: bad argument");
  CK(cudaSetDevice(ctx->dev));
  cudaStream_t st = ctx->st;
  uint64_t n = 1ull << lgn;
  TRY(ctx->va.ensure(n * 32));
  TRY(ctx->vb.ensure(n * 32));
  TRY(ctx->vc.ensure(n * 32));
  fr_t* v[3] = {ctx->va.as<fr_t>(), ctx->vb.as<fr_t>(), ctx->vc.as<fr_t>()};
  for (int i = 0; i < 3; i++) {
    fill_rand_fr<<<(n + 255) / 256, 256, 0, st>>>(v[i], n, 17 + i);
    CKL();
  }
  ntt_tabs* T;
  TRY(ctx_ntt_tabs(ctx, lgn, &T));
  TRY(ntt_dev(ctx, v[0], lgn, true, false, nullptr, nullptr, st));
  std::vector<float> f, iv, hs;
  cudaEvent_t a = ctx->ev[14], b = ctx->ev[15];
  for (int r = 0; r < reps; r++) {
    float ms;
    CK(cudaEventRecord(a, st));
    TRY(ntt_dev(ctx, v[0], lgn, true, false, nullptr, nullptr, st));
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    cudaEventElapsedTime(&ms, a, b);
    f.push_back(ms);
    CK(cudaEventRecord(a, st));
    TRY(ntt_dev(ctx, v[0], lgn, false, true, nullptr, &T->inv_n, st));
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    cudaEventElapsedTime(&ms, a, b);
    iv.push_back(ms);
  }
  // the H sequences (median of up to 2): from a, b and c, and cuzk_run's
  // without c (a copied into vc, c = a∘b formed on the device)
  auto time_h = [&](bool c_ab, float* out) -> int {
    hs.clear();
    for (int r = 0; r < (reps > 2 ? 2 : reps); r++) {
      float ms;
      CK(cudaEventRecord(a, st));
      if (c_ab) CK(cudaMemcpyAsync(v[2], v[0], n * 32, cudaMemcpyDeviceToDevice, st));
      TRY(h_dev(ctx, lgn, st, nullptr, c_ab));
      CK(cudaEventRecord(b, st));
      CK(cudaEventSynchronize(b));
      cudaEventElapsedTime(&ms, a, b);
      hs.push_back(ms);
    }
    *out = median3(hs);
    return 0;
  };
  if (ms_hseq) TRY(time_h(false, ms_hseq));
  if (ms_hseq_ab) TRY(time_h(true, ms_hseq_ab));
  *ms_fwd = median3(f);
  *ms_inv = median3(iv);
  return 0;
}

extern "C" int cuzk_bench_msm(cuzk_ctx* ctx, cuzk_srs* srs, int q, uint64_t n, int reps, float* ms,
                              uint32_t* window) {
  if (!ctx || !srs || q < 0 || q > 3 || n > srs->n[q] || reps < 1)
    return set_err(CUZK_ERR_ARG, "bench msm: bad argument");
  CK(cudaSetDevice(ctx->dev));
  cudaStream_t st = ctx->st;
  TRY(ctx->tmp.ensure(n * 32 + 32));
  TRY(ctx->d_out.ensure(8 * sizeof(g1_xyzz)));
  fill_rand_fr<<<(n + 255) / 256, 256, 0, st>>>(ctx->tmp.as<fr_t>(), n, 99);
  CKL();
  g1_xyzz* o = ctx->d_out.as<g1_xyzz>();
  TRY(msm_dev(ctx, srs->q[q], ctx->tmp.as<fr_t>(), nullptr, n, 0, nullptr, o, st));
  std::vector<float> t;
  cudaEvent_t a = ctx->ev[14], b = ctx->ev[15];
  for (int r = 0; r < reps; r++) {
    float m;
    CK(cudaEventRecord(a, st));
    TRY(msm_dev(ctx, srs->q[q], ctx->tmp.as<fr_t>(), nullptr, n, 0, nullptr, o, st));
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    cudaEventElapsedTime(&m, a, b);
    t.push_back(m);
  }
  *ms = median3(t);
  if (window) *window = msm_window(n, ctx->cfg.msm_window);
  return 0;
}
