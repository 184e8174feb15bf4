// The library's error reporting: every C ABI function returns 0 or a negative
// CUZK_ERR_* code and leaves a message for cuzk_last_error (per thread).
#pragma once

#include <cuda_runtime.h>

#include "../cuzk.h"

// Sets the calling thread's message and returns code.
int set_err(int code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// CK(call): return CUZK_ERR_CUDA with the call and CUDA's message if it fails.
#define CK(call)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess)                                                                \
      return set_err(CUZK_ERR_CUDA, "%s:%d: %s: %s", __FILE__, __LINE__, #call,            \
                     cudaGetErrorString(e_));                                             \
  } while (0)
// CKL(): the same for the last kernel launch.
#define CKL() CK(cudaGetLastError())
// TRY(x): return x's code if it is not 0.
#define TRY(x)              \
  do {                      \
    int r_ = (x);           \
    if (r_ != 0) return r_; \
  } while (0)
