// Residency plans (plan.hpp): the plan of a limit, the exact reservation of
// a run under it, and the C ABI's cuzk_plan_for, cuzk_srs_upload_limited,
// cuzk_srs_plan and cuzk_mem_held.
#include <cub/cub.cuh>

#include <algorithm>
#include <memory>
#include <string>

#include "../context.hpp"
#include "plan.hpp"
#include "srs.hpp"

static_assert(sizeof(cuzk_limits) == 16 && offsetof(cuzk_limits, bg2) == 12 && sizeof(cuzk_plan) == 136 &&
                  offsetof(cuzk_plan, lgn) == 104 && offsetof(cuzk_plan, bg2_bytes) == 120 &&
                  offsetof(cuzk_plan, bg2_stream_bytes) == 128 &&
                  sizeof(cuzk_stream_stats) == 48 && offsetof(cuzk_stream_stats, ms_read) == 32 &&
                  offsetof(cuzk_stream_stats, bytes_cached) == 40,
              "the Go mirrors in device/cuda/limit.go");

static const uint64_t P = sizeof(g1_xyzz), A = sizeof(g1_affine);
// Tail upload buffers per resident point of l, a, b_g1 (32-byte scalar, 4-byte index).
static const uint64_t tail_entry = 36;
static const uint32_t chunk_lg_default = 24, chunk_lg_floor = 16, pairs_lg_top = 27;

uint64_t run_scratch::total() const {
  uint64_t t = 3 * hvec + msm.pairs * 4 + msm.starts + msm.buckets + 2 * msm.seg1 + 2 * msm.seg2 + 2 * msm.red +
               msm.win + 2 * msm.chunks + sort_temp + batch_chunks + batch_rounds +
               2 * (slot_bases + ways * (slot_scalars + slot_idx)) + fixed;
  for (int p = 0; p < 3; p++) t += ways * (tail_scalars[p] + tail_idx[p] + ones[p]);
  return t;
}

static uint64_t bg2_bytes(uint64_t n) { return n ? n * sizeof(g2_affine) + 1 : 0; }

uint64_t srs_plan::resident_bytes() const {
  uint64_t t = bg2_bytes(bg2);
  for (int q = 0; q < 4; q++) t += res[q] * A + 1;
  return t;
}

uint64_t srs_plan::stream_bytes() const {
  uint64_t t = 0;
  for (int q = 0; q < 4; q++) t += (n[q] - res[q]) * A;
  return t + bg2_stream * sizeof(g2_affine);
}

void srs_plan::to_abi(cuzk_plan* o) const {
  *o = cuzk_plan{};
  o->limit = limit;
  for (int q = 0; q < 4; q++) {
    o->n[q] = n[q];
    o->resident[q] = res[q];
  }
  o->resident_bytes = resident_bytes();
  o->scratch_bytes = limit ? scratch.total() : 0;
  o->stream_bytes = stream_bytes();
  o->min_bytes = min_bytes;
  o->lgn = lgn;
  o->chunk_lg = chunk_lg;
  o->pairs_lg = pairs_lg;
  o->pinned = pinned;
  o->bg2_bytes = bg2_bytes(bg2);
  o->bg2_stream_bytes = bg2_stream * sizeof(g2_affine);
}

msm_config plan_msm_config(const srs_plan& p, uint64_t acc_slots) {
  msm_config c = {};
  c.window = 0;  // by size: a chunk of 2^23 points at 16 (wider windows measured slower, docs/gpu-notes.md)
  c.seg_lg = 15;
  c.acc_slots = acc_slots;
  c.pairs_lg = p.pairs_lg;
  return c;
}

// An upper bound of msm_scratch_for(n) over every n <= nmax (msm/plan.cu): the
// sorted pairs are at most max(2^pairs_lg, n) and at most 64 windows of n; the
// bucket count of a batch (windows × 2^(c-1)) falls within each window size,
// so it peaks where a window size begins or the windows per batch step (powers
// of two); the segments, reductions and chunks have fixed ceilings.
static msm_scratch msm_bound(uint64_t nmax, const msm_config& cfg, uint64_t P = sizeof(g1_xyzz)) {
  msm_scratch s = msm_scratch_for(nmax ? nmax : 1, cfg, P);
  const uint64_t starts[] = {1, 1ull << 6, 1ull << 12, 1ull << 17, 1ull << 24, 3ull << 25};
  for (uint64_t x : starts)
    if (x <= nmax) s.max_with(msm_scratch_for(x, cfg, P));
  for (uint64_t x = 1; x <= nmax; x <<= 1) s.max_with(msm_scratch_for(x, cfg, P));
  const uint64_t cap = 1ull << (cfg.pairs_lg ? cfg.pairs_lg : 29);
  s.pairs = std::max<uint64_t>(s.pairs, 4 * std::min(std::max(cap, nmax), 64 * std::max<uint64_t>(nmax, 1)));
  // first-level segments per batch: fewer than 2^(seg_lg+1), and no more than the batch's buckets
  const uint64_t seg = std::min<uint64_t>(2ull << cfg.seg_lg, s.buckets / P);
  s.seg1 = std::max<uint64_t>(s.seg1, seg * P);
  s.seg2 = std::max<uint64_t>(s.seg2, seg * P);
  s.red = std::max<uint64_t>(s.red, (seg / msm_red_fan + 64 + 1) * P);
  s.win = std::max<uint64_t>(s.win, 64 * P);
  // accumulation chunks: about 2^18 of at least 16 entries, rounded up to whole waves
  const uint64_t items = s.pairs / 4;
  s.chunks = std::max<uint64_t>(s.chunks, (std::min<uint64_t>((items + 15) / 16, 1ull << 18) + cfg.acc_slots + 1) * P);
  return s;
}

// The radix sort's temporary storage for pairs/4 entries (msm_reserve's
// query); estimated where no device answers it.
static uint64_t sort_temp_bytes(size_t pairs) {
  size_t tb = 0;
  if (cub::DeviceRadixSort::SortPairs(nullptr, tb, (uint32_t*)nullptr, (uint32_t*)nullptr, (uint32_t*)nullptr,
                                      (uint32_t*)nullptr, (int)(pairs / 4), 0, 32) != cudaSuccess) {
    cudaGetLastError();
    tb = pairs * 2 + (2u << 20);
  }
  return tb;
}

// batch_add_reserve(n) (msm/msm.cu): chunks of 256 bases, reduced 32 at a time.
static void batch_bytes(uint64_t n, uint64_t* chunks, uint64_t* rounds, uint64_t P = sizeof(g1_xyzz)) {
  const uint64_t nch = n ? (n + 255) / 256 : 1;
  *chunks = nch * P;
  *rounds = ((nch + 31) / 32 + 1) * P;
}

// What the context holds besides the run's buffers: the shared twiddles
// (2 × 2^18 and 2 × 512 Fr, grown by an eighth), the NTT tables of one size
// (9 × 2^15 Fr, the same), the result points, the streamer's flag and chunk
// bounds and each input's window sums, and room for the tables of a second
// size.
static uint64_t fixed_bytes() {
  const uint64_t tw = (2ull << 18) * 32 + 1024 * 32, tab = 9ull * 32768 * 32;
  return (tw + 2 * tab) * 9 / 8 + run_points * P * 9 / 8 + stream_ways * msm_win_max * sizeof(g2_xyzz) +
         (2u << 20);
}

static void fill_scratch(int dev, srs_plan& p, uint64_t acc_slots) {
  run_scratch& s = p.scratch;
  s = run_scratch{};
  const uint64_t m = 1ull << p.lgn, C = p.chunk();
  // a plan that streams serves paired runs (cuzk_run_pair): the second
  // partition's tail buffers and chunk-slot scalars beside the first's
  s.ways = C ? stream_ways : 1;
  s.hvec = m * 32;
  uint64_t nmax = C, nbatch = C;
  for (int q = 0; q < 4; q++) nmax = std::max(nmax, p.res[q]);
  for (int i = 0; i < 3; i++) {
    const uint64_t r = p.res[1 + i], n = p.n[1 + i];
    s.tail_scalars[i] = r * 32 + 32;
    s.tail_idx[i] = r * 4 + 4;
    s.ones[i] = (n + 31) / 32 * 4 + 4;
    nbatch = std::max(nbatch, r);
  }
  const msm_config cfg = plan_msm_config(p, acc_slots);
  s.msm = msm_bound(nmax, cfg);
  batch_bytes(nbatch, &s.batch_chunks, &s.batch_rounds);
  // B_G2 over B_G1's tail in the same buffers: resident, one MSM of at most
  // its n points; streamed, one per chunk of at most chunk_g2 points
  if (const uint64_t n2 = p.bg2 ? p.bg2 : std::min(p.bg2_stream, p.chunk_g2())) {
    msm_config g2 = cfg;
    g2.acc_slots = msm_resident_threads_g2(dev);
    cudaGetLastError();  // no device (cuzk_plan_for on the host): 0
    s.msm.max_with(msm_bound(n2, g2, sizeof(g2_xyzz)));
    uint64_t ch, rd;
    batch_bytes(n2, &ch, &rd, sizeof(g2_xyzz));
    s.batch_chunks = std::max(s.batch_chunks, ch);
    s.batch_rounds = std::max(s.batch_rounds, rd);
  }
  s.sort_temp = sort_temp_bytes(s.msm.pairs);
  if (C) {
    s.slot_bases = C * A;
    s.slot_scalars = C * 32;
    s.slot_idx = C * 4;
  }
  s.fixed = fixed_bytes() + (p.g2_points() ? run_points_g2 * sizeof(g2_xyzz) * 9 / 8 : 0);
}

static uint64_t plan_total(const srs_plan& p) { return p.scratch.total() + p.resident_bytes(); }

void srs_plan_resident(const uint64_t* n, srs_plan* out) {
  *out = srs_plan{};
  for (int q = 0; q < 4; q++) out->n[q] = out->res[q] = n[q];
  out->lgn = lg2(n[0] + 1);
}

// Resident prefixes of whole chunks in the order h, l, a, b_g1 into what the
// scratch leaves; then, as the prefixes grow the MSM scratch, chunks are
// given back from the last query that has some until the plan fits.
static void fill_residency(int dev, srs_plan& p, uint64_t acc_slots) {
  const uint64_t C = p.chunk();
  uint64_t left = p.limit - plan_total(p);
  for (int q = 0; q < 4; q++) {
    const uint64_t per = q == 0 ? A : A + p.scratch.ways * tail_entry;
    if (left >= p.n[q] * per) {
      p.res[q] = p.n[q];
    } else {
      p.res[q] = std::min(p.n[q], left / (C * per) * C);
    }
    left -= p.res[q] * per;
  }
  fill_scratch(dev, p, acc_slots);
  for (int q = 3; q >= 0 && plan_total(p) > p.limit;) {
    if (p.res[q] == 0) {
      q--;
      continue;
    }
    p.res[q] = p.res[q] % C ? p.res[q] / C * C : p.res[q] - C;
    fill_scratch(dev, p, acc_slots);
  }
}

int srs_plan_make(int dev, const uint64_t* n, const cuzk_limits* lim, srs_plan* out) {
  srs_plan_resident(n, out);
  if (!lim || lim->limit == 0) return 0;
  const uint32_t cmax_in = lim->chunk_lg_max ? lim->chunk_lg_max : chunk_lg_default;
  if (cmax_in < 5 || cmax_in > 24) return set_err(CUZK_ERR_ARG, "plan: chunk_lg_max %u (0 or 5..24)", cmax_in);
  uint64_t nmax = 0;
  for (int q = 0; q < 4; q++) nmax = std::max(nmax, n[q]);
  // B_G2 asked for: resident with everything, else streamed with what streams, in chunks of
  // half the G1 chunk; those start on whole words of the ones bitmap: G1 chunks of 2^6 at least
  const uint64_t g2 = lim->bg2 ? n[3] : 0;
  const uint32_t cfloor = g2 ? 6 : 5;
  const uint32_t cmax = std::max<uint32_t>(cfloor, std::min(cmax_in, lg2(nmax)));
  const uint32_t cmin = std::min(chunk_lg_floor, cmax);
  const uint64_t acc_slots = msm_resident_threads(dev);
  cudaGetLastError();  // no device: its queries failed (cuzk_plan_for on the host)
  srs_plan& p = *out;
  p.limit = lim->limit;
  // the minimum: everything streams in the smallest chunks, MSM batches of one chunk
  srs_plan lo = p;
  for (int q = 0; q < 4; q++) lo.res[q] = 0;
  lo.chunk_lg = cmin;
  lo.pairs_lg = cmin;
  lo.bg2_stream = g2;
  fill_scratch(dev, lo, acc_slots);
  const uint64_t min_bytes = plan_total(lo);
  p.min_bytes = min_bytes;
  // everything resident, cuzk_run's MSM batches, B_G2 too where asked
  p.bg2 = g2;
  fill_scratch(dev, p, acc_slots);
  if (plan_total(p) <= p.limit) return 0;
  p.bg2 = 0;
  if (p.limit < min_bytes)
    return set_err(CUZK_ERR_MEM,
                   "plan: a run of this parameter set (h %llu, l %llu, a %llu, b_g1 %llu points%s, domain 2^%u) "
                   "needs at least %llu bytes of device memory (%.2f GiB), the limit is %llu (%.2f GiB)",
                   (unsigned long long)n[0], (unsigned long long)n[1], (unsigned long long)n[2],
                   (unsigned long long)n[3], g2 ? ", B_G2" : "", p.lgn, (unsigned long long)min_bytes,
                   min_bytes / 1073741824.0, (unsigned long long)p.limit, p.limit / 1073741824.0);
  for (uint32_t cl = cmax; cl >= cmin; cl--) {
    const uint32_t pls[3] = {std::min(pairs_lg_top, cl + 2), std::min(pairs_lg_top, cl + 1), cl};
    for (uint32_t pl : pls) {
      srs_plan t = p;
      for (int q = 0; q < 4; q++) t.res[q] = 0;
      t.chunk_lg = cl;
      t.pairs_lg = pl;
      t.bg2_stream = g2;
      fill_scratch(dev, t, acc_slots);
      if (plan_total(t) > t.limit) continue;
      fill_residency(dev, t, acc_slots);
      p = t;
      return 0;
    }
  }
  p = lo;  // the minimum fits (checked above)
  return 0;
}

// buf holds at least n bytes, allocated to exactly n if it did not.
static int exact(device_buffer& buf, uint64_t n) {
  if (buf.capacity() >= n) return 0;
  return buf.allocate(n);
}

int plan_reserve(cuzk_ctx* ctx, const cuzk_srs* srs) {
  const run_scratch& s = srs->plan.scratch;
  TRY(exact(ctx->h.a, s.hvec));
  TRY(exact(ctx->h.b, s.hvec));
  TRY(exact(ctx->h.c, s.hvec));
  for (int p = 0; p < 3; p++)
    for (uint64_t w = 0; w < s.ways; w++) {
      msm_inputs& in = w ? ctx->pair_in[p] : ctx->run_in[p];
      TRY(exact(in.scalars, s.tail_scalars[p]));
      TRY(exact(in.idx, s.tail_idx[p]));
      TRY(exact(in.ones, s.ones[p]));
    }
  msm_buffers& b = ctx->msm_scratch;
  TRY(exact(b.keys, s.msm.pairs));
  TRY(exact(b.vals, s.msm.pairs));
  TRY(exact(b.keys_sorted, s.msm.pairs));
  TRY(exact(b.vals_sorted, s.msm.pairs));
  TRY(exact(b.starts, s.msm.starts));
  TRY(exact(b.buckets, s.msm.buckets));
  TRY(exact(b.level1_weighted, s.msm.seg1));
  TRY(exact(b.level1_sums, s.msm.seg1));
  TRY(exact(b.level2_weighted, s.msm.seg2));
  TRY(exact(b.level2_sums, s.msm.seg2));
  TRY(exact(b.t1_rounds[0], s.msm.red));
  TRY(exact(b.t1_rounds[1], s.msm.red));
  TRY(exact(b.windows, s.msm.win));
  TRY(exact(b.chunk_head, s.msm.chunks));
  TRY(exact(b.chunk_tail, s.msm.chunks));
  TRY(exact(b.sort_temp, s.sort_temp));
  TRY(exact(b.batch_chunks, s.batch_chunks));
  TRY(exact(b.batch_rounds, s.batch_rounds));
  if (s.slot_bases)
    for (uint64_t w = 0; w < s.ways; w++) TRY(exact(ctx->streamer.win[w], msm_win_max * sizeof(g2_xyzz)));
  for (stream_slot& sl : ctx->streamer.slot) {
    TRY(exact(sl.bases, s.slot_bases + 1));
    for (uint64_t w = 0; w < s.ways; w++) {
      TRY(exact(sl.scalars[w], s.slot_scalars + 1));
      TRY(exact(sl.idx[w], s.slot_idx + 1));
    }
  }
  if (srs->plan.g2_points()) TRY(exact(ctx->points_g2, run_points_g2 * sizeof(g2_xyzz)));
  return exact(ctx->points, run_points * P);
}

// ---------------------------------------------------------------- C ABI

extern "C" int cuzk_plan_for(int dev, uint64_t nh, uint64_t nl, uint64_t na, uint64_t nb, const cuzk_limits* lim,
                             cuzk_plan* out) {
  if (!out) return set_err(CUZK_ERR_ARG, "plan: nil argument");
  // Host arithmetic: without the device (the harness's `plan` on a machine
  // without a GPU) the sort's storage is estimated and the accumulation's
  // resident threads taken as 0.
  if (cudaSetDevice(dev) != cudaSuccess) cudaGetLastError();
  const uint64_t n[4] = {nh, nl, na, nb};
  srs_plan p;
  const int rc = srs_plan_make(dev, n, lim, &p);
  p.to_abi(out);
  return rc;
}

bool host_pin::pin(const void* p, size_t n) {
  if (p_ || !p || !n) return false;
  void* q = const_cast<void*>(p);
  if (cudaHostRegister(q, n, cudaHostRegisterPortable) != cudaSuccess) {
    cudaGetLastError();
    if (cudaHostRegister(q, n, cudaHostRegisterPortable | cudaHostRegisterReadOnly) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
  }
  p_ = q;
  return true;
}

bool host_page_locked(const void* p) {
  cudaPointerAttributes at;
  if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return at.type == cudaMemoryTypeHost;
}

extern "C" cuzk_srs* cuzk_srs_upload_limited(int dev, const void* h, uint64_t nh, const void* l, uint64_t nl,
                                             const void* a, uint64_t na, const void* bg1, uint64_t nb,
                                             const cuzk_limits* lim) {
  if (!lim || lim->limit == 0) return cuzk_srs_upload(dev, h, nh, l, nl, a, na, bg1, nb);
  const uint64_t n[4] = {nh, nl, na, nb};
  const void* src[4] = {h, l, a, bg1};
  if (cudaSetDevice(dev) != cudaSuccess) {
    set_err(CUZK_ERR_CUDA, "cudaSetDevice(%d)", dev);
    return nullptr;
  }
  std::unique_ptr<cuzk_srs> s(new cuzk_srs());
  s->dev = dev;
  if (srs_plan_make(dev, n, lim, &s->plan)) return nullptr;
  for (int q = 0; q < 4; q++)
    if (!src[q] && s->plan.res[q] < n[q]) {  // (NULL: the caller writes the points, cuzk_srs_write)
      set_err(CUZK_ERR_ARG, "srs upload: query %d: nil points, and the plan streams %llu of its %llu", q,
              (unsigned long long)(n[q] - s->plan.res[q]), (unsigned long long)n[q]);
      return nullptr;
    }
  for (int q = 0; q < 4; q++) {
    s->n[q] = n[q];
    const uint64_t r = s->plan.res[q];
    s->host[q] = s->plan.res[q] < n[q] ? (const g1_affine*)src[q] : nullptr;
    if (s->q[q].allocate(r * A + 1)) {
      const std::string why = cuzk_last_error();
      set_err(CUZK_ERR_MEM, "srs: %llu resident points: %s", (unsigned long long)r, why.c_str());
      return nullptr;
    }
    if (r && src[q] && cudaMemcpy(s->q[q].get(), src[q], r * A, cudaMemcpyHostToDevice) != cudaSuccess) {
      set_err(CUZK_ERR_CUDA, "srs upload: %s", cudaGetErrorString(cudaGetLastError()));
      return nullptr;
    }
    if (s->host[q]) {
      const g1_affine* rest = s->host[q] + r;
      if (s->pins[q].pin(rest, (n[q] - r) * A) || host_page_locked(rest)) s->plan.pinned |= 1u << q;
    }
  }
  return s.release();
}

extern "C" int cuzk_srs_plan(const cuzk_srs* s, cuzk_plan* out) {
  if (!s || !out) return set_err(CUZK_ERR_ARG, "srs plan: nil argument");
  s->plan.to_abi(out);
  return 0;
}

extern "C" uint64_t cuzk_mem_held(int dev) { return dev >= 0 && dev < held_devices ? held_bytes[dev].load() : 0; }
