// B_G2 residency: cuzk_srs_upload_bg2 adds the B query's G2 points to a
// resident srs (cuzk_run then computes B_G2 beside B_G1 over the same
// scalars); cuzk_srs_read_bg2 reads them back. An srs under a memory limit
// (cuzk_srs_upload_limited with a limit) takes them only where its plan
// holds them (cuzk_limits.bg2, and the whole set fit with them).
#include "srs.hpp"

extern "C" int cuzk_srs_upload_bg2(cuzk_srs* s, const void* bg2, uint64_t n) {
  if (!s) return set_err(CUZK_ERR_ARG, "srs upload bg2: nil argument");
  if (n != s->n[SRS_B_G1])
    return set_err(CUZK_ERR_ARG, "srs upload bg2: %llu points, b_g1 has %llu", (unsigned long long)n,
                   (unsigned long long)s->n[SRS_B_G1]);
  if (s->plan.limit && s->plan.bg2 != n)
    return set_err(CUZK_ERR_ARG,
                   "srs upload bg2: the srs is under a device memory limit of %llu bytes and its residency plan "
                   "does not hold B_G2 (%llu bytes; cuzk_limits.bg2 unset, or the set does not fit with it): "
                   "compute B_G2 on the host",
                   (unsigned long long)s->plan.limit, (unsigned long long)(n * sizeof(g2_affine)));
  CK(cudaSetDevice(s->dev));
  s->has_bg2 = false;
  TRY(s->bg2.allocate(n * sizeof(g2_affine) + 1));
  if (bg2) CK(cudaMemcpy(s->bg2.get(), bg2, n * sizeof(g2_affine), cudaMemcpyHostToDevice));
  s->has_bg2 = true;
  s->plan.bg2 = n;  // (a plan without a limit: what cuzk_srs_plan reports)
  return 0;
}

extern "C" int cuzk_srs_read_bg2(cuzk_srs* s, uint64_t off, uint64_t n, void* out) {
  if (!s || !s->has_bg2 || off + n > s->n[SRS_B_G1] || (n && !out))
    return set_err(CUZK_ERR_ARG, "srs read bg2: no B_G2 or bad range");
  CK(cudaSetDevice(s->dev));
  CK(cudaMemcpy(out, s->points_bg2() + off, n * sizeof(g2_affine), cudaMemcpyDeviceToHost));
  return 0;
}
