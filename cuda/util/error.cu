// Errors and device information: cuzk_last_error, cuzk_device_count,
// cuzk_device_info.
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <string>

#include "buffers.hpp"
#include "error.hpp"

static thread_local std::string last_error;

int set_err(int code, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  last_error = buf;
  return code;
}

extern "C" const char* cuzk_last_error(void) { return last_error.c_str(); }

extern "C" int cuzk_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

extern "C" int cuzk_device_info(int dev, char* name, int name_len, uint64_t* total_mem,
                                uint64_t* free_mem, int* sm_count) {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, dev));
  if (name && name_len > 0) {
    strncpy(name, p.name, name_len - 1);
    name[name_len - 1] = 0;
  }
  if (sm_count) *sm_count = p.multiProcessorCount;
  if (total_mem) *total_mem = p.totalGlobalMem;
  if (free_mem) {
    size_t f = 0, t = 0;
    CK(cudaSetDevice(dev));
    CK(cudaMemGetInfo(&f, &t));
    *free_mem = f;
  }
  return 0;
}

void note_free(const char* what, size_t n) {
  static const bool on = getenv("CUZK_LOG_FREES") != nullptr;
  if (!on) return;
  const int r = runs_in_flight.load() - runs_on_thread;
  if (r > 0) fprintf(stderr, "cuzk: %s of %zu bytes while %d other run(s) in flight\n", what, n, r);
}
