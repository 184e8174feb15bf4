// BLS12-381 Fr and Fp Montgomery arithmetic for host and device.
//
// Limbs are 32-bit words, least significant first. An fr.Element ([4]uint64,
// R = 2^256) and an fp.Element ([6]uint64, R = 2^384) of gnark-crypto have
// exactly this memory layout on a little-endian machine, so buffers are
// shared without conversion.
#pragma once

#include <stdint.h>
#include <stdlib.h>

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

// The device's arithmetic (the wide product, the carry-chain add and sub, the
// two-product sums) is the default of +, -, * and mul_add2 on the device;
// CUZK_HOST_WIDE makes it the host's too (with the carry flag emulated), so
// that host checks run the device's algorithms end to end (cuda/test/g2_host.cc).

// mc: the carry-chain steps of Fe::mul_wide. On the device each is PTX
// whose carry flag ptxas threads through the chain (the asm statements are
// volatile so that they stay in order); on the host the flag is a variable,
// so the same algorithm runs, and is checked, on the CPU.
namespace mc {
#if defined(__CUDACC__)
// The moduli and -p^-1 mod 2^32, in constant memory (declared for the host
// pass too, which registers them).
static __constant__ uint32_t fr_mod[9] = {0x00000001u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u, 0x09a1d805u,
                                          0x3339d808u, 0x299d7d48u, 0x73eda753u, FrCfg::INV};
static __constant__ uint32_t fp_mod[13] = {0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu, 0xf6b0f624u,
                                           0x6730d2a0u, 0xf38512bfu, 0x64774b84u, 0x434bacd7u, 0x4b1ba7b6u,
                                           0x397fe69au, 0x1a0111eau, FpCfg::INV};
#endif
#if defined(__CUDA_ARCH__)
struct flag {};
template <class C>
__device__ __forceinline__ uint32_t mod(int i) {
  return C::N == 8 ? fr_mod[i] : fp_mod[i];
}
template <class C>
__device__ __forceinline__ uint32_t inv() {
  return C::N == 8 ? fr_mod[8] : fp_mod[12];
}
// lo:hi = a*b
__device__ __forceinline__ void mul2(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b) {
  asm("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;" : "=r"(lo), "=r"(hi) : "r"(a), "r"(b));
}
// lo:hi += a*b, carry out
__device__ __forceinline__ void mac2_first(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b, flag&) {
  asm volatile("mad.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;" : "+r"(lo), "+r"(hi) : "r"(a), "r"(b));
}
// lo:hi += a*b + carry, carry out
__device__ __forceinline__ void mac2(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b, flag&) {
  asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;" : "+r"(lo), "+r"(hi) : "r"(a), "r"(b));
}
// lo:hi += a*b + carry, no carry out
__device__ __forceinline__ void mac2_last(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b, flag&) {
  asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.u32 %1, %2, %3, %1;" : "+r"(lo), "+r"(hi) : "r"(a), "r"(b));
}
// lo:hi = a*b + xlo:xhi + carry, carry out
__device__ __forceinline__ void mac2_to(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b, uint32_t xlo,
                                        uint32_t xhi, flag&) {
  asm volatile("madc.lo.cc.u32 %0, %2, %3, %4; madc.hi.cc.u32 %1, %2, %3, %5;"
               : "=r"(lo), "=r"(hi)
               : "r"(a), "r"(b), "r"(xlo), "r"(xhi));
}
// lo:hi = a*b + carry, no carry out
__device__ __forceinline__ void mac2_to_last(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b, flag&) {
  asm volatile("madc.lo.cc.u32 %0, %2, %3, 0; madc.hi.u32 %1, %2, %3, 0;" : "=r"(lo), "=r"(hi) : "r"(a), "r"(b));
}
__device__ __forceinline__ void add_cc(uint32_t& d, uint32_t b, flag&) {
  asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(d) : "r"(b));
}
__device__ __forceinline__ void addc0(uint32_t& d, flag&) { asm volatile("addc.u32 %0, %0, 0;" : "+r"(d)); }
__device__ __forceinline__ void add_to(uint32_t& d, uint32_t a, uint32_t b, flag&) {
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
}
__device__ __forceinline__ void addc_to(uint32_t& d, uint32_t a, uint32_t b, flag&) {
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
}
__device__ __forceinline__ void addc_to_last(uint32_t& d, uint32_t a, flag&) {
  asm volatile("addc.u32 %0, %1, 0;" : "=r"(d) : "r"(a));
}
// d = a + b + carry, no carry out
__device__ __forceinline__ void addc_last(uint32_t& d, uint32_t a, uint32_t b, flag&) {
  asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
}
// subtraction chains: the flag is the borrow
__device__ __forceinline__ void sub_to(uint32_t& d, uint32_t a, uint32_t b, flag&) {
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
}
__device__ __forceinline__ void subc_to(uint32_t& d, uint32_t a, uint32_t b, flag&) {
  asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
}
// all ones if the chain borrowed, else zero
__device__ __forceinline__ uint32_t borrow_mask(flag&) {
  uint32_t m;
  asm volatile("subc.u32 %0, 0, 0;" : "=r"(m));
  return m;
}
#else
struct flag {
  uint32_t c = 0;
};
template <class C>
inline uint32_t mod(int i) {
  return C::mod(i);
}
template <class C>
inline uint32_t inv() {
  return C::INV;
}
inline void mul2(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b) {
  uint64_t p = (uint64_t)a * b;
  lo = (uint32_t)p;
  hi = (uint32_t)(p >> 32);
}
inline void mac2_to(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b, uint32_t xlo, uint32_t xhi, flag& f) {
  uint64_t p = (uint64_t)a * b;
  uint64_t s = (uint64_t)(uint32_t)p + xlo + f.c;
  uint64_t t = (p >> 32) + xhi + (s >> 32);
  lo = (uint32_t)s;
  hi = (uint32_t)t;
  f.c = (uint32_t)(t >> 32);
}
inline void mac2_first(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b, flag& f) {
  f.c = 0;
  mac2_to(lo, hi, a, b, lo, hi, f);
}
inline void mac2(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b, flag& f) { mac2_to(lo, hi, a, b, lo, hi, f); }
// The steps without a carry out drop it on the device; the bound says it is
// zero, and the host aborts if it is not. The flag is undefined after them.
inline void no_carry(flag& f) {
  if (f.c != 0) abort();
  f.c = 0xdead;
}
inline void mac2_last(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b, flag& f) {
  mac2_to(lo, hi, a, b, lo, hi, f);
  no_carry(f);
}
inline void mac2_to_last(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b, flag& f) {
  mac2_to(lo, hi, a, b, 0, 0, f);
  no_carry(f);
}
inline void add_cc(uint32_t& d, uint32_t b, flag& f) {
  uint64_t s = (uint64_t)d + b;
  d = (uint32_t)s;
  f.c = (uint32_t)(s >> 32);
}
inline void addc0(uint32_t& d, flag& f) {
  add_cc(d, f.c, f);
  no_carry(f);
}
inline void add_to(uint32_t& d, uint32_t a, uint32_t b, flag& f) {
  uint64_t s = (uint64_t)a + b;
  d = (uint32_t)s;
  f.c = (uint32_t)(s >> 32);
}
inline void addc_to(uint32_t& d, uint32_t a, uint32_t b, flag& f) {
  uint64_t s = (uint64_t)a + b + f.c;
  d = (uint32_t)s;
  f.c = (uint32_t)(s >> 32);
}
inline void addc_to_last(uint32_t& d, uint32_t a, flag& f) {
  add_to(d, a, f.c, f);
  no_carry(f);
}
inline void addc_last(uint32_t& d, uint32_t a, uint32_t b, flag& f) {  // the carry out is dropped
  d = a + b + f.c;
  f.c = 0xdead;
}
inline void sub_to(uint32_t& d, uint32_t a, uint32_t b, flag& f) {
  d = a - b;
  f.c = a < b;
}
inline void subc_to(uint32_t& d, uint32_t a, uint32_t b, flag& f) {
  uint64_t t = (uint64_t)a - b - f.c;
  d = (uint32_t)t;
  f.c = (uint32_t)(t >> 63);
}
inline uint32_t borrow_mask(flag& f) {
  uint32_t m = 0u - f.c;
  f.c = 0xdead;
  return m;
}
#endif
}  // namespace mc

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
#if (defined(__CUDA_ARCH__) || defined(CUZK_HOST_WIDE)) && !defined(CUZK_PORTABLE_MUL)
    return add_chain(a, b);
#else
    return add_portable(a, b);
#endif
  }
  HD friend Fe operator-(const Fe& a, const Fe& b) {
#if (defined(__CUDA_ARCH__) || defined(CUZK_HOST_WIDE)) && !defined(CUZK_PORTABLE_MUL)
    return sub_chain(a, b);
#else
    return sub_portable(a, b);
#endif
  }
  HD Fe neg() const { return zero() - *this; }
  HD static Fe add_portable(const Fe& a, const Fe& b) {
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
  HD static Fe sub_portable(const Fe& a, const Fe& b) {
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

  // Carry-chain versions, branch-free (the device's): a + b, then minus p
  // unless that borrows; a - b, plus p masked by the borrow.
  HD static Fe add_chain(const Fe& a, const Fe& b) {
    Fe r;
    mc::flag cf;
    mc::add_to(r.v[0], a.v[0], b.v[0], cf);
#pragma unroll
    for (int i = 1; i < N - 1; i++) mc::addc_to(r.v[i], a.v[i], b.v[i], cf);
    mc::addc_last(r.v[N - 1], a.v[N - 1], b.v[N - 1], cf);  // a + b < 2p < 2^(32N)
    reduce_once(r.v);
    return r;
  }
  HD static Fe sub_chain(const Fe& a, const Fe& b) {
    Fe r;
    mc::flag cf;
    mc::sub_to(r.v[0], a.v[0], b.v[0], cf);
#pragma unroll
    for (int i = 1; i < N; i++) mc::subc_to(r.v[i], a.v[i], b.v[i], cf);
    const uint32_t m = mc::borrow_mask(cf);
    mc::add_to(r.v[0], r.v[0], mc::mod<C>(0) & m, cf);
#pragma unroll
    for (int i = 1; i < N - 1; i++) mc::addc_to(r.v[i], r.v[i], mc::mod<C>(i) & m, cf);
    mc::addc_last(r.v[N - 1], r.v[N - 1], mc::mod<C>(N - 1) & m, cf);
    return r;
  }
  // r < 2p to r mod p without branches.
  HD static void reduce_once(uint32_t* r) {
    uint32_t t[N];
    mc::flag cf;
    mc::sub_to(t[0], r[0], mc::mod<C>(0), cf);
#pragma unroll
    for (int i = 1; i < N; i++) mc::subc_to(t[i], r[i], mc::mod<C>(i), cf);
    const uint32_t m = mc::borrow_mask(cf);  // r < p: keep r
#pragma unroll
    for (int i = 0; i < N; i++) r[i] = (r[i] & m) | (t[i] & ~m);
  }
  HD Fe dbl() const { return *this + *this; }

  // Montgomery product, result fully reduced. On the device: the wide
  // product below; on the host (and with CUZK_PORTABLE_MUL): CIOS in C++.
  HD friend Fe operator*(const Fe& a, const Fe& b) {
#if (defined(__CUDA_ARCH__) || defined(CUZK_HOST_WIDE)) && !defined(CUZK_PORTABLE_MUL)
    return mul_wide(a, b);
#else
    return mul_portable(a, b);
#endif
  }
  // Fp squarings take sqr_wide on the device (78 products a squaring
  // instead of 144 before the reduction).
  HD Fe sqr() const {
#if defined(__CUDA_ARCH__) && !defined(CUZK_PORTABLE_MUL)
    if constexpr (N == 12) return sqr_wide(*this);
#endif
    return *this * *this;
  }

  // CIOS with 64-bit intermediates: portable C++, the host reference.
  HD static Fe mul_portable(const Fe& a, const Fe& b) {
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

  // The wide product: CIOS on two N-word accumulators. The even one holds
  // words 0..N-1 and takes the products a[j]*y of even j, the odd one holds
  // words 1..N and takes those of odd j, so each 64-bit product lands on an
  // aligned register pair and a carry chain of N/2 wide multiply-adds
  // (IMAD.WIDE.U32.X on sm_90) adds a whole row into one accumulator.
  // After the reduction word 0 is zero; dividing by 2^32 turns the odd
  // accumulator into the next even one, and the even one, shifted down two
  // words while the next row is added, into the next odd one; its word 1
  // (the new word 0) is added into the new even word 0, whose carry enters
  // the odd chain at word 1. The total stays below 2^33*p < 2^(32(N+1)), so
  // the odd accumulator never overflows its N words and the even chain's
  // carry out goes into the odd top word. The modulus comes from constant
  // memory (mc::mod): with immediates ptxas splits some of the pairs.
  HD static Fe mul_wide(const Fe& a, const Fe& b) {
    const Fe* x[1] = {&a};
    const Fe* y[1] = {&b};
    return sum_wide<1>(x, y);
  }

  // (a*b + c*d)/R mod p with one reduction: both products enter the rows of
  // one CIOS pass (a Montgomery reduction saved, about half a product). The
  // row total stays below 3p*2^32, which needs 3p < 2^(32N): Fp's modulus
  // (381 bits in 384) has the room, Fr's (255 bits in 256) has not.
  HD static Fe mul_add2_wide(const Fe& a, const Fe& b, const Fe& c, const Fe& d) {
    static_assert(N == 12, "two products per reduction need 3p < 2^(32N)");
    const Fe* x[2] = {&a, &c};
    const Fe* y[2] = {&b, &d};
    return sum_wide<2>(x, y);
  }

  // a*b + c*d: the device's single-reduction form, the host's two products.
  HD static Fe mul_add2(const Fe& a, const Fe& b, const Fe& c, const Fe& d) {
#if (defined(__CUDA_ARCH__) || defined(CUZK_HOST_WIDE)) && !defined(CUZK_PORTABLE_MUL)
    return mul_add2_wide(a, b, c, d);
#else
    return mul_portable(a, b) + mul_portable(c, d);
#endif
  }

  // sum over k < K of x[k]*y[k], divided by R, mod p (see mul_wide). Rows
  // add the products of every k into the two accumulators before the
  // reduction step; with K products and inputs below p the row total stays
  // below (K+1)p*2^32 and the result below (1 + K*p/R)p < 2p.
  template <int K>
  HD static Fe sum_wide(const Fe* const* x, const Fe* const* y) {
    uint32_t A[N], B[N], p[N];
    mc::flag cf;
#pragma unroll
    for (int j = 0; j < N; j++) p[j] = mc::mod<C>(j);
    const uint32_t inv = mc::inv<C>();
    {  // row 0 on (A even, B odd)
      const uint32_t* a = x[0]->v;
      const uint32_t w = y[0]->v[0];
#pragma unroll
      for (int j = 0; j < N; j += 2) mc::mul2(A[j], A[j + 1], a[j], w);
#pragma unroll
      for (int j = 1; j < N; j += 2) mc::mul2(B[j - 1], B[j], a[j], w);
#pragma unroll
      for (int k = 1; k < K; k++) add_row(A, B, x[k]->v, y[k]->v[0], cf);
      reduce_row(A, B, p, inv, cf);
    }
#pragma unroll
    for (int i = 1; i < N; i++) {
      uint32_t* E = (i & 1) ? B : A;  // even role: the previous odd accumulator
      uint32_t* X = (i & 1) ? A : B;  // the previous even one, shifted into the odd role
      const uint32_t* a = x[0]->v;
      const uint32_t w = y[0]->v[i];
      mc::add_cc(E[0], X[1], cf);
#pragma unroll
      for (int j = 1; j < N - 1; j += 2) mc::mac2_to(X[j - 1], X[j], a[j], w, X[j + 1], X[j + 2], cf);
      mc::mac2_to_last(X[N - 2], X[N - 1], a[N - 1], w, cf);
      mc::mac2_first(E[0], E[1], a[0], w, cf);
#pragma unroll
      for (int j = 2; j < N; j += 2) mc::mac2(E[j], E[j + 1], a[j], w, cf);
      mc::addc0(X[N - 1], cf);
#pragma unroll
      for (int k = 1; k < K; k++) add_row(E, X, x[k]->v, y[k]->v[i], cf);
      reduce_row(E, X, p, inv, cf);
    }
    return result(A, B, cf);
  }
  // The CIOS pass's result: N is even, so after row N-1 B is even and A
  // odd: word k = A[k] + B[k+1]; then below p.
  HD static Fe result(const uint32_t* A, const uint32_t* B, mc::flag& cf) {
    Fe r;
    mc::add_to(r.v[0], A[0], B[1], cf);
#pragma unroll
    for (int k = 1; k < N - 1; k++) mc::addc_to(r.v[k], A[k], B[k + 1], cf);
    mc::addc_to_last(r.v[N - 1], A[N - 1], cf);
    reduce_once(r.v);
    return r;
  }
  // a*a/R mod p (Fp): sum_wide's rows with the symmetric products counted
  // once. a^2 = sum over i of 2^(64i) * a_i * D_i with D_i = a_i +
  // 2*(the words of a above i, from word 1), so row i of the CIOS pass adds
  // a_i times the vector x_i = (0 .. 0, a_i, 2a_(i+1), 2a_(i+2) | a_(i+1)>>31,
  // ...) that starts at word i: 78 products instead of 144, the reductions'
  // 144 unchanged. A product of a zero word is a carry step (ALU) in the odd
  // chain and absent from the even one. Each row is at most twice a product
  // row (D_i*2^(32i) < 2^382 for a < 2^381), so the window stays below
  // 2^415 < 2^(32(N+1)) and the result below 2p as sum_wide's.
  HD static Fe sqr_wide(const Fe& a) {
    static_assert(N == 12, "the squaring's bound is checked for Fp");
    uint32_t A[N], B[N], p[N], e[N];
    mc::flag cf;
#pragma unroll
    for (int j = 0; j < N; j++) p[j] = mc::mod<C>(j);
    const uint32_t inv = mc::inv<C>();
    e[0] = 0;  // unused
#pragma unroll
    for (int j = 1; j < N; j++) e[j] = (a.v[j] << 1) | (a.v[j - 1] >> 31);
    {  // row 0: x_0 = (a_0, a_1 << 1, e_2, ..., e_(N-1)), w = a_0
      const uint32_t w = a.v[0];
      mc::mul2(A[0], A[1], w, w);
#pragma unroll
      for (int j = 2; j < N; j += 2) mc::mul2(A[j], A[j + 1], e[j], w);
      mc::mul2(B[0], B[1], a.v[1] << 1, w);
#pragma unroll
      for (int j = 3; j < N; j += 2) mc::mul2(B[j - 1], B[j], e[j], w);
      reduce_row(A, B, p, inv, cf);
    }
#pragma unroll
    for (int i = 1; i < N; i++) {
      uint32_t* E = (i & 1) ? B : A;
      uint32_t* X = (i & 1) ? A : B;
      const uint32_t w = a.v[i];
      // x_i's word j: zero below i, a_i at i, a_(i+1) << 1 at i+1 (a_i's
      // top bit is D_i's word 0, not part of the doubled words), e_j above
      auto x = [&](int j) -> uint32_t { return j == i ? w : j == i + 1 ? (a.v[j] << 1) : e[j]; };
      mc::add_cc(E[0], X[1], cf);
#pragma unroll
      for (int j = 1; j < N - 1; j += 2) {
        if (j < i) {
          mc::addc_to(X[j - 1], X[j + 1], 0u, cf);
          mc::addc_to(X[j], X[j + 2], 0u, cf);
        } else {
          mc::mac2_to(X[j - 1], X[j], x(j), w, X[j + 1], X[j + 2], cf);
        }
      }
      mc::mac2_to_last(X[N - 2], X[N - 1], x(N - 1), w, cf);
      const int j0 = (i + 1) & ~1;  // the first even word at or above i
      if (j0 < N) {
        mc::mac2_first(E[j0], E[j0 + 1], x(j0), w, cf);
#pragma unroll
        for (int j = j0 + 2; j < N; j += 2) mc::mac2(E[j], E[j + 1], x(j), w, cf);
        mc::addc0(X[N - 1], cf);
      }
      reduce_row(E, X, p, inv, cf);
    }
    return result(A, B, cf);
  }

  // (E even, X odd) += a*w
  HD static void add_row(uint32_t* E, uint32_t* X, const uint32_t* a, uint32_t w, mc::flag& cf) {
    mc::mac2_first(X[0], X[1], a[1], w, cf);
#pragma unroll
    for (int j = 3; j < N - 1; j += 2) mc::mac2(X[j - 1], X[j], a[j], w, cf);
    mc::mac2_last(X[N - 2], X[N - 1], a[N - 1], w, cf);
    mc::mac2_first(E[0], E[1], a[0], w, cf);
#pragma unroll
    for (int j = 2; j < N; j += 2) mc::mac2(E[j], E[j + 1], a[j], w, cf);
    mc::addc0(X[N - 1], cf);
  }
  // (E even, X odd) += m*p with m = E[0]*(-1/p) mod 2^32: word 0 becomes zero
  HD static void reduce_row(uint32_t* E, uint32_t* X, const uint32_t* p, uint32_t inv, mc::flag& cf) {
    const uint32_t m = E[0] * inv;
    add_row(E, X, p, m, cf);
  }

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

// Host helpers for the tables and the checks: a small integer in Montgomery
// form, and the primitive 2^lg-th root of unity of Fr (lg <= 32):
// gnark-crypto's fr.Generator(1<<32) squared 32 - lg times.
inline fr_t fr_from_u64(uint64_t x) {
  fr_t r = fr_t::zero(), a = fr_t::one();
  while (x) {
    if (x & 1) r = r + a;
    a = a.dbl();
    x >>= 1;
  }
  return r;
}

inline fr_t fr_root_of(uint32_t lg) {
  const uint64_t w[4] = {0xb9b58d8c5f0e466aull, 0x5b1b4c801819d7ecull, 0x0af53ae352a31e64ull,
                         0x5bf3adda19e9b27bull};  // Montgomery limbs
  fr_t r;
  for (int i = 0; i < 4; i++) {
    r.v[2 * i] = (uint32_t)w[i];
    r.v[2 * i + 1] = (uint32_t)(w[i] >> 32);
  }
  for (uint32_t i = lg; i < 32; i++) r = r.sqr();
  return r;
}
