// Resident and streamed MSMs over SRS queries (stream.hpp) and the C ABI's
// cuzk_stream_stats_get.
#include <algorithm>
#include <cstring>
#include <string>

#include "../context.hpp"
#include "../srs/file.hpp"
#include "../srs/srs.hpp"
#include "msm.hpp"
#include "stream.hpp"
#include "stream_kernels.cuh"

// Chunks timed per run (their events are kept for the context's life).
static const uint32_t max_timed = 4096;

int chunk_events::create() {
  TRY(copy0.create());
  TRY(copy1.create());
  TRY(arrive.create());
  TRY(start.create());
  return done.create();
}

int srs_streamer::create() {
  for (stream_slot& s : slot) {
    TRY(s.ready.create());
    TRY(s.freed.create());
  }
  for (host_slot& h : hslot) TRY(h.copied.create());
  return 0;
}

int host_buffer::ensure(size_t n) {
  if (n <= cap_) return 0;
  release();
  if (cudaHostAlloc(&p_, n, cudaHostAllocPortable) != cudaSuccess) {
    p_ = nullptr;
    return set_err(CUZK_ERR_MEM, "srs stream: cudaHostAlloc(%zu) for a chunk read from the parameter file: %s", n,
                   cudaGetErrorString(cudaGetLastError()));
  }
  cap_ = n;
  return 0;
}

void host_buffer::release() {
  if (p_) {
    note_free("cudaFreeHost", cap_);
    cudaFreeHost(p_);
  }
  p_ = nullptr;
  cap_ = 0;
}

uint64_t tail_below(const uint32_t* idx, uint64_t ntail, uint64_t r) {
  return (uint64_t)(std::lower_bound(idx, idx + ntail, (uint64_t)r,
                                     [](uint32_t v, uint64_t x) { return (uint64_t)v < x; }) -
                    idx);
}

static uint32_t host_brev(uint32_t x, int bits) {
  uint32_t r = 0;
  for (int i = 0; i < bits; i++) r |= ((x >> i) & 1u) << (bits - 1 - i);
  return r;
}

int stream_begin(cuzk_ctx* ctx, cudaStream_t st) {
  srs_streamer& S = ctx->streamer;
  S.chunks = S.timed = 0;
  S.bytes = S.bytes_cached = 0;
  S.ms_copy = S.ms_compute = S.ms_stall = S.ms_span = 0;
  S.from_file = false;
  S.ms_read = 0;
  TRY(S.bad.ensure(4));
  CK(cudaMemsetAsync(S.bad.get(), 0, 4, st));
  TRY(S.badpt.ensure(16));
  CK(cudaMemsetAsync(S.badpt.get(), 0xff, 8, st));
  CK(cudaMemsetAsync(S.badpt.as<uint8_t>() + 8, 0, 8, st));
  TRY(S.checks.ensure(sizeof(stream_checks)));
  return 0;
}

// The tail's chunk boundaries: b[0] entries below the resident prefix r,
// b[k] below r + k·C, b[K] = ntail.
static int chunk_bounds(cuzk_ctx* ctx, const srs_msm_in& in, uint64_t n, uint64_t r, uint64_t C, uint64_t K,
                        std::vector<uint64_t>& b, cudaStream_t st) {
  const bool dense = in.dense();
  b.assign(K + 1, 0);
  if (dense) {
    for (uint64_t k = 0; k <= K; k++) b[k] = std::min(n, r + k * C);
    return 0;
  }
  if (in.ntail == 0) return 0;
  if (in.host_idx) {
    for (uint64_t k = 0; k < K; k++) b[k] = tail_below(in.host_idx, in.ntail, std::min(n, r + k * C));
    b[K] = in.ntail;
    return 0;
  }
  device_buffer& d = ctx->streamer.bounds;
  TRY(d.ensure((K + 1) * 8));
  stream_bounds<<<(unsigned)((K + 1 + 127) / 128), 128, 0, st>>>(in.idx, in.ntail, r, C, n, K, d.as<uint64_t>());
  CKL();
  // through page-locked memory (a copy into pageable memory waits behind
  // another context's pending one); 4 KiB at least, so that it is
  // allocated once (a page-locked free waits for the whole GPU)
  host_buffer& h = ctx->streamer.bounds_host;
  TRY(h.ensure(std::max<size_t>((K + 1) * 8, 4096)));
  CK(cudaMemcpyAsync(h.get(), d.get(), (K + 1) * 8, cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  memcpy(b.data(), h.get(), (K + 1) * 8);
  return 0;
}

// The chunk's events if it is timed.
static int chunk_timing(srs_streamer& S, chunk_events** e) {
  *e = nullptr;
  if (S.timed >= max_timed) return 0;
  if (S.ev.size() <= S.timed) {
    std::unique_ptr<chunk_events> n(new chunk_events());
    TRY(n->create());
    S.ev.push_back(std::move(n));
  }
  *e = S.ev[S.timed++].get();
  return 0;
}

// Chunk k of a streamed query: [o, o + len) of its points; input w's tail
// entries [j0[w], j0[w] + cnt[w]) (dense: its scalars of those points).
struct chunk {
  uint64_t o, len;
  uint64_t j0[stream_ways], cnt[stream_ways];
};

// A query as srs_msm_t sees it: n points of type A, the first r resident
// (dev), the rest read from host in chunks of C, or from the parameter
// file (file not NULL) where point 0 is at byte foff, a chunk uploaded from
// the file's page-locked copy where that holds it (file_source::cached);
// q names it in messages (0..3 the G1 queries, 4 B_G2).
template <class A>
struct query_view {
  int q;
  uint64_t n, r, C;
  const A* dev;
  const A* host;
  const file_source* file;
  uint64_t foff;
};

// The device conversion of a chunk of raw points from the file, on st.
static void decode_chunk(g1_affine* p, uint64_t n, uint64_t base, uint32_t q, unsigned long long* bad,
                         cudaStream_t st) {
  stream_decode_g1<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(p, n, base, q, bad);
}
static void decode_chunk(g2_affine* p, uint64_t n, uint64_t base, uint32_t q, unsigned long long* bad,
                         cudaStream_t st) {
  stream_decode_g2<<<(unsigned)((n + 127) / 128), 128, 0, st>>>(p, n, base, q, bad);
}

// The chunk's raw points from the parameter file into the next host slot
// once its last copy is done (the host waits; the device meanwhile has the
// chunks before).
template <class A>
static int chunk_read(cuzk_ctx* ctx, const query_view<A>& qv, const chunk& c, host_slot** out) {
  srs_streamer& S = ctx->streamer;
  host_slot& h = S.hslot[S.hnext];
  S.hnext ^= 1;
  const uint64_t bytes = c.len * sizeof(A);
  CK(cudaEventSynchronize(h.copied));
  TRY(h.buf.ensure(bytes));
  double ms = 0;
  TRY(file_read(qv.file->fd, h.buf.get(), bytes, qv.foff + c.o * sizeof(A), &ms));
  S.ms_read += ms;
  *out = &h;
  return 0;
}

// The chunk's raw points (src: a read host slot's, copied then records
// copied, or the file's mapping) copied into the device slot and converted
// there in place, on the uploads stream.
template <class A>
static int chunk_decode(cuzk_ctx* ctx, const query_view<A>& qv, const chunk& c, const void* src,
                        cudaEvent_t copied, stream_slot& sl) {
  cudaStream_t up = ctx->uploads;
  CK(cudaMemcpyAsync(sl.bases.get(), src, c.len * sizeof(A), cudaMemcpyHostToDevice, up));
  if (copied) CK(cudaEventRecord(copied, up));
  ctx->streamer.from_file = true;
  decode_chunk(sl.bases.as<A>(), c.len, c.o, (uint32_t)qv.q, ctx->streamer.badpt.as<unsigned long long>(), up);
  CKL();
  return 0;
}

// The batch addition and the MSM over G1 or G2 bases (msm.hpp).
static int batch_sum(cuzk_ctx* ctx, const g1_affine* b, uint64_t n, const uint32_t* bits, g1_xyzz* out,
                     cudaStream_t st) {
  return batch_add_dev(ctx, b, n, bits, out, st);
}
static int batch_sum(cuzk_ctx* ctx, const g2_affine* b, uint64_t n, const uint32_t* bits, g2_xyzz* out,
                     cudaStream_t st) {
  return batch_add_dev_g2(ctx, b, n, bits, out, st);
}
static int msm_of(cuzk_ctx* ctx, const g1_affine* b, const fr_t* sc, const uint32_t* idx, uint64_t n, int brev_lg,
                  const g1_xyzz* extra, g1_xyzz* out, cudaStream_t st, msm_win_acc* acc = nullptr) {
  return msm_dev(ctx, b, sc, idx, n, brev_lg, extra, out, st, acc);
}
static int msm_of(cuzk_ctx* ctx, const g2_affine* b, const fr_t* sc, const uint32_t* idx, uint64_t n, int brev_lg,
                  const g2_xyzz* extra, g2_xyzz* out, cudaStream_t st, msm_win_acc* acc = nullptr) {
  return msm_dev_g2(ctx, b, sc, idx, n, brev_lg, extra, out, st, acc);
}

// The chunk's points (unless they are resident: points false) and each
// input's share of it from the host (a host tail's slice, a host-dense
// input's scalars) into the slot, on the uploads stream.
template <class A>
static int chunk_upload(cuzk_ctx* ctx, const query_view<A>& qv, const srs_msm_in* in, int ways, const chunk& c,
                        bool points, stream_slot& sl, chunk_events* e) {
  srs_streamer& S = ctx->streamer;
  cudaStream_t up = ctx->uploads;
  CK(cudaStreamWaitEvent(up, sl.freed, 0));
  host_slot* h = nullptr;
  const char* cached = nullptr;
  if (points && qv.file) {
    const uint64_t lo = qv.foff + c.o * sizeof(A);
    cached = qv.file->cached(lo, lo + c.len * sizeof(A));
    if (cached) {
      S.bytes_cached += c.len * sizeof(A);
    } else {
      TRY(chunk_read(ctx, qv, c, &h));  // (its time is ms_read, not the copy's)
    }
  }
  if (e) CK(cudaEventRecord(e->copy0, up));
  if (points) {
    if (cached) {
      TRY(chunk_decode(ctx, qv, c, cached, nullptr, sl));
    } else if (h) {
      TRY(chunk_decode(ctx, qv, c, h->buf.get(), h->copied, sl));
    } else {
      CK(cudaMemcpyAsync(sl.bases.get(), qv.host + c.o, c.len * sizeof(A), cudaMemcpyHostToDevice, up));
    }
    S.bytes += c.len * sizeof(A);
  }
  for (int w = 0; w < ways; w++) {
    const srs_msm_in& x = in[w];
    if (x.host_dense()) {
      CK(cudaMemcpyAsync(sl.scalars[w].get(), x.host_scalars + c.o, c.len * 32, cudaMemcpyHostToDevice, up));
      S.bytes += c.len * 32;
    } else if (!x.dense() && x.host_scalars && c.cnt[w]) {
      CK(cudaMemcpyAsync(sl.scalars[w].get(), x.host_scalars + c.j0[w], c.cnt[w] * 32, cudaMemcpyHostToDevice, up));
      CK(cudaMemcpyAsync(sl.idx[w].get(), x.host_idx + c.j0[w], c.cnt[w] * 4, cudaMemcpyHostToDevice, up));
      S.bytes += c.cnt[w] * 36;
    }
  }
  if (e) CK(cudaEventRecord(e->copy1, up));
  CK(cudaEventRecord(sl.ready, up));
  return 0;
}

// Input w's batch addition and MSM over the chunk's bases, folded into out, on st.
template <class A, class X>
static int chunk_msm_way(cuzk_ctx* ctx, const srs_msm_in& in, int w, const chunk& c, const A* bases,
                         stream_slot& sl, X* out, X* tmp, cudaStream_t st) {
  srs_streamer& S = ctx->streamer;
  const bool dense = in.dense();
  const fr_t* sc = nullptr;
  const uint32_t* ix = nullptr;
  if (in.host_dense()) {
    sc = sl.scalars[w].as<fr_t>();
  } else if (dense) {
    // chunk offsets are multiples of the chunk size, a power of two: bitrev(o + i) = bitrev(o) + bitrev(i)
    sc = in.scalars + (in.brev_lg > 0 ? host_brev((uint32_t)c.o, in.brev_lg) : c.o);
  } else if (c.cnt[w]) {
    const uint32_t* src = in.host_scalars ? sl.idx[w].as<uint32_t>() : in.idx + c.j0[w];
    sc = in.host_scalars ? sl.scalars[w].as<fr_t>() : in.scalars + c.j0[w];
    stream_rebase<<<(unsigned)((c.cnt[w] + 255) / 256), 256, 0, st>>>(sl.idx[w].as<uint32_t>(), src, c.cnt[w], c.o,
                                                                      c.len, S.bad.as<uint32_t>());
    CKL();
    ix = sl.idx[w].as<uint32_t>();
  }
  if (in.ones) {
    TRY(batch_sum(ctx, bases, c.len, in.ones + c.o / 32, tmp, st));
    stream_fold<<<1, 1, 0, st>>>(out, tmp);
    CKL();
  }
  if (c.cnt[w]) TRY(msm_of(ctx, bases, sc, ix, c.cnt[w], dense ? in.brev_lg : 0, out, out, st, &S.acc[w]));
  return 0;
}

// The chunk's work for every input on st once its upload is in (bases: the
// slot's, or the resident points of a host-dense input's own chunk, whose
// other inputs are skipped: only: that input).
template <class A, class X>
static int chunk_msm(cuzk_ctx* ctx, const srs_msm_in* in, int ways, int only, const chunk& c, const A* bases,
                     stream_slot& sl, chunk_events* e, X* const* out, X* tmp, cudaStream_t st) {
  srs_streamer& S = ctx->streamer;
  if (e) CK(cudaEventRecord(e->arrive, st));
  CK(cudaStreamWaitEvent(st, sl.ready, 0));
  if (e) CK(cudaEventRecord(e->start, st));
  for (int w = 0; w < ways; w++)
    if (only < 0 || w == only) TRY((chunk_msm_way<A, X>(ctx, in[w], w, c, bases, sl, out[w], tmp, st)));
  if (e) CK(cudaEventRecord(e->done, st));
  CK(cudaEventRecord(sl.freed, st));
  S.chunks++;
  return 0;
}

// A host-dense input over resident points [o0, o1): its scalars go up in
// chunks of C through the slots, each chunk's MSM against the resident
// points.
template <class A, class X>
static int host_dense_resident(cuzk_ctx* ctx, const query_view<A>& qv, const srs_msm_in* in, int ways, int w,
                               uint64_t o0, uint64_t o1, X* const* out, X* tmp, cudaStream_t st) {
  srs_streamer& S = ctx->streamer;
  const uint64_t C = qv.C;
  if (!C || S.slot[0].scalars[w].capacity() < C * 32)
    return set_err(CUZK_ERR_ARG, "srs msm: query %d: host scalars over resident points need the chunk slots of a "
                   "plan that streams", qv.q);
  for (uint64_t o = o0; o < o1; o += C) {
    chunk c = {};
    c.o = o;
    c.len = std::min(C, o1 - o);
    c.cnt[w] = c.len;
    stream_slot& sl = S.slot[S.next];
    S.next ^= 1;
    srs_msm_in only[stream_ways] = {};
    only[w] = in[w];
    TRY(chunk_upload(ctx, qv, only, ways, c, false, sl, nullptr));
    TRY((chunk_msm<A, X>(ctx, in, ways, w, c, qv.dev + o, sl, nullptr, out, tmp, st)));
  }
  return 0;
}

template <class A, class X>
static int srs_msm_t(cuzk_ctx* ctx, const query_view<A>& qv, const srs_msm_in* in, int ways, X* const* out, X* tmp,
                     cudaStream_t st) {
  const int q = qv.q;
  const uint64_t n = qv.n, r = std::min(qv.r, qv.n);
  const A* dev_bases = qv.dev;
  for (int w = 0; w < ways; w++) {
    const srs_msm_in& x = in[w];
    if (x.dense() && x.ntail != n)
      return set_err(CUZK_ERR_ARG, "srs msm: query %d: %llu dense scalars for %llu bases", q,
                     (unsigned long long)x.ntail, (unsigned long long)n);
    if (x.host_dense() && (x.brev_lg || x.ones))
      return set_err(CUZK_ERR_ARG, "srs msm: query %d: host scalars are in base order, with no ones", q);
    if (r >= n && !x.dense() && x.ndev != x.ntail)
      return set_err(CUZK_ERR_ARG, "srs msm: query %d is resident, %llu of %llu tail entries on the device", q,
                     (unsigned long long)x.ndev, (unsigned long long)x.ntail);
  }
  if (r < n && ((!qv.host && !qv.file) || !qv.C))
    return set_err(CUZK_ERR_ARG, "srs msm: query %d streams but has no host points", q);
  // the resident points: one batch addition and one MSM per device input (as the runs did before
  // streaming), host-dense inputs in chunks of their scalars
  const uint64_t C = qv.C, K = r < n ? (n - r + C - 1) / C : 0;
  srs_streamer& S = ctx->streamer;
  // the chunk MSMs' window sums, combined once at the end (the plan reserves S.win)
  for (int w = 0; w < ways; w++) {
    S.acc[w].win = S.win[w].capacity() >= msm_win_max * sizeof(X) ? S.win[w].get() : nullptr;
    S.acc[w].c = 0;
  }
  for (int w = 0; w < ways; w++) {
    const srs_msm_in& x = in[w];
    if (x.host_dense()) {  // from infinity: its resident chunks below, then its streamed ones
      stream_set_inf<<<1, 1, 0, st>>>(out[w]);
      CKL();
      continue;
    }
    if (r >= n) {  // resident: out = the MSM with the batch sum as its extra point
      const X* extra = nullptr;
      if (x.ones && n) {
        TRY(batch_sum(ctx, dev_bases, n, x.ones, tmp, st));
        extra = tmp;
      }
      TRY(msm_of(ctx, dev_bases, x.scalars, x.idx, x.ntail, x.brev_lg, extra, out[w], st));
      continue;
    }
    TRY(chunk_bounds(ctx, x, n, r, C, K, S.hbounds[w], st));
    const std::vector<uint64_t>& b = S.hbounds[w];
    if (!x.dense() && x.host_idx && b[0] != x.ndev)
      return set_err(CUZK_ERR_ARG, "srs msm: query %d: %llu tail entries on the device, %llu below its resident %llu",
                     q, (unsigned long long)x.ndev, (unsigned long long)b[0], (unsigned long long)r);
    stream_set_inf<<<1, 1, 0, st>>>(out[w]);
    CKL();
    if (r) {
      if (x.ones) {
        TRY(batch_sum(ctx, dev_bases, r, x.ones, tmp, st));
        stream_fold<<<1, 1, 0, st>>>(out[w], tmp);
        CKL();
      }
      if (b[0])
        TRY(msm_of(ctx, dev_bases, x.scalars, x.dense() ? nullptr : x.idx, b[0], x.brev_lg, out[w], out[w], st,
                   &S.acc[w]));
    }
  }
  for (int w = 0; w < ways; w++)
    if (in[w].host_dense() && r) TRY((host_dense_resident<A, X>(ctx, qv, in, ways, w, 0, r, out, tmp, st)));
  for (uint64_t k = 0; k < K; k++) {
    chunk c = {};
    c.o = r + k * C;
    c.len = std::min(C, n - c.o);
    for (int w = 0; w < ways; w++) {
      if (in[w].host_dense()) {
        c.j0[w] = c.o;
        c.cnt[w] = c.len;
        continue;
      }
      const std::vector<uint64_t>& b = S.hbounds[w];
      c.j0[w] = b[k];
      c.cnt[w] = b[k + 1] - b[k];
      if (c.cnt[w] > c.len)
        return set_err(CUZK_ERR_ARG, "srs msm: query %d: %llu tail entries for the %llu bases of a chunk (the tail's "
                       "base indices must ascend)", q, (unsigned long long)c.cnt[w], (unsigned long long)c.len);
    }
    stream_slot& sl = S.slot[S.next];
    S.next ^= 1;
    chunk_events* e;
    TRY(chunk_timing(S, &e));
    TRY(chunk_upload(ctx, qv, in, ways, c, true, sl, e));
    TRY((chunk_msm<A, X>(ctx, in, ways, -1, c, sl.bases.as<A>(), sl, e, out, tmp, st)));
  }
  for (int w = 0; w < ways; w++) TRY(msm_win_finish(S.acc[w], out[w], st));
  return 0;
}

template <class X>
static int check_ways(int ways, X* const* out) {
  if (ways < 1 || ways > stream_ways || !out) return set_err(CUZK_ERR_ARG, "srs msm: %d inputs (1..%d)", ways, stream_ways);
  for (int w = 0; w < ways; w++)
    if (!out[w]) return set_err(CUZK_ERR_ARG, "srs msm: nil result %d", w);
  return 0;
}

int srs_msm_ways(cuzk_ctx* ctx, const cuzk_srs* srs, int q, const srs_msm_in* in, int ways, g1_xyzz* const* out,
                 g1_xyzz* tmp, cudaStream_t st) {
  TRY(check_ways(ways, out));
  const bool file = srs->file_streams(q);
  const query_view<g1_affine> qv = {q,           srs->n[q],    srs->plan.res[q],           srs->plan.chunk(),
                                    srs->points(q), srs->host[q], file ? &srs->file : nullptr, srs->file.off[q]};
  return srs_msm_t(ctx, qv, in, ways, out, tmp, st);
}

int srs_msm(cuzk_ctx* ctx, const cuzk_srs* srs, int q, const srs_msm_in& in, g1_xyzz* out, g1_xyzz* tmp,
            cudaStream_t st) {
  return srs_msm_ways(ctx, srs, q, &in, 1, &out, tmp, st);
}

int srs_msm_bg2_ways(cuzk_ctx* ctx, const cuzk_srs* srs, const srs_msm_in* in, int ways, g2_xyzz* const* out,
                     g2_xyzz* tmp, cudaStream_t st) {
  TRY(check_ways(ways, out));
  if (!srs->streams_bg2()) return set_err(CUZK_ERR_ARG, "srs msm: B_G2 does not stream");
  for (int w = 0; w < ways; w++)
    if (in[w].idx && !in[w].host_idx && in[w].ndev != in[w].ntail)
      return set_err(CUZK_ERR_ARG, "srs msm: B_G2: %llu of %llu device tail entries", (unsigned long long)in[w].ndev,
                     (unsigned long long)in[w].ntail);
  const bool file = !srs->host_bg2;
  const query_view<g2_affine> qv = {4,       srs->n[SRS_B_G1], 0, srs->plan.chunk_g2(), nullptr, srs->host_bg2,
                                    file ? &srs->file : nullptr, srs->file.off[4]};
  return srs_msm_t(ctx, qv, in, ways, out, tmp, st);
}

int srs_msm_bg2(cuzk_ctx* ctx, const cuzk_srs* srs, const srs_msm_in& in, g2_xyzz* out, g2_xyzz* tmp,
                cudaStream_t st) {
  return srs_msm_bg2_ways(ctx, srs, &in, 1, &out, tmp, st);
}

// Fails the run where a point read from the parameter file was not one
// (stream_decode_g1, _g2): the least query and index, and every reason seen.
static int file_points_check(const srs_streamer& S) {
  const unsigned long long* b = static_cast<const stream_checks*>(S.checks.get())->badpt;
  if (b[0] == ~0ull) return 0;
  static const char* names[5] = {"h", "l", "a", "b_g1", "b_g2"};
  const unsigned q = (unsigned)(b[0] >> 40);
  std::string why;
  if (b[1] & stream_bad_flags) why += "flag bits set (compressed, infinity or sort); ";
  if (b[1] & stream_bad_noncanonical) why += "a coordinate not below the field modulus; ";
  if (b[1] & stream_bad_curve) why += "not on the curve; ";
  if (!why.empty()) why.resize(why.size() - 2);
  return set_err(CUZK_ERR_ARG, "srs stream: the parameter file holds an invalid point: %s[%llu] (%s); the file is corrupt",
                 q < 5 ? names[q] : "?", (unsigned long long)(b[0] & ((1ull << 40) - 1)), why.c_str());
}

int stream_read_checks(cuzk_ctx* ctx, cudaStream_t st) {
  srs_streamer& S = ctx->streamer;
  if (!S.checks.get()) return set_err(CUZK_ERR_ARG, "srs stream: checks read before stream_begin");
  stream_checks* h = static_cast<stream_checks*>(S.checks.get());
  CK(cudaMemcpyAsync(&h->bad, S.bad.get(), sizeof h->bad, cudaMemcpyDeviceToHost, st));
  CK(cudaMemcpyAsync(h->badpt, S.badpt.get(), sizeof h->badpt, cudaMemcpyDeviceToHost, st));
  return 0;
}

int stream_end(cuzk_ctx* ctx) {
  srs_streamer& S = ctx->streamer;
  for (uint32_t k = 0; k < S.timed; k++) {
    const chunk_events& e = *S.ev[k];
    S.ms_copy += elapsed_ms(e.copy0, e.copy1);
    S.ms_stall += elapsed_ms(e.arrive, e.start);
    S.ms_compute += elapsed_ms(e.start, e.done);
  }
  if (S.timed) S.ms_span = elapsed_ms(S.ev[0]->copy0, S.ev[S.timed - 1]->done);
  if (S.from_file) TRY(file_points_check(S));
  const uint32_t bad = static_cast<const stream_checks*>(S.checks.get())->bad;
  if (bad) return set_err(CUZK_ERR_ARG, "srs msm: a tail base index fell outside its chunk (the tail must ascend)");
  return 0;
}

extern "C" int cuzk_stream_stats_get(cuzk_ctx* ctx, cuzk_stream_stats* out) {
  if (!ctx || !out) return set_err(CUZK_ERR_ARG, "stream stats: nil argument");
  const srs_streamer& S = ctx->streamer;
  *out = cuzk_stream_stats{};
  out->bytes = S.bytes;
  out->chunks = S.chunks;
  out->timed = S.timed;
  out->ms_copy = S.ms_copy;
  out->ms_compute = S.ms_compute;
  out->ms_stall = S.ms_stall;
  out->ms_span = S.ms_span;
  out->ms_read = (float)S.ms_read;
  out->bytes_cached = S.bytes_cached;
  return 0;
}
