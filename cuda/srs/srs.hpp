// Parameter residency: a parameter set's queries on one device.
#pragma once

#include <stdint.h>

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
    if (p_) cudaHostUnregister(p_);
  }
  host_pin(const host_pin&) = delete;
  host_pin& operator=(const host_pin&) = delete;
  // false: left pageable (or already page-locked by its owner); the copies still work.
  bool pin(const void* p, size_t n);

 private:
  void* p_ = nullptr;
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
};

// The device's memory for n[i] points per query (points not set); NULL on
// failure, with the error set.
cuzk_srs* srs_alloc(int dev, const uint64_t* n);
