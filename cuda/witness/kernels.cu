// Launchers of the witness kernels (kernels.hpp).
#include <cub/cub.cuh>

#include "kernels.cuh"
#include "kernels.hpp"

static const unsigned wit_threads = 256;

static unsigned blocks_for(uint64_t n) { return (unsigned)((n + wit_threads - 1) / wit_threads); }

int wit_prefix_temp_bytes(uint64_t n, size_t* bytes) {
  *bytes = 0;
  CK(cub::DeviceScan::ExclusiveSum(nullptr, *bytes, (const uint32_t*)nullptr, (uint32_t*)nullptr,
                                   (int)(wit_words(n) + 1)));
  return 0;
}

// offsets = exclusive prefix of counts[0 .. nw] (nw + 1 entries).
static int scan_words(const uint32_t* counts, uint32_t* offsets, uint64_t nw, const device_buffer& temp,
                      cudaStream_t st) {
  size_t tb = temp.capacity();
  CK(cub::DeviceScan::ExclusiveSum(temp.get(), tb, counts, offsets, (int)(nw + 1), st));
  return 0;
}

int wit_prefix_bits(const uint32_t* bits, uint64_t n, bool clear, uint32_t* counts, uint32_t* offsets,
                    const device_buffer& temp, cudaStream_t st) {
  const uint64_t nw = wit_words(n);
  wit_count_bits<<<blocks_for(nw + 1), wit_threads, 0, st>>>(bits, n, clear, counts);
  CKL();
  return scan_words(counts, offsets, nw, temp, st);
}

int wit_expand(const uint32_t* small, const uint32_t* ones, const fr_t* others, uint64_t nothers,
               const uint32_t* offsets, uint64_t n, fr_t* out, cudaStream_t st) {
  if (n == 0) return 0;
  wit_expand_k<<<blocks_for(n), wit_threads, 0, st>>>(small, ones, others, nothers, offsets, n, out);
  CKL();
  return 0;
}

int wit_spmv(const csr_ptrs& A, const csr_ptrs& B, const fr_t* coeffs, const fr_t* w, uint64_t nrows, fr_t* a,
             fr_t* b, cudaStream_t st) {
  if (nrows == 0) return 0;
  wit_spmv_k<<<blocks_for(nrows), wit_threads, 0, st>>>(A.row_ptr, A.col, A.coeff, B.row_ptr, B.col, B.coeff, coeffs,
                                                        w, nrows, a, b);
  CKL();
  return 0;
}

int wit_split(const fr_t* w, const uint32_t* g, uint64_t off, uint64_t n, uint32_t* ones, uint32_t* tailbits,
              uint32_t* counts, uint32_t* offsets, const device_buffer& temp, fr_t* scalars, uint32_t* idx,
              cudaStream_t st) {
  const uint64_t nw = wit_words(n);
  // whole warps over nw + 1 words (wit_threads is a multiple of 32)
  wit_classify_k<<<blocks_for((nw + 1) * 32), wit_threads, 0, st>>>(w, g, off, n, ones, tailbits, counts);
  CKL();
  TRY(scan_words(counts, offsets, nw, temp, st));
  if (n == 0) return 0;
  wit_fill_k<<<blocks_for(n), wit_threads, 0, st>>>(w, g, off, n, tailbits, offsets, scalars, idx);
  CKL();
  return 0;
}

int mat_gather(const uint32_t* bits, uint64_t n, uint64_t base, const uint32_t* offsets, uint32_t* out,
               cudaStream_t st) {
  if (n == 0) return 0;
  mat_gather_k<<<blocks_for(n), wit_threads, 0, st>>>(bits, n, base, offsets, out);
  CKL();
  return 0;
}

int mat_check(const csr_ptrs& m, uint64_t nrows, uint64_t nnz, uint64_t nvars, uint32_t ncoeffs,
              unsigned long long* bad, cudaStream_t st) {
  CK(cudaMemsetAsync(bad, 0xff, 3 * sizeof(unsigned long long), st));
  if (nrows) {
    mat_check_rows_k<<<blocks_for(nrows), wit_threads, 0, st>>>(m.row_ptr, nrows, bad);
    CKL();
  }
  if (nnz) {
    mat_check_entries_k<<<blocks_for(nnz), wit_threads, 0, st>>>(m.col, m.coeff, nnz, nvars, ncoeffs, bad + 1);
    CKL();
  }
  return 0;
}
