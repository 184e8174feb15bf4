// The MSM host driver, generic over the point types (A affine, P XYZZ):
// the phases of one batch of windows, the whole MSM and the batch addition,
// queued on a stream with a context's scratch. Included by msm.cu (G1) and
// msm_g2.cu (G2), each instantiating its own types; the digits and the sort
// know only the scalars and live in msm.cu (msm_sort_batch).
#pragma once

#include <string>

#include "../context.hpp"
#include "../util/profile.hpp"
#include "kernels.cuh"
#include "msm.hpp"

// The profile marks of one MSM's phases, named "msm lg<n> <phase>".
struct msm_marks {
  profile& pf;
  std::string prefix;
  void operator()(const char* phase) {
    if (pf.on()) pf.mark(prefix + phase);
  }
};

// One batch of windows [w0, w0 + nb): what msm_dev's steps share.
struct msm_batch {
  const msm_plan& p;
  uint32_t w0, nb;
  uint64_t np;     // sorted pairs: nb·n
  uint32_t nkeys;  // buckets: nb·B
};

// The batch's digits, sorted by bucket, and each bucket's first entry (msm.cu).
int msm_sort_batch(cuzk_ctx* ctx, const msm_batch& bt, const fr_t* scalars, const uint32_t* idx, uint64_t n,
                   int brev_lg, cudaStream_t st, msm_marks& mark);

// An accumulation kernel: msm_acc_chunks' arguments (msm_g2.cu has variants).
template <class A, class P>
using msm_acc_kernel = void (*)(const A*, const uint32_t*, const uint32_t*, const uint32_t*, uint32_t, uint32_t, P*,
                                P*, P*);

// The batch's bucket sums, by balanced chunks of the sorted entries: kernel
// k in blocks of nt threads (acc_slots of its threads resident at once),
// then the merge; the phases marked l4 and l5.
template <class A, class P>
static int msm_accumulate_with(cuzk_ctx* ctx, const msm_batch& bt, const A* bases, msm_acc_kernel<A, P> k, int nt,
                               uint64_t acc_slots, cudaStream_t st, msm_marks& mark, const char* l4,
                               const char* l5) {
  msm_buffers& b = ctx->msm_scratch;
  uint64_t C = msm_chunk(bt.np, acc_slots);
  uint64_t nch = (bt.np + C - 1) / C;
  k<<<(nch + nt - 1) / nt, nt, 0, st>>>(bases, b.keys_sorted.as<uint32_t>(), b.vals_sorted.as<uint32_t>(),
                                        b.starts.as<uint32_t>(), bt.nkeys, (uint32_t)C, b.chunk_head.as<P>(),
                                        b.chunk_tail.as<P>(), b.buckets.as<P>());
  CKL();
  mark(l4);
  msm_acc_merge<P><<<(bt.nkeys + 127) / 128, 128, 0, st>>>(b.starts.as<uint32_t>(), bt.nkeys, (uint32_t)C,
                                                          b.chunk_head.as<P>(), b.chunk_tail.as<P>(),
                                                          b.buckets.as<P>());
  CKL();
  mark(l5);
  return 0;
}

// The batch's bucket sums by msm_acc_chunks.
template <class A, class P>
static int msm_accumulate(cuzk_ctx* ctx, const msm_batch& bt, const A* bases, uint64_t acc_slots, cudaStream_t st,
                          msm_marks& mark) {
  return msm_accumulate_with<A, P>(ctx, bt, bases, msm_acc_chunks<A, P>, 128, acc_slots, st, mark, "4 acc chunks",
                                   "5 acc merge");
}

// The accumulation msm_dev_t runs: msm_accumulate, unless a point type
// specializes it (msm_g2.cu: G2's, acc_g2.cuh).
template <class A, class P>
struct msm_acc_step {
  static int run(cuzk_ctx* ctx, const msm_batch& bt, const A* bases, uint64_t acc_slots, cudaStream_t st,
                 msm_marks& mark) {
    return msm_accumulate<A, P>(ctx, bt, bases, acc_slots, st, mark);
  }
};

// The batch's windows from its bucket sums into win (add: added to what
// win holds): level 1, segments of L1 buckets; level 2, segments of L2 of
// the level-1 sums; the level-1 weighted sums of each window reduced
// msm_red_fan at a time (a small fan keeps each thread's chain of additions
// short); then one block per window.
template <class P>
static int msm_reduce_windows(cuzk_ctx* ctx, const msm_batch& bt, P* win, bool add, cudaStream_t st,
                              msm_marks& mark) {
  msm_buffers& b = ctx->msm_scratch;
  const msm_plan& p = bt.p;
  P* T1 = b.level1_weighted.as<P>();
  P* S1 = b.level1_sums.as<P>();
  P* T2 = b.level2_weighted.as<P>();
  P* S2 = b.level2_sums.as<P>();
  uint32_t nseg1 = bt.nb * p.K1, nseg2 = bt.nb * p.K2;
  msm_segments<P><<<(nseg1 + 127) / 128, 128, 0, st>>>(b.buckets.as<P>(), nseg1, p.L1, T1, S1);
  CKL();
  mark("6 segments 1");
  msm_segments<P><<<(nseg2 + 127) / 128, 128, 0, st>>>(S1, nseg2, p.L2, T2, S2);
  CKL();
  const P* in = T1;
  uint64_t K = p.K1;
  for (int r = 0; K > 1; r ^= 1) {
    uint32_t F = K > msm_red_fan ? msm_red_fan : (uint32_t)K;
    uint64_t nout = (uint64_t)bt.nb * (K / F);
    P* out = b.t1_rounds[r].as<P>();
    reduce_xyzz<P><<<(nout + 127) / 128, 128, 0, st>>>(in, (uint64_t)bt.nb * K, F, out, nout);
    CKL();
    in = out;
    K /= F;
  }
  msm_windows<P><<<bt.nb, p.K2, 0, st>>>(in, T2, S2, p.K2, p.lgL1, p.lgL2, win + bt.w0, add);
  CKL();
  mark("7 segments 2, windows");
  return 0;
}

// msm_dev for points A/P; cfg is the context's MSM config with acc_slots
// those of msm_acc_chunks<A, P>; acc: msm_win_acc (msm.hpp), or nullptr.
template <class A, class P>
static int msm_dev_t(cuzk_ctx* ctx, const msm_config& cfg, const A* bases, const fr_t* scalars, const uint32_t* idx,
                     uint64_t n, int brev_lg, const P* extra, P* out, cudaStream_t st, msm_win_acc* acc) {
  if (n == 0) {  // no copy from the host, no wait: the call queues one small kernel
    set_xyzz<P><<<1, 1, 0, st>>>(out, extra);
    CKL();
    return 0;
  }
  if (n >= (1ull << 31)) return set_err(CUZK_ERR_ARG, "msm: %llu points", (unsigned long long)n);
  const msm_plan p = msm_plan_for(n, cfg);
  // the windows kept in acc where it holds none or this window's, else combined here
  const bool keep = acc && acc->win && p.W <= msm_win_max && (acc->c == 0 || acc->c == p.c);
  TRY(msm_reserve(ctx, msm_scratch_for(n, cfg, sizeof(P))));
  profile pf(st, ctx->cfg.profile);
  msm_marks mark{pf, std::string(sizeof(P) > sizeof(g1_xyzz) ? "msm g2 lg" : "msm lg") + std::to_string(lg2(n)) + " "};
  P* win = keep ? static_cast<P*>(acc->win) : ctx->msm_scratch.windows.as<P>();
  const bool add = keep && acc->c != 0;
  for (uint32_t w0 = 0; w0 < p.W; w0 += p.wb) {
    const uint32_t nb = (uint32_t)((p.W - w0) < p.wb ? (p.W - w0) : p.wb);
    const msm_batch bt = {p, w0, nb, (uint64_t)nb * n, nb * p.B};
    TRY(msm_sort_batch(ctx, bt, scalars, idx, n, brev_lg, st, mark));
    TRY((msm_acc_step<A, P>::run(ctx, bt, bases, cfg.acc_slots, st, mark)));
    TRY(msm_reduce_windows<P>(ctx, bt, win, add, st, mark));
  }
  if (keep) {
    acc->c = p.c;
    if (extra != out) {  // out = *extra (infinity where none); the windows' share waits in acc
      set_xyzz<P><<<1, 1, 0, st>>>(out, extra);
      CKL();
    }
    return 0;
  }
  msm_combine<P><<<1, 1, 0, st>>>(win, p.W, p.c, extra, out);
  CKL();
  mark("8 combine");
  return 0;
}

// msm_win_finish for points P.
template <class P>
static int msm_win_finish_t(msm_win_acc& acc, P* out, cudaStream_t st) {
  if (acc.c == 0) return 0;
  msm_combine<P><<<1, 1, 0, st>>>(static_cast<const P*>(acc.win), msm_window_count(acc.c), acc.c, out, out);
  CKL();
  acc.c = 0;
  return 0;
}

// Batch addition: bases per first-level chunk; the partial sums are reduced 32 at a time.
static const uint32_t batch_chunk = 256;

static inline uint64_t batch_chunks(uint64_t n) { return n ? (n + batch_chunk - 1) / batch_chunk : 1; }

// A batch addition's first-level kernel: batch_add_chunks' arguments.
template <class A, class P>
using batch_add_kernel = void (*)(const A*, uint64_t, const uint32_t*, uint32_t, uint64_t, P*);

// k and label: the first level's kernel and its profile mark (msm_g2.cu has a variant).
template <class A, class P>
static int batch_add_dev_t(cuzk_ctx* ctx, const A* bases, uint64_t n, const uint32_t* bits, P* out, cudaStream_t st,
                           batch_add_kernel<A, P> k = batch_add_chunks<A, P>, const char* label = nullptr) {
  const uint64_t nch = batch_chunks(n);
  TRY(batch_add_reserve(ctx, n, sizeof(P)));
  profile pf(st, ctx->cfg.profile);
  P* in = ctx->msm_scratch.batch_chunks.as<P>();
  P* o = ctx->msm_scratch.batch_rounds.as<P>();
  k<<<(nch + 127) / 128, 128, 0, st>>>(bases, n, bits, batch_chunk, nch, in);
  CKL();
  if (pf.on()) pf.mark(label ? label : sizeof(P) > sizeof(g1_xyzz) ? "batch add g2 chunks" : "batch add chunks");
  uint64_t m = nch;
  while (m > 1) {
    uint64_t mo = (m + 31) / 32;
    reduce_xyzz<P><<<(mo + 127) / 128, 128, 0, st>>>(in, m, 32, o, mo);
    CKL();
    P* t = in;
    in = o;
    o = t;
    m = mo;
  }
  CK(cudaMemcpyAsync(out, in, sizeof(P), cudaMemcpyDeviceToDevice, st));
  return 0;
}

// Threads of msm_acc_chunks<A, P> resident at once on device dev (0 if unknown).
template <class A, class P>
static uint64_t msm_resident_threads_t(int dev) {
  int blocks = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, msm_acc_chunks<A, P>, 128, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  return (uint64_t)blocks * sms * 128;
}
