// Page-locked host memory for stagings: cuzk_host_alloc, cuzk_host_free.
// By default one cudaHostAlloc each. With CUZK_PIN_PIECES=1 in the
// environment (an experiment, docs/gpu-notes.md), an allocation of at least
// one piece is anonymous mapped memory whose pages the kernel populates
// (MAP_POPULATE: zeroed outside the CUDA driver) and page-locks in place in
// pieces of 256 MiB, each its own cudaHostRegister. The driver holds every
// other CUDA call of the process while it page-locks; so it is held a piece
// at a time (tens of milliseconds), not for a whole staging (8.3 GB for a
// 32 GiB partition: seconds, during which a CRITICAL proof's calls wait).
// Whether a copy that spans two registrations runs as a page-locked one is
// what `cuzk_harness bench regspan` checks.
#include <cuda_runtime.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <mutex>
#include <unordered_map>

#include "../cuzk.h"
#include "buffers.hpp"
#include "error.hpp"

static const uint64_t pin_piece = 256ull << 20;

static bool pin_pieces() {
  static const bool on = [] {
    const char* v = getenv("CUZK_PIN_PIECES");
    return v && v[0] == '1';
  }();
  return on;
}

// The allocations made in pieces: mapping → its length.
static std::mutex pieces_mu;
static std::unordered_map<void*, uint64_t> pieces;

// Unregisters the pieces of mapping p of n bytes that begin below `done`
// and unmaps it.
static void unpin(char* p, uint64_t done, uint64_t n) {
  for (uint64_t o = 0; o < done; o += pin_piece) cudaHostUnregister(p + o);
  munmap(p, n);
}

static void* alloc_pieces(uint64_t bytes) {
  const uint64_t n = (bytes + 4095) & ~4095ull;  // whole pages; the last piece may be short
  void* m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (m == MAP_FAILED) {
    set_err(CUZK_ERR_MEM, "mmap(%llu) for page-locked pieces failed", (unsigned long long)n);
    return nullptr;
  }
  char* p = static_cast<char*>(m);
  for (uint64_t o = 0; o < n; o += pin_piece) {
    const uint64_t len = n - o < pin_piece ? n - o : pin_piece;
    if (cudaHostRegister(p + o, len, cudaHostRegisterPortable) != cudaSuccess) {
      set_err(CUZK_ERR_MEM, "cudaHostRegister of piece %llu of %llu: %s", (unsigned long long)(o / pin_piece),
              (unsigned long long)(n / pin_piece), cudaGetErrorString(cudaGetLastError()));
      unpin(p, o, n);
      return nullptr;
    }
  }
  std::lock_guard<std::mutex> g(pieces_mu);
  pieces[p] = n;
  return p;
}

extern "C" void* cuzk_host_alloc(uint64_t bytes) {
  if (pin_pieces() && bytes >= pin_piece) return alloc_pieces(bytes);
  void* p = nullptr;
  if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    set_err(CUZK_ERR_MEM, "cudaHostAlloc(%llu): %s", (unsigned long long)bytes,
            cudaGetErrorString(cudaGetLastError()));
    return nullptr;
  }
  return p;
}

extern "C" void cuzk_host_free(void* p) {
  if (!p) return;
  uint64_t n = 0;
  {
    std::lock_guard<std::mutex> g(pieces_mu);
    auto it = pieces.find(p);
    if (it != pieces.end()) {
      n = it->second;
      pieces.erase(it);
    }
  }
  note_free(n ? "cudaHostUnregister (cuzk_host_free, pieces)" : "cudaFreeHost (cuzk_host_free)", n);
  if (n) {
    unpin(static_cast<char*>(p), n, n);
    return;
  }
  cudaFreeHost(p);
}
