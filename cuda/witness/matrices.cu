// Pre-compiled matrices on a device (witness.hpp): cuzk_matrices_upload,
// cuzk_matrices_free, cuzk_matrices_bytes. The upload checks the arrays on
// the device (the host would walk every entry) and builds the queries'
// gather lists there from the density bitmaps.
#include <algorithm>
#include <memory>
#include <string>

#include "kernels.hpp"
#include "witness.hpp"

uint64_t cuzk_matrices::bytes() const {
  uint64_t s = coeffs.capacity();
  for (const csr_dev* m : {&a, &b}) s += m->row_ptr.capacity() + m->col.capacity() + m->coeff.capacity();
  for (const device_buffer& g : gather) s += g.capacity();
  return s;
}

// Set bits of the first n bits of a host bitmap.
static uint64_t host_popcount(const uint32_t* bits, uint64_t n) {
  uint64_t c = 0;
  for (uint64_t w = 0; w < n / 32; w++) c += __builtin_popcount(bits[w]);
  if (n & 31) c += __builtin_popcount(bits[n / 32] & ((1u << (n & 31)) - 1));
  return c;
}

static int check_csr_host(const char* name, const cuzk_csr* m, uint64_t nrows) {
  if (!m || !m->row_ptr || (m->nnz && (!m->col || !m->coeff)))
    return set_err(CUZK_ERR_ARG, "matrices: %s: nil array", name);
  if (m->nnz > UINT32_MAX)
    return set_err(CUZK_ERR_ARG, "matrices: %s: %llu entries (row_ptr is 32-bit)", name, (unsigned long long)m->nnz);
  if (m->row_ptr[0] != 0 || m->row_ptr[nrows] != m->nnz)
    return set_err(CUZK_ERR_ARG, "matrices: %s: row_ptr[0] = %u, row_ptr[%llu] = %u, want 0 and nnz %llu", name,
                   m->row_ptr[0], (unsigned long long)nrows, m->row_ptr[nrows], (unsigned long long)m->nnz);
  return 0;
}

static int check_host(const cuzk_csr* a, const cuzk_csr* b, const void* coeffs, uint32_t ncoeffs, uint64_t nrows,
                      uint64_t ninputs, uint64_t naux, const uint32_t* a_aux, const uint32_t* b_in,
                      const uint32_t* b_aux) {
  if (nrows > (1ull << 28)) return set_err(CUZK_ERR_ARG, "matrices: %llu rows > 2^28", (unsigned long long)nrows);
  if (ninputs + naux >= (1ull << 31))
    return set_err(CUZK_ERR_ARG, "matrices: %llu variables (at most 2^31 - 1)", (unsigned long long)(ninputs + naux));
  if ((naux && (!a_aux || !b_aux)) || (ninputs && !b_in)) return set_err(CUZK_ERR_ARG, "matrices: nil density");
  if (ncoeffs < 2 || !coeffs) return set_err(CUZK_ERR_ARG, "matrices: %u coefficients (at least 1 and -1)", ncoeffs);
  const fr_t* c = static_cast<const fr_t*>(coeffs);
  if (!(c[0] == fr_t::one()) || !(c[1] == fr_t::zero() - fr_t::one()))
    return set_err(CUZK_ERR_ARG, "matrices: coefficient 0 must be 1 and coefficient 1 must be -1 (Montgomery)");
  TRY(check_csr_host("A", a, nrows));
  return check_csr_host("B", b, nrows);
}

static int upload(device_buffer& d, const void* src, size_t bytes, cudaStream_t st) {
  TRY(d.allocate(bytes + 4));  // + 4: an empty array has an address
  if (bytes) CK(cudaMemcpyAsync(d.get(), src, bytes, cudaMemcpyHostToDevice, st));
  return 0;
}

// m's arrays on the device, checked there.
static int upload_csr(const char* name, csr_dev& d, const cuzk_csr* m, uint64_t nrows, uint64_t nvars,
                      uint32_t ncoeffs, unsigned long long* bad_dev, cudaStream_t st) {
  d.nnz = m->nnz;
  TRY(upload(d.row_ptr, m->row_ptr, (nrows + 1) * 4, st));
  TRY(upload(d.col, m->col, m->nnz * 4, st));
  TRY(upload(d.coeff, m->coeff, m->nnz * 2, st));
  const csr_ptrs p = {d.row_ptr.as<uint32_t>(), d.col.as<uint32_t>(), d.coeff.as<uint16_t>()};
  TRY(mat_check(p, nrows, m->nnz, nvars, ncoeffs, bad_dev, st));
  unsigned long long bad[3];
  CK(cudaMemcpyAsync(bad, bad_dev, sizeof bad, cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  if (bad[0] != ~0ull)
    return set_err(CUZK_ERR_ARG, "matrices: %s: row_ptr[%llu] = %u > row_ptr[%llu + 1] = %u", name, bad[0],
                   m->row_ptr[bad[0]], bad[0], m->row_ptr[bad[0] + 1]);
  if (bad[1] != ~0ull)
    return set_err(CUZK_ERR_ARG, "matrices: %s: entry %llu: column %u of %llu variables", name, bad[1], m->col[bad[1]],
                   (unsigned long long)nvars);
  if (bad[2] != ~0ull)
    return set_err(CUZK_ERR_ARG, "matrices: %s: entry %llu: coefficient %u of %u", name, bad[2],
                   (unsigned)m->coeff[bad[2]], ncoeffs);
  return 0;
}

// The gather list of one query: spans of variables taken whole (bits NULL)
// or where their density bit is set, in order.
struct gather_span {
  const uint32_t* bits;  // host bitmap, or NULL
  uint64_t n, base;      // n variables from variable base
};

static int build_gather(device_buffer& out, uint64_t total, const gather_span* spans, int nspans, cudaStream_t st) {
  TRY(out.allocate(total * 4 + 4));
  uint64_t maxn = 0;
  for (int i = 0; i < nspans; i++) maxn = std::max(maxn, spans[i].n);
  size_t tb;
  TRY(wit_prefix_temp_bytes(maxn, &tb));
  device_buffer bits, counts, offsets, temp;
  TRY(bits.allocate(wit_words(maxn) * 4 + 4));
  TRY(counts.allocate((wit_words(maxn) + 1) * 4));
  TRY(offsets.allocate((wit_words(maxn) + 1) * 4));
  TRY(temp.allocate(tb + 4));
  uint64_t at = 0;
  for (int i = 0; i < nspans; i++) {
    const gather_span& s = spans[i];
    uint32_t* dst = out.as<uint32_t>() + at;
    if (!s.bits) {
      TRY(mat_gather(nullptr, s.n, s.base, nullptr, dst, st));
      at += s.n;
      continue;
    }
    if (s.n) CK(cudaMemcpyAsync(bits.get(), s.bits, wit_words(s.n) * 4, cudaMemcpyHostToDevice, st));
    TRY(wit_prefix_bits(bits.as<uint32_t>(), s.n, false, counts.as<uint32_t>(), offsets.as<uint32_t>(), temp, st));
    TRY(mat_gather(bits.as<uint32_t>(), s.n, s.base, offsets.as<uint32_t>(), dst, st));
    at += host_popcount(s.bits, s.n);
  }
  CK(cudaStreamSynchronize(st));  // before the scratch goes
  if (at != total) return set_err(CUZK_ERR_ARG, "matrices: gather list of %llu, want %llu", (unsigned long long)at,
                                  (unsigned long long)total);
  return 0;
}

static int matrices_queue(cuzk_matrices* M, const cuzk_csr* a, const cuzk_csr* b, const void* coeffs,
                          const uint32_t* a_aux, const uint32_t* b_in, const uint32_t* b_aux,
                          unsigned long long* bad, cudaStream_t st) {
  const uint64_t ni = M->ninputs, na = M->naux, nv = M->nvars();
  TRY(upload_csr("A", M->a, a, M->nrows, nv, M->ncoeffs, bad, st));
  TRY(upload_csr("B", M->b, b, M->nrows, nv, M->ncoeffs, bad, st));
  TRY(upload(M->coeffs, coeffs, (uint64_t)M->ncoeffs * 32, st));
  M->nq[0] = na;
  M->nq[1] = ni + host_popcount(a_aux, na);
  M->nq[2] = host_popcount(b_in, ni) + host_popcount(b_aux, na);
  const gather_span ga[2] = {{nullptr, ni, 0}, {a_aux, na, ni}};
  const gather_span gb[2] = {{b_in, ni, 0}, {b_aux, na, ni}};
  TRY(build_gather(M->gather[1], M->nq[1], ga, 2, st));
  return build_gather(M->gather[2], M->nq[2], gb, 2, st);
}

static int matrices_upload(cuzk_matrices* M, const cuzk_csr* a, const cuzk_csr* b, const void* coeffs,
                           const uint32_t* a_aux, const uint32_t* b_in, const uint32_t* b_aux) {
  stream st;  // its own: the upload waits for nothing another context runs
  TRY(st.create());
  device_buffer bad;
  TRY(bad.allocate(3 * sizeof(unsigned long long)));
  const int rc = matrices_queue(M, a, b, coeffs, a_aux, b_in, b_aux, bad.as<unsigned long long>(), st);
  const cudaError_t e = cudaStreamSynchronize(st);  // nothing in flight when buffers go, also on failure
  if (rc) return rc;
  if (e != cudaSuccess) return set_err(CUZK_ERR_CUDA, "matrices upload: %s", cudaGetErrorString(e));
  return 0;
}

extern "C" cuzk_matrices* cuzk_matrices_upload(int dev, const cuzk_csr* a, const cuzk_csr* b, const void* coeffs,
                                               uint32_t ncoeffs, uint64_t nrows, uint64_t ninputs, uint64_t naux,
                                               const uint32_t* a_aux_density, const uint32_t* b_input_density,
                                               const uint32_t* b_aux_density) {
  if (check_host(a, b, coeffs, ncoeffs, nrows, ninputs, naux, a_aux_density, b_input_density, b_aux_density))
    return nullptr;
  if (cudaSetDevice(dev) != cudaSuccess) {
    set_err(CUZK_ERR_CUDA, "cudaSetDevice(%d): %s", dev, cudaGetErrorString(cudaGetLastError()));
    return nullptr;
  }
  std::unique_ptr<cuzk_matrices> M(new cuzk_matrices());
  M->dev = dev;
  M->nrows = nrows;
  M->ninputs = ninputs;
  M->naux = naux;
  M->ncoeffs = ncoeffs;
  if (matrices_upload(M.get(), a, b, coeffs, a_aux_density, b_input_density, b_aux_density)) return nullptr;
  return M.release();
}

extern "C" void cuzk_matrices_free(cuzk_matrices* m) {
  if (!m) return;
  cudaSetDevice(m->dev);
  delete m;
}

extern "C" uint64_t cuzk_matrices_bytes(const cuzk_matrices* m, uint64_t* nq) {
  if (!m) return 0;
  if (nq)
    for (int q = 0; q < 3; q++) nq[q] = m->nq[q];
  return m->bytes();
}
