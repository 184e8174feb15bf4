// B_G2 residency: cuzk_srs_upload_bg2 adds the B query's G2 points to an
// srs (cuzk_run then computes B_G2 beside B_G1 over the same scalars):
// copied to the device, or, under a memory limit whose plan streams them,
// kept as the caller's points; cuzk_srs_read_bg2 reads them back.
#include <string.h>

#include "srs.hpp"

extern "C" int cuzk_srs_upload_bg2(cuzk_srs* s, const void* bg2, uint64_t n) {
  if (!s) return set_err(CUZK_ERR_ARG, "srs upload bg2: nil argument");
  if (n != s->n[SRS_B_G1])
    return set_err(CUZK_ERR_ARG, "srs upload bg2: %llu points, b_g1 has %llu", (unsigned long long)n,
                   (unsigned long long)s->n[SRS_B_G1]);
  s->has_bg2 = false;
  s->host_bg2 = nullptr;
  if (s->plan.limit && n && s->plan.bg2_stream == n) {  // streamed from the caller's points at every run
    if (!bg2) return set_err(CUZK_ERR_ARG, "srs upload bg2: nil points, and the plan streams B_G2");
    s->host_bg2 = (const g2_affine*)bg2;
    if (s->pin_bg2.pin(bg2, n * sizeof(g2_affine)) || host_page_locked(bg2)) s->plan.pinned |= 1u << 4;
    s->has_bg2 = true;
    return 0;
  }
  if (s->plan.limit && s->plan.bg2 != n)
    return set_err(CUZK_ERR_ARG,
                   "srs upload bg2: the srs is under a device memory limit of %llu bytes and its residency plan "
                   "has no B_G2 (%llu bytes; cuzk_limits.bg2 unset): compute B_G2 on the host",
                   (unsigned long long)s->plan.limit, (unsigned long long)(n * sizeof(g2_affine)));
  CK(cudaSetDevice(s->dev));
  TRY(s->bg2.allocate(n * sizeof(g2_affine) + 1));
  if (bg2) CK(cudaMemcpy(s->bg2.get(), bg2, n * sizeof(g2_affine), cudaMemcpyHostToDevice));
  s->has_bg2 = true;
  s->plan.bg2 = n;  // (a plan without a limit: what cuzk_srs_plan reports)
  return 0;
}

extern "C" int cuzk_srs_read_bg2(cuzk_srs* s, uint64_t off, uint64_t n, void* out) {
  if (!s || !s->has_bg2 || off + n > s->n[SRS_B_G1] || (n && !out))
    return set_err(CUZK_ERR_ARG, "srs read bg2: no B_G2 or bad range");
  if (s->host_bg2) {
    memcpy(out, s->host_bg2 + off, n * sizeof(g2_affine));
    return 0;
  }
  if (s->file_streams(4)) return set_err(CUZK_ERR_ARG, "srs read bg2: B_G2 streams from the parameter file");
  CK(cudaSetDevice(s->dev));
  CK(cudaMemcpy(out, s->points_bg2() + off, n * sizeof(g2_affine), cudaMemcpyDeviceToHost));
  return 0;
}
