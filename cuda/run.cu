// cuzk_run: one Groth16 partition's device work (H, and the L, A and B_G1
// MSMs, and B_G2's when the srs holds it) against a resident SRS, on the
// context's three streams:
//   uploads: in the order the work needs them: the L tail first (L starts
//            while the rest uploads), a, b (then the job's note that they
//            are in: its caller may reuse their memory), c, then the A and
//            B tails;
//   main:    the H sequence once a is in, then the H MSM after the tails
//            (they share the MSM scratch);
//   tails:   the L, A and B_G1 MSMs as their inputs arrive, beside the NTTs
//            (cfg.run_serial holds them back until the H sequence is done),
//            then B_G2 over B_G1's scalars (run_bg2.hpp).
// All the scratch is reserved before anything is queued: the tails run
// beside the NTTs, and nothing may reallocate under them. Under an srs's
// memory limit (srs/plan.hpp) each buffer is reserved to its planned size,
// and a query that is not resident streams (msm/stream.hpp): only the tail
// of its resident prefix is uploaded with the others, the rest goes up
// chunk by chunk with its points. The pieces cuzk_run_witness shares
// (run.hpp) are defined here.
#include <string.h>

#include <algorithm>

#include "context.hpp"
#include "run.hpp"
#include "msm/msm.hpp"
#include "msm/stream.hpp"
#include "ntt/ntt.hpp"
#include "run_bg2.hpp"
#include "srs/srs.hpp"

// Slots of ctx->points: the four results, then the three batch sums (a paired run's second partition: 8 on).
static const int run_result = 0, run_ones = 4;

int run_check_domain(const cuzk_ctx* ctx, const cuzk_srs* srs, uint32_t lgn, uint64_t nrows) {
  if (ctx->dev != srs->dev) return set_err(CUZK_ERR_ARG, "run: srs on device %d, context on %d", srs->dev, ctx->dev);
  if (lgn < 1 || lgn > 28) return set_err(CUZK_ERR_ARG, "run: lgn %u out of [1, 28]", lgn);
  const uint64_t m = 1ull << lgn;
  if (srs->n[SRS_H] != m - 1)
    return set_err(CUZK_ERR_ARG, "run: srs h has %llu points, domain needs %llu", (unsigned long long)srs->n[SRS_H],
                   (unsigned long long)(m - 1));
  if (nrows > m) return set_err(CUZK_ERR_ARG, "run: %llu rows exceed the domain 2^%u", (unsigned long long)nrows, lgn);
  return 0;
}

int run_check(const cuzk_ctx* ctx, const cuzk_srs* srs, const cuzk_job* job) {
  if (!ctx || !srs || !job || (job->nrows && (!job->a || !job->b))) return set_err(CUZK_ERR_ARG, "run: nil argument");
  TRY(run_check_domain(ctx, srs, job->lgn, job->nrows));
  for (int p = 0; p < 3; p++) {
    const cuzk_msm_part& pt = job->part[p];
    if (pt.ntail > 0 && (!pt.scalars || !pt.idx)) return set_err(CUZK_ERR_ARG, "run: part %d: nil tail", p);
    if (pt.ntail > srs->n[SRS_L + p])
      return set_err(CUZK_ERR_ARG, "run: part %d: %llu tail scalars for %llu bases", p, (unsigned long long)pt.ntail,
                     (unsigned long long)srs->n[SRS_L + p]);
  }
  return 0;
}

uint64_t run_tail_ndev(const cuzk_srs* srs, const run_tails& t, int p) {
  const uint64_t r = srs->plan.res[SRS_L + p];
  if (r >= srs->n[SRS_L + p] || t.ntail[p] == 0 || !t.host_idx[p]) return t.ntail[p];
  return tail_below(t.host_idx[p], t.ntail[p], r);
}

run_msm_config::run_msm_config(cuzk_ctx* c, const cuzk_srs* srs) : ctx(c), saved(c->msm) {
  if (srs->plan.streams()) {
    c->msm = plan_msm_config(srs->plan, c->msm.acc_slots);
    c->msm.acc_slots_g2 = saved.acc_slots_g2;
  }
}

run_msm_config::~run_msm_config() { ctx->msm = saved; }

int run_reserve_tails(const cuzk_srs* srs, const run_tails& t, msm_inputs* in) {
  for (int p = 0; p < 3; p++) {
    const uint64_t nd = run_tail_ndev(srs, t, p);
    TRY(in[p].scalars.ensure(nd * 32 + 32));
    TRY(in[p].idx.ensure(nd * 4 + 4));
  }
  return 0;
}

int run_reserve_for(cuzk_ctx* ctx, const cuzk_srs* srs, uint32_t lgn, const run_tails& t) {
  const uint64_t m = 1ull << lgn;
  if (srs->plan.limit) {
    TRY(plan_reserve(ctx, srs));
    TRY(run_reserve_tails(srs, t, ctx->run_in));
    // B_G2 only where the plan holds it (cuzk_srs_upload_bg2): its scratch is in the plan's, so this
    // reserves nothing more unless the bound fell short
    if (srs->has_bg2) TRY(run_bg2_reserve(ctx, srs, t.ntail[2]));
    ntt_tables* T;
    return ctx->ntt.tables(lgn, &T);
  }
  TRY(ctx->points.ensure(run_points * sizeof(g1_xyzz)));
  TRY(ctx->h.reserve(m));
  for (int p = 0; p < 3; p++) {
    TRY(ctx->run_in[p].scalars.ensure(t.ntail[p] * 32 + 32));
    TRY(ctx->run_in[p].idx.ensure(t.ntail[p] * 4 + 4));
    TRY(ctx->run_in[p].ones.ensure((srs->n[SRS_L + p] + 31) / 32 * 4 + 4));
  }
  msm_scratch need = msm_scratch_for(m - 1, ctx->msm);
  uint64_t max_ones = 0;
  for (int p = 0; p < 3; p++) {
    if (t.ntail[p]) need.max_with(msm_scratch_for(t.ntail[p], ctx->msm));
    if (t.ones[p]) max_ones = std::max(max_ones, srs->n[SRS_L + p]);
  }
  TRY(msm_reserve(ctx, need));
  TRY(batch_add_reserve(ctx, max_ones));
  if (srs->has_bg2) TRY(run_bg2_reserve(ctx, srs, t.ntail[2]));
  ntt_tables* T;
  return ctx->ntt.tables(lgn, &T);
}

run_tails run_job_tails(const cuzk_job* job) {
  run_tails t;
  for (int p = 0; p < 3; p++) {
    t.ones[p] = job->part[p].ones != nullptr;
    t.ntail[p] = job->part[p].ntail;
    t.host_scalars[p] = job->part[p].scalars;
    t.host_idx[p] = job->part[p].idx;
  }
  return t;
}

int run_upload_tail(cuzk_ctx* ctx, const cuzk_srs* srs, const cuzk_job* job, const run_tails& t, int p,
                    msm_inputs& in) {
  const cuzk_msm_part& pt = job->part[p];
  const uint64_t nw = (srs->n[SRS_L + p] + 31) / 32, nd = run_tail_ndev(srs, t, p);
  if (nd) {
    CK(cudaMemcpyAsync(in.scalars.get(), pt.scalars, nd * 32, cudaMemcpyHostToDevice, ctx->uploads));
    CK(cudaMemcpyAsync(in.idx.get(), pt.idx, nd * 4, cudaMemcpyHostToDevice, ctx->uploads));
  }
  if (pt.ones && nw) CK(cudaMemcpyAsync(in.ones.get(), pt.ones, nw * 4, cudaMemcpyHostToDevice, ctx->uploads));
  return 0;
}

// Part p's tail (of its resident prefix) and bitmap into ctx->run_in[p], on the uploads stream.
static int run_upload_part(cuzk_ctx* ctx, const cuzk_srs* srs, const cuzk_job* job, const run_tails& t, int p) {
  TRY(run_upload_tail(ctx, srs, job, t, p, ctx->run_in[p]));
  CK(cudaEventRecord(ctx->run_ev.tail_in[p], ctx->uploads));
  return 0;
}

// The note that a job's a and b are uploaded (cuzk_job.staged), for a host function queued on the
// uploads stream after them to write.
struct staged_note {
  uint32_t* word;
  uint32_t seq;
};

static void CUDART_CB staged_note_write(void* p) {
  const staged_note* n = static_cast<const staged_note*>(p);
  __atomic_store_n(n->word, n->seq, __ATOMIC_RELEASE);
  delete n;
}

static int run_note_staged(cudaStream_t st, const cuzk_job* job) {
  if (!job->staged) return 0;
  staged_note* n = new staged_note{job->staged, job->staged_seq};
  const cudaError_t e = cudaLaunchHostFunc(st, staged_note_write, n);
  if (e != cudaSuccess) delete n;
  CK(e);
  return 0;
}

// The uploads stream's work, in the order the work needs it.
static int run_uploads(cuzk_ctx* ctx, const cuzk_srs* srs, const cuzk_job* job, const run_tails& t) {
  const uint64_t m = 1ull << job->lgn, nrows = job->nrows;
  const run_events& ev = ctx->run_ev;
  TRY(run_upload_part(ctx, srs, job, t, 0));
  TRY(upload_padded(ctx->h.a.get(), job->a, nrows, m, ctx->uploads));
  CK(cudaEventRecord(ev.a_in, ctx->uploads));
  TRY(upload_padded(ctx->h.b.get(), job->b, nrows, m, ctx->uploads));
  CK(cudaEventRecord(ev.b_in, ctx->uploads));
  TRY(run_note_staged(ctx->uploads, job));
  if (job->c) TRY(upload_padded(ctx->h.c.get(), job->c, nrows, m, ctx->uploads));
  CK(cudaEventRecord(ev.c_in, ctx->uploads));
  TRY(run_upload_part(ctx, srs, job, t, 1));
  TRY(run_upload_part(ctx, srs, job, t, 2));
  CK(cudaEventRecord(ev.uploads_done, ctx->uploads));
  return 0;
}

srs_msm_in run_part_input(const cuzk_srs* srs, const run_tails& t, int p, const msm_inputs& in) {
  const int q = SRS_L + p;
  const bool host = srs->plan.res[q] < srs->n[q] && t.host_idx[p];  // a host tail that streams
  srs_msm_in mi = {};
  mi.ones = t.ones[p] ? in.ones.as<uint32_t>() : nullptr;
  mi.scalars = in.scalars.as<fr_t>();
  mi.idx = in.idx.as<uint32_t>();
  mi.ndev = run_tail_ndev(srs, t, p);
  mi.host_scalars = host ? (const fr_t*)t.host_scalars[p] : nullptr;
  mi.host_idx = host ? t.host_idx[p] : nullptr;
  mi.ntail = t.ntail[p];
  return mi;
}

srs_msm_in run_bg2_input(const cuzk_srs* srs, const run_tails& t, const msm_inputs& in) {
  // B_G1's input, but streamed B_G2 with the tail on the host takes every entry from the host,
  // chunk by chunk
  srs_msm_in mi = run_part_input(srs, t, 2, in);
  const bool host = srs->streams_bg2() && t.host_idx[2];
  mi.ndev = host ? 0 : run_tail_ndev(srs, t, 2);
  mi.host_scalars = host ? (const fr_t*)t.host_scalars[2] : nullptr;
  mi.host_idx = host ? t.host_idx[2] : nullptr;
  return mi;
}

int run_parts(cuzk_ctx* ctx, const cuzk_srs* srs, const run_tails& t) {
  const run_events& ev = ctx->run_ev;
  g1_xyzz* o = ctx->points.as<g1_xyzz>();
  for (int p = 0; p < 3; p++) {
    const srs_msm_in mi = run_part_input(srs, t, p, ctx->run_in[p]);
    CK(cudaStreamWaitEvent(ctx->tails, ev.tail_in[p], 0));
    if (p == 0) CK(cudaEventRecord(ev.l_start, ctx->tails));
    TRY(srs_msm(ctx, srs, SRS_L + p, mi, o + run_result + 1 + p, o + run_ones + p, ctx->tails));
    CK(cudaEventRecord(ev.part_done[p], ctx->tails));
  }
  if (srs->has_bg2) {  // B_G2 over B_G1's scalars, after it on the tails stream
    const srs_msm_in mi = run_bg2_input(srs, t, ctx->run_in[2]);
    TRY(run_bg2(ctx, srs, mi, ctx->tails, ctx->points_g2.as<g2_xyzz>()));
    CK(cudaEventRecord(ev.bg2_done, ctx->tails));
  }
  return 0;
}

int run_begin(cuzk_ctx* ctx, const host_clock& clk, float* pre) {
  const run_events& ev = ctx->run_ev;
  TRY(stream_begin(ctx, ctx->main));
  CK(cudaEventRecord(ev.start, ctx->main));
  *pre = clk.ms();
  CK(cudaStreamWaitEvent(ctx->tails, ev.start, 0));
  CK(cudaStreamWaitEvent(ctx->uploads, ev.start, 0));
  return 0;
}

// The event times of a finished run.
static void run_times(const run_events& ev, cuzk_result* res) {
  res->ms_total = elapsed_ms(ev.start, ev.done);
  res->ms_h2d = elapsed_ms(ev.start, ev.uploads_done);  // all uploads (overlapping the MSMs and NTTs)
  res->ms_ntt = elapsed_ms(ev.h_start, ev.h_done);
  res->ms_msm_h = elapsed_ms(ev.msm_h_start, ev.done);
  res->ms_msm_l = elapsed_ms(ev.l_start, ev.part_done[0]);  // L, A, B_G1: on tails, overlapping the NTTs
  res->ms_msm_a = elapsed_ms(ev.part_done[0], ev.part_done[1]);
  res->ms_msm_b = elapsed_ms(ev.part_done[1], ev.part_done[2]);
  res->ms_spmv = res->ms_split = 0;  // cuzk_run_witness's (it sets them after)
}

int run_h_sequence(cuzk_ctx* ctx, uint32_t lgn, cudaEvent_t* ready, bool c_ab) {
  const run_events& ev = ctx->run_ev;
  const uint64_t m = 1ull << lgn;
  cudaStream_t st = ctx->main;
  if (c_ab)  // c = a∘b: keep a copy of a in c before its NTT
    CK(cudaMemcpyAsync(ctx->h.c.get(), ctx->h.a.get(), m * 32, cudaMemcpyDeviceToDevice, st));
  CK(cudaEventRecord(ev.h_start, st));
  TRY(h_dev(ctx, lgn, st, ready, c_ab));
  CK(cudaEventRecord(ev.h_done, st));
  if (ctx->cfg.run_serial) CK(cudaStreamWaitEvent(ctx->tails, ev.h_done, 0));
  return 0;
}

int run_h_msm(cuzk_ctx* ctx, const cuzk_srs* srs, uint32_t lgn, cuzk_result* res, const host_clock& clk) {
  const run_events& ev = ctx->run_ev;
  const uint64_t m = 1ull << lgn;
  cudaStream_t st = ctx->main;
  const bool bg2 = srs->has_bg2;
  CK(cudaStreamWaitEvent(st, bg2 ? ev.bg2_done : ev.part_done[2], 0));
  CK(cudaEventRecord(ev.msm_h_start, st));
  g1_xyzz* o = ctx->points.as<g1_xyzz>();
  srs_msm_in hi = {};
  hi.scalars = ctx->h.a.as<fr_t>();
  hi.ndev = hi.ntail = m - 1;
  hi.brev_lg = (int)lgn;
  TRY(srs_msm(ctx, srs, SRS_H, hi, o + run_result, o + 7, st));
  CK(cudaEventRecord(ev.done, st));
  CK(cudaMemcpyAsync(res->points, o + run_result, 4 * sizeof(g1_xyzz), cudaMemcpyDeviceToHost, st));
  if (bg2) CK(cudaMemcpyAsync(res->bg2, ctx->points_g2.get(), sizeof(g2_xyzz), cudaMemcpyDeviceToHost, st));
  TRY(stream_read_checks(ctx, st));
  CK(cudaStreamSynchronize(st));
  res->ms_host_synced = clk.ms();
  TRY(stream_end(ctx));
  run_times(ev, res);
  res->has_bg2 = bg2;
  if (!bg2) memset(res->bg2, 0, sizeof res->bg2);
  res->ms_msm_b2 = bg2 ? elapsed_ms(ev.part_done[2], ev.bg2_done) : 0;
  return 0;
}

extern "C" int cuzk_run(cuzk_ctx* ctx, cuzk_srs* srs, const cuzk_job* job, cuzk_result* res) {
  const host_clock clk;
  const run_in_flight in_flight;
  if (!res) return set_err(CUZK_ERR_ARG, "run: nil argument");
  TRY(run_check(ctx, srs, job));
  CK(cudaSetDevice(ctx->dev));
  const run_msm_config msm_cfg(ctx, srs);
  const run_tails tails = run_job_tails(job);
  TRY(run_reserve_for(ctx, srs, job->lgn, tails));
  const run_events& ev = ctx->run_ev;
  cudaStream_t st = ctx->main;
  float pre;
  TRY(run_begin(ctx, clk, &pre));
  TRY(run_uploads(ctx, srs, job, tails));
  CK(cudaStreamWaitEvent(st, ev.a_in, 0));
  cudaEvent_t ready[3] = {nullptr, ev.b_in, ev.c_in};
  TRY(run_h_sequence(ctx, job->lgn, ready, !job->c));
  TRY(run_parts(ctx, srs, tails));
  TRY(run_h_msm(ctx, srs, job->lgn, res, clk));
  res->ms_host_pre = pre;
  res->ms_host = clk.ms();
  return 0;
}
