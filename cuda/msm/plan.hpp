// The shape of one MSM: its window, the batches of windows sorted together,
// the two levels of bucket segments, the accumulation chunks, and the
// scratch all of it needs. Host arithmetic only, except msm_k2, which the
// windows kernel is compiled with.
#pragma once

#include <stddef.h>
#include <stdint.h>

// Threads per block of msm_windows: the second-level segments per window.
static constexpr uint32_t msm_k2 = 256;

// A context's MSM switches and the one device fact the plan needs.
struct msm_config {
  uint32_t window;     // 0: by size; else the window of MSMs of 2^22 points or more
  uint32_t seg_lg;     // about 2^seg_lg first-level segments per batch
  uint64_t acc_slots;  // threads of msm_acc_chunks resident at once on the device (0: unknown)
  uint32_t pairs_lg;   // 0: 29; else about 2^pairs_lg sorted pairs per batch of windows at most
                       // (a device memory limit, srs/plan.hpp; windows batch alike, same sums)
  uint64_t acc_slots_g2;  // the same for G2's msm_acc_chunks
};

// The config of G2 MSMs: the plan of G1's with G2's resident accumulation threads.
inline msm_config msm_config_g2(msm_config c) {
  c.acc_slots = c.acc_slots_g2;
  return c;
}

// The windows whose top window (255 - c*(ceil(256/c)-1) bits) is not nearly
// empty: with c = 14, 15, 18 or 21 almost every point of the top window lands
// in a handful of buckets.
bool msm_window_ok(uint32_t c);
uint32_t msm_window(uint64_t n, uint32_t forced);

// c-bit signed digits, W windows of B buckets, wb windows sorted per batch;
// the weighted bucket sums of a window reduce in two levels of segments, L1
// buckets then L2 first-level segments each (K1, K2 segments per window).
struct msm_plan {
  uint32_t c, W, B, wb, L1, K1, L2, K2, lgL1, lgL2;
  uint64_t pairs;  // per batch
};
msm_plan msm_plan_for(uint64_t n, const msm_config& cfg);
// The windows of c bits a 256-bit scalar takes (msm_plan's W).
inline uint32_t msm_window_count(uint32_t c) { return (256 + c - 1) / c; }

// Entries per accumulation chunk of a batch of np sorted pairs.
uint64_t msm_chunk(uint64_t np, uint64_t acc_slots);

// Partial sums per thread in the T1 reduction.
static constexpr uint32_t msm_red_fan = 8;

// Scratch of an MSM (bytes per buffer) of XYZZ points of point_bytes
// (G1 192, G2 384).
struct msm_scratch {
  size_t pairs, starts, buckets, seg1, seg2, red, win, chunks;
  void max_with(const msm_scratch& o);
};
msm_scratch msm_scratch_for(uint64_t n, const msm_config& cfg, size_t point_bytes = 192);

// ceil(log2(x)).
uint32_t lg2(uint64_t x);
