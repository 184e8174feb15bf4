// cuzk_srs_synthetic: an SRS of distinct multiples of the generator made on
// the device, for benchmarks (the harness knows each point's discrete log).
#include <memory>

#include "srs.hpp"
#include "synthetic.cuh"

extern "C" cuzk_srs* cuzk_srs_synthetic(int dev, uint64_t nh, uint64_t nl, uint64_t na, uint64_t nb) {
  const uint64_t n[4] = {nh, nl, na, nb};
  std::unique_ptr<cuzk_srs> s(srs_alloc(dev, n));
  if (!s) return nullptr;
  const g1_affine G = g1_generator();
  const uint32_t n2 = 1u << 17;
  device_buffer T1, T2;  // (j + 1)·G and (j + 1)·4097·G
  if (T1.allocate(4096 * sizeof(g1_xyzz)) || T2.allocate(n2 * sizeof(g1_xyzz))) {
    set_err(CUZK_ERR_MEM, "synthetic srs tables");
    return nullptr;
  }
  synth_table<<<4096 / 128, 128>>>(T1.as<g1_xyzz>(), 4096, 1, G);
  synth_table<<<n2 / 128, 128>>>(T2.as<g1_xyzz>(), n2, 4096 + 1, G);
  uint64_t off = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t th = (n[i] + 15) / 16;
    if (th) synth_points<<<(th + 127) / 128, 128>>>(s->q[i].as<g1_affine>(), n[i], off, T1.as<g1_xyzz>(),
                                                    T2.as<g1_xyzz>(), n2);
    off += 977 * (i + 1);
  }
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    set_err(CUZK_ERR_CUDA, "synthetic srs: %s", cudaGetErrorString(e));
    return nullptr;
  }
  return s.release();
}
