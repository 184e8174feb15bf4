// Host check of the fixed-base kernels' bodies (cuda/setup/fixed_base.cuh:
// the comb table, the comb sum, the batched conversion to affine with the
// threads of a grid run one after another) against double-and-add, with the
// portable field arithmetic, over G1 and G2. Scalars: 0, 1, 2, r − 1,
// r − 2, every 2^k, small ones and random ones; bases 7·G and the identity
// of each group; grids of 1, 3, 64 and more threads than points. Build and
// run: make cuda-host-check.
#include <stdio.h>
#include <string.h>

#include <vector>

#include "../setup/fixed_base.cuh"

static uint64_t s = 0x9e3779b97f4a7c15ull;
static uint32_t next() {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return (uint32_t)(s >> 16);
}

template <class F>
static xyzz_t<F> mul_host(const affine_t<F>& B, const fr_t& k) {  // canonical k
  xyzz_t<F> acc = xyzz_t<F>::inf();
  for (int b = 255; b >= 0; b--) {
    acc = acc.dbl();
    if ((k.v[b / 32] >> (b % 32)) & 1) acc.add_affine(B);
  }
  return acc;
}

template <class F>
static int check_base(const char* name, const affine_t<F>& B, const std::vector<fr_t>& mont) {
  typedef affine_t<F> A;
  std::vector<A> tab(FB_TABLE);
  for (uint32_t j = 0; j < FB_TABLE; j++) tab[j] = fb_table_entry(j, B);
  const size_t n = mont.size();
  std::vector<xyzz_t<F>> xyzz(n);
  std::vector<A> want(n);
  for (size_t i = 0; i < n; i++) {
    const fr_t k = mont[i].from_mont();
    xyzz[i] = fb_comb(k, tab.data());
    want[i] = mul_host(B, k).to_affine();
  }
  int bad = 0;
  const uint64_t grids[] = {1, 3, 64, n + 5};
  for (uint64_t T : grids) {
    std::vector<A> out(n);
    memset(out.data(), 0xab, n * sizeof(A));
    for (uint64_t t = 0; t < T; t++) fb_affine_batch(out.data(), xyzz.data(), n, t, T);
    for (size_t i = 0; i < n; i++) {
      if (memcmp(&out[i], &want[i], sizeof(A))) {
        if (bad < 5) printf("  %s, grid %llu: point %zu differs\n", name, (unsigned long long)T, i);
        bad++;
      }
    }
  }
  printf("%s: %zu scalars, %d differences\n", name, n, bad);
  return bad;
}

int main() {
  std::vector<fr_t> k;
  const fr_t one = fr_t::one(), zero = fr_t::zero();
  k.push_back(zero);
  k.push_back(one);
  k.push_back(one + one);
  k.push_back(zero - one);
  k.push_back(zero - one - one);
  fr_t p = one;
  for (int i = 0; i < 255; i++, p = p.dbl()) k.push_back(p);
  fr_t small = one;
  for (int i = 0; i < 40; i++, small = small + one) k.push_back(small);
  for (int i = 0; i < 100; i++) {
    fr_t x;
    for (int j = 0; j < 8; j++) x.v[j] = next();
    x.v[7] %= 0x73eda753u;
    k.push_back(x);
  }
  fr_t seven = zero;
  for (int i = 0; i < 7; i++) seven = seven + one;
  // 7·G of each group, from the generator by double-and-add.
  const g1_affine B = mul_host(g1_generator(), seven.from_mont()).to_affine();
  int bad = check_base("G1 7G", B, k);
  g1_affine inf;
  memset(&inf, 0, sizeof inf);
  bad += check_base("G1 identity", inf, std::vector<fr_t>(k.begin(), k.begin() + 20));
  // G2 costs about three times G1's arithmetic: every edge scalar, a third of the random ones.
  const g2_affine B2 = mul_host(g2_generator(), seven.from_mont()).to_affine();
  bad += check_base("G2 7G", B2, std::vector<fr_t>(k.begin(), k.end() - 66));
  g2_affine inf2;
  memset(&inf2, 0, sizeof inf2);
  bad += check_base("G2 identity", inf2, std::vector<fr_t>(k.begin(), k.begin() + 20));
  // Spot checks of the table and the edges against the group law.
  g1_affine t0 = fb_table_entry(0, B);
  if (memcmp(&t0, &B, sizeof B)) bad++, printf("  G1 table[0] is not B\n");
  g2_affine t2 = fb_table_entry(0, B2);
  if (memcmp(&t2, &B2, sizeof B2)) bad++, printf("  G2 table[0] is not B\n");
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
