// The MSM plan (plan.hpp).
#include <algorithm>

#include "plan.hpp"

bool msm_window_ok(uint32_t c) { return c == 16 || c == 19 || c == 20 || c == 22 || c == 24; }

// From 2^17 points: c = 16, 20 from 2^24, 22 from 3·2^25 (the fastest on the
// H200, docs/gpu-notes.md); forced sizes apply from 2^22. Below, windows
// whose top window keeps 8 (c = 13), 7 (c = 8) or 4 bits.
uint32_t msm_window(uint64_t n, uint32_t forced) {
  if (n >= (1ull << 17)) {
    if (forced && n >= (1ull << 22)) return forced;
    if (n >= (3ull << 25)) return 22;
    return n >= (1ull << 24) ? 20 : 16;
  }
  if (n >= (1ull << 12)) return 13;
  if (n >= (1ull << 6)) return 8;
  return 4;
}

uint32_t lg2(uint64_t x) {
  uint32_t r = 0;
  while ((1ull << r) < x) r++;
  return r;
}

msm_plan msm_plan_for(uint64_t n, const msm_config& cfg) {
  msm_plan p;
  p.c = msm_window(n, cfg.window);
  p.W = msm_window_count(p.c);
  p.B = 1u << (p.c - 1);
  uint64_t wb = (1ull << (cfg.pairs_lg ? cfg.pairs_lg : 29)) / (n ? n : 1);
  p.wb = (uint32_t)(wb < 1 ? 1 : (wb > p.W ? p.W : wb));
  p.pairs = (uint64_t)p.wb * n;
  // about 2^seg_lg first-level segments per batch, msm_k2 second-level per window
  uint64_t l1 = ((uint64_t)p.wb * p.B) >> cfg.seg_lg;
  p.L1 = (uint32_t)(l1 < 1 ? 1 : (l1 > p.B ? p.B : 1ull << lg2(l1)));
  p.K1 = p.B / p.L1;
  p.L2 = p.K1 > msm_k2 ? p.K1 / msm_k2 : 1;
  p.K2 = p.K1 / p.L2;
  p.lgL1 = lg2(p.L1);
  p.lgL2 = lg2(p.L2);
  return p;
}

// About 2^18 chunks (at least 16 entries each), their count a whole number
// of resident waves so that the last wave is not a partial one.
uint64_t msm_chunk(uint64_t np, uint64_t acc_slots) {
  uint64_t nch = std::min<uint64_t>((np + 15) / 16, 1ull << 18);
  if (acc_slots && nch > acc_slots) nch = (nch + acc_slots - 1) / acc_slots * acc_slots;
  if (nch == 0) nch = 1;
  return (np + nch - 1) / nch;
}

void msm_scratch::max_with(const msm_scratch& o) {
  pairs = std::max(pairs, o.pairs);
  starts = std::max(starts, o.starts);
  buckets = std::max(buckets, o.buckets);
  seg1 = std::max(seg1, o.seg1);
  seg2 = std::max(seg2, o.seg2);
  red = std::max(red, o.red);
  win = std::max(win, o.win);
  chunks = std::max(chunks, o.chunks);
}

msm_scratch msm_scratch_for(uint64_t n, const msm_config& cfg, size_t point_bytes) {
  msm_plan p = msm_plan_for(n, cfg);
  const size_t P = point_bytes;
  const uint64_t C = msm_chunk(p.pairs, cfg.acc_slots);
  msm_scratch s;
  s.pairs = p.pairs * 4;
  s.starts = ((uint64_t)p.wb * p.B + 1) * 4;
  s.buckets = (uint64_t)p.wb * p.B * P;
  s.seg1 = (uint64_t)p.wb * p.K1 * P;
  s.seg2 = (uint64_t)p.wb * p.K2 * P;
  s.red = (std::max<uint64_t>((uint64_t)p.wb * p.K1 / msm_red_fan, p.wb) + 1) * P;
  s.win = p.W * P;
  s.chunks = (p.pairs + C - 1) / C * P;
  return s;
}
