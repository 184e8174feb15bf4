// Witness kernels: the compact witness's expansion, a = A·w and b = B·w,
// the 0/1/other split of a query's scalars, and the gather lists and
// checks of a matrix upload. Memory-bound gathers and stream compaction;
// the only products are those of coefficients other than 1 and -1.
#pragma once

#include "../ff/field.cuh"
#include "../util/device.cuh"

// The bits of word x below bit b.
__device__ __forceinline__ uint32_t bits_below(uint32_t x, uint32_t b) { return x & ((1u << b) - 1); }

// counts[w] = set (clear: clear) bits of word w below n; counts[nw] = 0, so
// that the exclusive scan of nw + 1 entries ends with the total.
__global__ void wit_count_bits(const uint32_t* __restrict__ bits, uint64_t n, bool clear, uint32_t* counts) {
  const uint64_t w = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, nw = (n + 31) / 32;
  if (w > nw) return;
  if (w == nw) {
    counts[w] = 0;
    return;
  }
  const uint32_t valid = (w == nw - 1 && (n & 31)) ? (1u << (n & 31)) - 1 : ~0u;
  const uint32_t x = bits[w];
  counts[w] = __popc((clear ? ~x : x) & valid);
}

// aux[j] for j < n from the compact form (cuzk.h, cuzk_witness).
__global__ void wit_expand_k(const uint32_t* __restrict__ small, const uint32_t* __restrict__ ones,
                             const fr_t* __restrict__ others, uint64_t nothers, const uint32_t* __restrict__ offsets,
                             uint64_t n, fr_t* out) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const uint32_t s = small[j >> 5], b = j & 31;
  fr_t v = fr_t::zero();
  if ((s >> b) & 1) {
    if ((ones[j >> 5] >> b) & 1) v = fr_t::one();
  } else {
    const uint64_t k = offsets[j >> 5] + __popc(bits_below(~s, b));
    if (k < nothers) v = ldfr(others + k);  // the host checked nothers; never read beyond it
  }
  out[j] = v;
}

// One row of m times w. Coefficients 0 and 1 are 1 and -1: no product.
__device__ __forceinline__ fr_t csr_row(const uint32_t* __restrict__ row_ptr, const uint32_t* __restrict__ col,
                                        const uint16_t* __restrict__ coeff, const fr_t* __restrict__ coeffs,
                                        const fr_t* __restrict__ w, uint64_t r) {
  const uint32_t e = __ldg(row_ptr + r + 1);
  fr_t acc = fr_t::zero();
  for (uint32_t k = __ldg(row_ptr + r); k < e; k++) {
    const fr_t v = ldfr(w + __ldg(col + k));
    const uint32_t q = __ldg(coeff + k);
    if (q == 0)
      acc = acc + v;
    else if (q == 1)
      acc = acc - v;
    else
      acc = acc + v * ldfr(coeffs + q);
  }
  return acc;
}

// A thread per row: a[r] = (A·w)_r, b[r] = (B·w)_r (two independent chains of gathers).
__global__ void wit_spmv_k(const uint32_t* __restrict__ a_rp, const uint32_t* __restrict__ a_col,
                           const uint16_t* __restrict__ a_cf, const uint32_t* __restrict__ b_rp,
                           const uint32_t* __restrict__ b_col, const uint16_t* __restrict__ b_cf,
                           const fr_t* __restrict__ coeffs, const fr_t* __restrict__ w, uint64_t nrows, fr_t* a,
                           fr_t* b) {
  const uint64_t r = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  a[r] = csr_row(a_rp, a_col, a_cf, coeffs, w, r);
  b[r] = csr_row(b_rp, b_col, b_cf, coeffs, w, r);
}

// Scalar i of a query: variable g[i], or off + i without a gather list.
__device__ __forceinline__ fr_t query_scalar(const fr_t* __restrict__ w, const uint32_t* __restrict__ g, uint64_t off,
                                             uint64_t i) {
  return ldfr(w + (g ? (uint64_t)__ldg(g + i) : off + i));
}

// A warp per 32 scalars (whole warps: the grid covers nw + 1 words in
// blocks of a multiple of 32 threads): the word of ones, the word of tail
// flags and its count; the warp of word nw sets counts[nw] = 0.
__global__ void wit_classify_k(const fr_t* __restrict__ w, const uint32_t* __restrict__ g, uint64_t off, uint64_t n,
                               uint32_t* ones, uint32_t* tailbits, uint32_t* counts) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, word = i >> 5, nw = (n + 31) / 32;
  bool one = false, tail = false;
  if (i < n) {
    const fr_t v = query_scalar(w, g, off, i);
    one = v == fr_t::one();
    tail = !one && !v.is_zero();
  }
  const uint32_t bo = __ballot_sync(~0u, one), bt = __ballot_sync(~0u, tail);
  if ((threadIdx.x & 31) != 0) return;
  if (word < nw) {
    ones[word] = bo;
    tailbits[word] = bt;
    counts[word] = __popc(bt);
  } else if (word == nw) {
    counts[nw] = 0;
  }
}

// Each tail scalar to its place: offsets[word] plus the tail flags below it.
__global__ void wit_fill_k(const fr_t* __restrict__ w, const uint32_t* __restrict__ g, uint64_t off, uint64_t n,
                           const uint32_t* __restrict__ tailbits, const uint32_t* __restrict__ offsets,
                           fr_t* scalars, uint32_t* idx) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t tb = tailbits[i >> 5], b = i & 31;
  if (!((tb >> b) & 1)) return;
  const uint32_t t = offsets[i >> 5] + __popc(bits_below(tb, b));
  scalars[t] = query_scalar(w, g, off, i);
  idx[t] = (uint32_t)i;
}

// out[rank of i among the set bits] = base + i (bits NULL: out[i] = base + i).
__global__ void mat_gather_k(const uint32_t* __restrict__ bits, uint64_t n, uint64_t base,
                             const uint32_t* __restrict__ offsets, uint32_t* out) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (!bits) {
    out[i] = (uint32_t)(base + i);
    return;
  }
  const uint32_t x = bits[i >> 5], b = i & 31;
  if ((x >> b) & 1) out[offsets[i >> 5] + __popc(bits_below(x, b))] = (uint32_t)(base + i);
}

__global__ void mat_check_rows_k(const uint32_t* __restrict__ row_ptr, uint64_t nrows, unsigned long long* bad) {
  const uint64_t r = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r < nrows && row_ptr[r] > row_ptr[r + 1]) atomicMin(bad, (unsigned long long)r);
}

__global__ void mat_check_entries_k(const uint32_t* __restrict__ col, const uint16_t* __restrict__ coeff, uint64_t nnz,
                                    uint64_t nvars, uint32_t ncoeffs, unsigned long long* bad) {
  const uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nnz) return;
  if (col[k] >= nvars) atomicMin(bad, (unsigned long long)k);
  if (coeff[k] >= ncoeffs) atomicMin(bad + 1, (unsigned long long)k);
}
