// Benchmarks (cuzk_bench_ntt, cuzk_bench_msm, cuzk_bench_msm_g2): CUDA event times of the
// device work alone, on device-resident random data, median of the reps.
#include <algorithm>
#include <vector>

#include "context.hpp"
#include "ff/random.cuh"
#include "msm/msm.hpp"
#include "ntt/ntt.hpp"
#include "srs/srs.hpp"

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Appends the time of queue()'s work on the main stream to times (ms).
template <class F>
static int time_main(cuzk_ctx* ctx, std::vector<float>& times, F queue) {
  CK(cudaEventRecord(ctx->bench_start, ctx->main));
  TRY(queue());
  CK(cudaEventRecord(ctx->bench_stop, ctx->main));
  CK(cudaEventSynchronize(ctx->bench_stop));
  times.push_back(elapsed_ms(ctx->bench_start, ctx->bench_stop));
  return 0;
}

// The H sequence (median of up to 2 reps): from a, b and c, or (c_ab) as
// cuzk_run does it without c: a copied into c, c = a∘b formed on the device.
static int bench_h(cuzk_ctx* ctx, uint32_t lgn, int reps, bool c_ab, float* out) {
  const uint64_t n = 1ull << lgn;
  std::vector<float> t;
  for (int r = 0; r < (reps > 2 ? 2 : reps); r++) {
    TRY(time_main(ctx, t, [&]() -> int {
      if (c_ab) CK(cudaMemcpyAsync(ctx->h.c.get(), ctx->h.a.get(), n * 32, cudaMemcpyDeviceToDevice, ctx->main));
      return h_dev(ctx, lgn, ctx->main, nullptr, c_ab);
    }));
  }
  *out = median(t);
  return 0;
}

extern "C" int cuzk_bench_ntt(cuzk_ctx* ctx, uint32_t lgn, int reps, float* ms_fwd, float* ms_inv,
                              float* ms_hseq, float* ms_hseq_ab) {
  if (!ctx || lgn < 1 || lgn > 28 || reps < 1) return set_err(CUZK_ERR_ARG, "bench ntt: bad argument");
  CK(cudaSetDevice(ctx->dev));
  cudaStream_t st = ctx->main;
  const uint64_t n = 1ull << lgn;
  TRY(ctx->h.reserve(n));
  fr_t* v[3] = {ctx->h.a.as<fr_t>(), ctx->h.b.as<fr_t>(), ctx->h.c.as<fr_t>()};
  for (int i = 0; i < 3; i++) {
    fill_rand_fr<<<(n + 255) / 256, 256, 0, st>>>(v[i], n, 17 + i);
    CKL();
  }
  ntt_tables* T;
  TRY(ctx->ntt.tables(lgn, &T));
  TRY(ntt_dev(ctx, v[0], lgn, true, false, nullptr, nullptr, st));  // warm-up
  std::vector<float> f, iv;
  for (int r = 0; r < reps; r++) {
    TRY(time_main(ctx, f, [&] { return ntt_dev(ctx, v[0], lgn, true, false, nullptr, nullptr, st); }));
    TRY(time_main(ctx, iv, [&] { return ntt_dev(ctx, v[0], lgn, false, true, nullptr, &T->inv_n, st); }));
  }
  if (ms_hseq) TRY(bench_h(ctx, lgn, reps, false, ms_hseq));
  if (ms_hseq_ab) TRY(bench_h(ctx, lgn, reps, true, ms_hseq_ab));
  *ms_fwd = median(f);
  *ms_inv = median(iv);
  return 0;
}

extern "C" int cuzk_bench_msm(cuzk_ctx* ctx, cuzk_srs* srs, int q, uint64_t n, int reps, float* ms,
                              uint32_t* window) {
  if (!ctx || !srs || q < 0 || q > 3 || n > srs->plan.res[q] || reps < 1)  // resident points only
    return set_err(CUZK_ERR_ARG, "bench msm: bad argument");
  CK(cudaSetDevice(ctx->dev));
  cudaStream_t st = ctx->main;
  TRY(ctx->tmp.ensure(n * 32 + 32));
  TRY(ctx->points.ensure(8 * sizeof(g1_xyzz)));
  fill_rand_fr<<<(n + 255) / 256, 256, 0, st>>>(ctx->tmp.as<fr_t>(), n, 99);
  CKL();
  g1_xyzz* o = ctx->points.as<g1_xyzz>();
  auto msm = [&] { return msm_dev(ctx, srs->points(q), ctx->tmp.as<fr_t>(), nullptr, n, 0, nullptr, o, st); };
  TRY(msm());  // warm-up
  std::vector<float> t;
  for (int r = 0; r < reps; r++) TRY(time_main(ctx, t, msm));
  *ms = median(t);
  if (window) *window = msm_window(n, ctx->msm.window);
  return 0;
}

// The G2 MSM over the first n points of the srs's B_G2 with random scalars.
extern "C" int cuzk_bench_msm_g2(cuzk_ctx* ctx, cuzk_srs* srs, uint64_t n, int reps, float* ms, uint32_t* window) {
  if (!ctx || !srs || !srs->has_bg2 || srs->host_bg2 || n > srs->n[SRS_B_G1] || reps < 1 || !ms)
    return set_err(CUZK_ERR_ARG, "bench msm g2: bad argument");
  CK(cudaSetDevice(ctx->dev));
  cudaStream_t st = ctx->main;
  TRY(ctx->tmp.ensure(n * 32 + 32));
  TRY(ctx->points_g2.ensure(2 * sizeof(g2_xyzz)));
  fill_rand_fr<<<(n + 255) / 256, 256, 0, st>>>(ctx->tmp.as<fr_t>(), n, 98);
  CKL();
  g2_xyzz* o = ctx->points_g2.as<g2_xyzz>();
  auto msm = [&] { return msm_dev_g2(ctx, srs->points_bg2(), ctx->tmp.as<fr_t>(), nullptr, n, 0, nullptr, o, st); };
  TRY(msm());  // warm-up
  std::vector<float> t;
  for (int r = 0; r < reps; r++) TRY(time_main(ctx, t, msm));
  *ms = median(t);
  if (window) *window = msm_window(n, ctx->msm.window);
  return 0;
}
