// The harness's checks and bench of the memory limit and the streamed MSMs
// (cuzk_srs_upload_limited): included by harness.cu after its helpers.
//
//   check: check_stream (a part of `check`) runs partitions of 2^12, 2^16 and
//     2^20 rows against an srs uploaded under limits from the least a run
//     needs (every query streams) to everything resident, and compares the
//     four points with the same job's run on the unlimited srs; every case
//     prints its plan and what differs. Also: a limit one byte below the
//     minimum is refused at upload, naming the bytes; the library's device
//     memory after each run stays under the limit.
//   bench part-limit LG NAUX LIMIT...: the PoRep-shaped partition of bench
//     part under each limit (bytes, or with a suffix G = GiB): times, bytes
//     streamed, copy/compute overlap, and the points against the unlimited run;
//     where the plan streams, two partitions in one pass (cuzk_run_pair).
//   plan LG NAUX LIMIT...: the plans of the partition's parameter set (no GPU
//     needed: then the sort's storage is estimated); plan-check: the plan's
//     invariants over a sweep of sizes and limits (no GPU needed).

static const char* query_names[4] = {"H", "L", "A", "B_G1"};

static void print_plan(const cuzk_plan& p) {
  printf("  plan: limit %.3f GiB, resident h %llu/%llu l %llu/%llu a %llu/%llu b %llu/%llu, chunk 2^%u, pairs 2^%u, "
         "resident %.3f GiB, scratch %.3f GiB, streamed %.3f GiB, min %.3f GiB, pinned %#x\n",
         p.limit / 1073741824.0, (unsigned long long)p.resident[0], (unsigned long long)p.n[0],
         (unsigned long long)p.resident[1], (unsigned long long)p.n[1], (unsigned long long)p.resident[2],
         (unsigned long long)p.n[2], (unsigned long long)p.resident[3], (unsigned long long)p.n[3], p.chunk_lg,
         p.pairs_lg ? p.pairs_lg : 29, p.resident_bytes / 1073741824.0, p.scratch_bytes / 1073741824.0,
         p.stream_bytes / 1073741824.0, p.min_bytes / 1073741824.0, p.pinned);
  if (p.bg2_bytes || p.bg2_stream_bytes)
    printf("        B_G2 %s: %.3f GiB\n", p.bg2_bytes ? "resident" : "streamed",
           (p.bg2_bytes ? p.bg2_bytes : p.bg2_stream_bytes) / 1073741824.0);
}

// A partition's job with its inputs (the witness as in check_run: each aux
// variable zero, one or random; B over every 4th).
struct stream_job {
  std::vector<fr_t> a, b, c;
  std::vector<uint32_t> bits[3], idx[3];
  std::vector<fr_t> tail[3];
  cuzk_job job = {};

  stream_job(uint32_t lgn, const uint64_t* nq, uint64_t seed) {
    const uint64_t m = 1ull << lgn, rows = m - 5, naux = nq[1];
    a.resize(rows);
    b.resize(rows);
    c.resize(rows);
    fill_random(a.data(), rows, seed);
    fill_random(b.data(), rows, seed + 1);
    for (uint64_t i = 0; i < rows; i++) c[i] = a[i] * b[i];
    std::vector<fr_t> aux(naux);
    fill_random(aux.data(), naux, seed + 2);
    std::vector<uint8_t> kind(naux);
    rng r(seed + 3);
    for (uint64_t i = 0; i < naux; i++) kind[i] = r.next() % 3;
    job.a = a.data();
    job.b = b.data();
    job.nrows = rows;
    job.lgn = lgn;
    for (int p = 0; p < 3; p++) {
      bits[p].assign((nq[p + 1] + 31) / 32, 0);
      for (uint64_t i = 0; i < nq[p + 1]; i++) {
        const uint64_t w = p == 2 ? i * 4 : i;
        if (kind[w] == 1) bits[p][i / 32] |= 1u << (i % 32);
        if (kind[w] == 2) {
          tail[p].push_back(aux[w]);
          idx[p].push_back((uint32_t)i);
        }
      }
      job.part[p].ones = bits[p].data();
      job.part[p].scalars = tail[p].data();
      job.part[p].idx = idx[p].data();
      job.part[p].ntail = tail[p].size();
    }
  }
};

// Which of the four points differ (affine), as names; empty if none.
static std::string points_differ(const cuzk_result& x, const cuzk_result& y) {
  std::string d;
  for (int q = 0; q < 4; q++) {
    g1_xyzz p, r;
    memcpy(&p, x.points[q], sizeof p);
    memcpy(&r, y.points[q], sizeof r);
    if (!same_point(p, r)) d += std::string(d.empty() ? "" : ", ") + query_names[q];
  }
  return d;
}

static cuzk_plan plan_of(uint64_t limit, const uint64_t* nq, uint32_t chunk_lg_max, int* rc, uint32_t bg2 = 0) {
  cuzk_limits lim = {limit, chunk_lg_max, bg2};
  cuzk_plan p;
  *rc = cuzk_plan_for(0, nq[0], nq[1], nq[2], nq[3], &lim, &p);
  return p;
}

static void check_stream_case(uint32_t lgn, uint64_t naux, uint32_t chunk_lg_max) {
  const uint64_t m = 1ull << lgn;
  const uint64_t nq[4] = {m - 1, naux, naux, naux / 4};
  cuzk_srs* srs = cuzk_srs_synthetic(0, nq[0], nq[1], nq[2], nq[3]);
  if (!srs) {
    printf("ERROR synthetic srs: %s\n", cuzk_last_error());
    exit(2);
  }
  std::vector<g1_affine> host[4];
  for (int q = 0; q < 4; q++) {
    host[q].resize(nq[q] + 1);
    OK(cuzk_srs_read(srs, q, 0, nq[q], host[q].data()));
  }
  stream_job sj(lgn, nq, 900 + lgn), sj2(lgn, nq, 950 + lgn);  // sj2: a paired run's other partition
  cuzk_result want[2], want2;
  {
    cuzk_ctx* c0 = cuzk_ctx_new(0, nullptr);
    for (int withc = 0; withc < 2; withc++) {
      sj.job.c = withc ? sj.c.data() : nullptr;
      OK(cuzk_run(c0, srs, &sj.job, &want[withc]));
    }
    OK(cuzk_run(c0, srs, &sj2.job, &want2));
    cuzk_ctx_free(c0);
  }
  EXPECT(!points_differ(want[0], want2).empty(), "stream 2^%u: the paired partitions' points are the same", lgn);
  cuzk_srs_free(srs);
  int rc;
  const cuzk_plan lo = plan_of(1, nq, chunk_lg_max, &rc);  // refused: min_bytes set
  const cuzk_plan all = plan_of(1ull << 62, nq, chunk_lg_max, &rc);
  const uint64_t L0 = lo.min_bytes, L1 = all.resident_bytes + all.scratch_bytes;
  printf("stream 2^%u (naux %llu, chunks <= 2^%u): min %llu B, everything resident %llu B\n", lgn,
         (unsigned long long)naux, chunk_lg_max, (unsigned long long)L0, (unsigned long long)L1);
  // refused below the minimum, at upload, naming the bytes
  {
    cuzk_limits lim = {L0 - 1, chunk_lg_max, 0};
    cuzk_srs* s = cuzk_srs_upload_limited(0, host[0].data(), nq[0], host[1].data(), nq[1], host[2].data(), nq[2],
                                          host[3].data(), nq[3], &lim);
    const std::string msg = cuzk_last_error();
    char need[64];
    snprintf(need, sizeof need, "%llu bytes", (unsigned long long)L0);
    EXPECT(!s, "stream 2^%u: a limit of %llu B (1 below the minimum) was accepted", lgn, (unsigned long long)(L0 - 1));
    EXPECT(s || msg.find(need) != std::string::npos, "stream 2^%u: refusal does not name the %s needed: %s", lgn,
           need, msg.c_str());
    if (!s) printf("  refused at %llu B: %s\n", (unsigned long long)(L0 - 1), msg.c_str());
    cuzk_srs_free(s);
  }
  const uint64_t limits[5] = {L0, L0 + (L1 - L0) / 3, L0 + 2 * (L1 - L0) / 3, L1 - 1, L1};
  for (uint64_t limit : limits) {
    const uint64_t held0 = cuzk_mem_held(0);
    cuzk_ctx* ctx = cuzk_ctx_new(0, nullptr);
    if (!ctx) {
      printf("ERROR ctx: %s\n", cuzk_last_error());
      exit(2);
    }
    cuzk_limits lim = {limit, chunk_lg_max, 0};
    cuzk_srs* s = cuzk_srs_upload_limited(0, host[0].data(), nq[0], host[1].data(), nq[1], host[2].data(), nq[2],
                                          host[3].data(), nq[3], &lim);
    EXPECT(s, "stream 2^%u: limit %llu B refused: %s", lgn, (unsigned long long)limit, cuzk_last_error());
    if (!s) {
      cuzk_ctx_free(ctx);
      continue;
    }
    cuzk_plan p;
    OK(cuzk_srs_plan(s, &p));
    print_plan(p);
    if (limit == L0)
      EXPECT(p.resident[0] + p.resident[1] + p.resident[2] + p.resident[3] == 0,
             "stream 2^%u: at the minimum some query is resident", lgn);
    for (int withc = 0; withc < 2; withc++) {
      sj.job.c = withc ? sj.c.data() : nullptr;
      for (int rep = 0; rep < 2; rep++) {
        cuzk_result got;
        const int r = cuzk_run(ctx, s, &sj.job, &got);
        EXPECT(r == 0, "stream 2^%u limit %llu: run failed: %s", lgn, (unsigned long long)limit, cuzk_last_error());
        if (r) continue;
        const std::string d = points_differ(got, want[withc]);
        EXPECT(d.empty(), "stream 2^%u limit %llu (c %s, rep %d): %s differ from the resident run", lgn,
               (unsigned long long)limit, withc ? "given" : "NULL", rep, d.c_str());
      }
    }
    pinned<fr_t> hbuf(m);  // a paired run's first H
    sj.job.c = nullptr;
    if (p.chunk_lg) {  // two partitions in one pass, in both orders (the first's H through the host)
      for (int order = 0; order < 2; order++) {
        const cuzk_job jobs[2] = {order ? sj2.job : sj.job, order ? sj.job : sj2.job};
        const cuzk_result* w[2] = {order ? &want2 : &want[0], order ? &want[0] : &want2};
        cuzk_result got[2];
        const int r = cuzk_run_pair(ctx, s, jobs, hbuf.p, m * 32, got);
        EXPECT(r == 0, "stream 2^%u limit %llu: paired run failed: %s", lgn, (unsigned long long)limit,
               cuzk_last_error());
        if (r) continue;
        for (int j = 0; j < 2; j++) {
          const std::string d = points_differ(got[j], *w[j]);
          EXPECT(d.empty(), "stream 2^%u limit %llu (pair, order %d): partition %d's %s differ from its own run", lgn,
                 (unsigned long long)limit, order, j, d.c_str());
        }
      }
    } else {  // nothing streams: refused, named
      const cuzk_job jobs[2] = {sj.job, sj2.job};
      cuzk_result got[2];
      EXPECT(cuzk_run_pair(ctx, s, jobs, hbuf.p, m * 32, got) == CUZK_ERR_ARG,
             "stream 2^%u: a paired run of a set that does not stream was not refused", lgn);
    }
    cuzk_stream_stats st;
    OK(cuzk_stream_stats_get(ctx, &st));
    const uint64_t held = cuzk_mem_held(0) - held0;
    printf("  streamed %u chunks, %.3f MiB; device memory held %llu B of %llu\n", st.chunks, st.bytes / 1048576.0,
           (unsigned long long)held, (unsigned long long)limit);
    EXPECT(held <= limit, "stream 2^%u: %llu B held over the limit %llu", lgn, (unsigned long long)held,
           (unsigned long long)limit);
    cuzk_srs_free(s);
    cuzk_ctx_free(ctx);
  }
}

// A tail whose indices do not ascend is refused by a streamed run (not a wrong point).
static void check_stream_unsorted() {
  const uint32_t lgn = 12;
  const uint64_t m = 1ull << lgn, nq[4] = {m - 1, 3000, 3000, 750};
  cuzk_srs* srs = cuzk_srs_synthetic(0, nq[0], nq[1], nq[2], nq[3]);
  std::vector<g1_affine> host[4];
  for (int q = 0; q < 4; q++) {
    host[q].resize(nq[q] + 1);
    OK(cuzk_srs_read(srs, q, 0, nq[q], host[q].data()));
  }
  cuzk_srs_free(srs);
  stream_job sj(lgn, nq, 77);
  int rc;
  const cuzk_plan lo = plan_of(1, nq, 8, &rc);
  cuzk_limits lim = {lo.min_bytes, 8, 0};
  cuzk_srs* s = cuzk_srs_upload_limited(0, host[0].data(), nq[0], host[1].data(), nq[1], host[2].data(), nq[2],
                                        host[3].data(), nq[3], &lim);
  cuzk_ctx* ctx = cuzk_ctx_new(0, nullptr);
  std::swap(sj.idx[0][10], sj.idx[0][sj.idx[0].size() - 10]);
  cuzk_result got;
  const int r = cuzk_run(ctx, s, &sj.job, &got);
  EXPECT(r != 0, "stream: a tail with unsorted indices was accepted");
  printf("stream unsorted tail: %s\n", r ? cuzk_last_error() : "accepted");
  cuzk_ctx_free(ctx);
  cuzk_srs_free(s);
}

// B_G2 under a limit (cuzk_limits.bg2): resident where the whole set fits
// with it, else streamed (one byte less, the minimum, a limit that streams
// in many chunks of 2^5 points); cuzk_run's B_G2 matches the unlimited
// run's every time, and the device memory held stays under the limit. One
// byte below the minimum is refused; without cuzk_limits.bg2 the plan has
// no B_G2 and cuzk_srs_upload_bg2 refuses it (has_bg2 = 0; the G1 points
// still match).
static void check_stream_bg2() {
  const uint32_t lgn = 12;
  const uint64_t m = 1ull << lgn, nq[4] = {m - 1, 3000, 3000, 750};
  cuzk_srs* srs = cuzk_srs_synthetic(0, nq[0], nq[1], nq[2], nq[3]);
  if (!srs) {
    printf("ERROR synthetic srs: %s\n", cuzk_last_error());
    exit(2);
  }
  OK(cuzk_srs_synthetic_bg2(srs));
  std::vector<g1_affine> host[4];
  for (int q = 0; q < 4; q++) {
    host[q].resize(nq[q] + 1);
    OK(cuzk_srs_read(srs, q, 0, nq[q], host[q].data()));
  }
  std::vector<g2_affine> hbg2(nq[3] + 1);
  OK(cuzk_srs_read_bg2(srs, 0, nq[3], hbg2.data()));
  stream_job sj(lgn, nq, 515);
  cuzk_result want;
  {
    cuzk_ctx* c0 = cuzk_ctx_new(0, nullptr);
    OK(cuzk_run(c0, srs, &sj.job, &want));
    cuzk_ctx_free(c0);
  }
  cuzk_srs_free(srs);
  EXPECT(want.has_bg2 == 1, "stream bg2: the unlimited run has no B_G2");
  g2_xyzz wb2;
  memcpy(&wb2, want.bg2, sizeof wb2);
  int rc;
  cuzk_limits big = {1ull << 62, 8, 1};
  cuzk_plan all;
  OK(cuzk_plan_for(0, nq[0], nq[1], nq[2], nq[3], &big, &all));
  const uint64_t want_bytes = nq[3] * sizeof(g2_affine) + 1;
  EXPECT(all.bg2_bytes == want_bytes, "stream bg2: the plan of no real limit holds %llu B of B_G2, want %llu",
         (unsigned long long)all.bg2_bytes, (unsigned long long)want_bytes);
  cuzk_limits probe = {1, 8, 1};
  cuzk_plan lo;
  EXPECT(cuzk_plan_for(0, nq[0], nq[1], nq[2], nq[3], &probe, &lo) == CUZK_ERR_MEM, "stream bg2: a 1-byte limit accepted");
  const uint64_t Lg = all.resident_bytes + all.scratch_bytes, L0 = lo.min_bytes;
  EXPECT(L0 >= plan_of(1, nq, 8, &rc).min_bytes, "stream bg2: the minimum with B_G2 below the one without");
  cuzk_limits below = {L0 - 1, 8, 1};
  EXPECT(cuzk_plan_for(0, nq[0], nq[1], nq[2], nq[3], &below, &lo) == CUZK_ERR_MEM,
         "stream bg2: one byte below the minimum accepted");
  // (limit, chunk_lg_max, B_G2 planned)
  const struct {
    uint64_t limit;
    uint32_t chunk_lg;
    bool g2;
  } cases[5] = {{Lg, 8, true}, {Lg - 1, 8, true}, {L0, 8, true}, {L0 + (Lg - L0) / 3, 5, true}, {Lg - 1, 8, false}};
  for (const auto& cs : cases) {
    const uint64_t limit = cs.limit;
    const uint64_t held0 = cuzk_mem_held(0);
    cuzk_ctx* ctx = cuzk_ctx_new(0, nullptr);
    cuzk_limits lim = {limit, cs.chunk_lg, cs.g2 ? 1u : 0u};
    cuzk_srs* s = cuzk_srs_upload_limited(0, host[0].data(), nq[0], host[1].data(), nq[1], host[2].data(), nq[2],
                                          host[3].data(), nq[3], &lim);
    EXPECT(s, "stream bg2: limit %llu B refused: %s", (unsigned long long)limit, cuzk_last_error());
    if (!s) {
      cuzk_ctx_free(ctx);
      continue;
    }
    cuzk_plan p;
    OK(cuzk_srs_plan(s, &p));
    print_plan(p);
    const bool held = cs.g2 && limit == Lg, streamed = cs.g2 && !held;
    EXPECT(held == (p.bg2_bytes != 0), "stream bg2: limit %llu B: the plan holds %llu B of B_G2", (unsigned long long)limit,
           (unsigned long long)p.bg2_bytes);
    EXPECT(streamed == (p.bg2_stream_bytes == nq[3] * sizeof(g2_affine)),
           "stream bg2: limit %llu B: the plan streams %llu B of B_G2", (unsigned long long)limit,
           (unsigned long long)p.bg2_stream_bytes);
    EXPECT(!streamed || p.stream_bytes >= p.bg2_stream_bytes, "stream bg2: limit %llu B: streamed bytes without B_G2's",
           (unsigned long long)limit);
    const int up = cuzk_srs_upload_bg2(s, hbg2.data(), nq[3]);
    EXPECT((up == 0) == cs.g2, "stream bg2: limit %llu B: upload_bg2 returned %d (plan bg2 %llu B): %s",
           (unsigned long long)limit, up, (unsigned long long)p.bg2_bytes, up ? cuzk_last_error() : "");
    if (up) printf("  refused: %s\n", cuzk_last_error());
    cuzk_result got;
    const int r = cuzk_run(ctx, s, &sj.job, &got);
    EXPECT(r == 0, "stream bg2: limit %llu B: run failed: %s", (unsigned long long)limit, cuzk_last_error());
    if (r == 0) {
      const std::string d = points_differ(got, want);
      EXPECT(d.empty(), "stream bg2: limit %llu B: %s differ from the resident run", (unsigned long long)limit,
             d.c_str());
      EXPECT(got.has_bg2 == (cs.g2 ? 1 : 0), "stream bg2: limit %llu B: has_bg2 %d", (unsigned long long)limit,
             got.has_bg2);
      if (streamed) {
        cuzk_stream_stats st;
        OK(cuzk_stream_stats_get(ctx, &st));
        EXPECT(st.bytes >= p.bg2_stream_bytes, "stream bg2: limit %llu B: %llu B streamed, B_G2 alone is %llu",
               (unsigned long long)limit, (unsigned long long)st.bytes, (unsigned long long)p.bg2_stream_bytes);
        printf("  B_G2 streamed: %u chunks, %llu B\n", st.chunks, (unsigned long long)st.bytes);
      }
      if (cs.g2 && got.has_bg2) {
        g2_xyzz gb2;
        memcpy(&gb2, got.bg2, sizeof gb2);
        EXPECT(same_g2(gb2, wb2), "stream bg2: limit %llu B: B_G2 differs from the resident run",
               (unsigned long long)limit);
      }
    }
    const uint64_t h = cuzk_mem_held(0) - held0;
    printf("  device memory held %llu B of %llu\n", (unsigned long long)h, (unsigned long long)limit);
    EXPECT(h <= limit, "stream bg2: %llu B held over the limit %llu", (unsigned long long)h,
           (unsigned long long)limit);
    cuzk_srs_free(s);
    cuzk_ctx_free(ctx);
  }
}

static void plan_check();

static void check_stream() {
  plan_check();
  check_stream_case(12, 3000, 8);
  check_stream_case(16, 50000, 10);
  check_stream_case(20, 700000, 16);
  check_stream_unsorted();
  check_stream_bg2();
  printf("stream: ok=%d\n", fails == 0);
}

static uint64_t parse_bytes(const char* s) {
  char* end;
  const double v = strtod(s, &end);
  if (*end == 'G' || *end == 'g') return (uint64_t)(v * 1073741824.0);
  if (*end == 'M' || *end == 'm') return (uint64_t)(v * 1048576.0);
  return (uint64_t)v;
}

// What of res differs from want: the four points, and B_G2 where g2.
static std::string part_differs(const cuzk_result& res, const cuzk_result& want, bool g2) {
  std::string d = points_differ(res, want);
  if (g2) {
    g2_xyzz gb, wb;
    memcpy(&gb, res.bg2, sizeof gb);
    memcpy(&wb, want.bg2, sizeof wb);
    if (!res.has_bg2 || !same_g2(gb, wb)) d += res.has_bg2 ? " B_G2" : " (no B_G2)";
  }
  return d;
}

// A row of bench part-limit's table: a run's (or a pair's) times, the stream's figures, what differs.
static void part_limit_row(const char* label, const cuzk_result& res, const cuzk_stream_stats& st,
                           const std::string& d) {
  printf("%-5s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f | %7u %9.3f %9.1f %9.1f %9.1f %6.1f%% %s\n", label,
         res.ms_total, res.ms_h2d, res.ms_ntt, res.ms_msm_h, res.ms_msm_l, res.ms_msm_a, res.ms_msm_b, res.ms_msm_b2,
         st.chunks, st.bytes / 1073741824.0, st.ms_copy, st.ms_stall, st.ms_span,
         st.ms_copy > 0 ? 100.0 * (1.0 - st.ms_stall / st.ms_copy) : 100.0,
         d.empty() ? "same" : ("DIFFER: " + d).c_str());
  fflush(stdout);
}

// bench part's partition under each limit.
static void bench_part_limit(uint32_t lgn, uint64_t naux, const std::vector<uint64_t>& limits, bool g2) {
  const uint64_t m = 1ull << lgn, nb = naux / 4;
  const uint64_t nq[4] = {m - 1, naux, naux, nb};
  auto t0 = std::chrono::steady_clock::now();
  cuzk_srs* srs = cuzk_srs_synthetic(0, nq[0], nq[1], nq[2], nq[3]);
  if (!srs) {
    printf("ERROR synthetic srs: %s\n", cuzk_last_error());
    exit(2);
  }
  std::unique_ptr<pinned<g1_affine>> host[4];
  for (int q = 0; q < 4; q++) {
    host[q].reset(new pinned<g1_affine>(nq[q] + 1));
    OK(cuzk_srs_read(srs, q, 0, nq[q], host[q]->p));
  }
  std::unique_ptr<pinned<g2_affine>> hbg2;
  if (g2) {  // B_G2 too: resident in the unlimited run, planned (streamed) under the limits
    OK(cuzk_srs_synthetic_bg2(srs));
    hbg2.reset(new pinned<g2_affine>(nb + 1));
    OK(cuzk_srs_read_bg2(srs, 0, nb, hbg2->p));
  }
  printf("synthetic srs and its host copy: %.2f s\n",
         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  uint64_t rows = m - 1000;
  pinned<fr_t> ab(rows * 2);
  fill_random(ab.p, rows * 2, 11);
  cuzk_job job = {};
  job.a = ab.p;
  job.b = ab.p + rows;
  job.nrows = rows;
  job.lgn = lgn;
  std::vector<fr_t> aux(naux);
  std::vector<uint8_t> kind(naux);
  {
    rng r(12);
    for (uint64_t i = 0; i < naux; i++) {
      uint64_t x = r.next() % 8;
      kind[i] = x < 3 ? 0 : (x < 6 ? 1 : 2);
    }
    fill_random(aux.data(), naux, 13);
  }
  std::unique_ptr<part_tail> parts[3];
  double h2d = 2.0 * rows * 32;
  for (int p = 0; p < 3; p++) {
    parts[p].reset(new part_tail(p, nq[p + 1], kind, aux));
    job.part[p] = {parts[p]->bits.p, parts[p]->tail.p, parts[p]->idx.p, parts[p]->n};
    h2d += parts[p]->n * 36.0 + (nq[p + 1] + 31) / 32 * 4.0;
  }
  printf("tails: L %llu, A %llu, B %llu; inputs to the device per partition %.2f GiB\n",
         (unsigned long long)job.part[0].ntail, (unsigned long long)job.part[1].ntail,
         (unsigned long long)job.part[2].ntail, h2d / 1073741824.0);
  cuzk_result want;
  {
    cuzk_ctx* c0 = cuzk_ctx_new(0, nullptr);
    OK(cuzk_run(c0, srs, &job, &want));
    printf("unlimited: total %.1f ms (msm_h %.1f, msm_b2 %.1f)\n", want.ms_total, want.ms_msm_h, want.ms_msm_b2);
    cuzk_ctx_free(c0);
  }
  cuzk_srs_free(srs);
  for (uint64_t limit : limits) {
    const uint64_t held0 = cuzk_mem_held(0);
    cuzk_ctx* ctx = cuzk_ctx_new(0, nullptr);
    cuzk_limits lim = {limit, 0, g2 ? 1u : 0u};
    t0 = std::chrono::steady_clock::now();
    cuzk_srs* s = cuzk_srs_upload_limited(0, host[0]->p, nq[0], host[1]->p, nq[1], host[2]->p, nq[2], host[3]->p,
                                          nq[3], &lim);
    if (!s) {
      printf("limit %.2f GiB: refused: %s\n", limit / 1073741824.0, cuzk_last_error());
      cuzk_ctx_free(ctx);
      continue;
    }
    if (g2) OK(cuzk_srs_upload_bg2(s, hbg2->p, nb));
    printf("limit %.2f GiB (upload %.2f s):\n", limit / 1073741824.0,
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    cuzk_plan p;
    OK(cuzk_srs_plan(s, &p));
    print_plan(p);
    printf("%-5s %9s %9s %9s %9s %9s %9s %9s %9s | %7s %9s %9s %9s %9s %7s %s\n", "run", "total", "h2d", "ntt",
           "msm_h", "msm_l", "msm_a", "msm_b", "msm_b2", "chunks", "GiB", "copy ms", "stall ms", "span ms", "overlap",
           "points");
    for (int r = 0; r < 3; r++) {
      cuzk_result res;
      OK(cuzk_run(ctx, s, &job, &res));
      cuzk_stream_stats st;
      OK(cuzk_stream_stats_get(ctx, &st));
      const std::string d = part_differs(res, want, g2);
      part_limit_row(std::to_string(r).c_str(), res, st, d);
      if (!d.empty()) fails++;
    }
    if (p.chunk_lg) {  // two partitions in one pass (cuzk_run_pair): the times are the pair's
      pinned<fr_t> hbuf(m);
      const cuzk_job jobs[2] = {job, job};
      for (int r = 0; r < 2; r++) {
        cuzk_result res[2];
        const int rc = cuzk_run_pair(ctx, s, jobs, hbuf.p, m * 32, res);
        if (rc) {
          printf("pair%d failed: %s\n", r, cuzk_last_error());
          fails++;
          break;
        }
        cuzk_stream_stats st;
        OK(cuzk_stream_stats_get(ctx, &st));
        std::string d;
        for (int j = 0; j < 2; j++) {
          const std::string dj = part_differs(res[j], want, g2);
          if (!dj.empty()) d += (j ? " second: " : " first: ") + dj;
        }
        part_limit_row(("pair" + std::to_string(r)).c_str(), res[0], st, d);
        if (!d.empty()) fails++;
      }
    }
    printf("  device memory held %.3f GiB of %.3f\n", (cuzk_mem_held(0) - held0) / 1073741824.0,
           limit / 1073741824.0);
    cuzk_srs_free(s);
    cuzk_ctx_free(ctx);
  }
}

static void plan_print(uint32_t lgn, uint64_t naux, const std::vector<uint64_t>& limits, bool g2) {
  const uint64_t m = 1ull << lgn, nq[4] = {m - 1, naux, naux, naux / 4};
  for (uint64_t limit : limits) {
    int rc;
    const cuzk_plan p = plan_of(limit, nq, 0, &rc, g2 ? 1 : 0);
    if (rc) {
      printf("limit %.2f GiB: %s\n", limit / 1073741824.0, cuzk_last_error());
      continue;
    }
    print_plan(p);
  }
}

// Every plan fits its limit; resident prefixes are whole chunks or whole
// queries; below the minimum the plan is refused and at it accepted.
static void plan_check() {
  int bad = 0, n = 0;
  rng r(31);
  for (int it = 0; it < 300; it++) {
    const uint32_t lgn = 6 + r.next() % 22;
    const uint64_t m = 1ull << lgn;
    const uint64_t naux = 1 + r.next() % m;
    const uint64_t nq[4] = {m - 1, naux, naux, naux / (1 + r.next() % 4)};
    const uint32_t chunk_lg = r.next() % 2 ? 0 : 5 + r.next() % 15;
    const uint32_t g2 = it % 2;  // B_G2 planned: resident with everything, else streamed
    int rc;
    const cuzk_plan lo = plan_of(1, nq, chunk_lg, &rc, g2);
    const cuzk_plan all = plan_of(1ull << 62, nq, chunk_lg, &rc, g2);
    const uint64_t L0 = lo.min_bytes, L1 = all.resident_bytes + all.scratch_bytes;
    plan_of(L0 - 1, nq, chunk_lg, &rc, g2);
    if (rc != CUZK_ERR_MEM) {
      printf("plan-check 2^%u naux %llu: min-1 accepted\n", lgn, (unsigned long long)naux);
      bad++;
    }
    for (int k = 0; k < 6; k++) {
      const uint64_t limit = k == 0 ? L0 : k == 5 ? L1 : L0 + (uint64_t)((L1 - L0) * (double)(r.next() % 1000) / 1000);
      const cuzk_plan p = plan_of(limit, nq, chunk_lg, &rc, g2);
      n++;
      const uint64_t used = p.resident_bytes + p.scratch_bytes;
      bool ok = rc == 0 && used <= limit;
      for (int q = 0; q < 4 && ok; q++) {
        const uint64_t C = p.chunk_lg ? 1ull << p.chunk_lg : 0;
        ok = p.resident[q] <= nq[q] && (p.resident[q] == nq[q] || (C && p.resident[q] % C == 0));
      }
      if (k == 5) ok = ok && p.chunk_lg == 0;
      if (g2 && nq[3]) {  // B_G2 resident exactly where nothing streams, else streamed
        const uint64_t b = nq[3] * sizeof(g2_affine);
        ok = ok && (p.chunk_lg == 0 ? p.bg2_bytes == b + 1 && p.bg2_stream_bytes == 0
                                    : p.bg2_bytes == 0 && p.bg2_stream_bytes == b);
      } else {
        ok = ok && p.bg2_bytes == 0 && p.bg2_stream_bytes == 0;
      }
      if (!ok) {
        bad++;
        printf("plan-check 2^%u naux %llu chunk<=2^%u limit %llu%s: rc %d, uses %llu\n", lgn,
               (unsigned long long)naux, chunk_lg, (unsigned long long)limit, g2 ? " B_G2" : "", rc,
               (unsigned long long)used);
        print_plan(p);
      }
    }
  }
  EXPECT(bad == 0, "plan-check: %d of %d plans wrong", bad, n);
  printf("plan-check: %d plans, %d wrong\n", n, bad);
}
