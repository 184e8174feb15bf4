// Host check of the device's field arithmetic (Fe::mul_wide, mul_add2_wide, add_chain,
// sub_chain, with the carry flag emulated) against the portable C++, for Fr and Fp:
// random elements, the extremes (0, 1, p-1, R mod p) and random products of
// them. Build and run: make cuda-host-check (needs only a C++ compiler); the
// argument is the number of random pairs per field (default 200000). The Go
// test TestFieldHostCheck (device/cuda) builds and runs it when it finds one.
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include "../ff/field.cuh"

static uint64_t s = 0x9e3779b97f4a7c15ull;
static uint32_t next() {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return (uint32_t)(s >> 16);
}

template <class F>
static F reduce(F x) {  // any N-word value to a canonical element (x mod p, x < 2^(32N))
  while (F::geq_mod(x.v)) F::sub_mod_inplace(x.v);
  return x;
}

template <class F>
static int check(const char* name, int n) {
  std::vector<F> special;
  F top;  // (2^(32N) - 1) mod p
  for (int i = 0; i < F::N; i++) top.v[i] = 0xffffffffu;
  top = reduce(top);
  special.push_back(F::zero());
  special.push_back(F::raw_one());
  special.push_back(F::one());
  special.push_back(F::zero() - F::one());  // -R mod p
  special.push_back(top);
  special.push_back(F::zero() - F::raw_one());  // p - 1 exactly
  int bad = 0;
  auto cmp = [&](const F& a, const F& b) {
    bool ok = F::mul_wide(a, b) == F::mul_portable(a, b) && F::add_chain(a, b) == F::add_portable(a, b) &&
              F::sub_chain(a, b) == F::sub_portable(a, b) && F::sub_chain(F::zero(), a) == F::sub_portable(F::zero(), a);
    if constexpr (F::N == 12) {  // two products, one reduction; the squaring (Fp only)
      const F c = F::zero() - a;
      ok = ok && F::sqr_wide(a) == F::mul_portable(a, a) && F::sqr_wide(b) == F::mul_portable(b, b);
      ok = ok && F::mul_add2_wide(a, b, b, a) == F::mul_portable(a, b) + F::mul_portable(b, a) &&
           F::mul_add2_wide(a, b, c, b) == F::zero() &&
           F::mul_add2_wide(a, a, b, b) == F::mul_portable(a, a) + F::mul_portable(b, b);
    }
    if (!ok) {
      if (bad < 5) printf("%s: mismatch\n", name);
      bad++;
    }
  };
  for (auto& a : special)
    for (auto& b : special) cmp(a, b);
  for (int i = 0; i < n; i++) {
    F a, b;
    for (int j = 0; j < F::N; j++) {
      a.v[j] = next();
      b.v[j] = next();
    }
    a = reduce(a);
    b = reduce(b);
    cmp(a, b);
    for (auto& x : special) {
      cmp(a, x);
      cmp(x, b);
    }
    // elements near p: p - small
    F c = F::zero() - F::raw_one();
    c.v[0] -= next() & 0xff;
    cmp(c, b);
    cmp(c, c);
  }
  printf("%s: %d pairs (product, sum, difference, negation; Fp: two-product sums), %d mismatches\n", name, n * (2 * (int)special.size() + 3), bad);
  return bad;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200000;
  if (n < 1) n = 1;
  int bad = check<fr_t>("fr", n) + check<fp_t>("fp", n);
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
