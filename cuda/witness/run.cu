// cuzk_run_witness: a partition from its witness against resident matrices
// (matrices.cu) and a resident SRS, on the context's three streams:
//   uploads: input and aux into w = [input ‖ aux] (the compact form's parts,
//            then their expansion), ev.uploads_done;
//   main:    a = A·w, b = B·w into the H vectors (zero padded), the H
//            sequence with c = a∘b, then the H MSM after the tails;
//   tails:   the 0/1/other split of the L, A and B scalars (gathered from w
//            by the queries' lists) into ctx->run_in, beside the products;
//            the host reads the three tail lengths, then the L, A and B_G1
//            MSMs as cuzk_run makes them (run.hpp).
// The scratch is reserved up front for tails as long as their queries: the
// lengths are known only once the split has run, and nothing may
// reallocate under the streams. Under the srs's memory limit the run's
// buffers are the plan's (plan_reserve) with the tails as long as their
// queries, and a query that is not resident streams with its tail on the
// device (srs_msm with no host tail: the chunk boundaries from a device
// search, one synchronization of the tails stream per streamed query).
// The plan counts neither the matrices, the witness scratch, nor the device
// tails of a streamed query past its resident prefix (36 B an entry): the
// Go device takes the classic path under a limit (device/cuda).
#include <stddef.h>

#include <algorithm>

#include "../context.hpp"
#include "../run.hpp"
#include "../msm/stream.hpp"
#include "../srs/srs.hpp"
#include "kernels.hpp"
#include "witness.hpp"

// The layout the Go mirrors (device/cuda, TestWitnessLayout) assume.
static_assert(sizeof(cuzk_result) == 1212 && offsetof(cuzk_result, ms_host_pre) == 1200 &&
                  offsetof(cuzk_result, ms_host_synced) == 1208 && offsetof(cuzk_result, ms_spmv) == 800 && offsetof(cuzk_result, bg2) == 808 &&
                  offsetof(cuzk_result, has_bg2) == 1192 && offsetof(cuzk_result, ms_msm_b2) == 1196,
              "cuzk_result layout");
static_assert(sizeof(cuzk_witness) == 72 && offsetof(cuzk_witness, nothers) == 48 &&
                  offsetof(cuzk_witness, lgn) == 64, "cuzk_witness layout");
static_assert(sizeof(cuzk_csr) == 32, "cuzk_csr layout");

// Clear bits of the first n bits of a host bitmap.
static uint64_t host_clear_bits(const uint32_t* bits, uint64_t n) {
  uint64_t c = 0;
  for (uint64_t w = 0; w < n / 32; w++) c += __builtin_popcount(~bits[w]);
  if (n & 31) c += __builtin_popcount(~bits[n / 32] & ((1u << (n & 31)) - 1));
  return c;
}

// The witness against the matrices (and the context's device).
static int check_witness(const cuzk_ctx* ctx, const cuzk_matrices* m, const cuzk_witness* w) {
  if (!ctx || !m || !w) return set_err(CUZK_ERR_ARG, "witness: nil argument");
  if (ctx->dev != m->dev)
    return set_err(CUZK_ERR_ARG, "witness: matrices on device %d, context on %d", m->dev, ctx->dev);
  if (w->ninput != m->ninputs || w->naux != m->naux)
    return set_err(CUZK_ERR_ARG, "witness: %llu inputs and %llu aux, the matrices have %llu and %llu",
                   (unsigned long long)w->ninput, (unsigned long long)w->naux, (unsigned long long)m->ninputs,
                   (unsigned long long)m->naux);
  if (w->ninput && !w->input) return set_err(CUZK_ERR_ARG, "witness: nil input");
  if (w->aux || !w->naux) return 0;
  if (!w->small || !w->ones || (w->nothers && !w->others)) return set_err(CUZK_ERR_ARG, "witness: nil compact part");
  const uint64_t want = host_clear_bits(w->small, w->naux);
  if (w->nothers != want)
    return set_err(CUZK_ERR_ARG, "witness: %llu other values, the small bitmap leaves %llu",
                   (unsigned long long)w->nothers, (unsigned long long)want);
  return 0;
}

// Bits of the widest bitmap a run scans: the compact form's, or a query's.
static uint64_t widest_bits(const cuzk_matrices* m) {
  return std::max(std::max(m->naux, m->nq[0]), std::max(m->nq[1], m->nq[2]));
}

// The witness's own scratch (w, the compact parts, the prefix counts).
static int reserve_witness(cuzk_ctx* ctx, const cuzk_matrices* m, const cuzk_witness* w) {
  witness_scratch& ws = ctx->wit;
  TRY(ws.make());
  const uint64_t nb = widest_bits(m), nw = wit_words(nb);
  TRY(ws.w.ensure(m->nvars() * 32 + 32));
  if (!w->aux && w->naux) {
    TRY(ws.small.ensure(wit_words(w->naux) * 4 + 4));
    TRY(ws.ones.ensure(wit_words(w->naux) * 4 + 4));
    TRY(ws.others.ensure(w->nothers * 32 + 32));
  }
  TRY(ws.counts.ensure((nw + 1) * 4));
  TRY(ws.offsets.ensure((nw + 1) * 4));
  TRY(ws.tailbits.ensure(nw * 4 + 4));
  size_t tb;
  TRY(wit_prefix_temp_bytes(nb, &tb));
  TRY(ws.scan_temp.ensure(tb + 4));
  return 0;
}

// w = [input ‖ aux] on st: the uploads, and the compact form's expansion.
static int queue_witness(cuzk_ctx* ctx, const cuzk_matrices* m, const cuzk_witness* w, cudaStream_t st) {
  witness_scratch& ws = ctx->wit;
  fr_t* dst = ws.w.as<fr_t>();
  if (w->ninput) CK(cudaMemcpyAsync(dst, w->input, w->ninput * 32, cudaMemcpyHostToDevice, st));
  const uint64_t n = w->naux;
  if (!n) return 0;
  if (w->aux) {
    CK(cudaMemcpyAsync(dst + m->ninputs, w->aux, n * 32, cudaMemcpyHostToDevice, st));
    return 0;
  }
  const uint64_t nw = wit_words(n);
  CK(cudaMemcpyAsync(ws.small.get(), w->small, nw * 4, cudaMemcpyHostToDevice, st));
  CK(cudaMemcpyAsync(ws.ones.get(), w->ones, nw * 4, cudaMemcpyHostToDevice, st));
  if (w->nothers) CK(cudaMemcpyAsync(ws.others.get(), w->others, w->nothers * 32, cudaMemcpyHostToDevice, st));
  TRY(wit_prefix_bits(ws.small.as<uint32_t>(), n, true, ws.counts.as<uint32_t>(), ws.offsets.as<uint32_t>(),
                      ws.scan_temp, st));
  return wit_expand(ws.small.as<uint32_t>(), ws.ones.as<uint32_t>(), ws.others.as<fr_t>(), w->nothers,
                    ws.offsets.as<uint32_t>(), n, dst + m->ninputs, st);
}

// a = A·w and b = B·w into the H vectors, zero padded to 2^lgn, on st.
static int queue_spmv(cuzk_ctx* ctx, const cuzk_matrices* m, uint64_t padded, cudaStream_t st) {
  const csr_ptrs A = {m->a.row_ptr.as<uint32_t>(), m->a.col.as<uint32_t>(), m->a.coeff.as<uint16_t>()};
  const csr_ptrs B = {m->b.row_ptr.as<uint32_t>(), m->b.col.as<uint32_t>(), m->b.coeff.as<uint16_t>()};
  fr_t* a = ctx->h.a.as<fr_t>();
  fr_t* b = ctx->h.b.as<fr_t>();
  TRY(wit_spmv(A, B, m->coeffs.as<fr_t>(), ctx->wit.w.as<fr_t>(), m->nrows, a, b, st));
  if (padded > m->nrows) {
    CK(cudaMemsetAsync(a + m->nrows, 0, (padded - m->nrows) * 32, st));
    CK(cudaMemsetAsync(b + m->nrows, 0, (padded - m->nrows) * 32, st));
  }
  return 0;
}

// The split of the L, A and B scalars on the tails stream into ctx->run_in
// (ones bitmaps, tails), each tail's length to the pinned words;
// ev.tail_in[q] once query q's is made.
static int queue_split(cuzk_ctx* ctx, const cuzk_matrices* m) {
  witness_scratch& ws = ctx->wit;
  cudaStream_t st = ctx->tails;
  for (int q = 0; q < 3; q++) {
    msm_inputs& in = ctx->run_in[q];
    const uint64_t n = m->nq[q];
    TRY(wit_split(ws.w.as<fr_t>(), m->gather_list(q), m->ninputs, n, in.ones.as<uint32_t>(),
                  ws.tailbits.as<uint32_t>(), ws.counts.as<uint32_t>(), ws.offsets.as<uint32_t>(), ws.scan_temp,
                  in.scalars.as<fr_t>(), in.idx.as<uint32_t>(), st));
    CK(cudaMemcpyAsync(ws.ntail_host.as<uint32_t>() + q, ws.offsets.as<uint32_t>() + wit_words(n), 4,
                       cudaMemcpyDeviceToHost, st));
    CK(cudaEventRecord(ctx->run_ev.tail_in[q], st));
  }
  return 0;
}

extern "C" int cuzk_run_witness(cuzk_ctx* ctx, cuzk_srs* srs, const cuzk_matrices* m, const cuzk_witness* w,
                                cuzk_result* res) {
  const host_clock clk;
  const run_in_flight in_flight;
  if (!srs || !res) return set_err(CUZK_ERR_ARG, "witness: nil argument");
  TRY(check_witness(ctx, m, w));
  TRY(run_check_domain(ctx, srs, w->lgn, m->nrows));
  for (int q = 0; q < 3; q++)
    if (srs->n[SRS_L + q] != m->nq[q])
      return set_err(CUZK_ERR_ARG, "witness: srs query %d has %llu points, the matrices' densities %llu", SRS_L + q,
                     (unsigned long long)srs->n[SRS_L + q], (unsigned long long)m->nq[q]);
  CK(cudaSetDevice(ctx->dev));
  witness_scratch& ws = ctx->wit;
  ws.last_valid = false;
  const run_msm_config msm_cfg(ctx, srs);
  run_tails t = {{true, true, true}, {m->nq[0], m->nq[1], m->nq[2]}};  // the longest tails
  TRY(run_reserve_for(ctx, srs, w->lgn, t));
  TRY(reserve_witness(ctx, m, w));
  const run_events& ev = ctx->run_ev;
  cudaStream_t st = ctx->main;
  float pre;
  TRY(run_begin(ctx, clk, &pre));
  TRY(queue_witness(ctx, m, w, ctx->uploads));
  CK(cudaEventRecord(ev.uploads_done, ctx->uploads));
  // main: the products, then the H sequence
  CK(cudaStreamWaitEvent(st, ev.uploads_done, 0));
  CK(cudaEventRecord(ws.spmv_start, st));
  TRY(queue_spmv(ctx, m, 1ull << w->lgn, st));
  CK(cudaEventRecord(ws.spmv_done, st));
  // tails: the split beside them
  CK(cudaStreamWaitEvent(ctx->tails, ev.uploads_done, 0));
  CK(cudaEventRecord(ws.split_start, ctx->tails));
  TRY(queue_split(ctx, m));
  CK(cudaEventRecord(ws.split_done, ctx->tails));
  TRY(run_h_sequence(ctx, w->lgn, nullptr, true));
  // the MSMs' shapes need the tail lengths: the host waits for the split
  // (the products and the H sequence are queued and run meanwhile)
  CK(cudaEventSynchronize(ws.split_done));
  for (int q = 0; q < 3; q++) t.ntail[q] = ws.ntail_host.as<uint32_t>()[q];
  // A no-op unless a shorter tail's MSM plan wants a buffer larger than the
  // longest's did (the plans are not monotone in n); the MSM scratch is
  // idle here (the H sequence does not use it).
  TRY(run_reserve_for(ctx, srs, w->lgn, t));
  TRY(run_parts(ctx, srs, t));
  // (run_parts runs B_G2 over the B split too where the srs holds it, and
  // run_h_msm reports it: has_bg2.)
  TRY(run_h_msm(ctx, srs, w->lgn, res, clk));
  res->ms_spmv = elapsed_ms(ws.spmv_start, ws.spmv_done);
  res->ms_split = elapsed_ms(ws.split_start, ws.split_done);
  for (int q = 0; q < 3; q++) {
    ws.last_nq[q] = m->nq[q];
    ws.last_ntail[q] = t.ntail[q];
  }
  ws.last_valid = true;
  res->ms_host_pre = pre;
  res->ms_host = clk.ms();
  return 0;
}

extern "C" int cuzk_witness_split_read(cuzk_ctx* ctx, int q, uint64_t* ntail, uint32_t* ones, void* scalars,
                                       uint32_t* idx) {
  if (!ctx || !ntail || q < 0 || q > 2) return set_err(CUZK_ERR_ARG, "witness split read: bad argument");
  const witness_scratch& ws = ctx->wit;
  if (!ws.last_valid) return set_err(CUZK_ERR_ARG, "witness split read: no witness run on this context");
  CK(cudaSetDevice(ctx->dev));
  const msm_inputs& in = ctx->run_in[q];
  const uint64_t n = ws.last_ntail[q];
  *ntail = n;
  cudaStream_t st = ctx->main;
  if (ones && ws.last_nq[q])
    CK(cudaMemcpyAsync(ones, in.ones.get(), wit_words(ws.last_nq[q]) * 4, cudaMemcpyDeviceToHost, st));
  if (scalars && n) CK(cudaMemcpyAsync(scalars, in.scalars.get(), n * 32, cudaMemcpyDeviceToHost, st));
  if (idx && n) CK(cudaMemcpyAsync(idx, in.idx.get(), n * 4, cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  return 0;
}

extern "C" int cuzk_spmv(cuzk_ctx* ctx, const cuzk_matrices* m, const cuzk_witness* w, void* a, void* b) {
  TRY(check_witness(ctx, m, w));
  if (m->nrows && (!a || !b)) return set_err(CUZK_ERR_ARG, "spmv: nil output");
  CK(cudaSetDevice(ctx->dev));
  TRY(ctx->h.reserve(m->nrows + 1));
  TRY(reserve_witness(ctx, m, w));
  cudaStream_t st = ctx->main;
  TRY(queue_witness(ctx, m, w, st));
  TRY(queue_spmv(ctx, m, m->nrows, st));
  if (m->nrows) {
    CK(cudaMemcpyAsync(a, ctx->h.a.get(), m->nrows * 32, cudaMemcpyDeviceToHost, st));
    CK(cudaMemcpyAsync(b, ctx->h.b.get(), m->nrows * 32, cudaMemcpyDeviceToHost, st));
  }
  CK(cudaStreamSynchronize(st));
  return 0;
}
