// Parameter residency: a parameter set's G1 queries on one device.
#pragma once

#include <stdint.h>

#include "../ec/g1.cuh"
#include "../ec/g2.cuh"
#include "../util/buffers.hpp"

// The queries in cuzk_srs_read's numbering.
enum srs_query { SRS_H = 0, SRS_L = 1, SRS_A = 2, SRS_B_G1 = 3 };

struct cuzk_srs {
  int dev;
  device_buffer q[4];  // n[i] points each (plus one byte, so that an empty query has an address)
  uint64_t n[4];

  const g1_affine* points(int i) const { return q[i].as<g1_affine>(); }

  // B_G2 (cuzk_srs_upload_bg2): n[SRS_B_G1] points when has_bg2.
  device_buffer bg2;
  bool has_bg2 = false;
  const g2_affine* points_bg2() const { return bg2.as<g2_affine>(); }
};

// The device's memory for n[i] points per query (points not set); NULL on
// failure, with the error set.
cuzk_srs* srs_alloc(int dev, const uint64_t* n);
