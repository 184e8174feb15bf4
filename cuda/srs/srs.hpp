// Parameter residency: a parameter set's queries on one device.
#pragma once

#include <stdint.h>
#include <unistd.h>

#include "../ec/g1.cuh"
#include "../ec/g2.cuh"
#include "../util/buffers.hpp"
#include "plan.hpp"

// The queries in cuzk_srs_read's numbering.
enum srs_query { SRS_H = 0, SRS_L = 1, SRS_A = 2, SRS_B_G1 = 3 };

// Host memory page-locked in place (cudaHostRegister) for an srs's life.
class host_pin {
 public:
  host_pin() = default;
  ~host_pin() {
    if (p_) {
      note_free("cudaHostUnregister", 0);
      cudaHostUnregister(p_);
    }
  }
  host_pin(const host_pin&) = delete;
  host_pin& operator=(const host_pin&) = delete;
  // false: left pageable (or already page-locked by its owner); the copies still work.
  bool pin(const void* p, size_t n);

 private:
  void* p_ = nullptr;
};

// A read-only mapping of a whole file, unmapped with its owner.
class file_mapping {
 public:
  file_mapping() = default;
  ~file_mapping() { reset(); }
  file_mapping(const file_mapping&) = delete;
  file_mapping& operator=(const file_mapping&) = delete;
  // fd's first n bytes mapped; false (nothing held) where mmap fails.
  bool map(int fd, size_t n);
  void reset();
  const char* get() const { return p_; }
  size_t size() const { return n_; }

 private:
  const char* p_ = nullptr;
  size_t n_ = 0;
};

// The parameter file a set's streamed points are read from at every run
// (cuzk_srs_open_file, srs/file.cu): the library's own descriptor and the
// byte offset of point 0 of h, l, a, b_g1 and b_g2 in it, points in the
// file's encoding (uncompressed, big-endian, not Montgomery; G2 c1 first),
// converted on the device after each chunk's upload (msm/stream.cu). With
// A chunk whose bytes lie within the page-locked copy of a range of the
// file (cuzk_srs_file_cache: the caller's host memory) is uploaded from it
// with no host read. With CUZK_FILE_MAP=1 the whole file is mapped and
// page-locked in place (mapping, held only once page-locked) and is that
// copy: every chunk is uploaded from the page cache.
class file_source {
 public:
  file_source() = default;
  ~file_source() {
    if (fd >= 0) close(fd);
  }
  file_source(const file_source&) = delete;
  file_source& operator=(const file_source&) = delete;
  int fd = -1;
  uint64_t off[5] = {};
  file_mapping mapping;  // the whole file, page-locked, or none
  host_pin pin;          // (declared after mapping: unlocked first, then unmapped)
  // The file's bytes [cache_off, cache_off + cache_len) in page-locked host
  // memory (the mapping, or the caller's), or none (cache NULL).
  const char* cache = nullptr;
  uint64_t cache_off = 0, cache_len = 0;
  // The cached copy of bytes [lo, hi) of the file, or NULL: read them.
  const char* cached(uint64_t lo, uint64_t hi) const {
    return cache && lo >= cache_off && hi >= lo && hi - cache_off <= cache_len ? cache + (lo - cache_off) : nullptr;
  }
};

struct cuzk_srs {
  int dev;
  device_buffer q[4];  // plan.res[i] points each (plus one byte, so that an empty query has an address)
  uint64_t n[4];
  srs_plan plan;               // what is resident, how the rest streams (srs/plan.hpp)
  const g1_affine* host[4];    // the caller's points of a streaming plan (read at every run), else NULL
  host_pin pins[4];            // their streamed parts, page-locked in place

  const g1_affine* points(int i) const { return q[i].as<g1_affine>(); }

  // B_G2 (cuzk_srs_upload_bg2): n[SRS_B_G1] points when has_bg2, on the
  // device, or the caller's where the plan streams them (host_bg2).
  device_buffer bg2;
  bool has_bg2 = false;
  const g2_affine* host_bg2 = nullptr;
  host_pin pin_bg2;
  const g2_affine* points_bg2() const { return bg2.as<g2_affine>(); }

  // Streamed points read from the parameter file instead of host memory.
  file_source file;
  // Query q (0..3, 4: B_G2) streams from the file.
  bool file_streams(int q) const {
    if (file.fd < 0) return false;
    return q == 4 ? has_bg2 && plan.bg2_stream != 0 : plan.res[q] < n[q];
  }
  // B_G2 streams at every run (from host memory or the file): not resident.
  bool streams_bg2() const { return host_bg2 != nullptr || file_streams(4); }
};

// The device's memory for n[i] points per query (points not set); NULL on
// failure, with the error set.
cuzk_srs* srs_alloc(int dev, const uint64_t* n);
