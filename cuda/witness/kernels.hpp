// Launchers of the witness kernels (kernels.cuh): the compact witness's
// expansion, the sparse products, the split of a query's scalars, and the
// gather lists and checks of an upload. Everything is queued on st.
#pragma once

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "../ff/field.cuh"
#include "../util/buffers.hpp"

// One CSR matrix's device arrays.
struct csr_ptrs {
  const uint32_t* row_ptr;
  const uint32_t* col;
  const uint16_t* coeff;
};

// Words of 32 bits over n bits.
inline uint64_t wit_words(uint64_t n) { return (n + 31) / 32; }

// CUB's scan storage for a prefix over n bits (wit_prefix_bits).
int wit_prefix_temp_bytes(uint64_t n, size_t* bytes);

// counts[w] = the set bits (clear: the clear bits) of word w below n, for the
// wit_words(n) words; offsets = their exclusive prefix, wit_words(n) + 1
// entries (the last is the total). temp holds at least
// wit_prefix_temp_bytes(n) bytes.
int wit_prefix_bits(const uint32_t* bits, uint64_t n, bool clear, uint32_t* counts, uint32_t* offsets,
                    const device_buffer& temp, cudaStream_t st);

// The compact form's n values into out (cuzk.h, cuzk_witness); offsets from
// wit_prefix_bits(small, n, clear = true).
int wit_expand(const uint32_t* small, const uint32_t* ones, const fr_t* others, uint64_t nothers,
               const uint32_t* offsets, uint64_t n, fr_t* out, cudaStream_t st);

// a[r] = (A·w)_r and b[r] = (B·w)_r for r < nrows.
int wit_spmv(const csr_ptrs& A, const csr_ptrs& B, const fr_t* coeffs, const fr_t* w, uint64_t nrows, fr_t* a,
             fr_t* b, cudaStream_t st);

// The split of the n scalars v_i = w[g ? g[i] : off + i]: the bitmap of the
// ones, and the tail (neither 0 nor 1) compacted in index order into
// scalars and idx (their i); its length is offsets[wit_words(n)] on the
// device. counts, offsets: wit_words(n) + 1 entries; tailbits: wit_words(n).
int wit_split(const fr_t* w, const uint32_t* g, uint64_t off, uint64_t n, uint32_t* ones, uint32_t* tailbits,
              uint32_t* counts, uint32_t* offsets, const device_buffer& temp, fr_t* scalars, uint32_t* idx,
              cudaStream_t st);

// out[rank of i among the set bits] = base + i for each set bit i < n of
// bits (bits NULL: every i); offsets from wit_prefix_bits(bits, n, false).
int mat_gather(const uint32_t* bits, uint64_t n, uint64_t base, const uint32_t* offsets, uint32_t* out,
               cudaStream_t st);

// The first r with row_ptr[r] > row_ptr[r + 1] into bad[0], the first entry
// with col >= nvars into bad[1], with coeff >= ncoeffs into bad[2]
// (bad[i] = ~0: none; bad is set to ~0 first).
int mat_check(const csr_ptrs& m, uint64_t nrows, uint64_t nnz, uint64_t nvars, uint32_t ncoeffs,
              unsigned long long* bad, cudaStream_t st);
