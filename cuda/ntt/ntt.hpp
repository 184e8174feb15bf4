// The NTT host driver: transforms and the Groth16 H sequence on device
// vectors, queued on a stream of a context.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "../ff/field.cuh"
#include "pow_tab.cuh"

struct cuzk_ctx;

// In-place transform of 2^lgn scalars at d: dif natural -> bit-reversed,
// otherwise bit-reversed -> natural; inverse uses w^-1. in_scale multiplies
// element e by its table's e-th power before, out_scale after (NULL: none).
int ntt_dev(cuzk_ctx* ctx, fr_t* d, uint32_t lgn, bool dif, bool inverse, const pow_tab* in_scale,
            const pow_tab* out_scale, cudaStream_t st);

// H on the context's h vectors a, b, c (2^lgn each, zero padded); the result
// is in a, bit-reversed. ready[i], if set, is waited for before vector i is
// used. c_ab: c holds a copy of a, and c = a∘b is formed on the device.
int h_dev(cuzk_ctx* ctx, uint32_t lgn, cudaStream_t st, cudaEvent_t* ready = nullptr, bool c_ab = false);

// dst[i] = h.a[bitrev(i)] for i < 2^lgn - 1 (h_dev's result in base
// order) on st; dst a device vector other than h.a.
int h_natural(cuzk_ctx* ctx, uint32_t lgn, fr_t* dst, cudaStream_t st);

// dst[0, nrows) = src (host), dst[nrows, n) = 0, on st.
int upload_padded(void* dst, const void* src, uint64_t nrows, uint64_t n, cudaStream_t st);
