// cuzk_run_pair: two partitions of one circuit in one run, under a plan that
// streams, each streamed point read and uploaded once for both (a run under
// a limit streams tens of gigabytes; where they come from the parameter
// file, reading them can bound the run).
//
// Device memory holds one H sequence (three vectors), so the first
// partition's H goes to the host between the two sequences and comes back
// chunk by chunk beside the H points (its a, b staging on the host is dead
// by then and holds it). In the order the work is queued:
//   uploads: both partitions' device tails, the first's a and b; then the L
//            pass's chunks; the second's a (once the first's H is read out
//            of h.a) and b (once it is on the host); then the A, B_G1 and
//            B_G2 passes' chunks and the H pass's;
//   main:    the first H sequence, its H to base order (h.b) and to the
//            host; the second H sequence; the H pass (both H MSMs) after
//            the tails (they share the MSM scratch);
//   tails:   the L, A, B_G1 (and B_G2) passes, each MSM run for both
//            partitions' scalars on every chunk.
#include <string.h>

#include "context.hpp"
#include "msm/msm.hpp"
#include "msm/stream.hpp"
#include "ntt/ntt.hpp"
#include "run.hpp"
#include "run_bg2.hpp"
#include "srs/plan.hpp"
#include "srs/srs.hpp"

// The second partition's result slots (run.cu's layout shifted by 8 points, 2 G2 points).
static const int pair_g1 = 8, pair_g2 = 2;

static int pair_check(const cuzk_ctx* ctx, const cuzk_srs* srs, const cuzk_job* jobs, const void* hbuf,
                      uint64_t hbuf_bytes, const cuzk_result* res) {
  if (!ctx || !srs || !jobs || !res || !hbuf) return set_err(CUZK_ERR_ARG, "run pair: nil argument");
  for (int j = 0; j < 2; j++) TRY(run_check(ctx, srs, &jobs[j]));
  if (jobs[0].lgn != jobs[1].lgn)
    return set_err(CUZK_ERR_ARG, "run pair: domains 2^%u and 2^%u differ", jobs[0].lgn, jobs[1].lgn);
  if (!srs->plan.streams() || srs->plan.scratch.ways < 2)
    return set_err(CUZK_ERR_ARG, "run pair: the parameter set's plan does not stream (pairs serve streamed sets)");
  const uint64_t hn = (1ull << jobs[0].lgn) - 1;
  if (hbuf_bytes < hn * 32)
    return set_err(CUZK_ERR_ARG, "run pair: %llu bytes of host buffer for the %llu H scalars", (unsigned long long)hbuf_bytes,
                   (unsigned long long)hn);
  if (!host_page_locked(hbuf)) return set_err(CUZK_ERR_ARG, "run pair: the host buffer for H is not page-locked");
  return 0;
}

// run_reserve_for's buffers (the plan's reservation holds both partitions'
// bitmaps, chunk slots and result slots) and the second partition's tails.
static int pair_reserve(cuzk_ctx* ctx, const cuzk_srs* srs, uint32_t lgn, const run_tails* t) {
  TRY(run_reserve_for(ctx, srs, lgn, t[0]));
  TRY(run_reserve_tails(srs, t[1], ctx->pair_in));
  return srs->has_bg2 ? run_bg2_reserve(ctx, srs, t[1].ntail[2]) : 0;
}

// Part p's pass (both partitions) on the tails stream.
static int pair_part(cuzk_ctx* ctx, const cuzk_srs* srs, const run_tails* t, int p) {
  g1_xyzz* o = ctx->points.as<g1_xyzz>();
  const srs_msm_in in[2] = {run_part_input(srs, t[0], p, ctx->run_in[p]), run_part_input(srs, t[1], p, ctx->pair_in[p])};
  g1_xyzz* const out[2] = {o + 1 + p, o + pair_g1 + 1 + p};
  TRY(srs_msm_ways(ctx, srs, SRS_L + p, in, 2, out, o + 7, ctx->tails));
  CK(cudaEventRecord(ctx->run_ev.part_done[p], ctx->tails));
  return 0;
}

// B_G2 of both (after B_G1 on the tails stream).
static int pair_bg2(cuzk_ctx* ctx, const cuzk_srs* srs, const run_tails* t) {
  g2_xyzz* o = ctx->points_g2.as<g2_xyzz>();
  const srs_msm_in in[2] = {run_bg2_input(srs, t[0], ctx->run_in[2]), run_bg2_input(srs, t[1], ctx->pair_in[2])};
  if (srs->streams_bg2()) {
    g2_xyzz* const out[2] = {o, o + pair_g2};
    TRY(srs_msm_bg2_ways(ctx, srs, in, 2, out, o + 1, ctx->tails));
  } else {
    TRY(run_bg2(ctx, srs, in[0], ctx->tails, o));
    TRY(run_bg2(ctx, srs, in[1], ctx->tails, o + pair_g2));
  }
  CK(cudaEventRecord(ctx->run_ev.bg2_done, ctx->tails));
  return 0;
}

// A job's a and b (and c where given) into the H vectors, on the uploads
// stream; a_in after a, b_in and c_in after the rest. wait_a, wait_b: what
// the vectors' uploads wait for (NULL: nothing).
static int pair_upload_abc(cuzk_ctx* ctx, const cuzk_job* job, cudaEvent_t wait_a, cudaEvent_t wait_b) {
  const run_events& ev = ctx->run_ev;
  const uint64_t m = 1ull << job->lgn;
  if (wait_a) CK(cudaStreamWaitEvent(ctx->uploads, wait_a, 0));
  TRY(upload_padded(ctx->h.a.get(), job->a, job->nrows, m, ctx->uploads));
  CK(cudaEventRecord(ev.a_in, ctx->uploads));
  if (wait_b) CK(cudaStreamWaitEvent(ctx->uploads, wait_b, 0));
  TRY(upload_padded(ctx->h.b.get(), job->b, job->nrows, m, ctx->uploads));
  CK(cudaEventRecord(ev.b_in, ctx->uploads));
  if (job->c) TRY(upload_padded(ctx->h.c.get(), job->c, job->nrows, m, ctx->uploads));
  CK(cudaEventRecord(ev.c_in, ctx->uploads));
  return 0;
}

// The H sequence of the job whose a, b (c) pair_upload_abc queued last, on
// the main stream between start and done.
static int pair_h_sequence(cuzk_ctx* ctx, const cuzk_job* job, cudaEvent_t start, cudaEvent_t done) {
  const run_events& ev = ctx->run_ev;
  const uint64_t m = 1ull << job->lgn;
  cudaStream_t st = ctx->main;
  CK(cudaStreamWaitEvent(st, ev.a_in, 0));
  const bool c_ab = !job->c;
  if (c_ab) CK(cudaMemcpyAsync(ctx->h.c.get(), ctx->h.a.get(), m * 32, cudaMemcpyDeviceToDevice, st));
  CK(cudaEventRecord(start, st));
  cudaEvent_t ready[3] = {nullptr, ev.b_in, ev.c_in};
  TRY(h_dev(ctx, job->lgn, st, ready, c_ab));
  CK(cudaEventRecord(done, st));
  return 0;
}

// The pair's event times, the same in both results: the span and phases of
// the whole run (the caller divides them between the partitions).
static void pair_times(const run_events& ev, bool bg2, cuzk_result* res) {
  res->ms_total = elapsed_ms(ev.start, ev.done);
  res->ms_h2d = elapsed_ms(ev.start, ev.uploads_done);
  res->ms_ntt = elapsed_ms(ev.h_start, ev.h_done) + elapsed_ms(ev.h1_start, ev.h1_done);
  res->ms_msm_h = elapsed_ms(ev.msm_h_start, ev.done);
  res->ms_msm_l = elapsed_ms(ev.l_start, ev.part_done[0]);
  res->ms_msm_a = elapsed_ms(ev.part_done[0], ev.part_done[1]);
  res->ms_msm_b = elapsed_ms(ev.part_done[1], ev.part_done[2]);
  res->ms_msm_b2 = bg2 ? elapsed_ms(ev.part_done[2], ev.bg2_done) : 0;
  res->ms_spmv = res->ms_split = 0;
}

extern "C" int cuzk_run_pair(cuzk_ctx* ctx, cuzk_srs* srs, const cuzk_job* jobs, void* hbuf, uint64_t hbuf_bytes,
                             cuzk_result* res) {
  const host_clock clk;
  const run_in_flight in_flight;
  TRY(pair_check(ctx, srs, jobs, hbuf, hbuf_bytes, res));
  CK(cudaSetDevice(ctx->dev));
  const run_msm_config msm_cfg(ctx, srs);
  const uint32_t lgn = jobs[0].lgn;
  const uint64_t m = 1ull << lgn;
  const run_tails t[2] = {run_job_tails(&jobs[0]), run_job_tails(&jobs[1])};
  TRY(pair_reserve(ctx, srs, lgn, t));
  const run_events& ev = ctx->run_ev;
  cudaStream_t st = ctx->main;
  const bool bg2 = srs->has_bg2;
  float pre;
  TRY(run_begin(ctx, clk, &pre));

  // both partitions' device tails, then the first's a and b; its H
  // sequence, its H to base order and to the host
  for (int p = 0; p < 3; p++) {
    TRY(run_upload_tail(ctx, srs, &jobs[0], t[0], p, ctx->run_in[p]));
    TRY(run_upload_tail(ctx, srs, &jobs[1], t[1], p, ctx->pair_in[p]));
    CK(cudaEventRecord(ev.tail_in[p], ctx->uploads));
  }
  TRY(pair_upload_abc(ctx, &jobs[0], nullptr, nullptr));
  TRY(pair_h_sequence(ctx, &jobs[0], ev.h_start, ev.h_done));
  TRY(h_natural(ctx, lgn, ctx->h.b.as<fr_t>(), st));
  CK(cudaEventRecord(ev.h0_natural, st));
  CK(cudaMemcpyAsync(hbuf, ctx->h.b.get(), (m - 1) * 32, cudaMemcpyDeviceToHost, st));
  CK(cudaEventRecord(ev.h0_out, st));

  // the L pass beside the first H sequence
  CK(cudaStreamWaitEvent(ctx->tails, ev.tail_in[2], 0));
  CK(cudaEventRecord(ev.l_start, ctx->tails));
  TRY(pair_part(ctx, srs, t, 0));

  // the second partition's a and b once the first's H has left the vectors, its H sequence
  TRY(pair_upload_abc(ctx, &jobs[1], ev.h0_natural, ev.h0_out));
  CK(cudaEventRecord(ev.uploads_done, ctx->uploads));
  TRY(pair_h_sequence(ctx, &jobs[1], ev.h1_start, ev.h1_done));

  // the A, B_G1 and B_G2 passes beside it
  TRY(pair_part(ctx, srs, t, 1));
  TRY(pair_part(ctx, srs, t, 2));
  if (bg2) TRY(pair_bg2(ctx, srs, t));

  // the H pass: the first's H from the host in base order, the second's in h.a bit-reversed
  CK(cudaStreamWaitEvent(st, bg2 ? ev.bg2_done : ev.part_done[2], 0));
  CK(cudaEventRecord(ev.msm_h_start, st));
  srs_msm_in hi[2] = {};
  hi[0].host_scalars = static_cast<const fr_t*>(hbuf);
  hi[0].ndev = 0;
  hi[0].ntail = m - 1;
  hi[1].scalars = ctx->h.a.as<fr_t>();
  hi[1].ndev = hi[1].ntail = m - 1;
  hi[1].brev_lg = (int)lgn;
  g1_xyzz* o = ctx->points.as<g1_xyzz>();
  g1_xyzz* const hout[2] = {o, o + pair_g1};
  TRY(srs_msm_ways(ctx, srs, SRS_H, hi, 2, hout, o + 7, st));
  CK(cudaEventRecord(ev.done, st));

  for (int j = 0; j < 2; j++) {
    CK(cudaMemcpyAsync(res[j].points, o + j * pair_g1, 4 * sizeof(g1_xyzz), cudaMemcpyDeviceToHost, st));
    if (bg2)
      CK(cudaMemcpyAsync(res[j].bg2, ctx->points_g2.as<g2_xyzz>() + j * pair_g2, sizeof(g2_xyzz),
                         cudaMemcpyDeviceToHost, st));
  }
  TRY(stream_read_checks(ctx, st));
  CK(cudaStreamSynchronize(st));
  const float synced = clk.ms();
  TRY(stream_end(ctx));
  const float host = clk.ms();
  for (int j = 0; j < 2; j++) {
    if (!bg2) memset(res[j].bg2, 0, sizeof res[j].bg2);
    res[j].has_bg2 = bg2;
    pair_times(ev, bg2, &res[j]);
    res[j].ms_host_pre = pre;
    res[j].ms_host_synced = synced;
    res[j].ms_host = host;
  }
  return 0;
}
