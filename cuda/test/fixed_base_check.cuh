// Harness check and benchmark of cuzk_fixed_base_g1 (included by harness.cu
// after its helpers: EXPECT, OK, rng, rand_fr, fill_random, mul_g).

// k·B on the host (double-and-add over the canonical value), affine.
static g1_affine mul_base_host(const g1_affine& B, const fr_t& k_mont) {
  fr_t k = k_mont.from_mont();
  g1_xyzz acc = g1_xyzz::inf();
  for (int b = 255; b >= 0; b--) {
    acc = acc.dbl();
    if ((k.v[b / 32] >> (b % 32)) & 1) acc.add_affine(B);
  }
  return acc.to_affine();
}

static bool same_affine(const g1_affine& a, const g1_affine& b) { return !memcmp(&a, &b, sizeof a); }

// Compares out[i] for the listed indices with the host; prints the first differences.
static int fb_compare(const char* what, const g1_affine& B, const std::vector<fr_t>& s,
                      const std::vector<g1_affine>& out, const std::vector<uint64_t>& idx) {
  std::vector<char> bad(idx.size(), 0);
#pragma omp parallel for schedule(dynamic, 4)
  for (size_t j = 0; j < idx.size(); j++) bad[j] = !same_affine(out[idx[j]], mul_base_host(B, s[idx[j]]));
  int nbad = 0;
  for (size_t j = 0; j < idx.size(); j++) {
    if (!bad[j]) continue;
    if (nbad++ < 5) {
      fr_t k = s[idx[j]].from_mont();
      printf("  %s: point %llu differs (scalar limbs %08x..%08x, got x[0] %08x y[0] %08x)\n", what,
             (unsigned long long)idx[j], k.v[7], k.v[0], out[idx[j]].x.v[0], out[idx[j]].y.v[0]);
    }
  }
  EXPECT(nbad == 0, "fixed-base %s: %d of %zu points differ from the host", what, nbad, idx.size());
  return nbad;
}

static void check_fixed_base(cuzk_ctx* ctx) {
  const g1_affine G = g1_generator();
  const g1_affine B = mul_g(fr_from_u64(7)).to_affine();
  // Edge scalars, then random ones.
  const fr_t one = fr_t::one(), zero = fr_t::zero();
  std::vector<fr_t> s;
  s.push_back(zero);
  s.push_back(one);
  s.push_back(one + one);
  s.push_back(zero - one);        // r − 1
  s.push_back(zero - one - one);  // r − 2
  s.push_back(fr_from_u64(255));
  s.push_back(fr_from_u64(256));
  s.push_back(fr_from_u64(0xffffffffffffffffull));
  {
    fr_t p = one;  // 2^k for every k < 255: single-digit scalars in every window
    for (int k = 0; k < 255; k++, p = p.dbl()) s.push_back(p);
  }
  rng r(77);
  while (s.size() < 1000) s.push_back(rand_fr(r));
  std::vector<g1_affine> out(s.size());
  std::vector<uint64_t> all(s.size());
  for (size_t i = 0; i < s.size(); i++) all[i] = i;
  OK(cuzk_fixed_base_g1(ctx, &B, s.data(), s.size(), out.data()));
  int bad = fb_compare("7G, edges + random", B, s, out, all);
  EXPECT(out[0].is_inf(), "fixed-base: 0·B is not (0, 0)");
  EXPECT(same_affine(out[1], B), "fixed-base: 1·B is not B");
  EXPECT(same_affine(out[3], B.neg()), "fixed-base: (r − 1)·B is not −B");

  // The generator, one point.
  g1_affine o1;
  OK(cuzk_fixed_base_g1(ctx, &G, &s[1], 1, &o1));
  EXPECT(same_affine(o1, G), "fixed-base: 1·G is not G (n = 1)");
  // The identity as the base: every point is (0, 0).
  g1_affine inf;
  memset(&inf, 0, sizeof inf);
  std::vector<g1_affine> oi(5);
  memset(oi.data(), 0xab, oi.size() * sizeof(g1_affine));
  OK(cuzk_fixed_base_g1(ctx, &inf, s.data() + 1, oi.size(), oi.data()));
  for (auto& p : oi) EXPECT(p.is_inf(), "fixed-base: a multiple of the identity is not (0, 0)");
  // n = 0 does nothing; a base off the curve is refused.
  EXPECT(cuzk_fixed_base_g1(ctx, &B, nullptr, 0, nullptr) == 0, "fixed-base: n = 0 fails");
  g1_affine off = G;
  off.y = off.y + fp_t::one();
  EXPECT(cuzk_fixed_base_g1(ctx, &off, s.data(), 1, &o1) == CUZK_ERR_ARG, "fixed-base: a base off the curve is accepted");

  // Over the library's chunk of 2^24 points: the points around the boundary,
  // the first and last of each thread's batch, and a random sample.
  const uint64_t n = (1ull << 24) + 3;
  std::vector<fr_t> big(n);
  fill_random(big.data(), n, 5);
  big[0] = zero;
  big[n - 1] = zero - one;
  big[1ull << 24] = one;
  std::vector<g1_affine> bo(n);
  auto t0 = std::chrono::steady_clock::now();
  OK(cuzk_fixed_base_g1(ctx, &B, big.data(), n, bo.data()));
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::vector<uint64_t> idx;
  for (uint64_t i = 0; i < 64; i++) idx.push_back(i);
  for (uint64_t i = (1ull << 24) - 64; i < n; i++) idx.push_back(i);
  for (int i = 0; i < 256; i++) idx.push_back(r.next() % n);
  bad += fb_compare("2^24 + 3 random", B, big, bo, idx);
  printf("fixed-base: ok=%d (1000 + 1 + 5 points, 2^24 + 3 in %.1f ms incl. transfers, %zu of them checked)\n",
         bad == 0, ms, idx.size());
}

// Times cuzk_fixed_base_g1 over 2^lg random scalars (host memory in and out,
// transfers included), and the table alone (n = 1).
static void bench_fixed_base(cuzk_ctx* ctx, uint32_t lg) {
  const g1_affine B = mul_g(fr_from_u64(7)).to_affine();
  const uint64_t n = 1ull << lg;
  std::vector<fr_t> s(n);
  fill_random(s.data(), n, 9);
  std::vector<g1_affine> out(n);
  fr_t one = fr_t::one();
  g1_affine o1;
  for (int rep = 0; rep < 3; rep++) {
    auto t0 = std::chrono::steady_clock::now();
    OK(cuzk_fixed_base_g1(ctx, &B, &one, 1, &o1));
    auto t1 = std::chrono::steady_clock::now();
    OK(cuzk_fixed_base_g1(ctx, &B, s.data(), n, out.data()));
    auto t2 = std::chrono::steady_clock::now();
    double ms1 = std::chrono::duration<double, std::milli>(t1 - t0).count();
    double ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
    printf("fixed-base 2^%u: %.1f ms (%.3g points/s, %.3g adds/s at 32 per point; n = 1: %.2f ms)\n", lg, ms,
           n / (ms * 1e-3), 32.0 * n / (ms * 1e-3), ms1);
  }
}
