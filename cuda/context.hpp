// A context: one device's streams, events and scratch, owned for the
// context's life (cuzk_ctx_new, cuzk_ctx_free). Not safe for concurrent use.
#pragma once

#include <stdint.h>

#include "cuzk.h"
#include "msm/msm.hpp"
#include "msm/stream.hpp"
#include "ntt/tables.hpp"
#include "util/buffers.hpp"
#include "witness/witness.hpp"

// cuzk_run's events, in the order it records them.
struct run_events {
  event start;             // main: the run begins (the other streams wait on it)
  event tail_in[3];        // uploads: part p's tail and bitmap are in (L, A, B_G1)
  event a_in, b_in, c_in;  // uploads: a, b and c (c_in also when the device forms c)
  event uploads_done;      // uploads: all of them
  event h_start, h_done;   // main: the H sequence
  event l_start;           // tails: the L MSM begins (its inputs are in)
  event part_done[3];      // tails: the L, A and B_G1 MSMs are done
  event msm_h_start;       // main: the H MSM begins (after the tails: shared scratch)
  event done;              // main: the H MSM is done
  event bg2_done;          // tails: the B_G2 MSM is done (when the srs holds B_G2)
  // cuzk_run_pair: the first partition's H in base order (main), copied to the host (main); the second's
  // H sequence (main)
  event h0_natural, h0_out, h1_start, h1_done;

  int create();
};

// The H sequence's vectors, 2^lgn scalars each.
struct h_vectors {
  device_buffer a, b, c;

  int reserve(uint64_t n) {
    TRY(a.ensure(n * 32));
    TRY(b.ensure(n * 32));
    TRY(c.ensure(n * 32));
    return 0;
  }
};

// One MSM's inputs on the device: bases (cuzk_msm_split only), tail scalars
// and indices, the bitmap of the bases whose scalar is one.
struct msm_inputs {
  device_buffer bases, scalars, idx, ones;
};

// Result slots of a run: ctx->points holds, per partition of a paired run
// (cuzk_run_pair), its four results, three batch sums and a scratch point;
// ctx->points_g2 its B_G2 and a scratch point.
static const int run_points = 8 * stream_ways, run_points_g2 = 2 * stream_ways;

struct cuzk_ctx {
  int dev;
  cuzk_config cfg;
  msm_config msm;

  stream main;     // every call; in cuzk_run the H sequence and the H MSM
  stream tails;    // cuzk_run's L, A and B_G1 MSMs
  stream uploads;  // cuzk_run's uploads
  run_events run_ev;
  event bench_start, bench_stop;

  ntt_twiddles ntt;
  h_vectors h;
  device_buffer tmp;     // cuzk_h's output in natural order; cuzk_bench_msm's scalars
  device_buffer points;  // results (run_points): cuzk_run's H, L, A, B_G1 and the three batch sums
  msm_buffers msm_scratch;
  msm_inputs msm_in;     // cuzk_msm_split's
  msm_inputs run_in[3];  // cuzk_run's L, A and B_G1 (no bases: the SRS has them)
  msm_inputs pair_in[3]; // cuzk_run_pair's second partition's
  srs_streamer streamer; // chunk slots and timing of streamed SRS queries (msm/stream.hpp)
  witness_scratch wit;   // cuzk_run_witness's (it fills run_in[3] by its split)
  device_buffer points_g2;  // G2 results: cuzk_run's B_G2 and its batch sum; cuzk_msm_split_g2's
};
