// Owners of CUDA resources: device memory, streams and events that free
// themselves when their owner goes, so that no error path leaks one. Not
// copyable. Their device must be the current one when they are created and
// when they die (cuzk_ctx_free and cuzk_srs_free set it first). Pinned host
// memory (cuzk_host_alloc) is owned by the caller: the Go device, the harness.
#pragma once

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include "error.hpp"

// Device bytes the library's buffers hold, per device (cuzk_mem_held): what
// a memory limit (srs/plan.hpp) is checked against.
static constexpr int held_devices = 64;
inline std::atomic<uint64_t> held_bytes[held_devices];

// Runs (cuzk_run, cuzk_run_witness) in flight in the process, on any
// context, and on this thread: a cudaFree or cudaFreeHost made while
// another thread's Run is in flight waits until the whole GPU is idle, and
// holds every other thread's CUDA calls behind it. With CUZK_LOG_FREES set,
// each such free is said on stderr (what, bytes); a Run's frees of its own
// buffers with no other Run in flight are not.
inline std::atomic<int> runs_in_flight{0};
inline thread_local int runs_on_thread = 0;
struct run_in_flight {
  run_in_flight() {
    runs_in_flight++;
    runs_on_thread++;
  }
  ~run_in_flight() {
    runs_in_flight--;
    runs_on_thread--;
  }
  run_in_flight(const run_in_flight&) = delete;
  run_in_flight& operator=(const run_in_flight&) = delete;
};
void note_free(const char* what, size_t n);

// Device memory of one owner, sized once (allocate) or grown on demand
// (ensure); its contents do not survive a reallocation.
class device_buffer {
 public:
  device_buffer() = default;
  ~device_buffer() { release(); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  // At least n bytes. A reallocation asks for n + n/8 (a size that grows by
  // a little does not reallocate every call), and for n if that fails.
  int ensure(size_t n) {
    if (n <= cap_) return 0;
    release();
    if (try_malloc(n + n / 8) == cudaSuccess) return 0;
    return allocate(n);
  }
  // Exactly n bytes (what was held is freed first).
  int allocate(size_t n) {
    release();
    cudaError_t e = try_malloc(n);
    if (e != cudaSuccess) return set_err(CUZK_ERR_MEM, "cudaMalloc(%zu): %s", n, cudaGetErrorString(e));
    return 0;
  }
  void release() {
    if (p_) {
      note_free("cudaFree", cap_);
      cudaFree(p_);
      if (dev_ >= 0 && dev_ < held_devices) held_bytes[dev_] -= cap_;
    }
    p_ = nullptr;
    cap_ = 0;
  }
  void* get() const { return p_; }
  size_t capacity() const { return cap_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  // Nothing is held on entry; on failure nothing is held and the error is cleared.
  cudaError_t try_malloc(size_t n) {
    cudaError_t e = cudaMalloc(&p_, n);
    if (e != cudaSuccess) {
      cudaGetLastError();
      p_ = nullptr;
      return e;
    }
    cap_ = n;
    if (cudaGetDevice(&dev_) == cudaSuccess && dev_ >= 0 && dev_ < held_devices) held_bytes[dev_] += n;
    return cudaSuccess;
  }

  void* p_ = nullptr;
  size_t cap_ = 0;
  int dev_ = -1;
};

// A CUDA handle (stream, event) destroyed with its owner.
template <class H, cudaError_t (*Destroy)(H)>
class cuda_handle {
 public:
  cuda_handle() = default;
  ~cuda_handle() {
    if (h_) Destroy(h_);
  }
  cuda_handle(const cuda_handle&) = delete;
  cuda_handle& operator=(const cuda_handle&) = delete;
  operator H() const { return h_; }

 protected:
  H h_ = nullptr;
};

// A non-blocking stream (it does not wait on the legacy default stream), at
// a priority (cudaDeviceGetStreamPriorityRange; 0 the default, lower numbers
// first: the block scheduler starts a higher priority stream's waiting blocks
// before a lower one's).
class stream : public cuda_handle<cudaStream_t, cudaStreamDestroy> {
 public:
  int create(int priority = 0) {
    CK(cudaStreamCreateWithPriority(&h_, cudaStreamNonBlocking, priority));
    return 0;
  }
};

// An event with timing.
class event : public cuda_handle<cudaEvent_t, cudaEventDestroy> {
 public:
  int create() {
    CK(cudaEventCreate(&h_));
    return 0;
  }
};

// Milliseconds from a to b (both recorded and complete); 0 if either is not.
inline float elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  // an event not recorded (a phase this run did not have) is 0 ms, and its
  // error is not left for the next launch check (CKL) to report
  if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return ms;
}
