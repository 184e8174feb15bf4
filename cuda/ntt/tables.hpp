// The NTT's tables on the device: the twiddles every size shares (w_1024 and
// w_(2^18) powers, both directions) and, per transform size, the two-level
// power tables of the roots, the coset generator and the scalings.
#pragma once

#include <stdint.h>

#include <map>
#include <memory>

#include "../util/buffers.hpp"
#include "pow_tab.cuh"

// The tables of one size 2^lgn (g = 7 the coset generator, w = w_n, z a
// primitive 2n-th root of unity).
struct ntt_tables {
  device_buffer buf;   // all of them, 2^15 entries each
  pow_tab w_fwd;       // w^e
  pow_tab w_inv;       // w^-e
  pow_tab coset_fwd;   // g^e
  pow_tab coset_inv_n; // g^-e / n
  pow_tab inv_n;       // 1/n
  pow_tab coset_fwd_n; // g^e / n
  pow_tab zeta_fwd_n;  // z^e / n
  pow_tab zeta_inv_2n; // z^-e / 2n
  pow_tab inv_2n;      // 1/2n
  fr_t zinv;           // (g^n - 1)^-1, 1/Z on the coset
};

// A context's NTT tables: the shared twiddles from init, the per-size tables
// made on first use and kept until the context goes.
class ntt_twiddles {
 public:
  int init();
  int tables(uint32_t lgn, ntt_tables** out);
  // w_1024^k, k < 512, for the direction.
  const fr_t* w1024(bool inverse) const { return w1024_.as<fr_t>() + (inverse ? 512 : 0); }
  // w_(2^18)^k, k < 2^18, for the direction: the direct inter-pass twiddles.
  const fr_t* w18(bool inverse) const { return w18_.as<fr_t>() + (inverse ? (1u << 18) : 0); }

 private:
  device_buffer w1024_, w18_;
  std::map<uint32_t, std::unique_ptr<ntt_tables>> sizes_;
};
