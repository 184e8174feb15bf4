// MSMs over a parameter set's queries, resident or streamed (srs/plan.hpp):
// srs_msm is the one call the runs make for an SRS G1 query, srs_msm_bg2 for
// B_G2. A resident query is one batch addition and one MSM, as before; a
// streamed one is its resident prefix, then its other points in chunks
// uploaded on the context's uploads stream into two alternating slots, the
// batch addition and the MSM of a chunk beside the upload of the next, each
// chunk's sum chained into the result through the MSM's extra point. B_G2
// streams whole, in chunks of half the G1 chunk (the same slots).
//
// One pass may serve up to stream_ways inputs (the partitions of a paired
// run, cuzk_run_pair): each chunk's points go up once and its MSM runs for
// every input's scalars before the slot is refilled. An input may also be
// dense with its scalars on the host (a paired run's first H): they go up
// chunk by chunk with the points, and over resident points in chunks of
// their own through the same slots.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include <memory>
#include <vector>

#include "../ec/g1.cuh"
#include "../ec/g2.cuh"
#include "../util/buffers.hpp"
#include "msm.hpp"

struct cuzk_ctx;
struct cuzk_srs;

// Inputs one pass over a query's points serves at most.
static const int stream_ways = 2;

// One of the two chunk buffers: points, and each input's tail scalars and
// indices (rebased to the chunk) or dense scalars from the host.
struct stream_slot {
  device_buffer bases, scalars[stream_ways], idx[stream_ways];
  event ready;  // uploads: the chunk is in
  event freed;  // compute: the chunk's MSM is done with the slot
};

// A chunk's timing: its upload (copy0..copy1) and its compute stream's wait
// for it (arrive..start) and work (start..done).
struct chunk_events {
  event copy0, copy1, arrive, start, done;
  int create();
};

// Page-locked host memory owned by the streamer, grown on demand.
class host_buffer {
 public:
  host_buffer() = default;
  ~host_buffer() { release(); }
  host_buffer(const host_buffer&) = delete;
  host_buffer& operator=(const host_buffer&) = delete;
  int ensure(size_t n);
  void release();
  void* get() const { return p_; }
  size_t capacity() const { return cap_; }

 private:
  void* p_ = nullptr;
  size_t cap_ = 0;
};

// One of the two host slots a chunk read from the parameter file passes through.
struct host_slot {
  host_buffer buf;
  event copied;  // uploads: the slot's copy to the device is done
};

// A run's check words as read back by stream_read_checks: bad (a tail index
// outside its chunk) and badpt (the file's bad points).
struct stream_checks {
  uint32_t bad;
  uint32_t pad;
  unsigned long long badpt[2];
};

// A context's streaming state.
struct srs_streamer {
  stream_slot slot[2];
  unsigned next = 0;                               // the slot of the next chunk
  std::vector<std::unique_ptr<chunk_events>> ev;   // grown on demand, reused by every run
  uint32_t chunks = 0, timed = 0;                  // this run's
  uint64_t bytes = 0;                              // this run's uploads of chunks
  uint64_t bytes_cached = 0;                       // of which points from the file's page-locked copy
  device_buffer bad;                               // set by a tail index outside its chunk
  device_buffer bounds;                            // chunk boundaries in a device tail
  std::vector<uint64_t> hbounds[stream_ways];     // each input's
  host_buffer bounds_host;                         // page-locked: bounds read back
  float ms_copy = 0, ms_compute = 0, ms_stall = 0, ms_span = 0;  // the last run's (stream_end)
  host_slot hslot[2];                              // chunks read from the parameter file
  unsigned hnext = 0;
  bool from_file = false;                          // this run read chunks from the file
  double ms_read = 0;                              // this run's host time reading them
  device_buffer badpt;                             // the file's bad points: min (q << 40 | index), reasons
  host_buffer checks;                              // page-locked: a stream_checks (stream_read_checks)
  device_buffer win[stream_ways];                  // each input's window sums across its chunk MSMs
  msm_win_acc acc[stream_ways];                    // (msm_win_acc over win; msm.hpp)

  int create();
};

// A query's MSM inputs. The tail's base indices ascend (the 0/1 split
// lists them in base order); a streamed query needs it to cut the tail by
// chunk.
struct srs_msm_in {
  const uint32_t* ones;      // device bitmap over all the query's bases, or NULL
  const fr_t* scalars;       // device: dense scalars (idx NULL: scalar i for base i) or the tail's first ndev entries
  const uint32_t* idx;       // device tail base indices, or NULL (dense: the h query)
  uint64_t ndev;             // tail entries on the device (dense: the scalars' count)
  const fr_t* host_scalars;  // the whole tail on the host (pinned), or NULL: all of it on the device; dense
                             // (idx and host_idx NULL, scalars NULL): every scalar, in base order, on the host
  const uint32_t* host_idx;  // its indices (chunk boundaries are searched in them)
  uint64_t ntail;            // tail entries (dense: the bases' count)
  int brev_lg;               // dense on the device: scalar i at bitrev(i) over brev_lg bits (the H sequence's order)

  bool dense() const { return !idx && !host_idx; }
  bool host_dense() const { return dense() && host_scalars; }
};

// Tail entries with base index below r in an ascending host tail.
uint64_t tail_below(const uint32_t* idx, uint64_t ntail, uint64_t r);

// Before a run's first srs_msm, on st (which the other streams wait on).
int stream_begin(cuzk_ctx* ctx, cudaStream_t st);
// out = the query's MSM (batch addition of the ones plus the tail MSM) on st;
// tmp: a scratch point. Streamed chunks upload on ctx->uploads.
int srs_msm(cuzk_ctx* ctx, const cuzk_srs* srs, int q, const srs_msm_in& in, g1_xyzz* out, g1_xyzz* tmp,
            cudaStream_t st);
// out[w] = the query's MSM over in[w], for each of ways (<= stream_ways)
// inputs, in one pass over its streamed points; tmp: a scratch point.
int srs_msm_ways(cuzk_ctx* ctx, const cuzk_srs* srs, int q, const srs_msm_in* in, int ways, g1_xyzz* const* out,
                 g1_xyzz* tmp, cudaStream_t st);
// out = B_G2's MSM over the B part (in: B_G1's ones and tail) on st, B_G2
// streamed from the srs's host points (srs->host_bg2); tmp: a scratch point.
int srs_msm_bg2(cuzk_ctx* ctx, const cuzk_srs* srs, const srs_msm_in& in, g2_xyzz* out, g2_xyzz* tmp,
                cudaStream_t st);
// The same for each of ways inputs in one pass over B_G2.
int srs_msm_bg2_ways(cuzk_ctx* ctx, const cuzk_srs* srs, const srs_msm_in* in, int ways, g2_xyzz* const* out,
                     g2_xyzz* tmp, cudaStream_t st);
// Queues on st, after the run's last MSM, the copies of the check words
// (bad, badpt) into page-locked host memory: a copy into pageable memory is
// staged by the driver and waits behind any other context's pending
// pageable copy, so a small run's call would return with a bulk run's.
int stream_read_checks(cuzk_ctx* ctx, cudaStream_t st);
// After st is synchronized (stream_read_checks queued before): fails if a
// tail index fell outside its chunk (the tail did not ascend) or a point
// read from the file was not one; the chunks' times.
int stream_end(cuzk_ctx* ctx);
