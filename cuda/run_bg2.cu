// B_G2 in a partition run (run_bg2.hpp).
#include "run_bg2.hpp"

#include "msm/msm.hpp"

int run_bg2_reserve(cuzk_ctx* ctx, const cuzk_srs* srs, uint64_t ntail) {
  if (!srs->has_bg2) return set_err(CUZK_ERR_ARG, "run: the srs holds no B_G2");
  TRY(ctx->points_g2.ensure(2 * sizeof(g2_xyzz)));
  if (ntail) TRY(msm_reserve(ctx, msm_scratch_for(ntail, msm_config_g2(ctx->msm), sizeof(g2_xyzz))));
  return batch_add_reserve(ctx, srs->n[SRS_B_G1], sizeof(g2_xyzz));
}

int run_bg2(cuzk_ctx* ctx, const cuzk_srs* srs, const uint32_t* ones, const fr_t* scalars, const uint32_t* idx,
            uint64_t ntail, cudaStream_t st, g2_xyzz* out) {
  if (!srs->has_bg2) return set_err(CUZK_ERR_ARG, "run: the srs holds no B_G2");
  if (ntail > srs->n[SRS_B_G1])
    return set_err(CUZK_ERR_ARG, "run: %llu B_G2 tail scalars for %llu bases", (unsigned long long)ntail,
                   (unsigned long long)srs->n[SRS_B_G1]);
  const uint64_t nb = srs->n[SRS_B_G1];
  const g2_xyzz* extra = nullptr;
  if (ones && nb) {
    g2_xyzz* sum = ctx->points_g2.as<g2_xyzz>() + 1;
    TRY(batch_add_dev_g2(ctx, srs->points_bg2(), nb, ones, sum, st));
    extra = sum;
  }
  return msm_dev_g2(ctx, srs->points_bg2(), scalars, idx, ntail, 0, extra, out, st);
}
