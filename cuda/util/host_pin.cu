// Page-locked host memory for stagings: cuzk_host_alloc, cuzk_host_free,
// one cudaHostAlloc each. Page-locking in pieces (each its own
// cudaHostRegister) is no alternative: a copy whose source spans two
// registrations is not taken as one page-locked copy (`cuzk_harness bench
// regspan`: the bytes differ), and page-locking 8 GiB in one call does not
// hold up a CRITICAL lane's Run beside it (`bench lane`, mode bigpin).
#include <cuda_runtime.h>

#include "../cuzk.h"
#include "buffers.hpp"
#include "error.hpp"

extern "C" void* cuzk_host_alloc(uint64_t bytes) {
  void* p = nullptr;
  if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    set_err(CUZK_ERR_MEM, "cudaHostAlloc(%llu): %s", (unsigned long long)bytes,
            cudaGetErrorString(cudaGetLastError()));
    return nullptr;
  }
  return p;
}

extern "C" void cuzk_host_free(void* p) {
  if (!p) return;
  note_free("cudaFreeHost (cuzk_host_free)", 0);
  cudaFreeHost(p);
}
