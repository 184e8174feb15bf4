// BLS12-381 Fr and Fp Montgomery arithmetic for host and device.
//
// Limbs are 32-bit words, least significant first. An fr.Element ([4]uint64,
// R = 2^256) and an fp.Element ([6]uint64, R = 2^384) of gnark-crypto have
// exactly this memory layout on a little-endian machine, so buffers are
// shared without conversion.
#pragma once

#include <stdint.h>

#if defined(__CUDACC__)
#define HD __host__ __device__ __forceinline__
#else
#define HD inline
#endif

struct FrCfg {
  static constexpr int N = 8;
  static constexpr uint32_t INV = 0xffffffffu;  // -r^-1 mod 2^32
  HD static uint32_t mod(int i) {
    const uint32_t m[8] = {0x00000001u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u,
                           0x09a1d805u, 0x3339d808u, 0x299d7d48u, 0x73eda753u};
    return m[i];
  }
  HD static uint32_t one(int i) {  // R mod r
    const uint32_t m[8] = {0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau,
                           0xecbc4ff5u, 0x998c4fefu, 0xacc5056fu, 0x1824b159u};
    return m[i];
  }
};

struct FpCfg {
  static constexpr int N = 12;
  static constexpr uint32_t INV = 0xfffcfffdu;  // -p^-1 mod 2^32
  HD static uint32_t mod(int i) {
    const uint32_t m[12] = {0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu,
                            0xf6b0f624u, 0x6730d2a0u, 0xf38512bfu, 0x64774b84u,
                            0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau};
    return m[i];
  }
  HD static uint32_t one(int i) {  // R mod p
    const uint32_t m[12] = {0x0002fffdu, 0x76090000u, 0xc40c0002u, 0xebf4000bu,
                            0x53c758bau, 0x5f489857u, 0x70525745u, 0x77ce5853u,
                            0xa256ec6du, 0x5c071a97u, 0xfa80e493u, 0x15f65ec3u};
    return m[i];
  }
};

template <class C>
struct Fe {
  static constexpr int N = C::N;
  uint32_t v[N];

  HD static Fe zero() {
    Fe r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = 0;
    return r;
  }
  HD static Fe one() {
    Fe r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = C::one(i);
    return r;
  }
  // raw_one is the integer 1 (not Montgomery): x*raw_one = x/R, the canonical value.
  HD static Fe raw_one() {
    Fe r = zero();
    r.v[0] = 1;
    return r;
  }
  HD bool is_zero() const {
    uint32_t a = 0;
#pragma unroll
    for (int i = 0; i < N; i++) a |= v[i];
    return a == 0;
  }
  HD bool operator==(const Fe& o) const {
    uint32_t a = 0;
#pragma unroll
    for (int i = 0; i < N; i++) a |= v[i] ^ o.v[i];
    return a == 0;
  }
  HD bool operator!=(const Fe& o) const { return !(*this == o); }

  // geq_mod: v >= modulus
  HD static bool geq_mod(const uint32_t* t) {
#pragma unroll
    for (int i = N - 1; i >= 0; i--) {
      if (t[i] > C::mod(i)) return true;
      if (t[i] < C::mod(i)) return false;
    }
    return true;
  }
  HD static void sub_mod_inplace(uint32_t* t) {
    uint64_t br = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)t[i] - C::mod(i) - br;
      t[i] = (uint32_t)d;
      br = (d >> 63) & 1;
    }
  }

  HD friend Fe operator+(const Fe& a, const Fe& b) {
    Fe r;
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t s = (uint64_t)a.v[i] + b.v[i] + c;
      r.v[i] = (uint32_t)s;
      c = s >> 32;
    }
    // moduli have spare top bits: no carry out of the top limb.
    if (geq_mod(r.v)) sub_mod_inplace(r.v);
    return r;
  }
  HD friend Fe operator-(const Fe& a, const Fe& b) {
    Fe r;
    uint64_t br = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)a.v[i] - b.v[i] - br;
      r.v[i] = (uint32_t)d;
      br = (d >> 63) & 1;
    }
    if (br) {
      uint64_t c = 0;
#pragma unroll
      for (int i = 0; i < N; i++) {
        uint64_t s = (uint64_t)r.v[i] + C::mod(i) + c;
        r.v[i] = (uint32_t)s;
        c = s >> 32;
      }
    }
    return r;
  }
  HD Fe neg() const {
    if (is_zero()) return *this;
    Fe r;
    uint64_t br = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)C::mod(i) - v[i] - br;
      r.v[i] = (uint32_t)d;
      br = (d >> 63) & 1;
    }
    return r;
  }
  HD Fe dbl() const { return *this + *this; }

  // Montgomery product (CIOS), result fully reduced.
  HD friend Fe operator*(const Fe& a, const Fe& b) {
#if defined(__CUDA_ARCH__)
#if defined(CUZK_EO_MUL)
    if (true) return mul_eo(a, b);
#elif defined(CUZK_PTX_MUL)
    if (true) return mul_ptx(a, b);
#else
    // measured on the H200: the PTX chains win for Fp (1.51e10 vs 1.35e10
    // mul/s), the portable code for Fr (3.51e10 vs 3.37e10).
    if (N == 12) return mul_ptx(a, b);
#endif
#endif
    uint32_t t[N + 2];
#pragma unroll
    for (int i = 0; i < N + 2; i++) t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t c = 0;
#pragma unroll
      for (int j = 0; j < N; j++) {
        uint64_t s = (uint64_t)a.v[j] * b.v[i] + t[j] + c;
        t[j] = (uint32_t)s;
        c = s >> 32;
      }
      uint64_t s = (uint64_t)t[N] + c;
      t[N] = (uint32_t)s;
      t[N + 1] = (uint32_t)(s >> 32);
      uint32_t m = t[0] * C::INV;
      s = (uint64_t)m * C::mod(0) + t[0];
      c = s >> 32;
#pragma unroll
      for (int j = 1; j < N; j++) {
        s = (uint64_t)m * C::mod(j) + t[j] + c;
        t[j - 1] = (uint32_t)s;
        c = s >> 32;
      }
      s = (uint64_t)t[N] + c;
      t[N - 1] = (uint32_t)s;
      t[N] = t[N + 1] + (uint32_t)(s >> 32);
    }
    Fe r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = t[i];
    if (t[N] != 0 || geq_mod(r.v)) sub_mod_inplace(r.v);
    return r;
  }
  HD Fe sqr() const { return *this * *this; }

#if defined(__CUDA_ARCH__)
  // CIOS with PTX carry chains: per word of b, the low halves of the
  // products go in one chain and the high halves in another.
  __device__ __forceinline__ static void madd_row(uint32_t* t, const uint32_t* x, uint32_t y) {
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(x[0]), "r"(y));
#pragma unroll
    for (int j = 1; j < N; j++) asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(x[j]), "r"(y));
    asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
    asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(x[0]), "r"(y));
#pragma unroll
    for (int j = 1; j < N; j++) asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(x[j]), "r"(y));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
  }
  // Even/odd rows: the low and high halves of each product a_j*y go to
  // adjacent words (k, k+1) of one accumulator, even j in E, odd j in O,
  // so each pair can issue as one wide multiply-add. E gets words
  // i..i+N-1 and its carry in word i+N; O words i+1..i+N, carry in i+N+1.
  __device__ __forceinline__ static void row_eo(uint32_t* E, uint32_t* O, const uint32_t* x,
                                                uint32_t y, int i) {
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(E[i]) : "r"(x[0]), "r"(y));
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(E[i + 1]) : "r"(x[0]), "r"(y));
#pragma unroll
    for (int j = 2; j < N; j += 2) {
      asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(E[i + j]) : "r"(x[j]), "r"(y));
      asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(E[i + j + 1]) : "r"(x[j]), "r"(y));
    }
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(E[i + N]));
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(O[i + 1]) : "r"(x[1]), "r"(y));
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(O[i + 2]) : "r"(x[1]), "r"(y));
#pragma unroll
    for (int j = 3; j < N; j += 2) {
      asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(O[i + j]) : "r"(x[j]), "r"(y));
      asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(O[i + j + 1]) : "r"(x[j]), "r"(y));
    }
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(O[i + N + 1]));
  }
  // Montgomery product with interleaved product and reduction rows on the
  // even/odd accumulators (no shifting); word i's total is E[i]+O[i]+cin.
  __device__ __forceinline__ static Fe mul_eo(const Fe& a, const Fe& b) {
    uint32_t E[2 * N + 2], O[2 * N + 2], p[N];
#pragma unroll
    for (int i = 0; i < N; i++) p[i] = C::mod(i);
#pragma unroll
    for (int i = 0; i < 2 * N + 2; i++) E[i] = O[i] = 0;
    uint32_t cin = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      row_eo(E, O, a.v, b.v[i], i);
      uint32_t m = (E[i] + O[i] + cin) * C::INV;
      row_eo(E, O, p, m, i);
      uint64_t tot = (uint64_t)E[i] + O[i] + cin;
      cin = (uint32_t)(tot >> 32);
    }
    // result = E[N..2N] + O[N..2N+1] + cin at word N
    Fe r;
    uint32_t top;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(E[N]), "r"(O[N]));
#pragma unroll
    for (int k = 1; k < N; k++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[k]) : "r"(E[N + k]), "r"(O[N + k]));
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(top) : "r"(E[2 * N]), "r"(O[2 * N]));
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(cin));
#pragma unroll
    for (int k = 1; k < N; k++) asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(r.v[k]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(top));
    if (top != 0 || geq_mod(r.v)) sub_mod_inplace(r.v);
    return r;
  }
  __device__ __forceinline__ static Fe mul_ptx(const Fe& a, const Fe& b) {
    uint32_t t[N + 2], p[N];
#pragma unroll
    for (int i = 0; i < N; i++) p[i] = C::mod(i);
#pragma unroll
    for (int i = 0; i < N + 2; i++) t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      madd_row(t, a.v, b.v[i]);
      uint32_t m = t[0] * C::INV;
      madd_row(t, p, m);
#pragma unroll
      for (int j = 0; j <= N; j++) t[j] = t[j + 1];
      t[N + 1] = 0;
    }
    Fe r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = t[i];
    if (t[N] != 0 || geq_mod(r.v)) sub_mod_inplace(r.v);
    return r;
  }
#endif

  // pow by a little-endian exponent of nw 32-bit words.
  HD Fe pow(const uint32_t* e, int nw) const {
    Fe r = one();
    for (int i = nw * 32 - 1; i >= 0; i--) {
      r = r.sqr();
      if ((e[i / 32] >> (i % 32)) & 1) r = r * *this;
    }
    return r;
  }
  HD Fe pow_u64(uint64_t e) const {
    uint32_t w[2] = {(uint32_t)e, (uint32_t)(e >> 32)};
    return pow(w, 2);
  }
  // inverse by Fermat (p-2); zero maps to zero.
  HD Fe inv() const {
    uint32_t e[N];
    uint64_t br = 2;
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)C::mod(i) - br;
      e[i] = (uint32_t)d;
      br = (d >> 63) & 1;
    }
    return pow(e, N);
  }
  // canonical (non-Montgomery) value.
  HD Fe from_mont() const { return *this * raw_one(); }
};

typedef Fe<FrCfg> fr_t;
typedef Fe<FpCfg> fp_t;
