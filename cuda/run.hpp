// The pieces of a partition run that cuzk_run (run.cu) and cuzk_run_witness
// (witness/run.cu) share: the reservation, the L, A and B_G1 MSMs on the
// tails stream, the H sequence and the H MSM on the main stream, the times.
// Both runs record the context's run_events (context.hpp) in the same roles.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuzk.h"

struct cuzk_ctx;
struct cuzk_srs;

// The checks of the domain both runs make: srs on ctx's device, lgn in
// [1, 28], the h query of 2^lgn - 1 points, nrows <= 2^lgn.
int run_check_domain(const cuzk_ctx* ctx, const cuzk_srs* srs, uint32_t lgn, uint64_t nrows);

// What the L, A and B_G1 MSMs of a run take from ctx->run_in[p]: whether a
// ones bitmap is there, and the length of the tail (scalars and indices).
struct run_tails {
  bool ones[3];
  uint64_t ntail[3];
};

// Every buffer a run of this shape uses (the H vectors, the result points,
// ctx->run_in sized for t, the MSM and batch-addition scratch) and the NTT
// tables of 2^lgn.
int run_reserve_for(cuzk_ctx* ctx, const cuzk_srs* srs, uint32_t lgn, const run_tails& t);

// The L, A and B_G1 MSMs on the tails stream, part p once ev.tail_in[p] is
// recorded, from ctx->run_in[p]; records ev.l_start and ev.part_done[p].
int run_parts(cuzk_ctx* ctx, const cuzk_srs* srs, const run_tails& t);

// On the main stream once a is in h.a: c_ab (c = a∘b on the device) keeps a
// copy of a in h.c; then the H sequence between ev.h_start and ev.h_done
// (ready as h_dev takes it). cfg.run_serial makes the tails stream wait for
// ev.h_done.
int run_h_sequence(cuzk_ctx* ctx, uint32_t lgn, cudaEvent_t* ready, bool c_ab);

// On the main stream after the tails' part_done[2]: the H MSM (ev.msm_h_start
// to ev.done), the four points to res, a synchronization, the event times.
int run_h_msm(cuzk_ctx* ctx, const cuzk_srs* srs, uint32_t lgn, cuzk_result* res);
