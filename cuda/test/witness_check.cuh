// Harness part for the witness runs (cuzk_matrices_upload, cuzk_spmv,
// cuzk_run_witness, cuzk_witness_split_read): random CSR matrices and
// witnesses against host references, and the PoRep-shaped benchmark.
// Included by harness.cu after its helpers (rng, fill_random, mul_g,
// same_point, synth_dlog, pinned, EXPECT, OK).

// A host CSR matrix over nvars variables.
struct host_csr {
  std::vector<uint32_t> rp, col;
  std::vector<uint16_t> cf;
  cuzk_csr c() const { return {rp.data(), col.data(), cf.data(), (uint64_t)col.size()}; }
};

// A system as cuzk_matrices_upload takes it, and its densities.
struct host_system {
  uint64_t nrows, ninputs, naux;
  std::vector<fr_t> coeffs;
  host_csr A, B;
  std::vector<uint32_t> a_aux, b_in, b_aux;  // 32-bit words
  std::vector<uint32_t> gq[3];               // each query's variables in base order (L, A, B)

  uint64_t nvars() const { return ninputs + naux; }
  // The densities and gather lists from the matrices (a variable is dense
  // where it has an entry).
  void densities() {
    a_aux.assign((naux + 31) / 32 + 1, 0);
    b_in.assign((ninputs + 31) / 32 + 1, 0);
    b_aux.assign((naux + 31) / 32 + 1, 0);
    auto set = [](std::vector<uint32_t>& v, uint64_t i) { v[i / 32] |= 1u << (i % 32); };
    for (uint32_t c : A.col)
      if (c >= ninputs) set(a_aux, c - ninputs);
    for (uint32_t c : B.col) {
      if (c < ninputs)
        set(b_in, c);
      else
        set(b_aux, c - ninputs);
    }
    auto get = [](const std::vector<uint32_t>& v, uint64_t i) { return (v[i / 32] >> (i % 32)) & 1; };
    for (auto& g : gq) g.clear();
    for (uint64_t j = 0; j < naux; j++) gq[0].push_back(ninputs + j);
    for (uint64_t i = 0; i < ninputs; i++) gq[1].push_back(i);
    for (uint64_t j = 0; j < naux; j++)
      if (get(a_aux, j)) gq[1].push_back(ninputs + j);
    for (uint64_t i = 0; i < ninputs; i++)
      if (get(b_in, i)) gq[2].push_back(i);
    for (uint64_t j = 0; j < naux; j++)
      if (get(b_aux, j)) gq[2].push_back(ninputs + j);
  }
  cuzk_matrices* upload() const {
    const cuzk_csr a = A.c(), b = B.c();
    return cuzk_matrices_upload(0, &a, &b, coeffs.data(), (uint32_t)coeffs.size(), nrows, ninputs, naux, a_aux.data(),
                                b_in.data(), b_aux.data());
  }
};

// Row lengths drawn from weights w[0..] (w[k]: length k), columns distinct and sorted.
static void random_csr(host_csr& m, rng& r, uint64_t nrows, uint64_t nvars, const std::vector<int>& w,
                       uint32_t ncoeffs) {
  int tot = 0;
  for (int x : w) tot += x;
  m.rp.assign(1, 0);
  m.col.clear();
  m.cf.clear();
  std::vector<uint32_t> row;
  for (uint64_t i = 0; i < nrows; i++) {
    int pick = (int)(r.next() % tot), k = 0;
    while (pick >= w[k]) pick -= w[k++];
    if ((uint64_t)k > nvars) k = (int)nvars;
    row.clear();
    while ((int)row.size() < k) {
      uint32_t c = (uint32_t)(r.next() % nvars);
      if (std::find(row.begin(), row.end(), c) == row.end()) row.push_back(c);
    }
    std::sort(row.begin(), row.end());
    for (uint32_t c : row) {
      uint64_t x = r.next() % 8;  // 1 (half), -1 (a quarter), another table entry
      uint16_t q = x < 4 ? 0 : (x < 6 || ncoeffs <= 2) ? 1 : (uint16_t)(2 + r.next() % (ncoeffs - 2));
      m.col.push_back(c);
      m.cf.push_back(q);
    }
    m.rp.push_back((uint32_t)m.col.size());
  }
}

// (m·w)_r on the host, every coefficient through a product (no fast path).
static std::vector<fr_t> host_spmv(const host_csr& m, const std::vector<fr_t>& coeffs, const std::vector<fr_t>& w,
                                   uint64_t nrows) {
  std::vector<fr_t> out(nrows);
#pragma omp parallel for
  for (uint64_t r = 0; r < nrows; r++) {
    fr_t acc = fr_t::zero();
    for (uint32_t k = m.rp[r]; k < m.rp[r + 1]; k++) acc = acc + coeffs[m.cf[k]] * w[m.col[k]];
    out[r] = acc;
  }
  return out;
}

// A witness: 40 % zero, 35 % one, the rest random (input 0 is ONE).
static std::vector<fr_t> random_witness(uint64_t n, uint64_t seed) {
  std::vector<fr_t> v(n);
  fill_random(v.data(), n, seed);
  rng r(seed + 1);
  for (uint64_t i = 0; i < n; i++) {
    uint64_t x = r.next() % 20;
    if (x < 8) v[i] = fr_t::zero();
    else if (x < 15) v[i] = fr_t::one();
  }
  if (n) v[0] = fr_t::one();
  return v;
}

// The compact form of aux (cuzk.h, cuzk_witness).
struct host_compact {
  std::vector<uint32_t> small, ones;
  std::vector<fr_t> others;
  explicit host_compact(const std::vector<fr_t>& aux) : small((aux.size() + 31) / 32 + 1, 0), ones(small.size(), 0) {
    for (uint64_t j = 0; j < aux.size(); j++) {
      if (aux[j] == fr_t::zero() || aux[j] == fr_t::one()) {
        small[j / 32] |= 1u << (j % 32);
        if (aux[j] == fr_t::one()) ones[j / 32] |= 1u << (j % 32);
      } else {
        others.push_back(aux[j]);
      }
    }
  }
};

static cuzk_witness dense_witness(const std::vector<fr_t>& w, uint64_t ninputs, uint64_t naux, uint32_t lgn) {
  cuzk_witness x = {};
  x.input = w.data();
  x.ninput = ninputs;
  x.aux = w.data() + ninputs;
  x.naux = naux;
  x.lgn = lgn;
  return x;
}

static cuzk_witness compact_witness(const std::vector<fr_t>& w, const host_compact& c, uint64_t ninputs,
                                    uint64_t naux, uint32_t lgn) {
  cuzk_witness x = dense_witness(w, ninputs, naux, lgn);
  x.aux = nullptr;
  x.small = c.small.data();
  x.ones = c.ones.data();
  x.others = c.others.data();
  x.nothers = c.others.size();
  return x;
}

// got vs want over n rows: prints the first few rows that differ.
static int compare_rows(const char* what, const fr_t* got, const std::vector<fr_t>& want, const host_csr& m) {
  int bad = 0;
  for (uint64_t r = 0; r < want.size(); r++) {
    if (got[r] == want[r]) continue;
    if (bad++ < 3)
      printf("  %s: row %llu (%u entries) differs\n", what, (unsigned long long)r, m.rp[r + 1] - m.rp[r]);
  }
  return bad;
}

// The split of query q that the last run made, against the host's.
static void check_split(cuzk_ctx* ctx, const char* tag, int q, const std::vector<fr_t>& w,
                        const std::vector<uint32_t>& gq) {
  const uint64_t n = gq.size(), nw = (n + 31) / 32;
  std::vector<uint32_t> ones(nw + 1, 0), tidx;
  std::vector<fr_t> tail;
  for (uint64_t i = 0; i < n; i++) {
    const fr_t& v = w[gq[i]];
    if (v == fr_t::one())
      ones[i / 32] |= 1u << (i % 32);
    else if (!(v == fr_t::zero())) {
      tail.push_back(v);
      tidx.push_back((uint32_t)i);
    }
  }
  uint64_t nt = 0;
  OK(cuzk_witness_split_read(ctx, q, &nt, nullptr, nullptr, nullptr));
  EXPECT(nt == tail.size(), "%s: query %d: tail of %llu, want %llu", tag, q, (unsigned long long)nt,
         (unsigned long long)tail.size());
  if (nt != tail.size()) return;
  std::vector<uint32_t> gones(nw + 1, 0), gidx(nt + 1);
  std::vector<fr_t> gtail(nt + 1);
  OK(cuzk_witness_split_read(ctx, q, &nt, gones.data(), gtail.data(), gidx.data()));
  int bad = 0;
  for (uint64_t k = 0; k < nw; k++)
    if (gones[k] != ones[k] && bad++ < 3) printf("  %s: query %d: ones word %llu: %08x, want %08x\n", tag, q,
                                                  (unsigned long long)k, gones[k], ones[k]);
  for (uint64_t k = 0; k < nt; k++)
    if ((gidx[k] != tidx[k] || !(gtail[k] == tail[k])) && bad++ < 3)
      printf("  %s: query %d: tail %llu: base %u, want %u (scalar %s)\n", tag, q, (unsigned long long)k, gidx[k],
             tidx[k], gtail[k] == tail[k] ? "same" : "differs");
  EXPECT(bad == 0, "%s: query %d: %d split mismatches", tag, q, bad);
}

struct witness_case {
  uint32_t lgn;
  uint64_t nrows, ninputs, naux;
  uint32_t ncoeffs;
  bool b_empty;  // B without entries (an empty B query when no input is B-dense)
};

// Bad uploads and witnesses are refused with a message.
static void check_witness_refusals(cuzk_ctx* ctx, const host_system& s, cuzk_matrices* M, cuzk_srs* srs,
                                   const std::vector<fr_t>& w, uint32_t lgn) {
  auto refused = [](const char* what, bool failed) {
    EXPECT(failed, "%s was accepted", what);
    if (failed) printf("  refused %s: %s\n", what, cuzk_last_error());
  };
  {
    host_system t = s;
    t.A.col[t.A.col.size() / 2] = (uint32_t)t.nvars();
    cuzk_matrices* x = t.upload();
    refused("a column beyond the variables", x == nullptr);
    cuzk_matrices_free(x);
  }
  {
    host_system t = s;
    t.B.cf[t.B.cf.size() / 2] = (uint16_t)t.coeffs.size();
    cuzk_matrices* x = t.upload();
    refused("a coefficient beyond the table", x == nullptr);
    cuzk_matrices_free(x);
  }
  {
    host_system t = s;
    const uint64_t r = t.nrows / 2;
    t.A.rp[r] = t.A.rp[r + 1] + 1;  // row r ends before it begins
    cuzk_matrices* x = t.upload();
    refused("a decreasing row_ptr", x == nullptr);
    cuzk_matrices_free(x);
  }
  {
    host_system t = s;
    t.coeffs[1] = fr_from_u64(5);
    cuzk_matrices* x = t.upload();
    refused("a table whose coefficient 1 is not -1", x == nullptr);
    cuzk_matrices_free(x);
  }
  const std::vector<fr_t> aux(w.begin() + s.ninputs, w.end());
  host_compact c(aux);
  cuzk_witness x = compact_witness(w, c, s.ninputs, s.naux, lgn);
  x.nothers = c.others.size() + 1;
  cuzk_result res;
  refused("a compact witness with one other value too many", cuzk_run_witness(ctx, srs, M, &x, &res) != 0);
  x = dense_witness(w, s.ninputs, s.naux, lgn);
  x.naux = s.naux - 1;
  refused("a witness one aux short", cuzk_run_witness(ctx, srs, M, &x, &res) != 0);
  x = dense_witness(w, s.ninputs, s.naux, lgn + 1);
  refused("a witness of another domain", cuzk_run_witness(ctx, srs, M, &x, &res) != 0);
}

// cuzk_run_witness against an srs under limits (the least a run needs: every
// query streams, its tail on the device; and half way to everything
// resident), chunks of at most 2^8 points: the points must be the resident
// run's (wantp). Then the same with B_G2 (cuzk_limits.bg2, streamed at both
// limits from the device tail): its sum must be a resident run's.
static void check_witness_limited(cuzk_ctx* ctx, const char* tag, cuzk_srs* srs, cuzk_matrices* M,
                                  const cuzk_witness& x, uint32_t lgn, const uint64_t* nq3, const g1_xyzz* wantp) {
  const uint64_t m = 1ull << lgn, n[4] = {m - 1, nq3[0], nq3[1], nq3[2]};
  std::vector<g1_affine> host[4];
  for (int q = 0; q < 4; q++) {
    host[q].resize(n[q] + 1);
    OK(cuzk_srs_read(srs, q, 0, n[q], host[q].data()));
  }
  cuzk_limits probe = {1, 8, 0}, big = {1ull << 62, 8, 0};
  cuzk_plan lo, all;
  cuzk_plan_for(0, n[0], n[1], n[2], n[3], &probe, &lo);  // refused: min_bytes set
  OK(cuzk_plan_for(0, n[0], n[1], n[2], n[3], &big, &all));
  const uint64_t L0 = lo.min_bytes, L1 = all.resident_bytes + all.scratch_bytes;
  // B_G2: a synthetic one on a second srs of the same points, its resident witness run's sum
  std::vector<g2_affine> hbg2(n[3] + 1);
  g2_xyzz wantb2;
  uint64_t L0g, L1g;
  {
    cuzk_srs* s2 = cuzk_srs_synthetic(0, n[0], n[1], n[2], n[3]);
    EXPECT(s2, "%s: synthetic srs: %s", tag, cuzk_last_error());
    if (!s2) return;
    OK(cuzk_srs_synthetic_bg2(s2));
    OK(cuzk_srs_read_bg2(s2, 0, n[3], hbg2.data()));
    cuzk_result res;
    OK(cuzk_run_witness(ctx, s2, M, &x, &res));
    EXPECT(res.has_bg2 == 1, "%s: the resident witness run has no B_G2", tag);
    memcpy(&wantb2, res.bg2, sizeof wantb2);
    cuzk_srs_free(s2);
    cuzk_limits probe2 = {1, 8, 1}, big2 = {1ull << 62, 8, 1};
    cuzk_plan_for(0, n[0], n[1], n[2], n[3], &probe2, &lo);
    OK(cuzk_plan_for(0, n[0], n[1], n[2], n[3], &big2, &all));
    L0g = lo.min_bytes;
    L1g = all.resident_bytes + all.scratch_bytes;
  }
  const struct {
    uint64_t limit;
    bool g2;
  } cases[4] = {{L0, false}, {L0 + (L1 - L0) / 2, false}, {L0g, true}, {L0g + (L1g - L0g) / 2, true}};
  const char* names[4] = {"H", "L", "A", "B_G1"};
  for (const auto& cs : cases) {
    const uint64_t limit = cs.limit;
    cuzk_limits lim = {limit, 8, cs.g2 ? 1u : 0u};
    cuzk_srs* s = cuzk_srs_upload_limited(0, host[0].data(), n[0], host[1].data(), n[1], host[2].data(), n[2],
                                          host[3].data(), n[3], &lim);
    EXPECT(s, "%s: limit %llu B refused: %s", tag, (unsigned long long)limit, cuzk_last_error());
    if (!s) continue;
    if (cs.g2) {
      const int up = cuzk_srs_upload_bg2(s, hbg2.data(), n[3]);
      EXPECT(up == 0, "%s: limit %llu B: upload_bg2: %s", tag, (unsigned long long)limit, up ? cuzk_last_error() : "");
    }
    cuzk_plan p;
    OK(cuzk_srs_plan(s, &p));
    EXPECT(!cs.g2 || p.bg2_stream_bytes == n[3] * sizeof(g2_affine), "%s: limit %llu B: B_G2 does not stream", tag,
           (unsigned long long)limit);
    for (int rep = 0; rep < 2; rep++) {
      cuzk_result res;
      const int r = cuzk_run_witness(ctx, s, M, &x, &res);
      EXPECT(r == 0, "%s: limit %llu B: witness run failed: %s", tag, (unsigned long long)limit, cuzk_last_error());
      if (r) break;
      for (int q = 0; q < 4; q++) {
        g1_xyzz got;
        memcpy(&got, res.points[q], sizeof got);
        EXPECT(same_point(got, wantp[q]), "%s: limit %llu B (rep %d): %s differs from the resident run", tag,
               (unsigned long long)limit, rep, names[q]);
      }
      EXPECT(res.has_bg2 == (cs.g2 ? 1 : 0), "%s: limit %llu B: has_bg2 %d", tag, (unsigned long long)limit,
             res.has_bg2);
      if (cs.g2 && res.has_bg2) {
        g2_xyzz gb2;
        memcpy(&gb2, res.bg2, sizeof gb2);
        EXPECT(same_g2(gb2, wantb2), "%s: limit %llu B (rep %d): streamed B_G2 differs from the resident run", tag,
               (unsigned long long)limit, rep);
      }
    }
    cuzk_stream_stats st;
    OK(cuzk_stream_stats_get(ctx, &st));
    EXPECT(limit != L0 || st.chunks > 0, "%s: at the minimum limit nothing streamed", tag);
    printf("%s: limit %llu B%s, chunk 2^%u, resident %llu/%llu/%llu/%llu: %u chunks streamed\n", tag,
           (unsigned long long)limit, cs.g2 ? " with B_G2" : "", p.chunk_lg, (unsigned long long)p.resident[0], (unsigned long long)p.resident[1],
           (unsigned long long)p.resident[2], (unsigned long long)p.resident[3], st.chunks);
    cuzk_srs_free(s);
  }
}

static void check_witness_case(cuzk_ctx* ctx, const witness_case& wc, uint64_t seed) {
  const int fails0 = fails;
  char tag[96];
  snprintf(tag, sizeof tag, "witness 2^%u rows %llu in %llu aux %llu", wc.lgn, (unsigned long long)wc.nrows,
           (unsigned long long)wc.ninputs, (unsigned long long)wc.naux);
  host_system s;
  s.nrows = wc.nrows;
  s.ninputs = wc.ninputs;
  s.naux = wc.naux;
  s.coeffs = {fr_t::one(), fr_t::zero() - fr_t::one()};
  rng r(seed);
  for (uint32_t k = 2; k < wc.ncoeffs; k++) s.coeffs.push_back(k == 2 ? fr_from_u64(2) : rand_fr(r));
  random_csr(s.A, r, s.nrows, s.nvars(), {15, 30, 25, 15, 5, 4, 3, 2, 1}, wc.ncoeffs);
  random_csr(s.B, r, s.nrows, s.nvars(), wc.b_empty ? std::vector<int>{1} : std::vector<int>{30, 50, 20}, wc.ncoeffs);
  s.densities();
  const std::vector<fr_t> w = random_witness(s.nvars(), seed + 7);
  const std::vector<fr_t> a = host_spmv(s.A, s.coeffs, w, s.nrows), b = host_spmv(s.B, s.coeffs, w, s.nrows);
  const std::vector<fr_t> aux(w.begin() + s.ninputs, w.end());
  const host_compact comp(aux);

  cuzk_matrices* M = s.upload();
  if (!M) {
    printf("ERROR %s: upload: %s\n", tag, cuzk_last_error());
    fails++;
    return;
  }
  uint64_t nq[3];
  const uint64_t bytes = cuzk_matrices_bytes(M, nq);
  for (int q = 0; q < 3; q++)
    EXPECT(nq[q] == s.gq[q].size(), "%s: query %d has %llu bases, want %llu", tag, q, (unsigned long long)nq[q],
           (unsigned long long)s.gq[q].size());
  // a and b, from the dense and the compact witness
  for (int compact = 0; compact < 2; compact++) {
    std::vector<fr_t> ga(s.nrows + 1), gb(s.nrows + 1);
    const cuzk_witness x = compact ? compact_witness(w, comp, s.ninputs, s.naux, wc.lgn)
                                   : dense_witness(w, s.ninputs, s.naux, wc.lgn);
    OK(cuzk_spmv(ctx, M, &x, ga.data(), gb.data()));
    int bad = compare_rows("a", ga.data(), a, s.A) + compare_rows("b", gb.data(), b, s.B);
    EXPECT(bad == 0, "%s (%s): %d rows of a, b differ", tag, compact ? "compact" : "dense", bad);
  }
  // the run against host sums: H from cuzk_h (checked) on a, b, a∘b
  const uint64_t m = 1ull << wc.lgn;
  cuzk_srs* srs = cuzk_srs_synthetic(0, m - 1, nq[0], nq[1], nq[2]);
  if (!srs) {
    printf("ERROR synthetic srs: %s\n", cuzk_last_error());
    exit(2);
  }
  std::vector<fr_t> c(s.nrows), h(m - 1);
  for (uint64_t i = 0; i < s.nrows; i++) c[i] = a[i] * b[i];
  OK(cuzk_h(ctx, a.data(), b.data(), c.data(), s.nrows, wc.lgn, h.data()));
  fr_t want[4] = {fr_t::zero(), fr_t::zero(), fr_t::zero(), fr_t::zero()};
  for (uint64_t i = 0; i < m - 1; i++) want[0] = want[0] + h[i] * synth_dlog(i, 0);
  for (int q = 0; q < 3; q++)
    for (uint64_t i = 0; i < s.gq[q].size(); i++) want[q + 1] = want[q + 1] + w[s.gq[q][i]] * synth_dlog(i, q + 1);
  g1_xyzz wantp[4];
  for (int q = 0; q < 4; q++) wantp[q] = mul_g(want[q]);
  const char* names[4] = {"H", "L", "A", "B_G1"};
  g1_xyzz first[4];
  for (int run = 0; run < 3; run++) {
    const bool compact = run == 2;  // dense twice (the same points every time), then compact
    const cuzk_witness x = compact ? compact_witness(w, comp, s.ninputs, s.naux, wc.lgn)
                                   : dense_witness(w, s.ninputs, s.naux, wc.lgn);
    cuzk_result res;
    OK(cuzk_run_witness(ctx, srs, M, &x, &res));
    for (int q = 0; q < 4; q++) {
      g1_xyzz got;
      memcpy(&got, res.points[q], sizeof got);
      EXPECT(same_point(got, wantp[q]), "%s (%s, run %d): %s wrong", tag, compact ? "compact" : "dense", run, names[q]);
      if (run == 0) first[q] = got;
      EXPECT(same_point(got, first[q]), "%s (run %d): %s differs from run 0", tag, run, names[q]);
    }
    for (int q = 0; q < 3; q++) check_split(ctx, tag, q, w, s.gq[q]);
  }
  {  // a fresh context whose first run is a witness run: the events it never records (the classic
     // run's) must not leave an error pending for the next launch check
    cuzk_ctx* f = cuzk_ctx_new(0, nullptr);
    EXPECT(f != nullptr, "%s: a fresh context: %s", tag, cuzk_last_error());
    if (f) {
      const cuzk_witness x = dense_witness(w, s.ninputs, s.naux, wc.lgn);
      cuzk_result res;
      EXPECT(cuzk_run_witness(f, srs, M, &x, &res) == 0, "%s: a fresh context's witness run: %s", tag,
             cuzk_last_error());
      const cudaError_t e = cudaGetLastError();
      EXPECT(e == cudaSuccess, "%s: a fresh context's witness run left \"%s\" pending", tag, cudaGetErrorString(e));
      cuzk_ctx_free(f);
    }
  }
  if (wc.lgn >= 10) {
    const cuzk_witness x = dense_witness(w, s.ninputs, s.naux, wc.lgn);
    check_witness_limited(ctx, tag, srs, M, x, wc.lgn, nq, wantp);
  }
  if (wc.nrows >= 8 && s.B.col.size() >= 2) check_witness_refusals(ctx, s, M, srs, w, wc.lgn);
  cuzk_srs_free(srs);
  cuzk_matrices_free(M);
  printf("%s: %llu + %llu entries, %llu device bytes, bases %llu/%llu/%llu: ok=%d\n", tag,
         (unsigned long long)s.A.col.size(), (unsigned long long)s.B.col.size(), (unsigned long long)bytes,
         (unsigned long long)nq[0], (unsigned long long)nq[1], (unsigned long long)nq[2], fails == fails0);
}

static void check_witness(cuzk_ctx* ctx) {
  const witness_case cases[] = {
      {1, 2, 1, 3, 3, false},          {5, 30, 2, 40, 4, true},         {10, 1024, 1, 700, 2, false},
      {12, 4091, 3, 3000, 40, false},  {16, 65536 - 77, 20, 70001, 300, false},
  };
  uint64_t seed = 900;
  for (const witness_case& wc : cases) check_witness_case(ctx, wc, seed += 10);
  printf("witness: ok=%d\n", fails == 0);
}

// ---------------------------------------------------------------- bench

// A 64-bit hash (splitmix64) for the per-row draws of the benchmark system.
static uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A PoRep-shaped system: A rows of 2.4 entries on average (lengths 1..6),
// each row's first column its own aux variable in order (every aux is
// A-dense); B rows of 1.0 (lengths 0..2) over every 4th aux variable (B aux
// density 25 %); columns within +-2048 of the row's place (local) or
// anywhere (random); 70 % of the coefficients +-1, the rest from a table of 64.
static void bench_system(host_system& s, bool local) {
  const uint64_t nr = s.nrows, na = s.naux, ni = s.ninputs;
  s.coeffs = {fr_t::one(), fr_t::zero() - fr_t::one()};
  rng r(77);
  for (int k = 2; k < 64; k++) s.coeffs.push_back(fr_from_u64(1ull << (k % 60)) + (k > 40 ? rand_fr(r) : fr_t::zero()));
  auto len_a = [](uint64_t h) {  // 1: 20 %, 2: 40 %, 3: 25 %, 4: 10 %, 6: 5 % -> 2.45
    uint64_t x = h % 20;
    return x < 4 ? 1 : x < 12 ? 2 : x < 17 ? 3 : x < 19 ? 4 : 6;
  };
  auto len_b = [](uint64_t h) {  // 0: 20 %, 1: 60 %, 2: 20 % -> 1.0
    uint64_t x = h % 5;
    return x == 0 ? 0 : x < 4 ? 1 : 2;
  };
  for (int mtx = 0; mtx < 2; mtx++) {
    host_csr& m = mtx ? s.B : s.A;
    m.rp.assign(nr + 1, 0);
    for (uint64_t i = 0; i < nr; i++) {
      const uint64_t h = mix64(i * 2 + mtx);
      m.rp[i + 1] = m.rp[i] + (uint32_t)(mtx ? len_b(h) : len_a(h));
    }
    m.col.resize(m.rp[nr]);
    m.cf.resize(m.rp[nr]);
#pragma omp parallel for schedule(static, 65536)
    for (uint64_t i = 0; i < nr; i++) {
      uint64_t h = mix64(i * 2 + mtx + (1ull << 40));
      const uint64_t place = i * na / nr;  // the row's own aux variable
      uint32_t row[8];
      int k = 0;
      const int len = (int)(m.rp[i + 1] - m.rp[i]);
      while (k < len) {
        h = mix64(h);
        uint64_t j;
        if (!mtx && k == 0)
          j = ni + place;
        else if (h % 100 == 0)
          j = (h >> 8) % ni;  // an input
        else {
          uint64_t a = local ? (place + na + ((h >> 8) % 4096) - 2048) % na : (h >> 8) % na;
          if (mtx) a &= ~3ull;  // B: every 4th aux variable
          j = ni + a;
        }
        bool dup = false;
        for (int t = 0; t < k; t++) dup |= row[t] == j;
        if (!dup) row[k++] = (uint32_t)j;
      }
      std::sort(row, row + len);
      for (int t = 0; t < len; t++) {
        h = mix64(h);
        m.col[m.rp[i] + t] = row[t];
        const uint64_t x = h % 10;
        m.cf[m.rp[i] + t] = x < 4 ? 0 : x < 7 ? 1 : (uint16_t)(2 + (h >> 8) % 62);
      }
    }
  }
  s.a_aux.assign((na + 31) / 32 + 1, 0);
  s.b_in.assign((ni + 31) / 32 + 1, 0);
  s.b_aux.assign((na + 31) / 32 + 1, 0);
  for (uint32_t c : s.A.col)
    if (c >= ni) s.a_aux[(c - ni) / 32] |= 1u << ((c - ni) % 32);
  for (uint32_t c : s.B.col) {
    if (c < ni)
      s.b_in[c / 32] |= 1u << (c % 32);
    else
      s.b_aux[(c - ni) / 32] |= 1u << ((c - ni) % 32);
  }
}

// bench witness LGN NROWS [NAUX] [local|random]: cuzk_run_witness on a
// PoRep-shaped system (bench_system) and witness (37.5 % zero, 37.5 % one),
// dense and compact, against the synthetic SRS.
static void bench_witness(cuzk_ctx* ctx, uint32_t lgn, uint64_t nrows, uint64_t naux, bool local) {
  const uint64_t m = 1ull << lgn;
  if (nrows > m) nrows = m;
  host_system s;
  s.nrows = nrows;
  s.ninputs = 64;
  s.naux = naux;
  auto t0 = std::chrono::steady_clock::now();
  bench_system(s, local);
  auto t1 = std::chrono::steady_clock::now();
  printf("system: %llu rows, %llu inputs, %llu aux; A %llu entries (%.2f/row), B %llu (%.2f/row), %s columns: %.1f s\n",
         (unsigned long long)nrows, (unsigned long long)s.ninputs, (unsigned long long)naux,
         (unsigned long long)s.A.col.size(), (double)s.A.col.size() / nrows, (unsigned long long)s.B.col.size(),
         (double)s.B.col.size() / nrows, local ? "local" : "random", std::chrono::duration<double>(t1 - t0).count());
  cuzk_matrices* M = s.upload();
  if (!M) {
    printf("ERROR upload: %s\n", cuzk_last_error());
    exit(2);
  }
  auto t2 = std::chrono::steady_clock::now();
  uint64_t nq[3];
  const uint64_t bytes = cuzk_matrices_bytes(M, nq);
  printf("matrices upload: %.2f s, %.2f GiB on the device; bases L %llu, A %llu, B %llu\n",
         std::chrono::duration<double>(t2 - t1).count(), bytes / 1073741824.0, (unsigned long long)nq[0],
         (unsigned long long)nq[1], (unsigned long long)nq[2]);
  cuzk_srs* srs = cuzk_srs_synthetic(0, m - 1, nq[0], nq[1], nq[2]);
  if (!srs) {
    printf("ERROR synthetic srs: %s\n", cuzk_last_error());
    exit(2);
  }
  const uint64_t nv = s.nvars();
  pinned<fr_t> w(nv);
  fill_random(w.p, nv, 21);
  {
    rng r(22);
    for (uint64_t i = 0; i < nv; i++) {
      uint64_t x = r.next() % 8;
      if (x < 3) w.p[i] = fr_t::zero();
      else if (x < 6) w.p[i] = fr_t::one();
    }
    w.p[0] = fr_t::one();
  }
  // the compact form, in pinned memory
  const uint64_t nw = (naux + 31) / 32;
  pinned<uint32_t> small(nw + 1), ones(nw + 1);
  memset(small.p, 0, (nw + 1) * 4);
  memset(ones.p, 0, (nw + 1) * 4);
  uint64_t nothers = 0;
  for (uint64_t j = 0; j < naux; j++) {
    const fr_t& v = w.p[s.ninputs + j];
    if (v == fr_t::zero() || v == fr_t::one()) {
      small.p[j / 32] |= 1u << (j % 32);
      if (v == fr_t::one()) ones.p[j / 32] |= 1u << (j % 32);
    } else {
      nothers++;
    }
  }
  pinned<fr_t> others(nothers + 1);
  for (uint64_t j = 0, k = 0; j < naux; j++)
    if (!((small.p[j / 32] >> (j % 32)) & 1)) others.p[k++] = w.p[s.ninputs + j];
  printf("witness: dense %.2f GiB, compact %.2f GiB (%llu other values)\n", nv * 32.0 / 1073741824.0,
         (s.ninputs * 32.0 + nw * 8.0 + nothers * 32.0) / 1073741824.0, (unsigned long long)nothers);
  printf("%-9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "run", "total", "h2d", "spmv", "split", "ntt", "msm_h", "msm_l",
         "msm_a", "msm_b");
  for (int run = 0; run < 6; run++) {
    const bool compact = run >= 3;
    cuzk_witness x = {};
    x.input = w.p;
    x.ninput = s.ninputs;
    x.naux = naux;
    x.lgn = lgn;
    if (compact) {
      x.small = small.p;
      x.ones = ones.p;
      x.others = others.p;
      x.nothers = nothers;
    } else {
      x.aux = w.p + s.ninputs;
    }
    cuzk_result res;
    OK(cuzk_run_witness(ctx, srs, M, &x, &res));
    printf("%-7s %d %9.1f %9.1f %9.2f %9.2f %9.1f %9.1f %9.1f %9.1f %9.1f\n", compact ? "compact" : "dense", run % 3,
           res.ms_total, res.ms_h2d, res.ms_spmv, res.ms_split, res.ms_ntt, res.ms_msm_h, res.ms_msm_l, res.ms_msm_a,
           res.ms_msm_b);
    fflush(stdout);
  }
  uint64_t nt[3];
  for (int q = 0; q < 3; q++) OK(cuzk_witness_split_read(ctx, q, &nt[q], nullptr, nullptr, nullptr));
  printf("tails: L %llu, A %llu, B %llu\n", (unsigned long long)nt[0], (unsigned long long)nt[1],
         (unsigned long long)nt[2]);
  cuzk_srs_free(srs);
  cuzk_matrices_free(M);
}
