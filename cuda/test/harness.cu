// Standalone GPU harness for the cuzk CUDA library: checks the kernels
// against host-side reference computations and times them with CUDA events.
//
//   cuzk_harness check          correctness checks (small and medium sizes)
//   cuzk_harness check-fixed    the fixed-base check alone
//   cuzk_harness check-stream   the run, stream and witness checks (what a memory limit touches)
//   cuzk_harness bench fixed LG  cuzk_fixed_base_g1 over 2^LG scalars
//   cuzk_harness bench [what]   timings: ntt, msm, part (PoRep-shaped partition)
//   cuzk_harness bench msm 27 HI LO   MSMs of 2^LO..2^HI points
//   cuzk_harness bench part-limit LG NAUX LIMIT... [g2]   the partition under device memory
//                               limits (bytes, or 16G = 16 GiB; g2: with B_G2; stream_checks.cuh)
//   cuzk_harness bench witness LGN NROWS [NAUX] [local|random]   cuzk_run_witness
//     on a PoRep-shaped system (witness_check.cuh)
//   cuzk_harness bench msm-g2 HI LO   G2 MSMs of 2^LO..2^HI points (default 25 23)
//   cuzk_harness bench msm-g2-acc HI LO [V...]   the same with each G2 accumulation
//                               V (CUZK_G2_ACC: 0 the generic kernel, 1 msm/acc_g2.cuh's; default
//                               both), one table
//   cuzk_harness check-g2       the G2 arithmetic and MSM checks alone (both accumulations)
//   cuzk_harness bench regspan   whether a copy across two separately page-locked ranges is page-locked
//   cuzk_harness bench lane [BULK_LG BULK_NAUX LANE_LG LANE_NAUX RUNS]   a small run's
//                               wait beside a looping PoRep-shaped run on another context (lane_bench.cuh)
//   cuzk_harness bench pair [LG NAUX RUNS]   PoRep-shaped runs on one context, then on two at once
//   cuzk_harness bench bshape NB      B_G1 and B_G2 alone at the partition's B shape
//   cuzk_harness bench part 27 27 LG NAUX g2   the partition with B_G2 on the device
//   CUZK_MSM_C=c forces the window of the large MSMs; CUZK_RUN_SERIAL=1
//   keeps the partition's L/A/B MSMs from overlapping its NTTs; CUZK_MSM_SEG
//   and CUZK_PROFILE as cuzk.h says (cuzk_config).
//
// It links libcuzk_cuda.so and uses the C ABI only.
#include <cuda_runtime.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "../cuzk.h"
#include "../ec/g1.cuh"
#include "../ec/g2.cuh"

static int fails = 0;
#define EXPECT(cond, ...)                  \
  do {                                     \
    if (!(cond)) {                         \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__);                 \
      printf("\n");                        \
      fails++;                             \
    }                                      \
  } while (0)
#define OK(x)                                                           \
  do {                                                                  \
    int r_ = (x);                                                       \
    if (r_) {                                                           \
      printf("ERROR %s:%d: %s -> %d: %s\n", __FILE__, __LINE__, #x, r_, cuzk_last_error()); \
      exit(2);                                                          \
    }                                                                   \
  } while (0)

struct rng {
  uint64_t s;
  explicit rng(uint64_t seed) : s(seed * 0x9e3779b97f4a7c15ull + 1) {}
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
};

static fr_t rand_fr(rng& r) {  // uniform-ish element < r (any value < r is a valid Montgomery form)
  fr_t x;
  for (int i = 0; i < 8; i++) x.v[i] = (uint32_t)r.next();
  x.v[7] %= 0x73eda753u;
  return x;
}

static void fill_random(fr_t* v, uint64_t n, uint64_t seed) {
#pragma omp parallel
  {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    rng r(seed * 1000 + t);
    uint64_t b = n * t / T, e = n * (t + 1) / T;
    for (uint64_t i = b; i < e; i++) v[i] = rand_fr(r);
  }
}

static uint32_t brev_h(uint32_t x, uint32_t bits) {
  uint32_t r = 0;
  for (uint32_t i = 0; i < bits; i++) r |= ((x >> i) & 1) << (bits - 1 - i);
  return r;
}

static g1_xyzz mul_g(const fr_t& k_mont) {  // k*G on the host
  fr_t k = k_mont.from_mont();
  g1_affine G = g1_generator();
  g1_xyzz acc = g1_xyzz::inf();
  for (int b = 255; b >= 0; b--) {
    acc = acc.dbl();
    if ((k.v[b / 32] >> (b % 32)) & 1) acc.add_affine(G);
  }
  return acc;
}

static bool same_point(const g1_xyzz& a, const g1_xyzz& b) {
  g1_affine x = a.to_affine(), y = b.to_affine();
  return x.x == y.x && x.y == y.y;
}

// discrete log of synthetic SRS point i of query q (see synth_points)
static fr_t synth_dlog(uint64_t i, int q) {
  uint64_t off = 0;
  for (int j = 0; j < q; j++) off += 977 * (j + 1);
  i += off;
  uint64_t k = (i & 4095) + 1 + (((i >> 12) % (1u << 17)) + 1) * 4097;
  return fr_from_u64(k);
}

// ---------------------------------------------------------------- checks

__global__ void k_field(const fr_t* a, const fr_t* b, fr_t* o, const fp_t* pa, const fp_t* pb, fp_t* po, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  o[3 * i] = a[i] * b[i];
  o[3 * i + 1] = a[i] + b[i];
  o[3 * i + 2] = a[i] - b[i];
  po[3 * i] = pa[i] * pb[i];
  po[3 * i + 1] = pa[i] + pb[i];
  po[3 * i + 2] = pa[i] - pb[i];
}

static void check_field() {
  // Fr 1/2 (blstrs TWO_INV) in Montgomery form
  const uint64_t half64[4] = {0x00000000ffffffffull, 0xac425bfd0001a401ull, 0xccc627f7f65e27faull,
                              0x0c1258acd66282b7ull};
  fr_t half;
  memcpy(half.v, half64, 32);
  fr_t two = fr_from_u64(2);
  EXPECT(half * two == fr_t::one(), "half*2 != 1");
  EXPECT(two.inv() == half, "inv(2) != half");
  // G1 generator on the curve: y^2 = x^3 + 4
  g1_affine G = g1_generator();
  fp_t four = fp_t::one().dbl().dbl();
  EXPECT(G.y.sqr() == G.x.sqr() * G.x + four, "generator not on curve");
  // r*G = 0: (r-1)*G + G
  fr_t rm1 = fr_t::zero() - fr_t::one();
  g1_xyzz p = mul_g(rm1);
  p.add_affine(G);
  EXPECT(p.is_inf(), "(r-1)G + G != 0");
  // XYZZ: 2G via dbl == G+G via add
  g1_xyzz g2a = g1_xyzz::from_affine(G).dbl(), g2b = g1_xyzz::from_affine(G);
  g2b.add(g1_xyzz::from_affine(G));
  EXPECT(same_point(g2a, g2b), "dbl != add");
  // device vs host
  const int n = 4096;
  std::vector<fr_t> a(n), b(n), o(3 * n);
  std::vector<fp_t> pa(n), pb(n), po(3 * n);
  rng r(1);
  for (int i = 0; i < n; i++) {
    a[i] = rand_fr(r);
    b[i] = rand_fr(r);
    for (int j = 0; j < 12; j++) {
      pa[i].v[j] = (uint32_t)r.next();
      pb[i].v[j] = (uint32_t)r.next();
    }
    pa[i].v[11] %= 0x1a0111eau;
    pb[i].v[11] %= 0x1a0111eau;
  }
  if (n > 0) {
    b[0] = a[0];  // a - a
    pb[0] = pa[0];
  }
  fr_t *da, *db, *dout;
  fp_t *dpa, *dpb, *dpo;
  cudaMalloc(&da, n * 32);
  cudaMalloc(&db, n * 32);
  cudaMalloc(&dout, 3 * n * 32);
  cudaMalloc(&dpa, n * 48);
  cudaMalloc(&dpb, n * 48);
  cudaMalloc(&dpo, 3 * n * 48);
  cudaMemcpy(da, a.data(), n * 32, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * 32, cudaMemcpyHostToDevice);
  cudaMemcpy(dpa, pa.data(), n * 48, cudaMemcpyHostToDevice);
  cudaMemcpy(dpb, pb.data(), n * 48, cudaMemcpyHostToDevice);
  k_field<<<n / 128, 128>>>(da, db, dout, dpa, dpb, dpo, n);
  cudaMemcpy(o.data(), dout, 3 * n * 32, cudaMemcpyDeviceToHost);
  cudaMemcpy(po.data(), dpo, 3 * n * 48, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    if (o[3 * i] != a[i] * b[i] || o[3 * i + 1] != a[i] + b[i] || o[3 * i + 2] != a[i] - b[i]) bad++;
    if (po[3 * i] != pa[i] * pb[i] || po[3 * i + 1] != pa[i] + pb[i] || po[3 * i + 2] != pa[i] - pb[i]) bad++;
    // algebra: (a+b)*(a-b) == a^2 - b^2
    if ((a[i] + b[i]) * (a[i] - b[i]) != a[i].sqr() - b[i].sqr()) bad++;
    if ((pa[i] + pb[i]) * (pa[i] - pb[i]) != pa[i].sqr() - pb[i].sqr()) bad++;
  }
  EXPECT(bad == 0, "field: %d mismatches", bad);
  cudaFree(da); cudaFree(db); cudaFree(dout); cudaFree(dpa); cudaFree(dpb); cudaFree(dpo);
  printf("field: ok=%d\n", bad == 0);
}

// naive DFT: X[k] = sum x[j] w^(jk)
static std::vector<fr_t> naive_dft(const std::vector<fr_t>& x, fr_t w) {
  size_t n = x.size();
  std::vector<fr_t> X(n);
#pragma omp parallel for
  for (size_t k = 0; k < n; k++) {
    fr_t wk = w.pow_u64(k), acc = fr_t::zero(), p = fr_t::one();
    for (size_t j = 0; j < n; j++) {
      acc = acc + x[j] * p;
      p = p * wk;
    }
    X[k] = acc;
  }
  return X;
}

static void check_ntt(cuzk_ctx* ctx) {
  int bad_total = 0;
  for (uint32_t lgn = 1; lgn <= 11; lgn++) {
    uint64_t n = 1ull << lgn;
    std::vector<fr_t> x(n);
    fill_random(x.data(), n, 100 + lgn);
    fr_t w = fr_root_of(lgn), g = fr_from_u64(7), ni = fr_from_u64(n).inv();
    std::vector<fr_t> X = naive_dft(x, w);
    std::vector<fr_t> xc(n);  // coset input: x_j g^j
    for (uint64_t j = 0; j < n; j++) xc[j] = x[j] * g.pow_u64(j);
    std::vector<fr_t> Xc = naive_dft(xc, w);
    std::vector<fr_t> Xi = naive_dft(x, w.inv());
    int bad = 0;
    for (uint32_t mode = 0; mode < 8; mode++) {
      std::vector<fr_t> in(n), want(n);
      bool coset = mode & 4, inv = (mode & 3) >= 2, dif = (mode & 3) == 0 || (mode & 3) == 2;
      for (uint64_t k = 0; k < n; k++) {
        fr_t v;
        if (!inv)
          v = coset ? Xc[k] : X[k];
        else {
          v = Xi[k] * ni;
          if (coset) v = v * g.inv().pow_u64(k);
        }
        // natural-order input/output with DIF: in natural, out bit-reversed
        if (dif) {
          in[k] = x[k];
          want[brev_h(k, lgn)] = v;
        } else {
          in[brev_h(k, lgn)] = x[k];
          want[k] = v;
        }
      }
      OK(cuzk_ntt(ctx, in.data(), lgn, mode));
      for (uint64_t k = 0; k < n; k++)
        if (in[k] != want[k]) bad++;
    }
    if (bad) printf("ntt lgn=%u: %d mismatches\n", lgn, bad);
    bad_total += bad;
  }
  EXPECT(bad_total == 0, "ntt vs naive DFT: %d mismatches", bad_total);
  // roundtrips at larger sizes (multi-pass)
  for (uint32_t lgn : {12u, 13u, 17u, 20u, 21u, 23u}) {
    uint64_t n = 1ull << lgn;
    std::vector<fr_t> x(n), y;
    fill_random(x.data(), n, 200 + lgn);
    y = x;
    OK(cuzk_ntt(ctx, y.data(), lgn, CUZK_NTT_FWD_DIF | CUZK_NTT_COSET));
    // spot check output k at bitrev position against a direct evaluation at g*w^k
    fr_t w = fr_root_of(lgn), g = fr_from_u64(7);
    int bad = 0;
    for (uint64_t k : std::vector<uint64_t>{0, 1, 5, n / 2 + 3, n - 1}) {
      fr_t pt = g * w.pow_u64(k), acc = fr_t::zero();
      for (int64_t j = n - 1; j >= 0; j--) acc = acc * pt + x[j];
      if (y[brev_h(k, lgn)] != acc) bad++;
    }
    OK(cuzk_ntt(ctx, y.data(), lgn, CUZK_NTT_INV_DIT | CUZK_NTT_COSET));
    for (uint64_t i = 0; i < n; i++)
      if (y[i] != x[i]) bad++;
    EXPECT(bad == 0, "ntt roundtrip lgn=%u: %d mismatches", lgn, bad);
  }
  printf("ntt: ok=%d\n", fails == 0);
}

// H check: with c = a*b on the rows, H(t)*(t^m - 1) == A(t)B(t) - C(t) at a random t.
static void check_h(cuzk_ctx* ctx) {
  for (uint32_t lgn : {1u, 2u, 5u, 10u, 11u, 14u, 20u}) {
    uint64_t m = 1ull << lgn, rows = m - (lgn > 3 ? 3 : 0);
    std::vector<fr_t> a(rows), b(rows), c(rows), h(m - 1);
    fill_random(a.data(), rows, 300 + lgn);
    fill_random(b.data(), rows, 400 + lgn);
    for (uint64_t i = 0; i < rows; i++) c[i] = a[i] * b[i];
    OK(cuzk_h(ctx, a.data(), b.data(), c.data(), rows, lgn, h.data()));
    // polynomials: coefficients via inverse NTT on the GPU (checked above)
    std::vector<fr_t> pa(m, fr_t::zero()), pb(m, fr_t::zero()), pc(m, fr_t::zero());
    std::copy(a.begin(), a.end(), pa.begin());
    std::copy(b.begin(), b.end(), pb.begin());
    std::copy(c.begin(), c.end(), pc.begin());
    std::vector<fr_t> tmp;
    for (auto* v : {&pa, &pb, &pc}) {
      tmp.assign(m, fr_t::zero());
      for (uint64_t i = 0; i < m; i++) tmp[brev_h(i, lgn)] = (*v)[i];
      OK(cuzk_ntt(ctx, tmp.data(), lgn, CUZK_NTT_INV_DIT));
      *v = tmp;
    }
    rng r(lgn);
    fr_t t = rand_fr(r);
    auto ev = [&](const std::vector<fr_t>& p) {
      fr_t acc = fr_t::zero();
      for (int64_t j = p.size() - 1; j >= 0; j--) acc = acc * t + p[j];
      return acc;
    };
    fr_t lhs = ev(h) * (t.pow_u64(m) - fr_t::one());
    fr_t rhs = ev(pa) * ev(pb) - ev(pc);
    EXPECT(lhs == rhs, "H identity fails at lgn=%u", lgn);
  }
  printf("h: ok=%d\n", fails == 0);
}

static void check_msm_random(cuzk_ctx* ctx, const std::vector<g1_affine>& bases, const std::vector<fr_t>& dl);
static void check_msm_skewed(cuzk_ctx* ctx, const std::vector<g1_affine>& bases, const std::vector<fr_t>& dl);
static void check_msm_split(cuzk_ctx* ctx, const std::vector<g1_affine>& bases, const std::vector<fr_t>& dl);
static void check_msm_repeated(cuzk_ctx* ctx, const std::vector<g1_affine>& bases, const std::vector<fr_t>& dl);

static void check_msm(cuzk_ctx* ctx) {
  const uint64_t NB = (1ull << 22) + 5;
  cuzk_srs* srs = cuzk_srs_synthetic(0, NB, 0, 0, 0);
  if (!srs) {
    printf("ERROR synthetic srs: %s\n", cuzk_last_error());
    exit(2);
  }
  std::vector<g1_affine> bases(NB);
  OK(cuzk_srs_read(srs, 0, 0, NB, bases.data()));
  // the synthetic points are what they claim (spot check)
  int bad = 0;
  for (uint64_t i : std::vector<uint64_t>{0, 1, 4095, 4096, 123457, NB - 1}) {
    g1_xyzz want = mul_g(synth_dlog(i, 0));
    g1_affine wa = want.to_affine();
    if (!(wa.x == bases[i].x && wa.y == bases[i].y)) bad++;
  }
  EXPECT(bad == 0, "synthetic srs points: %d wrong", bad);
  std::vector<fr_t> dl(NB);
#pragma omp parallel for
  for (uint64_t i = 0; i < NB; i++) dl[i] = synth_dlog(i, 0);
  check_msm_random(ctx, bases, dl);
  check_msm_skewed(ctx, bases, dl);
  check_msm_split(ctx, bases, dl);
  check_msm_repeated(ctx, bases, dl);
  cuzk_srs_free(srs);
  printf("msm: ok=%d\n", fails == 0);
}

// bases[i] = dl[i]·G: random scalars with 0, 1, -1, a repeat and 2 among them.
static void check_msm_random(cuzk_ctx* ctx, const std::vector<g1_affine>& bases, const std::vector<fr_t>& dl) {
  for (uint64_t n : std::vector<uint64_t>{1, 2, 3, 31, 100, 1000, 4097, (1ull << 16) + 3, 1ull << 20, 1ull << 22}) {
    std::vector<fr_t> s(n);
    fill_random(s.data(), n, 500 + n);
    if (n > 10) {
      s[0] = fr_t::zero();
      s[1] = fr_t::one();
      s[2] = fr_t::zero() - fr_t::one();
      s[3] = s[4];  // repeated scalar
      s[7] = fr_from_u64(2);
    }
    g1_xyzz got;
    OK(cuzk_msm(ctx, bases.data(), s.data(), n, &got));
    fr_t acc = fr_t::zero();
    for (uint64_t i = 0; i < n; i++) acc = acc + s[i] * dl[i];
    EXPECT(same_point(got, mul_g(acc)), "msm n=%llu wrong", (unsigned long long)n);
  }
}

// Skewed scalars: a few small values and r-1 (huge buckets).
static void check_msm_skewed(cuzk_ctx* ctx, const std::vector<g1_affine>& bases, const std::vector<fr_t>& dl) {
  for (uint64_t n : std::vector<uint64_t>{(1ull << 20) + 7, (1ull << 21)}) {
    std::vector<fr_t> s(n);
    rng r(n + 1);
    const fr_t vals[4] = {fr_from_u64(2), fr_from_u64(3), fr_from_u64(5), fr_t::zero() - fr_t::one()};
    fr_t acc = fr_t::zero();
    for (uint64_t i = 0; i < n; i++) {
      s[i] = vals[r.next() % 4];
      acc = acc + s[i] * dl[i];
    }
    g1_xyzz got;
    auto t0 = std::chrono::steady_clock::now();
    OK(cuzk_msm(ctx, bases.data(), s.data(), n, &got));
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT(same_point(got, mul_g(acc)), "skewed msm n=%llu wrong", (unsigned long long)n);
    printf("skewed msm n=%llu: %.3f s (with transfers)\n", (unsigned long long)n, sec);
  }
}

// Split MSM: ones bitmap + tail with indices.
static void check_msm_split(cuzk_ctx* ctx, const std::vector<g1_affine>& bases, const std::vector<fr_t>& dl) {
  for (uint64_t n : std::vector<uint64_t>{5, 1000, 1ull << 20}) {
    std::vector<uint32_t> bits((n + 31) / 32, 0), idx;
    std::vector<fr_t> tail;
    rng r(n);
    fr_t acc = fr_t::zero();
    for (uint64_t i = 0; i < n; i++) {
      uint64_t x = r.next() % 4;
      if (x == 1) {
        bits[i / 32] |= 1u << (i % 32);
        acc = acc + dl[i];
      } else if (x >= 2) {
        fr_t v = rand_fr(r);
        tail.push_back(v);
        idx.push_back(i);
        acc = acc + v * dl[i];
      }
    }
    g1_xyzz got;
    OK(cuzk_msm_split(ctx, bases.data(), n, bits.data(), tail.data(), idx.data(), tail.size(), &got));
    EXPECT(same_point(got, mul_g(acc)), "split msm n=%llu wrong", (unsigned long long)n);
  }
}

// Repeated and infinite bases in one tail: the same base with the same
// digits meets itself in a bucket (a doubling), with negated digits its
// negation (infinity, then infinity plus a point); a few bases are (0, 0).
static void check_msm_repeated(cuzk_ctx* ctx, const std::vector<g1_affine>& bases, const std::vector<fr_t>& dl) {
  for (uint64_t nb : std::vector<uint64_t>{64, 700, 1ull << 16}) {
    const uint64_t nbases = 4 * nb;  // a tail is no longer than its bases
    std::vector<g1_affine> bb(bases.begin(), bases.begin() + nbases);
    std::vector<bool> inf(nb, false);
    for (uint64_t i = 3; i < nb; i += 61) {
      bb[i].x = fp_t::zero();
      bb[i].y = fp_t::zero();
      inf[i] = true;
    }
    std::vector<uint32_t> bits((nbases + 31) / 32, 0), idx;
    std::vector<fr_t> tail;
    rng r(nb + 17);
    fr_t acc = fr_t::zero();
    auto put = [&](uint64_t i, const fr_t& v) {
      tail.push_back(v);
      idx.push_back((uint32_t)i);
      if (!inf[i]) acc = acc + v * dl[i];
    };
    for (uint64_t i = 0; i < nb; i++) {
      const fr_t v = rand_fr(r);
      put(i, v);
      switch (i % 4) {
        case 0: put(i, v); break;                 // doubling
        case 1: put(i, fr_t::zero() - v); break;  // cancels
        case 2: put(i, v); put(i, v); break;      // three of a kind
        default: break;
      }
    }
    g1_xyzz got;
    OK(cuzk_msm_split(ctx, bb.data(), nbases, bits.data(), tail.data(), idx.data(), tail.size(), &got));
    EXPECT(same_point(got, mul_g(acc)), "msm with repeated bases nb=%llu wrong", (unsigned long long)nb);
  }
}

// ---------------------------------------------------------------- G2

static g2_xyzz mul_g2(const fr_t& k_mont) {  // k*G2 on the host
  fr_t k = k_mont.from_mont();
  g2_affine G = g2_generator();
  g2_xyzz acc = g2_xyzz::inf();
  for (int b = 255; b >= 0; b--) {
    acc = acc.dbl();
    if ((k.v[b / 32] >> (b % 32)) & 1) acc.add_affine(G);
  }
  return acc;
}

static bool same_g2(const g2_xyzz& a, const g2_xyzz& b) {
  g2_affine x = a.to_affine(), y = b.to_affine();
  return x.x == y.x && x.y == y.y;
}

// Prints the affine coordinates' first words of got and want (for a failed check).
static void show_g2(const char* what, const g2_xyzz& got, const g2_xyzz& want) {
  g2_affine g = got.to_affine(), w = want.to_affine();
  printf("  %s: got x.a0[0..1] %08x%08x (inf %d), want %08x%08x (inf %d)\n", what, g.x.a0.v[1], g.x.a0.v[0],
         got.is_inf(), w.x.a0.v[1], w.x.a0.v[0], want.is_inf());
}

// n G2 bases P_i = (c0 + i*c1)·G2 made on the host (running sums per thread,
// one batch inversion each) and their discrete logs.
static void g2_bases(uint64_t n, uint64_t c0, uint64_t c1, std::vector<g2_affine>& pts, std::vector<fr_t>& dl) {
  pts.resize(n);
  dl.resize(n);
  const fr_t f0 = fr_from_u64(c0), f1 = fr_from_u64(c1);
  const g2_xyzz step = mul_g2(f1);
#pragma omp parallel
  {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    uint64_t b = n * t / T, e = n * (t + 1) / T;
    if (b < e) {
      fr_t k = f0 + fr_from_u64(b) * f1;
      g2_xyzz acc = mul_g2(k);
      std::vector<g2_xyzz> p(e - b);
      std::vector<fp2_t> pre(e - b);
      fp2_t run = fp2_t::one();
      for (uint64_t i = b; i < e; i++) {
        dl[i] = k;
        p[i - b] = acc;
        pre[i - b] = run;
        run = run * (acc.ZZ * acc.ZZZ);
        acc.add(step);
        k = k + f1;
      }
      fp2_t inv = run.inv();
      for (uint64_t i = e; i-- > b;) {
        const g2_xyzz& q = p[i - b];
        fp2_t zinv = inv * pre[i - b];
        inv = inv * (q.ZZ * q.ZZZ);
        pts[i].x = q.X * (zinv * q.ZZZ);
        pts[i].y = q.Y * (zinv * q.ZZ);
      }
    }
  }
}

static fp2_t rand_fp2(rng& r) {
  fp2_t x;
  for (int j = 0; j < 12; j++) {
    x.a0.v[j] = (uint32_t)r.next();
    x.a1.v[j] = (uint32_t)r.next();
  }
  x.a0.v[11] %= 0x1a0111eau;
  x.a1.v[11] %= 0x1a0111eau;
  return x;
}

// Device Fp2 (the wide forms) against the host's (Karatsuba over the portable product).
__global__ void k_fp2(const fp2_t* a, const fp2_t* b, fp2_t* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const fp2_t x = a[i], y = b[i], z = a[(i + 1) % n], w = b[(i + 3) % n];
  o[6 * i] = x * y;
  o[6 * i + 1] = x.sqr();
  o[6 * i + 2] = x + y;
  o[6 * i + 3] = x - y;
  o[6 * i + 4] = fp2_t::mul_add2(x, y, z, w);
  o[6 * i + 5] = x.mul_fp(y.a1);
}

// Device G2 additions and doublings: o[4i..4i+3] = P+Q (mixed), P+Q (XYZZ,
// Q doubled first so that ZZ != 1), 2P, P + P (mixed: the doubling case).
__global__ void k_g2(const g2_affine* p, const g2_affine* q, g2_xyzz* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  g2_xyzz a = g2_xyzz::from_affine(p[i]);
  a.add_affine(q[i]);
  o[4 * i] = a;
  g2_xyzz b = g2_xyzz::from_affine(p[i]);
  b.add(g2_xyzz::from_affine(q[i]).dbl());
  o[4 * i + 1] = b;
  o[4 * i + 2] = g2_xyzz::from_affine(p[i]).dbl();
  g2_xyzz c = g2_xyzz::from_affine(p[i]);
  c.add_affine(p[i]);
  o[4 * i + 3] = c;
}

static void check_g2_arith() {
  const int n = 4096;
  std::vector<fp2_t> a(n), b(n), o(6 * n);
  rng r(31);
  for (int i = 0; i < n; i++) {
    a[i] = rand_fp2(r);
    b[i] = rand_fp2(r);
  }
  a[0] = fp2_t::zero();
  b[1] = fp2_t::one();
  a[2] = fp2_t::zero() - fp2_t::one();
  b[2] = a[2];
  b[3] = a[3];
  fp2_t *da, *db, *dout;
  cudaMalloc(&da, n * sizeof(fp2_t));
  cudaMalloc(&db, n * sizeof(fp2_t));
  cudaMalloc(&dout, 6 * n * sizeof(fp2_t));
  cudaMemcpy(da, a.data(), n * sizeof(fp2_t), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * sizeof(fp2_t), cudaMemcpyHostToDevice);
  k_fp2<<<n / 128, 128>>>(da, db, dout, n);
  cudaMemcpy(o.data(), dout, 6 * n * sizeof(fp2_t), cudaMemcpyDeviceToHost);
  const char* names[6] = {"mul", "sqr", "add", "sub", "mul_add2", "mul_fp"};
  int bad[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 0; i < n; i++) {
    const fp2_t x = a[i], y = b[i], z = a[(i + 1) % n], w = b[(i + 3) % n];
    const fp2_t want[6] = {x * y, x.sqr(), x + y, x - y, x * y + z * w, {x.a0 * y.a1, x.a1 * y.a1}};
    for (int k = 0; k < 6; k++) {
      if (o[6 * i + k] != want[k]) {
        if (bad[k] < 3) printf("  fp2 %s differs at %d\n", names[k], i);
        bad[k]++;
      }
    }
  }
  for (int k = 0; k < 6; k++) EXPECT(bad[k] == 0, "fp2 %s: %d of %d differ (device vs host)", names[k], bad[k], n);
  cudaFree(da); cudaFree(db); cudaFree(dout);
  // points: P_i, Q_i multiples of G2
  const int np = 256;
  std::vector<g2_affine> P, Q;
  std::vector<fr_t> dp, dq;
  g2_bases(np, 3, 1000003, P, dp);
  g2_bases(np, 77, 999983, Q, dq);
  Q[5] = P[5];                                    // equal: P + P
  Q[6] = P[6].neg();                              // opposite: infinity
  Q[7].x = fp2_t::zero(); Q[7].y = fp2_t::zero();  // Q infinite
  P[8].x = fp2_t::zero(); P[8].y = fp2_t::zero();  // P infinite
  g2_affine *dP, *dQ;
  g2_xyzz* dO;
  cudaMalloc(&dP, np * sizeof(g2_affine));
  cudaMalloc(&dQ, np * sizeof(g2_affine));
  cudaMalloc(&dO, 4 * np * sizeof(g2_xyzz));
  cudaMemcpy(dP, P.data(), np * sizeof(g2_affine), cudaMemcpyHostToDevice);
  cudaMemcpy(dQ, Q.data(), np * sizeof(g2_affine), cudaMemcpyHostToDevice);
  k_g2<<<np / 128, 128>>>(dP, dQ, dO, np);
  std::vector<g2_xyzz> go(4 * np);
  cudaMemcpy(go.data(), dO, 4 * np * sizeof(g2_xyzz), cudaMemcpyDeviceToHost);
  cudaError_t e = cudaGetLastError();
  EXPECT(e == cudaSuccess, "g2 kernels: %s", cudaGetErrorString(e));
  const char* pn[4] = {"P+Q mixed", "P+2Q xyzz", "2P", "P+P mixed"};
  int pbad = 0;
  for (int i = 0; i < np; i++) {
    fr_t kp = i == 8 ? fr_t::zero() : dp[i];
    fr_t kq = i == 7 ? fr_t::zero() : i == 5 ? dp[5] : i == 6 ? fr_t::zero() - dp[6] : dq[i];
    const fr_t two = fr_from_u64(2);
    const fr_t want[4] = {kp + kq, kp + two * kq, two * kp, two * kp};
    for (int k = 0; k < 4; k++) {
      g2_xyzz w = mul_g2(want[k]);
      if (!same_g2(go[4 * i + k], w)) {
        if (pbad < 5) {
          printf("  g2 %s differs at %d\n", pn[k], i);
          show_g2(pn[k], go[4 * i + k], w);
        }
        pbad++;
      }
    }
  }
  EXPECT(pbad == 0, "g2 point operations: %d of %d differ", pbad, 4 * np);
  cudaFree(dP); cudaFree(dQ); cudaFree(dO);
  printf("g2 arithmetic: ok=%d\n", fails == 0);
}

// The G2 accumulations (CUZK_G2_ACC): 0 the generic msm_acc_chunks, 1 msm/acc_g2.cuh's (the default).
static const int g2_acc_variants = 2;

// Sets CUZK_G2_ACC to v (v < 0: to what it was when the harness started).
static void set_g2_acc(int v) {
  static const char* start = getenv("CUZK_G2_ACC");
  static const std::string saved = start ? start : "";
  static const bool had = start != nullptr;
  if (v >= 0)
    setenv("CUZK_G2_ACC", std::to_string(v).c_str(), 1);
  else if (had)
    setenv("CUZK_G2_ACC", saved.c_str(), 1);
  else
    unsetenv("CUZK_G2_ACC");
}

static void check_msm_g2_sums(cuzk_ctx* ctx, const std::vector<g2_affine>& bases, const std::vector<fr_t>& dl);
static void check_synthetic_bg2();

// G2 MSMs against the host (check_msm_g2_sums) with both accumulations, and
// the synthetic B_G2.
static void check_msm_g2(cuzk_ctx* ctx) {
  const uint64_t NB = (1ull << 17) + 5;  // c = 16 at the top size
  std::vector<g2_affine> bases;
  std::vector<fr_t> dl;
  auto t0 = std::chrono::steady_clock::now();
  g2_bases(NB, 12345, 1000000007, bases, dl);
  printf("g2 bases: %llu on the host in %.1f s\n", (unsigned long long)NB,
         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  for (int v = 0; v < g2_acc_variants; v++) {
    const int before = fails;
    set_g2_acc(v);
    check_msm_g2_sums(ctx, bases, dl);
    printf("msm g2 (CUZK_G2_ACC=%d): ok=%d\n", v, fails == before);
    fflush(stdout);
  }
  set_g2_acc(-1);
  check_synthetic_bg2();
  printf("msm g2: ok=%d\n", fails == 0);
}

// G2 MSMs against the host: random scalars with 0, 1, -1, a repeat and 2;
// skewed; split (ones + tail); repeated and infinite bases (doublings,
// cancellations).
static void check_msm_g2_sums(cuzk_ctx* ctx, const std::vector<g2_affine>& bases, const std::vector<fr_t>& dl) {
  const uint64_t NB = bases.size();
  for (uint64_t n : std::vector<uint64_t>{1, 2, 3, 31, 100, 1000, 4097, (1ull << 16) + 3, NB}) {
    std::vector<fr_t> s(n);
    fill_random(s.data(), n, 900 + n);
    if (n > 10) {
      s[0] = fr_t::zero();
      s[1] = fr_t::one();
      s[2] = fr_t::zero() - fr_t::one();
      s[3] = s[4];
      s[7] = fr_from_u64(2);
    }
    g2_xyzz got;
    OK(cuzk_msm_g2(ctx, bases.data(), s.data(), n, &got));
    fr_t acc = fr_t::zero();
    for (uint64_t i = 0; i < n; i++) acc = acc + s[i] * dl[i];
    g2_xyzz want = mul_g2(acc);
    EXPECT(same_g2(got, want), "msm g2 n=%llu wrong", (unsigned long long)n);
    if (!same_g2(got, want)) show_g2("msm g2", got, want);
  }
  // skewed: few distinct small scalars and r-1 (huge buckets)
  {
    const uint64_t n = NB;
    std::vector<fr_t> s(n);
    rng r(n + 3);
    const fr_t vals[4] = {fr_from_u64(2), fr_from_u64(3), fr_from_u64(5), fr_t::zero() - fr_t::one()};
    fr_t acc = fr_t::zero();
    for (uint64_t i = 0; i < n; i++) {
      s[i] = vals[r.next() % 4];
      acc = acc + s[i] * dl[i];
    }
    g2_xyzz got;
    OK(cuzk_msm_g2(ctx, bases.data(), s.data(), n, &got));
    EXPECT(same_g2(got, mul_g2(acc)), "skewed msm g2 n=%llu wrong", (unsigned long long)n);
  }
  // split: ones bitmap + tail with indices
  for (uint64_t n : std::vector<uint64_t>{5, 1000, NB}) {
    std::vector<uint32_t> bits((n + 31) / 32, 0), idx;
    std::vector<fr_t> tail;
    rng r(n + 5);
    fr_t acc = fr_t::zero();
    for (uint64_t i = 0; i < n; i++) {
      uint64_t x = r.next() % 4;
      if (x == 1) {
        bits[i / 32] |= 1u << (i % 32);
        acc = acc + dl[i];
      } else if (x >= 2) {
        fr_t v = rand_fr(r);
        tail.push_back(v);
        idx.push_back((uint32_t)i);
        acc = acc + v * dl[i];
      }
    }
    g2_xyzz got;
    OK(cuzk_msm_split_g2(ctx, bases.data(), n, bits.data(), tail.data(), idx.data(), tail.size(), &got));
    EXPECT(same_g2(got, mul_g2(acc)), "split msm g2 n=%llu wrong", (unsigned long long)n);
  }
  // repeated and infinite bases in one tail, ones over infinite bases too
  for (uint64_t nb : std::vector<uint64_t>{64, 700, 1ull << 15}) {
    const uint64_t nbases = 4 * nb;
    std::vector<g2_affine> bb(bases.begin(), bases.begin() + nbases);
    std::vector<bool> inf(nbases, false);
    for (uint64_t i = 3; i < nbases; i += 61) {
      bb[i].x = fp2_t::zero();
      bb[i].y = fp2_t::zero();
      inf[i] = true;
    }
    std::vector<uint32_t> bits((nbases + 31) / 32, 0), idx;
    std::vector<fr_t> tail;
    rng r(nb + 19);
    fr_t acc = fr_t::zero();
    auto put = [&](uint64_t i, const fr_t& v) {
      tail.push_back(v);
      idx.push_back((uint32_t)i);
      if (!inf[i]) acc = acc + v * dl[i];
    };
    for (uint64_t i = 0; i < nb; i++) {
      const fr_t v = rand_fr(r);
      put(i, v);
      switch (i % 4) {
        case 0: put(i, v); break;                 // doubling
        case 1: put(i, fr_t::zero() - v); break;  // cancels
        case 2: put(i, v); put(i, v); break;      // three of a kind
        default: break;
      }
    }
    for (uint64_t i = nb; i < nbases; i += 2) {  // ones, some infinite
      bits[i / 32] |= 1u << (i % 32);
      if (!inf[i]) acc = acc + dl[i];
    }
    g2_xyzz got;
    OK(cuzk_msm_split_g2(ctx, bb.data(), nbases, bits.data(), tail.data(), idx.data(), tail.size(), &got));
    EXPECT(same_g2(got, mul_g2(acc)), "msm g2 with repeated bases nb=%llu wrong", (unsigned long long)nb);
  }
}

// The synthetic B_G2 is what it claims (spot check; benchmarks use it).
static void check_synthetic_bg2() {
  {
    const uint64_t n = 5000;
    cuzk_srs* srs = cuzk_srs_synthetic(0, 0, 0, 0, n);
    if (!srs) {
      printf("ERROR synthetic srs: %s\n", cuzk_last_error());
      exit(2);
    }
    OK(cuzk_srs_synthetic_bg2(srs));
    std::vector<g2_affine> sp(n);
    OK(cuzk_srs_read_bg2(srs, 0, n, sp.data()));
    int bad = 0;
    for (uint64_t i : std::vector<uint64_t>{0, 1, 4095, 4096, 4999}) {
      g2_affine w = mul_g2(synth_dlog(i, 0)).to_affine();
      if (!(w.x == sp[i].x && w.y == sp[i].y)) bad++;
    }
    EXPECT(bad == 0, "synthetic b_g2 points: %d of 5 wrong", bad);
    cuzk_srs_free(srs);
  }
}

// cuzk_run on a small partition against host sums: H from cuzk_h (checked
// above) against the h query, L, A and B_G1 from their ones and tails; once
// with c uploaded and once with c = NULL (c = a∘b on the device), twice each
// (the streams and events of the run must give the same points every time).
static void check_run(cuzk_ctx* ctx) {
  const uint32_t lgn = 12;
  const uint64_t m = 1ull << lgn, rows = m - 5, naux = 3000, nb = naux / 4;
  const uint64_t nq[4] = {m - 1, naux, naux, nb};
  cuzk_srs* srs = cuzk_srs_synthetic(0, nq[0], nq[1], nq[2], nq[3]);
  if (!srs) {
    printf("ERROR synthetic srs: %s\n", cuzk_last_error());
    exit(2);
  }
  std::vector<fr_t> a(rows), b(rows), c(rows), h(m - 1);
  fill_random(a.data(), rows, 700);
  fill_random(b.data(), rows, 701);
  for (uint64_t i = 0; i < rows; i++) c[i] = a[i] * b[i];
  OK(cuzk_h(ctx, a.data(), b.data(), c.data(), rows, lgn, h.data()));
  fr_t want[4] = {fr_t::zero(), fr_t::zero(), fr_t::zero(), fr_t::zero()};
  for (uint64_t i = 0; i < m - 1; i++) want[0] = want[0] + h[i] * synth_dlog(i, 0);
  cuzk_job job = {};
  job.a = a.data();
  job.b = b.data();
  job.nrows = rows;
  job.lgn = lgn;
  std::vector<fr_t> aux(naux);
  fill_random(aux.data(), naux, 702);
  std::vector<uint32_t> bits[3], idx[3];
  std::vector<fr_t> tail[3];
  rng r(703);
  std::vector<uint8_t> kind(naux);
  for (uint64_t i = 0; i < naux; i++) kind[i] = r.next() % 3;  // zero, one, other
  for (int p = 0; p < 3; p++) {
    bits[p].assign((nq[p + 1] + 31) / 32, 0);
    for (uint64_t i = 0; i < nq[p + 1]; i++) {
      uint64_t w = p == 2 ? i * 4 : i;
      if (kind[w] == 1) {
        bits[p][i / 32] |= 1u << (i % 32);
        want[p + 1] = want[p + 1] + synth_dlog(i, p + 1);
      } else if (kind[w] == 2) {
        tail[p].push_back(aux[w]);
        idx[p].push_back((uint32_t)i);
        want[p + 1] = want[p + 1] + aux[w] * synth_dlog(i, p + 1);
      }
    }
    job.part[p].ones = bits[p].data();
    job.part[p].scalars = tail[p].data();
    job.part[p].idx = idx[p].data();
    job.part[p].ntail = tail[p].size();
  }
  g1_xyzz wantp[4];
  for (int q = 0; q < 4; q++) wantp[q] = mul_g(want[q]);
  // B_G2 over the B part's scalars: bases with known discrete logs, uploaded
  // after the first round (which must report has_bg2 = 0)
  std::vector<g2_affine> bg2;
  std::vector<fr_t> dl2;
  g2_bases(nb, 5, 7919, bg2, dl2);
  bg2[9].x = fp2_t::zero();  // an infinite base
  bg2[9].y = fp2_t::zero();
  fr_t want2 = fr_t::zero();
  for (uint64_t i = 0; i < nb; i++) {
    if (i == 9) continue;
    if (kind[i * 4] == 1) want2 = want2 + dl2[i];
    if (kind[i * 4] == 2) want2 = want2 + aux[i * 4] * dl2[i];
  }
  const g2_xyzz wantb2 = mul_g2(want2);
  const char* names[4] = {"H", "L", "A", "B_G1"};
  for (int withg2 = 0; withg2 < 2; withg2++) {
    if (withg2) OK(cuzk_srs_upload_bg2(srs, bg2.data(), nb));
    for (int withc = 1; withc >= 0; withc--) {
      job.c = withc ? c.data() : nullptr;
      for (int rep = 0; rep < 2; rep++) {
        cuzk_result res;
        OK(cuzk_run(ctx, srs, &job, &res));
        for (int q = 0; q < 4; q++) {
          g1_xyzz got;
          memcpy(&got, res.points[q], sizeof got);
          EXPECT(same_point(got, wantp[q]), "run (c %s, rep %d, b_g2 %d): %s wrong", withc ? "given" : "NULL", rep,
                 withg2, names[q]);
        }
        EXPECT(res.has_bg2 == withg2, "run (b_g2 %d): has_bg2 = %d", withg2, res.has_bg2);
        if (withg2) {
          g2_xyzz got;
          memcpy(&got, res.bg2, sizeof got);
          EXPECT(same_g2(got, wantb2), "run (c %s, rep %d): B_G2 wrong", withc ? "given" : "NULL", rep);
          if (!same_g2(got, wantb2)) show_g2("run B_G2", got, wantb2);
        }
      }
    }
  }
  // a B_G2 count other than B_G1's is refused
  EXPECT(cuzk_srs_upload_bg2(srs, bg2.data(), nb - 1) == CUZK_ERR_ARG, "upload_bg2 with %llu points accepted",
         (unsigned long long)(nb - 1));
  cuzk_srs_free(srs);
  printf("run: ok=%d\n", fails == 0);
}

// ---------------------------------------------------------------- benches

static void bench_ntt(cuzk_ctx* ctx, uint32_t lo, uint32_t hi) {
  // H seq: bellperson's 7 transforms (c given); from a·b: cuzk_run's 6 (c = a∘b)
  printf("%-8s %12s %12s %12s %12s\n", "lg n", "fwd DIF ms", "inv DIT ms", "H seq ms", "from a·b ms");
  for (uint32_t lgn = lo; lgn <= hi; lgn++) {
    float f, iv, hs, hab;
    OK(cuzk_bench_ntt(ctx, lgn, lgn >= 26 ? 3 : 5, &f, &iv, &hs, &hab));
    printf("%-8u %12.3f %12.3f %12.3f %12.3f\n", lgn, f, iv, hs, hab);
    fflush(stdout);
  }
}

static void bench_msm(cuzk_ctx* ctx, uint32_t lo, uint32_t hi) {
  uint64_t N = 1ull << hi;
  cuzk_srs* srs = cuzk_srs_synthetic(0, N, 0, 0, 0);
  if (!srs) {
    printf("ERROR synthetic srs: %s\n", cuzk_last_error());
    exit(2);
  }
  printf("%-8s %12s %10s\n", "lg n", "MSM ms", "Madd/s");
  for (uint32_t lg = lo; lg <= hi; lg++) {
    uint64_t n = 1ull << lg;
    float ms;
    uint32_t c;
    OK(cuzk_bench_msm(ctx, srs, 0, n, lg >= 25 ? 2 : 4, &ms, &c));
    uint32_t W = (256 + c - 1) / c;
    printf("%-8u %12.3f %10.0f  (c=%u)\n", lg, ms, n * (double)W / (ms * 1e3), c);
    fflush(stdout);
  }
  cuzk_srs_free(srs);
}

// Field multiplication rate: 4 independent chains per thread (the shape sppark's field benchmark uses).
template <class F>
__global__ void k_mulrate(F* io, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  F a = io[i], b = io[i + 1], c = io[i + 2], d = io[i + 3], y = io[i + 4];
  for (int k = 0; k < iters; k++) {
    a = a * y;
    b = b * y;
    c = c * y;
    d = d * y;
  }
  io[i] = a + b + c + d;
}

template <class F>
static void bench_mul(const char* name) {
  int blocks = 132 * 8, threads = 256, iters = 2048;
  size_t n = (size_t)blocks * threads + 8;
  std::vector<F> h(n);
  rng r(5);
  for (auto& x : h) {
    for (int j = 0; j < F::N; j++) x.v[j] = (uint32_t)r.next();
    x.v[F::N - 1] &= 0x0fffffff;
  }
  F* d;
  cudaMalloc(&d, n * sizeof(F));
  cudaMemcpy(d, h.data(), n * sizeof(F), cudaMemcpyHostToDevice);
  k_mulrate<F><<<blocks, threads>>>(d, 16);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  k_mulrate<F><<<blocks, threads>>>(d, iters);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  printf("%s mul: %.3f ms, %.3g mul/s\n", name, ms, 4.0 * blocks * threads * iters / (ms * 1e-3));
  cudaFree(d);
}

// Memory pattern of the NTT passes without their arithmetic: groups of 2^t
// elements at stride 2^s, 128 threads × 4 elements per block as in ntt_pass,
// each element read and written back in place (times a constant, so that the
// traffic stays). cols > 1: a block takes cols adjacent columns × 512/cols
// rows (blockIdx.y: the slab of rows), a warp's lanes cols adjacent columns,
// so each row segment is cols × 32 bytes within one instruction.
__global__ void __launch_bounds__(128) k_pass_traffic(fr_t* d, uint32_t t, uint32_t s, uint32_t cols, fr_t k) {
  uint32_t x, g, step, row0 = 0;
  uint64_t gid;
  if (cols > 1) {
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    g = lane % cols;
    x = warp * (32 / cols) + lane / cols;
    step = 128 / cols;
    gid = (uint64_t)blockIdx.x * cols + g;
    row0 = blockIdx.y * (512 / cols);
  } else {
    const uint32_t Q = 1u << (t - 2);
    x = threadIdx.x & (Q - 1);
    g = threadIdx.x >> (t - 2);
    step = Q;
    gid = (uint64_t)blockIdx.x * (512 >> t) + g;
  }
  const uint64_t lo = gid & ((1ull << s) - 1), hi = gid >> s;
  const uint64_t base = (hi << (t + s)) + lo;
#pragma unroll
  for (int r = 0; r < 4; r++) {
    uint64_t idx = base + ((uint64_t)(row0 + x + r * step) << s);
    d[idx] = d[idx] * k;
  }
}

static void bench_traffic(uint32_t lgn) {
  uint64_t n = 1ull << lgn;
  fr_t* d;
  if (cudaMalloc(&d, n * 32) != cudaSuccess) {
    printf("ERROR cudaMalloc\n");
    return;
  }
  cudaMemset(d, 1, n * 32);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  fr_t k = fr_from_u64(3);
  printf("pass traffic at 2^%u (every element read, multiplied, written in place):\n", lgn);
  struct cfg {
    uint32_t t, s, cols;
  };
  for (cfg c : {cfg{9, 0, 1}, cfg{9, 9, 1}, cfg{9, 18, 1}, cfg{9, 9, 4}, cfg{9, 18, 4}, cfg{9, 18, 8}}) {
    dim3 grid(c.cols > 1 ? (uint32_t)((n >> c.t) / c.cols) : (uint32_t)((n >> c.t) / (512 >> c.t)),
              c.cols > 1 ? (1u << c.t) / (512 / c.cols) : 1);
    std::vector<float> v;
    for (int r = 0; r < 4; r++) {
      cudaEventRecord(a);
      k_pass_traffic<<<grid, 128>>>(d, c.t, c.s, c.cols, k);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      v.push_back(ms);
    }
    std::sort(v.begin(), v.end());
    printf("  t=%u s=%-2u cols=%u: %.3f ms\n", c.t, c.s, c.cols, v[1]);
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) printf("ERROR %s\n", cudaGetErrorString(e));
  cudaFree(d);
}

// Host memory from cuzk_host_alloc (pinned), freed with its owner.
template <class T>
struct pinned {
  T* p;
  explicit pinned(uint64_t n) : p((T*)cuzk_host_alloc(n * sizeof(T))) {
    if (!p) {
      printf("ERROR pinned alloc: %s\n", cuzk_last_error());
      exit(2);
    }
  }
  ~pinned() { cuzk_host_free(p); }
  pinned(const pinned&) = delete;
  pinned& operator=(const pinned&) = delete;
};

// One MSM part of a bench partition: the bitmap of its bases whose scalar
// is one and the tail of the others that are not zero.
struct part_tail {
  pinned<uint32_t> bits;
  pinned<fr_t> tail;
  pinned<uint32_t> idx;
  uint64_t n = 0;

  // Part p (2 is B: every 4th aux variable is in its density) of a witness
  // whose variable w is zero, one or aux[w] by kind[w] = 0, 1, 2.
  part_tail(int p, uint64_t nbase, const std::vector<uint8_t>& kind, const std::vector<fr_t>& aux)
      : bits((nbase + 31) / 32), tail(nbase), idx(nbase) {
    memset(bits.p, 0, (nbase + 31) / 32 * 4);
    for (uint64_t i = 0; i < nbase; i++) {
      uint64_t w = p == 2 ? i * 4 : i;
      if (kind[w] == 1) bits.p[i / 32] |= 1u << (i % 32);
      if (kind[w] == 2) {
        tail.p[n] = aux[w];
        idx.p[n++] = (uint32_t)i;
      }
    }
  }
};

static cuzk_config config_from_env();
#include "lane_bench.cuh"

// PoRep-shaped partition: 2^27 domain, 130 M aux, 75 % of the witness in {0,1},
// B-aux density 25 %.
// With g2, the srs holds a synthetic B_G2 too and the run computes B_G2.
static void bench_part(cuzk_ctx* ctx, uint32_t lgn, uint64_t naux, bool g2) {
  auto t0 = std::chrono::steady_clock::now();
  const uint64_t m = 1ull << lgn, nb = naux / 4, rows = m - 1000;
  bench_job b(lgn, naux, 11);
  if (g2) OK(cuzk_srs_synthetic_bg2(b.srs));
  auto t1 = std::chrono::steady_clock::now();
  printf("synthetic srs and job: %.2f s (h %llu, l %llu, a %llu, b_g1 %llu points)\n",
         std::chrono::duration<double>(t1 - t0).count(), (unsigned long long)(m - 1),
         (unsigned long long)naux, (unsigned long long)naux, (unsigned long long)nb);
  const cuzk_job& job = b.job;
  double h2d = 2.0 * rows * 32;  // a, b
  for (int p = 0; p < 3; p++) h2d += job.part[p].ntail * 36.0 + ((p == 2 ? nb : naux) + 31) / 32 * 4.0;
  printf("tails: L %llu, A %llu, B %llu\n", (unsigned long long)job.part[0].ntail,
         (unsigned long long)job.part[1].ntail, (unsigned long long)job.part[2].ntail);
  printf("host to device per partition: %.2f GiB (a, b %llu rows each; tails; bitmaps)\n", h2d / (1ull << 30),
         (unsigned long long)rows);
  cuzk_result res;
  printf("%-5s %9s %9s %9s %9s %9s %9s %9s %9s\n", "run", "total", "h2d", "ntt", "msm_h", "msm_l", "msm_a", "msm_b",
         "msm_b2");
  for (int r = 0; r < 3; r++) {
    OK(cuzk_run(ctx, b.srs, &job, &res));
    printf("%-5d %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", r, res.ms_total, res.ms_h2d, res.ms_ntt,
           res.ms_msm_h, res.ms_msm_l, res.ms_msm_a, res.ms_msm_b, res.ms_msm_b2);
    fflush(stdout);
  }
}

#include "stream_checks.cuh"
// G2 MSMs of 2^lo..2^hi random scalars over a synthetic B_G2 (CUDA events).
static void bench_msm_g2(cuzk_ctx* ctx, uint32_t lo, uint32_t hi) {
  const uint64_t N = 1ull << hi;
  cuzk_srs* srs = cuzk_srs_synthetic(0, 0, 0, 0, N);
  if (!srs) {
    printf("ERROR synthetic srs: %s\n", cuzk_last_error());
    exit(2);
  }
  OK(cuzk_srs_synthetic_bg2(srs));
  printf("%-8s %12s %10s\n", "lg n", "G2 MSM ms", "Madd/s");
  for (uint32_t lg = lo; lg <= hi; lg++) {
    const uint64_t n = 1ull << lg;
    float ms;
    uint32_t c;
    OK(cuzk_bench_msm_g2(ctx, srs, n, lg >= 25 ? 2 : 4, &ms, &c));
    const uint32_t W = (256 + c - 1) / c;
    printf("%-8u %12.3f %10.0f  (c=%u)\n", lg, ms, n * (double)W / (ms * 1e3), c);
    fflush(stdout);
  }
  cuzk_srs_free(srs);
}

// G2 MSMs of 2^lo..2^hi random scalars with each accumulation in vs
// (CUZK_G2_ACC; both when empty), one table: time, mixed additions per
// second, and the time over the generic kernel's (0, when timed first).
static void bench_msm_g2_acc(cuzk_ctx* ctx, uint32_t lo, uint32_t hi, std::vector<int> vs) {
  if (vs.empty())
    for (int v = 0; v < g2_acc_variants; v++) vs.push_back(v);
  cuzk_srs* srs = cuzk_srs_synthetic(0, 0, 0, 0, 1ull << hi);
  if (!srs) {
    printf("ERROR synthetic srs: %s\n", cuzk_last_error());
    exit(2);
  }
  OK(cuzk_srs_synthetic_bg2(srs));
  printf("%-6s %-8s %12s %10s %8s\n", "lg n", "g2 acc", "G2 MSM ms", "Madd/s", "vs 0");
  for (uint32_t lg = lo; lg <= hi; lg++) {
    const uint64_t n = 1ull << lg;
    float base = 0;
    for (int v : vs) {
      set_g2_acc(v);
      float ms;
      uint32_t c;
      OK(cuzk_bench_msm_g2(ctx, srs, n, lg >= 25 ? 2 : 3, &ms, &c));
      if (v == 0) base = ms;
      const uint32_t W = (256 + c - 1) / c;
      printf("%-6u %-8d %12.3f %10.0f %8.3f  (c=%u)\n", lg, v, ms, n * (double)W / (ms * 1e3),
             base > 0 ? ms / base : 0.0, c);
      fflush(stdout);
    }
  }
  set_g2_acc(-1);
  cuzk_srs_free(srs);
}

// The B query alone at a partition's shape: nb bases (the 32 GiB PoRep's
// b_aux: 33.1 M), scalars 37.5 % zero, 37.5 % one, 25 % random (the ones
// batch-added, the rest a tail), B_G1 and B_G2 through cuzk_run with a
// 2-point domain and no rows (so nothing else runs beside them).
static void bench_bshape(cuzk_ctx* ctx, uint64_t nb) {
  cuzk_srs* srs = cuzk_srs_synthetic(0, 1, 0, 0, nb);
  if (!srs) {
    printf("ERROR synthetic srs: %s\n", cuzk_last_error());
    exit(2);
  }
  OK(cuzk_srs_synthetic_bg2(srs));
  std::vector<fr_t> vals(nb);
  std::vector<uint8_t> kind(nb);
  {
    rng r(14);
    fill_random(vals.data(), nb, 15);
    for (uint64_t i = 0; i < nb; i++) {
      const uint64_t x = r.next() % 8;
      kind[i] = x < 3 ? 0 : (x < 6 ? 1 : 2);
    }
  }
  part_tail b(0, nb, kind, vals);  // as part 0: variable i is base i
  cuzk_job job = {};
  job.lgn = 1;
  job.part[2] = {b.bits.p, b.tail.p, b.idx.p, b.n};
  printf("B shape: %llu bases, tail %llu\n", (unsigned long long)nb, (unsigned long long)b.n);
  printf("%-5s %9s %9s %9s\n", "run", "total", "msm_b", "msm_b2");
  for (int r = 0; r < 3; r++) {
    cuzk_result res;
    OK(cuzk_run(ctx, srs, &job, &res));
    printf("%-5d %9.1f %9.1f %9.1f\n", r, res.ms_total, res.ms_msm_b, res.ms_msm_b2);
    fflush(stdout);
  }
  cuzk_srs_free(srs);
}

#include "witness_check.cuh"

// The library's switches from the environment, read as the Go device reads
// them (a value out of range is the default).
static cuzk_config config_from_env() {
  auto flag = [](const char* k) {
    const char* s = getenv(k);
    return s && s[0] == '1';
  };
  auto num = [](const char* k) {
    const char* s = getenv(k);
    return s ? (uint32_t)atoi(s) : 0u;
  };
  cuzk_config c = {};
  c.profile = flag("CUZK_PROFILE");
  c.run_serial = flag("CUZK_RUN_SERIAL");
  const uint32_t w = num("CUZK_MSM_C"), g = num("CUZK_MSM_SEG");
  if (w == 16 || w == 19 || w == 20 || w == 22 || w == 24) c.msm_window = w;
  if (g >= 12 && g <= 20) c.msm_seg_lg = g;
  return c;
}

#include "fixed_base_check.cuh"

int main(int argc, char** argv) {
  const char* cmd = argc > 1 ? argv[1] : "check";
  if (!strcmp(cmd, "plan") || !strcmp(cmd, "plan-check")) {  // host arithmetic: no GPU needed
    if (!strcmp(cmd, "plan-check")) {
      plan_check();
    } else {
      std::vector<uint64_t> limits;
      bool g2 = false;  // a "g2" among the limits: B_G2 planned
      for (int i = 4; i < argc; i++)
        if (!strcmp(argv[i], "g2"))
          g2 = true;
        else
          limits.push_back(parse_bytes(argv[i]));
      plan_print(argc > 2 ? atoi(argv[2]) : 27, argc > 3 ? strtoull(argv[3], 0, 10) : 130000000ull, limits, g2);
    }
    return fails ? 1 : 0;
  }
  int nd = cuzk_device_count();
  if (nd == 0) {
    printf("no CUDA device\n");
    return 0;
  }
  char name[256];
  uint64_t tot, fre;
  int sms;
  OK(cuzk_device_info(0, name, sizeof name, &tot, &fre, &sms));
  printf("device 0: %s, %d SMs, %.1f GiB (%.1f free)\n", name, sms, tot / 1073741824.0, fre / 1073741824.0);
  const cuzk_config cfg = config_from_env();
  cuzk_ctx* ctx = cuzk_ctx_new(0, &cfg);
  if (!ctx) {
    printf("ERROR ctx: %s\n", cuzk_last_error());
    return 2;
  }
  if (!strcmp(cmd, "check")) {
    check_field();
    check_ntt(ctx);
    check_h(ctx);
    check_msm(ctx);
    check_g2_arith();
    check_msm_g2(ctx);
    check_run(ctx);
    check_stream();
    check_witness(ctx);
    check_fixed_base(ctx);
    printf("%s: %d failures\n", fails ? "FAIL" : "PASS", fails);
  } else if (!strcmp(cmd, "check-stream")) {  // what a memory limit touches: runs, streaming, witness runs
    check_run(ctx);
    check_stream();
    check_witness(ctx);
    printf("%s: %d failures\n", fails ? "FAIL" : "PASS", fails);
  } else if (!strcmp(cmd, "check-g2")) {  // G2 arithmetic and MSMs, both accumulations
    check_g2_arith();
    check_msm_g2(ctx);
    printf("%s: %d failures\n", fails ? "FAIL" : "PASS", fails);
  } else if (!strcmp(cmd, "check-fixed")) {
    check_fixed_base(ctx);
    printf("%s: %d failures\n", fails ? "FAIL" : "PASS", fails);
  } else if (!strcmp(cmd, "bench")) {
    const char* what = argc > 2 ? argv[2] : "all";
    uint32_t hi_ntt = argc > 3 ? atoi(argv[3]) : 27;
    uint32_t hi_msm = argc > 4 ? atoi(argv[4]) : 26;
    if (!strcmp(what, "all") || !strcmp(what, "field")) {
      bench_mul<fr_t>("fr");
      bench_mul<fp_t>("fp");
    }
    if (!strcmp(what, "all") || !strcmp(what, "ntt")) bench_ntt(ctx, 20, hi_ntt);
    if (!strcmp(what, "all") || !strcmp(what, "msm")) bench_msm(ctx, argc > 5 ? atoi(argv[5]) : 20, hi_msm);
    if (!strcmp(what, "fixed")) bench_fixed_base(ctx, argc > 3 ? atoi(argv[3]) : 24);
    if (!strcmp(what, "traffic")) bench_traffic(argc > 3 ? atoi(argv[3]) : 27);
    if (!strcmp(what, "part-limit")) {
      std::vector<uint64_t> limits;
      bool g2 = false;  // a "g2" among the limits: B_G2 too (streamed under the limits)
      for (int i = 5; i < argc; i++)
        if (!strcmp(argv[i], "g2"))
          g2 = true;
        else
          limits.push_back(parse_bytes(argv[i]));
      bench_part_limit(argc > 3 ? atoi(argv[3]) : 27, argc > 4 ? strtoull(argv[4], 0, 10) : 130000000ull, limits, g2);
    }
    if (!strcmp(what, "msm-g2-acc")) {  // bench msm-g2-acc HI LO [VARIANT...]
      std::vector<int> vs;
      for (int i = 5; i < argc; i++) vs.push_back(atoi(argv[i]));
      bench_msm_g2_acc(ctx, argc > 4 ? atoi(argv[4]) : 24, argc > 3 ? atoi(argv[3]) : 25, vs);
    }
    if (!strcmp(what, "msm-g2")) bench_msm_g2(ctx, argc > 4 ? atoi(argv[4]) : 23, argc > 3 ? atoi(argv[3]) : 25);
    if (!strcmp(what, "lane"))  // bench lane [BULK_LG BULK_NAUX LANE_LG LANE_NAUX RUNS]
      bench_lane(ctx, argc > 3 ? atoi(argv[3]) : 27, argc > 4 ? strtoull(argv[4], 0, 10) : 130000000ull,
                 argc > 5 ? atoi(argv[5]) : 22, argc > 6 ? strtoull(argv[6], 0, 10) : 3500000ull,
                 argc > 7 ? atoi(argv[7]) : 12);
    if (!strcmp(what, "regspan")) bench_regspan();  // bench regspan
    if (!strcmp(what, "pair"))  // bench pair [LG NAUX RUNS]
      bench_pair(ctx, argc > 3 ? atoi(argv[3]) : 27, argc > 4 ? strtoull(argv[4], 0, 10) : 130000000ull,
                 argc > 5 ? atoi(argv[5]) : 8);
    if (!strcmp(what, "bshape")) bench_bshape(ctx, argc > 3 ? strtoull(argv[3], 0, 10) : 33100000ull);
    if (!strcmp(what, "all") || !strcmp(what, "part")) {
      uint32_t lg = argc > 5 ? atoi(argv[5]) : 27;
      uint64_t naux = argc > 6 ? strtoull(argv[6], 0, 10) : 130000000ull;
      bench_part(ctx, lg, naux, argc > 7 && !strcmp(argv[7], "g2"));
    }
    if (!strcmp(what, "witness")) {  // bench witness LGN NROWS [NAUX] [local|random]
      const uint32_t lg = argc > 3 ? atoi(argv[3]) : 27;
      const uint64_t nrows = argc > 4 ? strtoull(argv[4], 0, 10) : (1ull << lg) - 1000;
      const uint64_t naux = argc > 5 ? strtoull(argv[5], 0, 10) : nrows / 134 * 130;
      bench_witness(ctx, lg, nrows, naux, !(argc > 6 && !strcmp(argv[6], "random")));
    }
  }
  cuzk_ctx_free(ctx);
  return fails ? 1 : 0;
}
