// B_G2 in a partition run (run_bg2.hpp).
#include "run_bg2.hpp"

#include <algorithm>

#include "msm/msm.hpp"

int run_bg2_reserve(cuzk_ctx* ctx, const cuzk_srs* srs, uint64_t ntail) {
  if (!srs->has_bg2) return set_err(CUZK_ERR_ARG, "run: the srs holds no B_G2");
  TRY(ctx->points_g2.ensure(run_points_g2 * sizeof(g2_xyzz)));
  // streamed: one MSM and one batch addition per chunk (the plan's scratch holds them)
  const uint64_t nb = srs->streams_bg2() ? srs->plan.chunk_g2() : srs->n[SRS_B_G1];
  ntail = std::min(ntail, nb);
  if (ntail) TRY(msm_reserve(ctx, msm_scratch_for(ntail, msm_config_g2(ctx->msm), sizeof(g2_xyzz))));
  return batch_add_reserve(ctx, nb, sizeof(g2_xyzz));
}

int run_bg2(cuzk_ctx* ctx, const cuzk_srs* srs, const srs_msm_in& in, cudaStream_t st, g2_xyzz* out) {
  if (!srs->has_bg2) return set_err(CUZK_ERR_ARG, "run: the srs holds no B_G2");
  const uint64_t nb = srs->n[SRS_B_G1];
  if (in.ntail > nb)
    return set_err(CUZK_ERR_ARG, "run: %llu B_G2 tail scalars for %llu bases", (unsigned long long)in.ntail,
                   (unsigned long long)nb);
  g2_xyzz* tmp = ctx->points_g2.as<g2_xyzz>() + 1;
  if (srs->streams_bg2()) return srs_msm_bg2(ctx, srs, in, out, tmp, st);
  if (in.ndev != in.ntail)
    return set_err(CUZK_ERR_ARG, "run: B_G2 is resident, %llu of %llu tail entries on the device",
                   (unsigned long long)in.ndev, (unsigned long long)in.ntail);
  const g2_xyzz* extra = nullptr;
  if (in.ones && nb) {
    TRY(batch_add_dev_g2(ctx, srs->points_bg2(), nb, in.ones, tmp, st));
    extra = tmp;
  }
  return msm_dev_g2(ctx, srs->points_bg2(), in.scalars, in.idx, in.ntail, 0, extra, out, st);
}
