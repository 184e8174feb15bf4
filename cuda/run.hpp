// The pieces of a partition run that cuzk_run (run.cu) and cuzk_run_witness
// (witness/run.cu) share: the reservation, the L, A and B_G1 MSMs on the
// tails stream, the H sequence and the H MSM on the main stream, the times.
// Both runs record the context's run_events (context.hpp) in the same roles.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include <chrono>

#include "cuzk.h"
#include "msm/plan.hpp"

struct cuzk_ctx;
struct cuzk_srs;
struct msm_inputs;
struct run_events;
struct srs_msm_in;

// The checks of the domain both runs make: srs on ctx's device, lgn in
// [1, 28], the h query of 2^lgn - 1 points, nrows <= 2^lgn.
int run_check_domain(const cuzk_ctx* ctx, const cuzk_srs* srs, uint32_t lgn, uint64_t nrows);

// What the L, A and B_G1 MSMs of a run take from ctx->run_in[p]: whether a
// ones bitmap is there, and the length of the tail (scalars and indices).
// host_idx[p] (with host_scalars[p]): cuzk_run's tail on the host; of a
// query that streams (srs/plan.hpp) only the entries below its resident
// prefix are in ctx->run_in[p] (run_tail_ndev), the rest goes up chunk by
// chunk with its points. NULL (the witness run's): the whole tail is in
// ctx->run_in[p]; a streamed query's chunk boundaries then come from a
// device search (msm/stream.hpp).
struct run_tails {
  bool ones[3];
  uint64_t ntail[3];
  const void* host_scalars[3];
  const uint32_t* host_idx[3];
};

// Under a limit: the device tail buffers in[0..2] grown where t's device
// tails are longer than the plan's (the witness run's tails of a streamed
// query: beyond the plan, 36 B an entry).
int run_reserve_tails(const cuzk_srs* srs, const run_tails& t, msm_inputs* in);

// cuzk_run's checks of a job: nil pointers, the domain, tails no longer than their queries.
int run_check(const cuzk_ctx* ctx, const cuzk_srs* srs, const cuzk_job* job);

// What a cuzk_job's L, A and B_G1 MSMs take (its tails on the host).
run_tails run_job_tails(const cuzk_job* job);

// Part p's device share of job's tail (of its resident prefix) and its
// bitmap into in, on ctx's uploads stream.
int run_upload_tail(cuzk_ctx* ctx, const cuzk_srs* srs, const cuzk_job* job, const run_tails& t, int p,
                    msm_inputs& in);

// Part p's MSM input over the device tail in `in` and t's host tail where
// its query streams; run_bg2_input the same for B_G2 over the B part.
srs_msm_in run_part_input(const cuzk_srs* srs, const run_tails& t, int p, const msm_inputs& in);
srs_msm_in run_bg2_input(const cuzk_srs* srs, const run_tails& t, const msm_inputs& in);

// Tail entries of part p in ctx->run_in[p]: all of them, except for a host
// tail of a query that streams (those below its resident prefix).
uint64_t run_tail_ndev(const cuzk_srs* srs, const run_tails& t, int p);

// Every buffer a run of this shape uses (the H vectors, the result points,
// ctx->run_in sized for t, the MSM and batch-addition scratch) and the NTT
// tables of 2^lgn. Under the srs's memory limit: the plan's buffers, each
// to its planned size (plan_reserve), and the tail buffers grown where t's
// device tails are longer than the plan's (the witness run's tails of a
// streamed query: beyond the plan, 36 B an entry).
int run_reserve_for(cuzk_ctx* ctx, const cuzk_srs* srs, uint32_t lgn, const run_tails& t);

// Host milliseconds since the clock was made (a run's ms_host_pre, ms_host).
struct host_clock {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  float ms() const {
    return std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
};

// The start every run makes: stream_begin, ev.start on the main stream,
// and the other streams (tails, uploads) waiting for it.
// Returns the host time it took (ms_host_pre) in *pre.
int run_begin(cuzk_ctx* ctx, const host_clock& clk, float* pre);

// The MSM switches of a run under a limit that streams (the plan's: its
// batch cap, the defaults it was sized for), restored when it goes out of
// scope. Any other run keeps the context's.
struct run_msm_config {
  cuzk_ctx* ctx;
  msm_config saved;
  run_msm_config(cuzk_ctx* c, const cuzk_srs* srs);
  ~run_msm_config();
};

// The L, A and B_G1 MSMs on the tails stream, part p once ev.tail_in[p] is
// recorded, from ctx->run_in[p] (and t's host tails where a query streams:
// srs_msm, msm/stream.hpp); records ev.l_start and ev.part_done[p].
int run_parts(cuzk_ctx* ctx, const cuzk_srs* srs, const run_tails& t);

// On the main stream once a is in h.a: c_ab (c = a∘b on the device) keeps a
// copy of a in h.c; then the H sequence between ev.h_start and ev.h_done
// (ready as h_dev takes it). cfg.run_serial makes the tails stream wait for
// ev.h_done.
int run_h_sequence(cuzk_ctx* ctx, uint32_t lgn, cudaEvent_t* ready, bool c_ab);

// On the main stream after the tails' part_done[2]: the H MSM (ev.msm_h_start
// to ev.done), the four points to res, a synchronization, the event times,
// and stream_end (the run must have called stream_begin before its first
// MSM: msm/stream.hpp).
int run_h_msm(cuzk_ctx* ctx, const cuzk_srs* srs, uint32_t lgn, cuzk_result* res, const host_clock& clk);
