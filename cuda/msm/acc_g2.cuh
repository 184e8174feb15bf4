// Variants of G2's bucket accumulation (msm_acc_chunks over g2 points),
// chosen at run time by CUZK_G2_ACC (msm_g2.cu) so that one run can time
// them against the default kernel. Every variant sums the chunks of the
// sorted entries with xyzz_t::add_affine's products on the same values
// (madd-2008-s), so with the default's chunks its bucket sums are the
// default's, bit for bit; with its own chunk size (its own resident waves)
// they are the same points.
//
// The default kernel keeps the XYZZ accumulator (96 registers), the current
// base (48) and the prefetched next base (48) in registers and spills. Here:
//   1 (g2_acc_shared): accumulator and bases in shared memory, the next base
//     copied there by cp.async while the current one is added; registers hold
//     only the addition's temporaries.
//   2 (g2_acc_regs_async): accumulator in registers, the bases in shared
//     memory by cp.async, read where the formulas use them.
//   3 (g2_acc_regs<false>): everything in registers, each base loaded when it
//     is added; 4 (g2_acc_regs<true>): the default's prefetch of the next base.
// The batch addition of the ones is g2_batch_add_regs for every variant.
// All of them use g2_madd, add_affine's steps with each result stored as
// soon as it is made (under ptxas 11.8 that alone cut the spill stores of
// the register kernels from ~1 KB to 120-690 B).
// Shared memory is laid out as 16-byte words, word k of thread t at
// [k * NT + t], so that a warp's accesses to one word are conflict free.
#pragma once

#include "kernels.cuh"

// Threads per block of the shared-memory variants: 64 × (384 + 384) bytes of
// shared memory = the 48 KB of static shared memory.
static constexpr int g2_acc_nt = 64;

// 16-byte words of an Fp2 element, an affine G2 point, an XYZZ G2 point.
static constexpr int g2_w_fp2 = 6, g2_w_aff = 12, g2_w_xyzz = 24;

// An Fp2 element of a thread's strided shared slot s (s = base + threadIdx.x),
// from its 16-byte word k.
template <int NT>
__device__ __forceinline__ fp2_t sh_ld_fp2(const uint4* s, int k) {
  fp2_t r;
  uint32_t* w[2] = {r.a0.v, r.a1.v};
#pragma unroll
  for (int h = 0; h < 2; h++)
#pragma unroll
    for (int i = 0; i < 3; i++) {
      const uint4 a = s[(k + 3 * h + i) * NT];
      w[h][4 * i] = a.x; w[h][4 * i + 1] = a.y; w[h][4 * i + 2] = a.z; w[h][4 * i + 3] = a.w;
    }
  return r;
}

template <int NT>
__device__ __forceinline__ void sh_st_fp2(uint4* s, int k, const fp2_t& x) {
  const uint32_t* w[2] = {x.a0.v, x.a1.v};
#pragma unroll
  for (int h = 0; h < 2; h++)
#pragma unroll
    for (int i = 0; i < 3; i++)
      s[(k + 3 * h + i) * NT] = make_uint4(w[h][4 * i], w[h][4 * i + 1], w[h][4 * i + 2], w[h][4 * i + 3]);
}

// An XYZZ accumulator in a thread's strided shared slot (X, Y, ZZ, ZZZ at
// words 0, 6, 12, 18).
template <int NT>
struct g2_acc_sh {
  uint4* s;
  __device__ __forceinline__ fp2_t ld(int c) const { return sh_ld_fp2<NT>(s, c * g2_w_fp2); }
  __device__ __forceinline__ void st(int c, const fp2_t& x) { sh_st_fp2<NT>(s, c * g2_w_fp2, x); }
  __device__ __forceinline__ g2_xyzz get() const { return {ld(0), ld(1), ld(2), ld(3)}; }
  __device__ __forceinline__ void set(const g2_xyzz& p) {
    st(0, p.X);
    st(1, p.Y);
    st(2, p.ZZ);
    st(3, p.ZZZ);
  }
};

// The same interface over a register accumulator.
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

// An affine base in a thread's strided shared slot (x at word 0, y at 6),
// y negated on reading when neg.
template <int NT>
struct g2_aff_sh {
  const uint4* s;
  bool neg;
  __device__ __forceinline__ fp2_t x() const { return sh_ld_fp2<NT>(s, 0); }
  __device__ __forceinline__ fp2_t y() const {
    const fp2_t v = sh_ld_fp2<NT>(s, g2_w_fp2);
    return neg ? v.neg() : v;
  }
  __device__ __forceinline__ g2_affine get() const { return {x(), y()}; }
};

// The same interface over a base in registers (y already negated if needed).
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

// Starts the copy of base i into the strided shared slot s (cp.async: the
// 192 bytes go to shared memory without passing through registers).
template <int NT>
__device__ __forceinline__ void g2_aff_fetch(uint4* s, const g2_affine* bases, uint32_t i) {
  const uint4* q = reinterpret_cast<const uint4*>(bases + i);
#pragma unroll
  for (int k = 0; k < g2_w_aff; k++) {
    const uint32_t d = (uint32_t)__cvta_generic_to_shared(s + k * NT);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(q + k) : "memory");
  }
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits for all but the newest copy group of this thread.
__device__ __forceinline__ void g2_aff_wait_prior() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }

// The chunk loop of the cp.async variants (msm_acc_chunks' phase 1): acc
// (shared or registers), the bases double-buffered in pts (2 × 12 words of
// NT threads, thread offset applied).
template <int NT, class Acc>
__device__ __forceinline__ void g2_acc_loop(Acc& acc, uint4* pts, const g2_affine* __restrict__ bases,
                                            const uint32_t* __restrict__ keys, const uint32_t* __restrict__ vals,
                                            uint64_t j, uint64_t b, uint64_t e, g2_xyzz* head, g2_xyzz* tail,
                                            g2_xyzz* buckets) {
  uint32_t run = __ldg(keys + b);
  bool first = true;
  acc.set(g2_xyzz::inf());
  uint32_t v = __ldg(vals + b);
  g2_aff_fetch<NT>(pts, bases, v & 0x7fffffffu);
  for (uint64_t i = b; i < e; i++) {
    const uint32_t cur = (uint32_t)(i - b) & 1;
    const uint64_t in = i + 1 < e ? i + 1 : i;
    const uint32_t vn = __ldg(vals + in);
    g2_aff_fetch<NT>(pts + (cur ^ 1) * g2_w_aff * NT, bases, vn & 0x7fffffffu);
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
    g2_aff_wait_prior();
    const g2_aff_sh<NT> p = {pts + cur * g2_w_aff * NT, (v >> 31) != 0};
    g2_madd(acc, p);
    v = vn;
  }
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  if (first) {
    head[j] = acc.get();
    tail[j] = g2_xyzz::inf();
  } else {
    tail[j] = acc.get();
  }
}

// Variant 1: accumulator and bases in shared memory (msm_acc_chunks' arguments).
__global__ void __launch_bounds__(g2_acc_nt) g2_acc_shared(const g2_affine* __restrict__ bases,
                                                           const uint32_t* __restrict__ keys,
                                                           const uint32_t* __restrict__ vals,
                                                           const uint32_t* __restrict__ starts, uint32_t nkeys,
                                                           uint32_t C, g2_xyzz* head, g2_xyzz* tail,
                                                           g2_xyzz* buckets) {
  __shared__ uint4 sacc[g2_w_xyzz * g2_acc_nt];
  __shared__ uint4 spts[2 * g2_w_aff * g2_acc_nt];
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t nvalid = starts[nkeys], b = j * C;
  if (b >= nvalid) return;
  const uint64_t e = b + C < nvalid ? b + C : nvalid;
  g2_acc_sh<g2_acc_nt> acc = {sacc + threadIdx.x};
  g2_acc_loop<g2_acc_nt>(acc, spts + threadIdx.x, bases, keys, vals, j, b, e, head, tail, buckets);
}

// Variant 2: accumulator in registers, bases in shared memory.
__global__ void __launch_bounds__(128) g2_acc_regs_async(const g2_affine* __restrict__ bases,
                                                         const uint32_t* __restrict__ keys,
                                                         const uint32_t* __restrict__ vals,
                                                         const uint32_t* __restrict__ starts, uint32_t nkeys,
                                                         uint32_t C, g2_xyzz* head, g2_xyzz* tail,
                                                         g2_xyzz* buckets) {
  __shared__ uint4 spts[2 * g2_w_aff * 128];
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t nvalid = starts[nkeys], b = j * C;
  if (b >= nvalid) return;
  const uint64_t e = b + C < nvalid ? b + C : nvalid;
  g2_acc_reg acc;
  g2_acc_loop<128>(acc, spts + threadIdx.x, bases, keys, vals, j, b, e, head, tail, buckets);
}

// Variants 3 and 4: msm_acc_chunks' loop in registers with g2_madd (its
// results stored as soon as made); 4 prefetches the next base as the
// default does, 3 loads each base when it is added.
template <bool Prefetch>
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
  uint32_t v = __ldg(vals + b);
  g2_aff_reg p;
  if (Prefetch) p.p = ldaff(bases + (v & 0x7fffffffu));
  for (uint64_t i = b; i < e; i++) {
    const uint64_t in = i + 1 < e ? i + 1 : i;
    uint32_t vn = 0;
    g2_affine pn;
    if (Prefetch) {
      vn = __ldg(vals + in);
      pn = ldaff(bases + (vn & 0x7fffffffu));
    } else {
      v = __ldg(vals + i);
      p.p = ldaff(bases + (v & 0x7fffffffu));
    }
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
    if (Prefetch) {
      v = vn;
      p.p = pn;
    }
  }
  if (first) {
    head[j] = acc.get();
    tail[j] = g2_xyzz::inf();
  } else {
    tail[j] = acc.get();
  }
}

// The batch addition's first level (batch_add_chunks' arguments) with
// g2_madd on a register accumulator: what every CUZK_G2_ACC variant runs.
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
