// The MSM host driver (msm.hpp) and the C ABI's cuzk_msm and cuzk_msm_split.
#include <cub/cub.cuh>
#include <string>

#include "../context.hpp"
#include "../util/profile.hpp"
#include "kernels.cuh"
#include "msm.hpp"

uint64_t msm_resident_threads(int dev) {
  int blocks = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, msm_acc_chunks, 128, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  return (uint64_t)blocks * sms * 128;
}

int msm_reserve(cuzk_ctx* ctx, const msm_scratch& s) {
  msm_buffers& b = ctx->msm_scratch;
  TRY(b.keys.ensure(s.pairs));
  TRY(b.vals.ensure(s.pairs));
  TRY(b.keys_sorted.ensure(s.pairs));
  TRY(b.vals_sorted.ensure(s.pairs));
  TRY(b.starts.ensure(s.starts));
  TRY(b.buckets.ensure(s.buckets));
  TRY(b.level1_weighted.ensure(s.seg1));
  TRY(b.level1_sums.ensure(s.seg1));
  TRY(b.level2_weighted.ensure(s.seg2));
  TRY(b.level2_sums.ensure(s.seg2));
  TRY(b.t1_rounds[0].ensure(s.red));
  TRY(b.t1_rounds[1].ensure(s.red));
  TRY(b.windows.ensure(s.win));
  TRY(b.chunk_head.ensure(s.chunks));
  TRY(b.chunk_tail.ensure(s.chunks));
  size_t tb = 0;
  CK(cub::DeviceRadixSort::SortPairs(nullptr, tb, b.keys.as<uint32_t>(), b.keys_sorted.as<uint32_t>(),
                                     b.vals.as<uint32_t>(), b.vals_sorted.as<uint32_t>(), (int)(s.pairs / 4), 0,
                                     32));
  TRY(b.sort_temp.ensure(tb));
  return 0;
}

namespace {

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

}  // namespace

// The batch's digits, sorted by bucket, and each bucket's first entry.
static int msm_sort_batch(cuzk_ctx* ctx, const msm_batch& bt, const fr_t* scalars, const uint32_t* idx, uint64_t n,
                          int brev_lg, cudaStream_t st, msm_marks& mark) {
  msm_buffers& b = ctx->msm_scratch;
  msm_digits<<<(n + 255) / 256, 256, 0, st>>>(scalars, idx, n, brev_lg, bt.p.c, bt.w0, bt.nb, b.keys.as<uint32_t>(),
                                              b.vals.as<uint32_t>());
  CKL();
  mark("1 digits");
  int end_bit = 1;
  while ((1u << end_bit) <= bt.nkeys) end_bit++;
  size_t tb = b.sort_temp.capacity();
  CK(cub::DeviceRadixSort::SortPairs(b.sort_temp.get(), tb, b.keys.as<uint32_t>(), b.keys_sorted.as<uint32_t>(),
                                     b.vals.as<uint32_t>(), b.vals_sorted.as<uint32_t>(), (int)bt.np, 0, end_bit,
                                     st));
  mark("2 sort");
  msm_starts<<<(bt.nkeys + 1 + 255) / 256, 256, 0, st>>>(b.keys_sorted.as<uint32_t>(), bt.np, bt.nkeys,
                                                        b.starts.as<uint32_t>());
  CKL();
  mark("3 starts");
  return 0;
}

// The batch's bucket sums, by balanced chunks of the sorted entries.
static int msm_accumulate(cuzk_ctx* ctx, const msm_batch& bt, const g1_affine* bases, cudaStream_t st,
                          msm_marks& mark) {
  msm_buffers& b = ctx->msm_scratch;
  uint64_t C = msm_chunk(bt.np, ctx->msm.acc_slots);
  uint64_t nch = (bt.np + C - 1) / C;
  msm_acc_chunks<<<(nch + 127) / 128, 128, 0, st>>>(bases, b.keys_sorted.as<uint32_t>(), b.vals_sorted.as<uint32_t>(),
                                                   b.starts.as<uint32_t>(), bt.nkeys, (uint32_t)C,
                                                   b.chunk_head.as<g1_xyzz>(), b.chunk_tail.as<g1_xyzz>(),
                                                   b.buckets.as<g1_xyzz>());
  CKL();
  mark("4 acc chunks");
  msm_acc_merge<<<(bt.nkeys + 127) / 128, 128, 0, st>>>(b.starts.as<uint32_t>(), bt.nkeys, (uint32_t)C,
                                                       b.chunk_head.as<g1_xyzz>(), b.chunk_tail.as<g1_xyzz>(),
                                                       b.buckets.as<g1_xyzz>());
  CKL();
  mark("5 acc merge");
  return 0;
}

// The batch's windows from its bucket sums: level 1, segments of L1
// buckets; level 2, segments of L2 of the level-1 sums; the level-1 weighted
// sums of each window reduced msm_red_fan at a time (a small fan keeps each
// thread's chain of additions short); then one block per window.
static int msm_reduce_windows(cuzk_ctx* ctx, const msm_batch& bt, cudaStream_t st, msm_marks& mark) {
  msm_buffers& b = ctx->msm_scratch;
  const msm_plan& p = bt.p;
  g1_xyzz* T1 = b.level1_weighted.as<g1_xyzz>();
  g1_xyzz* S1 = b.level1_sums.as<g1_xyzz>();
  g1_xyzz* T2 = b.level2_weighted.as<g1_xyzz>();
  g1_xyzz* S2 = b.level2_sums.as<g1_xyzz>();
  uint32_t nseg1 = bt.nb * p.K1, nseg2 = bt.nb * p.K2;
  msm_segments<<<(nseg1 + 127) / 128, 128, 0, st>>>(b.buckets.as<g1_xyzz>(), nseg1, p.L1, T1, S1);
  CKL();
  mark("6 segments 1");
  msm_segments<<<(nseg2 + 127) / 128, 128, 0, st>>>(S1, nseg2, p.L2, T2, S2);
  CKL();
  const g1_xyzz* in = T1;
  uint64_t K = p.K1;
  for (int r = 0; K > 1; r ^= 1) {
    uint32_t F = K > msm_red_fan ? msm_red_fan : (uint32_t)K;
    uint64_t nout = (uint64_t)bt.nb * (K / F);
    g1_xyzz* out = b.t1_rounds[r].as<g1_xyzz>();
    reduce_xyzz<<<(nout + 127) / 128, 128, 0, st>>>(in, (uint64_t)bt.nb * K, F, out, nout);
    CKL();
    in = out;
    K /= F;
  }
  msm_windows<<<bt.nb, p.K2, 0, st>>>(in, T2, S2, p.K2, p.lgL1, p.lgL2, b.windows.as<g1_xyzz>() + bt.w0);
  CKL();
  mark("7 segments 2, windows");
  return 0;
}

int msm_dev(cuzk_ctx* ctx, const g1_affine* bases, const fr_t* scalars, const uint32_t* idx, uint64_t n,
            int brev_lg, const g1_xyzz* extra, g1_xyzz* out, cudaStream_t st) {
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
  const msm_plan p = msm_plan_for(n, ctx->msm);
  TRY(msm_reserve(ctx, msm_scratch_for(n, ctx->msm)));
  profile pf(st, ctx->cfg.profile);
  msm_marks mark{pf, "msm lg" + std::to_string(lg2(n)) + " "};
  for (uint32_t w0 = 0; w0 < p.W; w0 += p.wb) {
    const uint32_t nb = (uint32_t)((p.W - w0) < p.wb ? (p.W - w0) : p.wb);
    const msm_batch bt = {p, w0, nb, (uint64_t)nb * n, nb * p.B};
    TRY(msm_sort_batch(ctx, bt, scalars, idx, n, brev_lg, st, mark));
    TRY(msm_accumulate(ctx, bt, bases, st, mark));
    TRY(msm_reduce_windows(ctx, bt, st, mark));
  }
  msm_combine<<<1, 1, 0, st>>>(ctx->msm_scratch.windows.as<g1_xyzz>(), p.W, p.c, extra, out);
  CKL();
  mark("8 combine");
  return 0;
}

// Batch addition: bases per first-level chunk; the partial sums are reduced 32 at a time.
static const uint32_t batch_chunk = 256;

static uint64_t batch_chunks(uint64_t n) { return n ? (n + batch_chunk - 1) / batch_chunk : 1; }

int batch_add_reserve(cuzk_ctx* ctx, uint64_t n) {
  const uint64_t nch = batch_chunks(n);
  TRY(ctx->msm_scratch.batch_chunks.ensure(nch * sizeof(g1_xyzz)));
  TRY(ctx->msm_scratch.batch_rounds.ensure(((nch + 31) / 32 + 1) * sizeof(g1_xyzz)));
  return 0;
}

int batch_add_dev(cuzk_ctx* ctx, const g1_affine* bases, uint64_t n, const uint32_t* bits, g1_xyzz* out,
                  cudaStream_t st) {
  const uint64_t nch = batch_chunks(n);
  TRY(batch_add_reserve(ctx, n));
  profile pf(st, ctx->cfg.profile);
  g1_xyzz* in = ctx->msm_scratch.batch_chunks.as<g1_xyzz>();
  g1_xyzz* o = ctx->msm_scratch.batch_rounds.as<g1_xyzz>();
  batch_add_chunks<<<(nch + 127) / 128, 128, 0, st>>>(bases, n, bits, batch_chunk, nch, in);
  CKL();
  if (pf.on()) pf.mark("batch add chunks");
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
  if (!idx && ntail > nbases) return set_err(CUZK_ERR_ARG, "msm: more scalars than bases");
  CK(cudaSetDevice(ctx->dev));
  cudaStream_t st = ctx->main;
  msm_inputs& in = ctx->msm_in;
  const uint64_t nw = (nbases + 31) / 32;
  TRY(in.bases.ensure(nbases * sizeof(g1_affine) + 1));
  TRY(in.scalars.ensure(ntail * 32 + 1));
  TRY(in.idx.ensure(ntail * 4 + 1));
  TRY(in.ones.ensure(nw * 4 + 4));
  TRY(ctx->points.ensure(2 * sizeof(g1_xyzz)));
  if (nbases) CK(cudaMemcpyAsync(in.bases.get(), bases, nbases * sizeof(g1_affine), cudaMemcpyHostToDevice, st));
  if (ntail) CK(cudaMemcpyAsync(in.scalars.get(), scalars, ntail * 32, cudaMemcpyHostToDevice, st));
  if (ntail && idx) CK(cudaMemcpyAsync(in.idx.get(), idx, ntail * 4, cudaMemcpyHostToDevice, st));
  g1_xyzz* o = ctx->points.as<g1_xyzz>();
  const g1_xyzz* extra = nullptr;
  if (ones) {
    CK(cudaMemcpyAsync(in.ones.get(), ones, nw * 4, cudaMemcpyHostToDevice, st));
    TRY(batch_add_dev(ctx, in.bases.as<g1_affine>(), nbases, in.ones.as<uint32_t>(), o + 1, st));
    extra = o + 1;
  }
  TRY(msm_dev(ctx, in.bases.as<g1_affine>(), in.scalars.as<fr_t>(), idx ? in.idx.as<uint32_t>() : nullptr, ntail, 0,
              extra, o, st));
  CK(cudaMemcpyAsync(out, o, sizeof(g1_xyzz), cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  return 0;
}
