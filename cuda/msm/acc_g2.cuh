// G2's bucket accumulation and batch addition on a register accumulator
// (msm_g2.cu runs them; CUZK_G2_ACC=0 runs the generic msm_acc_chunks and
// batch_add_chunks instead, for comparison). Both add with g2_madd,
// xyzz_t::add_affine's products on the same values (madd-2008-s) with each
// result stored as soon as it is made, and load each base when it is added
// rather than prefetching the next: the generic kernel holds the XYZZ
// accumulator (96 registers), the current base (48) and the prefetched next
// one (48) and spills in its loop. Measured on the H200 (docs/gpu-notes.md)
// this is 0.58 of the generic kernel's time at 2^25 and 2^26 G2 points.
// With the generic kernel's chunks its bucket sums are the generic kernel's,
// bit for bit; with its own chunk size (its own resident waves) they are the
// same points.
#pragma once

#include "kernels.cuh"

// An XYZZ accumulator in registers, read and written by coordinate (X, Y, ZZ, ZZZ: 0..3).
struct g2_acc_reg {
  g2_xyzz a;
  __device__ __forceinline__ fp2_t ld(int c) const { return c == 0 ? a.X : c == 1 ? a.Y : c == 2 ? a.ZZ : a.ZZZ; }
  __device__ __forceinline__ void st(int c, const fp2_t& x) {
    if (c == 0) a.X = x;
    else if (c == 1) a.Y = x;
    else if (c == 2) a.ZZ = x;
    else a.ZZZ = x;
  }
  __device__ __forceinline__ g2_xyzz get() const { return a; }
  __device__ __forceinline__ void set(const g2_xyzz& p) { a = p; }
};

// An affine base in registers (y already negated if needed).
struct g2_aff_reg {
  g2_affine p;
  __device__ __forceinline__ fp2_t x() const { return p.x; }
  __device__ __forceinline__ fp2_t y() const { return p.y; }
  __device__ __forceinline__ g2_affine get() const { return p; }
};

// acc += p, xyzz_t::add_affine's steps with each operand read where it is used.
template <class Acc, class Aff>
__device__ __forceinline__ void g2_madd(Acc& acc, const Aff& p) {
  if (p.x().is_zero() && p.y().is_zero()) return;
  const fp2_t ZZ = acc.ld(2);
  if (ZZ.is_zero()) {
    acc.set(g2_xyzz::from_affine(p.get()));
    return;
  }
  const fp2_t U2 = p.x() * ZZ;
  const fp2_t S2 = p.y() * acc.ld(3);
  const fp2_t P = U2 - acc.ld(0);
  const fp2_t R = S2 - acc.ld(1);
  if (P.is_zero()) {
    if (R.is_zero())
      acc.set(xyzz_mdbl_rare(p.get()));
    else
      acc.set(g2_xyzz::inf());
    return;
  }
  const fp2_t PP = P.sqr();
  const fp2_t PPP = P * PP;
  const fp2_t Q = acc.ld(0) * PP;
  const fp2_t X3 = R.sqr() - PPP - Q.dbl();
  const fp2_t T = Q - X3;
  // each result stored as soon as it is made (X3, then ZZ: PP dead), Y3 last
  acc.st(0, X3);
  acc.st(2, acc.ld(2) * PP);
  acc.st(3, acc.ld(3) * PPP);
  acc.st(1, fp2_t::mul_add2(R, T, acc.ld(1), PPP.neg()));
}

// msm_acc_chunks' loop (its arguments) in registers with g2_madd, each base
// loaded when it is added.
__global__ void __launch_bounds__(128) g2_acc_regs(const g2_affine* __restrict__ bases,
                                                   const uint32_t* __restrict__ keys,
                                                   const uint32_t* __restrict__ vals,
                                                   const uint32_t* __restrict__ starts, uint32_t nkeys,
                                                   uint32_t C, g2_xyzz* head, g2_xyzz* tail, g2_xyzz* buckets) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t nvalid = starts[nkeys], b = j * C;
  if (b >= nvalid) return;
  const uint64_t e = b + C < nvalid ? b + C : nvalid;
  uint32_t run = __ldg(keys + b);
  bool first = true;
  g2_acc_reg acc;
  acc.set(g2_xyzz::inf());
  for (uint64_t i = b; i < e; i++) {
    const uint32_t v = __ldg(vals + i);
    g2_aff_reg p;
    p.p = ldaff(bases + (v & 0x7fffffffu));
    const uint32_t k = __ldg(keys + i);
    if (k != run) {
      if (first)
        head[j] = acc.get();
      else
        buckets[run] = acc.get();
      first = false;
      acc.set(g2_xyzz::inf());
      run = k;
    }
    if (v >> 31) p.p.y = p.p.y.neg();
    g2_madd(acc, p);
  }
  if (first) {
    head[j] = acc.get();
    tail[j] = g2_xyzz::inf();
  } else {
    tail[j] = acc.get();
  }
}

// The batch addition's first level (batch_add_chunks' arguments) with
// g2_madd on a register accumulator.
__global__ void __launch_bounds__(128) g2_batch_add_regs(const g2_affine* __restrict__ bases, uint64_t n,
                                                         const uint32_t* __restrict__ bits, uint32_t chunk,
                                                         uint64_t nchunks, g2_xyzz* partial) {
  const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nchunks) return;
  const uint64_t b = t * chunk;
  const uint64_t e = b + chunk < n ? b + chunk : n;
  g2_acc_reg acc;
  acc.set(g2_xyzz::inf());
  for (uint64_t i = b; i < e; i += 32) {
    uint32_t word = __ldg(bits + (i >> 5));
    const uint32_t lim = (uint32_t)((e - i) < 32 ? (e - i) : 32);
    if (lim < 32) word &= (1u << lim) - 1;
    while (word) {
      const uint32_t j = __ffs(word) - 1;
      word &= word - 1;
      g2_aff_reg p;
      p.p = ldaff(bases + i + j);
      g2_madd(acc, p);
    }
  }
  partial[t] = acc.get();
}
