// Pre-compiled matrices resident on a device (cuzk_matrices) and the
// scratch of witness runs (witness_scratch, one per context).
#pragma once

#include <stdint.h>

#include "../ff/field.cuh"
#include "../util/buffers.hpp"

// One matrix in CSR on the device.
struct csr_dev {
  device_buffer row_ptr, col, coeff;  // nrows + 1, nnz, nnz entries
  uint64_t nnz = 0;
};

struct cuzk_matrices {
  int dev;
  uint64_t nrows, ninputs, naux;
  uint32_t ncoeffs;
  csr_dev a, b;
  device_buffer coeffs;     // ncoeffs Fr values
  device_buffer gather[3];  // the variable of each base of L (none: aux j is ninputs + j), A, B
  uint64_t nq[3];           // bases of L, A, B

  uint64_t nvars() const { return ninputs + naux; }
  const uint32_t* gather_list(int q) const { return q == 0 ? nullptr : gather[q].as<uint32_t>(); }
  uint64_t bytes() const;
};

// Pinned host memory freed with its owner.
class pinned_host {
 public:
  pinned_host() = default;
  ~pinned_host() {
    if (p_) cudaFreeHost(p_);
  }
  pinned_host(const pinned_host&) = delete;
  pinned_host& operator=(const pinned_host&) = delete;
  int allocate(size_t n) {
    if (p_) return 0;
    CK(cudaHostAlloc(&p_, n, cudaHostAllocPortable));
    return 0;
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
};

// cuzk_run_witness's buffers and events (the run also uses cuzk_run's
// buffers: the H vectors, ctx->run_in for the split, the MSM scratch).
struct witness_scratch {
  device_buffer w;                     // [input ‖ aux]: 32 bytes per variable
  device_buffer small, ones, others;   // the compact form's parts as uploaded
  device_buffer counts, offsets;       // per 32-bit word: a count of bits, its exclusive prefix (+ the total)
  device_buffer tailbits;              // the split: per word, which of its scalars go to the tail
  device_buffer scan_temp;             // CUB's scan storage
  pinned_host ntail_host;              // the split's three tail lengths (uint32 each)
  event spmv_start, spmv_done, split_start, split_done;
  bool made = false;

  // What cuzk_witness_split_read returns: the last run's split lengths.
  bool last_valid = false;
  uint64_t last_nq[3] = {0, 0, 0}, last_ntail[3] = {0, 0, 0};

  // The events and the pinned words, on first use.
  int make() {
    if (made) return 0;
    TRY(spmv_start.create());
    TRY(spmv_done.create());
    TRY(split_start.create());
    TRY(split_done.create());
    TRY(ntail_host.allocate(4 * sizeof(uint32_t)));
    made = true;
    return 0;
  }
};
