// The NTT's tables (see tables.hpp), computed on the host and uploaded.
#include <vector>

#include "tables.hpp"

// host[off + j] = base^j and host[off + 2^14 + j] = c·base^(j·2^14), j < 2^14:
// a pow_tab of c·base^e.
static void fill_pow(std::vector<fr_t>& host, size_t off, fr_t base, fr_t c) {
  fr_t x = fr_t::one();
  for (int j = 0; j < 16384; j++) {
    host[off + j] = x;
    x = x * base;
  }
  fr_t step = x;  // base^16384
  fr_t y = c;
  for (int j = 0; j < 16384; j++) {
    host[off + 16384 + j] = y;
    y = y * step;
  }
}

// dst gets w^k then w^-k, k < n, for w the primitive 2^lg-th root.
static int upload_powers(device_buffer& dst, uint32_t lg, size_t n) {
  std::vector<fr_t> h(2 * n);
  const fr_t w = fr_root_of(lg), wi = w.inv();
  fr_t x = fr_t::one(), y = fr_t::one();
  for (size_t k = 0; k < n; k++) {
    h[k] = x;
    h[n + k] = y;
    x = x * w;
    y = y * wi;
  }
  TRY(dst.ensure(h.size() * sizeof(fr_t)));
  CK(cudaMemcpy(dst.get(), h.data(), h.size() * sizeof(fr_t), cudaMemcpyHostToDevice));
  return 0;
}

int ntt_twiddles::init() {
  TRY(upload_powers(w1024_, 10, 512));
  TRY(upload_powers(w18_, 18, 1u << 18));
  return 0;
}

int ntt_twiddles::tables(uint32_t lgn, ntt_tables** out) {
  auto it = sizes_.find(lgn);
  if (it != sizes_.end()) {
    *out = it->second.get();
    return 0;
  }
  std::unique_ptr<ntt_tables> t(new ntt_tables());
  const int NT = 9;
  std::vector<fr_t> h((size_t)NT * 32768);
  fr_t w = fr_root_of(lgn), wi = w.inv();
  fr_t g = fr_from_u64(7), gi = g.inv();
  fr_t n = fr_from_u64(1ull << lgn), ni = n.inv();
  fr_t z = fr_root_of(lgn + 1), zi = z.inv(), ni2 = fr_from_u64(2ull << lgn).inv();
  // base and factor of each table, in the order of tabs below
  const fr_t base[NT] = {w, wi, g, gi, fr_t::one(), g, z, zi, fr_t::one()};
  const fr_t factor[NT] = {fr_t::one(), fr_t::one(), fr_t::one(), ni, ni, ni, ni, ni2, ni2};
  for (int i = 0; i < NT; i++) fill_pow(h, (size_t)i * 32768, base[i], factor[i]);
  fr_t gn = g;
  for (uint32_t i = 0; i < lgn; i++) gn = gn.sqr();
  t->zinv = (gn - fr_t::one()).inv();
  TRY(t->buf.ensure(h.size() * sizeof(fr_t)));
  cudaError_t e = cudaMemcpy(t->buf.get(), h.data(), h.size() * sizeof(fr_t), cudaMemcpyHostToDevice);
  if (e != cudaSuccess) return set_err(CUZK_ERR_CUDA, "ntt tables: %s", cudaGetErrorString(e));
  fr_t* d = t->buf.as<fr_t>();
  pow_tab* tabs[NT] = {&t->w_fwd,       &t->w_inv,      &t->coset_fwd,   &t->coset_inv_n, &t->inv_n,
                       &t->coset_fwd_n, &t->zeta_fwd_n, &t->zeta_inv_2n, &t->inv_2n};
  for (int i = 0; i < NT; i++) {
    tabs[i]->lo = d + (size_t)i * 32768;
    tabs[i]->hi = d + (size_t)i * 32768 + 16384;
  }
  *out = t.get();
  sizes_[lgn] = std::move(t);
  return 0;
}
