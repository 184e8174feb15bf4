// Parameter residency (srs.hpp): cuzk_srs_upload, cuzk_srs_read, cuzk_srs_free.
#include <string.h>

#include <algorithm>
#include <memory>
#include <string>

#include "srs.hpp"

cuzk_srs* srs_alloc(int dev, const uint64_t* n) {
  if (cudaSetDevice(dev) != cudaSuccess) {
    set_err(CUZK_ERR_CUDA, "cudaSetDevice(%d)", dev);
    return nullptr;
  }
  std::unique_ptr<cuzk_srs> s(new cuzk_srs());
  s->dev = dev;
  srs_plan_resident(n, &s->plan);
  for (int i = 0; i < 4; i++) {
    s->n[i] = n[i];
    s->host[i] = nullptr;
    if (s->q[i].allocate(n[i] * sizeof(g1_affine) + 1) != 0) {
      const std::string why = cuzk_last_error();
      set_err(CUZK_ERR_MEM, "srs: %llu points: %s", (unsigned long long)n[i], why.c_str());
      return nullptr;
    }
  }
  return s.release();
}

extern "C" void cuzk_srs_free(cuzk_srs* s) {
  if (!s) return;
  cudaSetDevice(s->dev);
  delete s;
}

extern "C" cuzk_srs* cuzk_srs_upload(int dev, const void* h, uint64_t nh, const void* l, uint64_t nl,
                                     const void* a, uint64_t na, const void* bg1, uint64_t nb) {
  const uint64_t n[4] = {nh, nl, na, nb};
  const void* src[4] = {h, l, a, bg1};
  std::unique_ptr<cuzk_srs> s(srs_alloc(dev, n));
  if (!s) return nullptr;
  for (int i = 0; i < 4; i++) {
    if (n[i] && src[i] &&
        cudaMemcpy(s->q[i].get(), src[i], n[i] * sizeof(g1_affine), cudaMemcpyHostToDevice) != cudaSuccess) {
      set_err(CUZK_ERR_CUDA, "srs upload: %s", cudaGetErrorString(cudaGetLastError()));
      return nullptr;
    }
  }
  return s.release();
}

extern "C" int cuzk_srs_write(cuzk_srs* s, int q, uint64_t off, uint64_t n, const void* src) {
  if (!s || q < 0 || q > 4 || (n && !src)) return set_err(CUZK_ERR_ARG, "srs write: bad argument");
  const uint64_t have = q == 4 ? (s->has_bg2 && !s->streams_bg2() ? s->n[SRS_B_G1] : 0) : s->plan.res[q];
  if (off > have || n > have - off)
    return set_err(CUZK_ERR_ARG, "srs write: query %d: points %llu..%llu outside the %llu resident", q,
                   (unsigned long long)off, (unsigned long long)(off + n), (unsigned long long)have);
  if (!n) return 0;
  CK(cudaSetDevice(s->dev));
  if (q == 4)
    CK(cudaMemcpy((g2_affine*)s->bg2.get() + off, src, n * sizeof(g2_affine), cudaMemcpyHostToDevice));
  else
    CK(cudaMemcpy((g1_affine*)s->q[q].get() + off, src, n * sizeof(g1_affine), cudaMemcpyHostToDevice));
  return 0;
}

// A streamed query's points past its resident prefix are read from the caller's memory.
extern "C" int cuzk_srs_read(cuzk_srs* s, int q, uint64_t off, uint64_t n, void* out) {
  if (!s || q < 0 || q > 3 || off + n > s->n[q]) return set_err(CUZK_ERR_ARG, "srs read: bad range");
  CK(cudaSetDevice(s->dev));
  const uint64_t r = s->plan.res[q];
  const uint64_t nd = off < r ? std::min(n, r - off) : 0;
  if (n > nd && !s->host[q])
    return set_err(CUZK_ERR_ARG, "srs read: query %d: points %llu..%llu stream from the parameter file", q,
                   (unsigned long long)(off + nd), (unsigned long long)(off + n));
  if (nd) CK(cudaMemcpy(out, s->points(q) + off, nd * sizeof(g1_affine), cudaMemcpyDeviceToHost));
  if (n > nd) memcpy((g1_affine*)out + nd, s->host[q] + off + nd, (n - nd) * sizeof(g1_affine));
  return 0;
}
