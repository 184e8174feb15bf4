// Powers of a fixed Fr element from two tables of 2^14 entries each, and the
// NTT passes' inter-pass twiddles (device lookups; the host fills the tables,
// ntt/tables.hpp).
#pragma once

#include "../ff/field.cuh"
#include "../util/device.cuh"

struct pow_tab {  // base^e = c * lo[e & 0x3fff] * hi[e >> 14] for e < 2^28
  const fr_t* lo;
  const fr_t* hi;
};

__device__ __forceinline__ fr_t tabpow(const pow_tab& t, uint32_t e) {
  return ldfr(t.lo + (e & 0x3fff)) * ldfr(t.hi + (e >> 14));
}

// The inter-pass twiddle w_{2^(s+t)}^e: from Wd (w_{2^18}^k, k < 2^18) in one
// load when s + t <= 18 (the host passes Wd only then), else from the
// two-level table of w_n (one product more).
__device__ __forceinline__ fr_t twiddle(const pow_tab& tw, const fr_t* Wd, uint32_t e, uint32_t st, uint32_t twsh) {
  return Wd ? ldfr(Wd + (e << (18 - st))) : tabpow(tw, e << twsh);
}
