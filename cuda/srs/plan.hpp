// A parameter set's residency plan under a device memory limit: which prefix
// of each query stays resident, the chunk size of the streamed rest, the MSM
// batch cap, and the exact scratch a run under the plan allocates, so that
// the srs and a context's run together stay under the limit (cuzk_mem_held
// counts what the library's buffers hold).
//
// B_G2, where asked, is resident only where everything is; otherwise it
// streams beside the G1 queries in chunks of half theirs (a G2 point is
// twice a G1 point, so a chunk fills the same slot), its G2 MSM scratch in
// the plan's.
//
// Value per byte decides the order: the h query first (every point of it is
// used by a dense MSM; it costs 96 B a point), then l, a and b_g1 in the
// order the run needs them (96 B a point plus 36 B of tail upload buffer for
// the resident prefix's tail, at worst every point in the tail). A plan is
// the first of: everything resident with the MSM scratch of cuzk_run today;
// else the largest chunk (2^24 .. 2^16 points, or the caller's maximum) and
// MSM batch (2^(chunk+2) .. 2^chunk sorted pairs) whose scratch fits, the
// rest of the limit filled with resident prefixes of whole chunks.
#pragma once

#include <stdint.h>

#include "../cuzk.h"
#include "../msm/plan.hpp"

struct cuzk_ctx;
struct cuzk_srs;

// What a run under a plan allocates, per buffer (bytes), exactly as
// plan_reserve allocates it. A plan with B_G2 (resident or streamed) has its
// MSM and batch-addition scratch the larger of G1's and G2's (over the whole
// B_G2, or one G2 chunk), and the G2 result points in fixed.
struct run_scratch {
  uint64_t ways;                                   // partitions a run serves (a plan that streams: stream_ways)
  uint64_t hvec;                                   // each of the H vectors a, b, c
  uint64_t tail_scalars[3], tail_idx[3], ones[3];  // cuzk_run's L, A, B_G1 inputs (the resident prefix's tail), a way's
  msm_scratch msm;                                 // the MSM scratch (a bound over every MSM of the run)
  uint64_t sort_temp;                              // the radix sort's temporary storage for msm.pairs
  uint64_t batch_chunks, batch_rounds;             // batch additions
  uint64_t slot_bases, slot_scalars, slot_idx;     // each of the two chunk slots (scalars, idx: a way's)
  uint64_t fixed;                                  // twiddles, the NTT tables of the size, results, small buffers

  uint64_t total() const;
};

struct srs_plan {
  uint64_t limit;     // 0: no limit: everything resident, the scratch grown on demand (cuzk_run as before)
  uint64_t n[4];      // points of h, l, a, b_g1
  uint64_t res[4];    // resident prefix of each (== n: resident)
  uint32_t lgn;       // domain 2^lgn
  uint32_t chunk_lg;  // streamed chunks of 2^chunk_lg points; 0: nothing streams
  uint32_t pairs_lg;  // the MSMs' batch cap (msm_config.pairs_lg; 0: 29)
  uint32_t pinned;    // bit q: query q's streamed part is page-locked (set by the upload)
  uint64_t bg2;       // B_G2 points the plan holds resident (n[3], or 0)
  uint64_t bg2_stream;  // B_G2 points the plan streams, in chunks of chunk() / 2 (n[3], or 0); neither: not
                        // counted, not uploaded
  run_scratch scratch;
  uint64_t min_bytes;  // the least limit a run of this shape works under

  bool streams() const { return chunk_lg != 0; }
  uint64_t chunk() const { return chunk_lg ? 1ull << chunk_lg : 0; }
  uint64_t chunk_g2() const { return chunk() / 2; }  // a G2 chunk fills a G1 chunk's slot (192 B a point)
  uint64_t g2_points() const { return bg2 ? bg2 : bg2_stream; }
  uint64_t resident_bytes() const;
  uint64_t stream_bytes() const;  // points uploaded per run
  void to_abi(cuzk_plan* out) const;
};

// The MSM switches of a run under a limit: the defaults (the plan is made for
// them; the experiments' msm_window and msm_seg_lg do not apply) with the
// plan's batch cap and window.
msm_config plan_msm_config(const srs_plan& p, uint64_t acc_slots);

// A plan of everything resident (limit 0): what cuzk_srs_upload makes.
void srs_plan_resident(const uint64_t* n, srs_plan* out);
// The plan of lim for queries of n points on device dev; CUZK_ERR_MEM, with
// the bytes needed, when lim->limit is below the minimum (out->min_bytes set).
int srs_plan_make(int dev, const uint64_t* n, const cuzk_limits* lim, srs_plan* out);
// Allocates, each to its exact size, every buffer a run of srs's plan needs
// that ctx does not hold yet (a plan with a limit only).
int plan_reserve(cuzk_ctx* ctx, const cuzk_srs* srs);
// Is p page-locked already (its owner's cudaHostAlloc or registration)?
bool host_page_locked(const void* p);
