// cuzk_srs_synthetic_bg2: a synthetic B_G2 made on the device (the G2 form
// of cuzk_srs_synthetic's points, offset 0), for benchmarks and checks.
#include "srs.hpp"
#include "synthetic.cuh"

extern "C" int cuzk_srs_synthetic_bg2(cuzk_srs* s) {
  if (!s) return set_err(CUZK_ERR_ARG, "synthetic bg2: nil srs");
  CK(cudaSetDevice(s->dev));
  const uint64_t n = s->n[SRS_B_G1];
  s->has_bg2 = false;
  TRY(s->bg2.allocate(n * sizeof(g2_affine) + 1));
  const g2_affine G = g2_generator();
  const uint32_t n2 = 1u << 17;
  device_buffer T1, T2;  // (j + 1)·G and (j + 1)·4097·G
  TRY(T1.allocate(4096 * sizeof(g2_xyzz)));
  TRY(T2.allocate(n2 * sizeof(g2_xyzz)));
  synth_table<<<4096 / 128, 128>>>(T1.as<g2_xyzz>(), 4096, 1, G);
  synth_table<<<n2 / 128, 128>>>(T2.as<g2_xyzz>(), n2, 4096 + 1, G);
  const uint64_t th = (n + 15) / 16;
  if (th)
    synth_points<<<(th + 127) / 128, 128>>>(s->bg2.as<g2_affine>(), n, 0, T1.as<g2_xyzz>(), T2.as<g2_xyzz>(), n2);
  CKL();
  CK(cudaDeviceSynchronize());
  s->has_bg2 = true;
  return 0;
}
