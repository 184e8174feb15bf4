// The library's error reporting: every C ABI function returns 0 or a negative
// CUZK_ERR_* code and leaves a message for cuzk_last_error (per thread).
#pragma once

#include <cuda_runtime.h>

#include "../cuzk.h"

// Sets the calling thread's message and returns code.
int set_err(int code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// The library's code for a CUDA error: CUZK_ERR_LOST for the sticky ones
// (the context is unusable until the process ends), else CUZK_ERR_CUDA.
inline int cuda_err_code(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
      return CUZK_ERR_LOST;
    default:
      return CUZK_ERR_CUDA;
  }
}

// CK(call): return cuda_err_code's code with the call and CUDA's message if it fails.
#define CK(call)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess)                                                                \
      return set_err(cuda_err_code(e_), "%s:%d: %s: %s", __FILE__, __LINE__, #call,       \
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
