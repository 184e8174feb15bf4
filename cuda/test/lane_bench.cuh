// bench lane: what a small run on its own context waits for while a
// PoRep-shaped run loops on another context of the same GPU (the daemon's
// CRITICAL lane beside bulk work). Each mode runs the small job LANE_RUNS
// times at dephased moments and prints its latency and the part of it spent
// outside its own events (gpu_wait = host time - pre - events' span):
//   pageable   both runs' results in pageable memory (a stack cuzk_result)
//   pinned     both results in page-locked memory (cuzk_host_alloc)
//   lane-only  the small run's result page-locked, the bulk's pageable
//   hostalloc  pinned, and a third thread allocating and freeing 256 MiB of
//              page-locked memory every 200 ms (a pinned pool's churn)
//   memcpy4    pinned, and a third thread reading 4 bytes back with a
//              blocking cudaMemcpy every 50 ms (the streamer's flag read)
//   alloc      pinned, and a third thread allocating 64 MiB of page-locked
//              memory every 100 ms (freed after the mode)
//   free       pinned, and a third thread freeing one of 192 such buffers
//              (allocated before the mode) every 100 ms
//   register   pinned, and a third thread page-locking 64 MiB of malloc'd
//              memory in place and unlocking it, every 100 ms
//   devfree    pinned, and a third thread allocating 64 MiB of device memory
//              and freeing it (cudaFree), every 100 ms (a scratch that grows)
//   cpuload    pinned, and every core of the host busy in a loop of its own
//              (a daemon's synthesis beside the runs)
//   allocbig   pinned, and a third thread allocating 2 GiB of page-locked
//              memory every second, at most 8 (a staging's size; freed
//              after the mode)
//   bigpin     pinned, and a third thread page-locking 8 GiB of mapped
//              memory in place in one call and unlocking it, every 4 s (a
//              PoRep staging under a budget that keeps none)
//   pinpieces  the same 8 GiB page-locked and unlocked as 32 pieces of
//              256 MiB, each its own call (a staging page-locked in pieces)
// MODES (comma-separated names) picks modes; default all.
#include <sys/mman.h>

#include <atomic>
#include <thread>
#include <vector>

// A synthetic srs and a job over it in bench_part's shape: 75 % of the
// witness in {0, 1}, B density 25 %, a and b random (the device computes c).
struct bench_job {
  cuzk_srs* srs = nullptr;
  std::unique_ptr<pinned<fr_t>> ab;
  std::unique_ptr<part_tail> parts[3];
  cuzk_job job = {};

  bench_job(uint32_t lgn, uint64_t naux, uint64_t seed) {
    const uint64_t m = 1ull << lgn, nb = naux / 4, rows = m - 1000;
    srs = cuzk_srs_synthetic(0, m - 1, naux, naux, nb);
    if (!srs) {
      printf("ERROR synthetic srs: %s\n", cuzk_last_error());
      exit(2);
    }
    ab.reset(new pinned<fr_t>(rows * 2));
    fill_random(ab->p, rows * 2, seed);
    job.a = ab->p;
    job.b = ab->p + rows;
    job.nrows = rows;
    job.lgn = lgn;
    std::vector<fr_t> aux(naux);
    std::vector<uint8_t> kind(naux);
    rng r(seed + 1);
    for (uint64_t i = 0; i < naux; i++) {
      const uint64_t x = r.next() % 8;
      kind[i] = x < 3 ? 0 : (x < 6 ? 1 : 2);
    }
    fill_random(aux.data(), naux, seed + 2);
    for (int p = 0; p < 3; p++) {
      parts[p].reset(new part_tail(p, p == 2 ? nb : naux, kind, aux));
      job.part[p] = {parts[p]->bits.p, parts[p]->tail.p, parts[p]->idx.p, parts[p]->n};
    }
  }
  ~bench_job() { cuzk_srs_free(srs); }
};

static double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, (size_t)(p * v.size()))];
}

static void bench_lane(cuzk_ctx* bulk_ctx, uint32_t bulk_lg, uint64_t bulk_naux, uint32_t lane_lg,
                       uint64_t lane_naux, int runs) {
  const cuzk_config cfg = config_from_env();
  cuzk_ctx* lane_ctx = cuzk_ctx_new(0, &cfg);
  if (!lane_ctx) {
    printf("ERROR lane ctx: %s\n", cuzk_last_error());
    exit(2);
  }
  bench_job bulk(bulk_lg, bulk_naux, 21), lane(lane_lg, lane_naux, 31);
  cuzk_result* bulk_pin = (cuzk_result*)cuzk_host_alloc(sizeof(cuzk_result));
  cuzk_result* lane_pin = (cuzk_result*)cuzk_host_alloc(sizeof(cuzk_result));
  cuzk_result r;
  OK(cuzk_run(bulk_ctx, bulk.srs, &bulk.job, &r));
  printf("bulk run alone: %.1f ms (lg %u, %llu aux)\n", r.ms_total, bulk_lg, (unsigned long long)bulk_naux);
  for (int i = 0; i < 3; i++) OK(cuzk_run(lane_ctx, lane.srs, &lane.job, &r));
  printf("lane run alone: %.1f ms events, %.1f ms host (lg %u, %llu aux)\n", r.ms_total, r.ms_host, lane_lg,
         (unsigned long long)lane_naux);
  const char* modes[] = {"pageable", "pinned",   "lane-only", "hostalloc", "memcpy4",
                         "alloc",    "free",     "register",  "devfree",   "cpuload", "allocbig",
                         "bigpin",   "pinpieces"};
  const int nmodes = sizeof modes / sizeof modes[0];
  const char* pick = getenv("MODES");
  printf("%-10s %6s %9s %9s %9s %9s %9s\n", "mode", "bulk", "p50", "max", "wait_p50", "wait_max", "events");
  for (int mode = 0; mode < nmodes; mode++) {
    if (pick && !strstr((std::string(",") + pick + ",").c_str(), (std::string(",") + modes[mode] + ",").c_str()))
      continue;
    std::atomic<bool> stop{false};
    std::atomic<int> nbulk{0};
    const bool bulk_pinned = mode != 0 && mode != 2, lane_pinned = mode >= 1;
    const uint64_t buf = 64ull << 20;
    std::vector<void*> bufs;  // alloc's and free's buffers
    if (mode == 6)
      for (int i = 0; i < 192; i++) bufs.push_back(cuzk_host_alloc(buf));
    std::thread bt([&] {
      cuzk_result local;
      cuzk_result* res = bulk_pinned ? bulk_pin : &local;
      while (!stop) {
        if (cuzk_run(bulk_ctx, bulk.srs, &bulk.job, res)) {
          printf("ERROR bulk run: %s\n", cuzk_last_error());
          exit(2);
        }
        nbulk++;
      }
    });
    std::vector<std::thread> spin;  // cpuload's
    if (mode == 9)
      for (unsigned i = 0; i < std::max(1u, std::thread::hardware_concurrency()); i++)
        spin.emplace_back([&] {
          volatile uint64_t x = 0;
          while (!stop) x = x * 6364136223846793005ull + 1;
        });
    char* big = nullptr;  // bigpin's and pinpieces' 8 GiB, touched once
    const uint64_t bign = 8ull << 30, piece = 256ull << 20;
    if (mode == 11 || mode == 12) {
      big = (char*)mmap(nullptr, bign, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (big == MAP_FAILED) exit(3);
      memset(big, 1, bign);
    }
    std::thread side([&] {
      void* dev = nullptr;
      if (mode == 4 && cudaMalloc(&dev, 4) != cudaSuccess) exit(3);
      while (!stop) {
        if (mode == 3) {
          void* p = cuzk_host_alloc(256ull << 20);
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
          cuzk_host_free(p);
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        } else if (mode == 4) {
          uint32_t x;
          cudaMemcpy(&x, dev, 4, cudaMemcpyDeviceToHost);
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        } else if (mode == 5) {
          bufs.push_back(cuzk_host_alloc(buf));
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        } else if (mode == 6) {
          if (!bufs.empty()) {
            cuzk_host_free(bufs.back());
            bufs.pop_back();
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        } else if (mode == 11 || mode == 12) {
          const uint64_t step = mode == 11 ? bign : piece;
          for (uint64_t o = 0; o < bign && !stop; o += step)
            if (cudaHostRegister(big + o, step, cudaHostRegisterDefault) != cudaSuccess) exit(3);
          std::this_thread::sleep_for(std::chrono::milliseconds(1000));
          for (uint64_t o = 0; o < bign; o += step) cudaHostUnregister(big + o);
          cudaGetLastError();  // (pieces left unregistered when stopped early)
          std::this_thread::sleep_for(std::chrono::milliseconds(3000));
        } else if (mode == 10) {
          if (bufs.size() < 8) bufs.push_back(cuzk_host_alloc(2ull << 30));
          std::this_thread::sleep_for(std::chrono::milliseconds(1000));
        } else if (mode == 8) {
          void* d = nullptr;
          if (cudaMalloc(&d, buf) != cudaSuccess) exit(3);
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
          cudaFree(d);
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        } else if (mode == 7) {
          void* p = malloc(buf);
          memset(p, 1, buf);
          if (cudaHostRegister(p, buf, cudaHostRegisterDefault) != cudaSuccess) exit(3);
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
          cudaHostUnregister(p);
          free(p);
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        } else {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      }
      if (dev) cudaFree(dev);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(2000));
    std::vector<double> lat, wait;
    double ev = 0;
    rng jitter(mode + 100);
    for (int i = 0; i < runs; i++) {
      cuzk_result local;
      cuzk_result* res = lane_pinned ? lane_pin : &local;
      const auto t0 = std::chrono::steady_clock::now();
      OK(cuzk_run(lane_ctx, lane.srs, &lane.job, res));
      lat.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      wait.push_back(std::max(0.0, (double)(res->ms_host - res->ms_host_pre - res->ms_total)));
      ev += res->ms_total;
      std::this_thread::sleep_for(std::chrono::milliseconds(200 + jitter.next() % 700));
    }
    stop = true;
    bt.join();
    side.join();
    for (std::thread& t : spin) t.join();
    for (void* p : bufs) cuzk_host_free(p);
    if (big) munmap(big, bign);
    printf("%-10s %6d %9.1f %9.1f %9.1f %9.1f %9.1f\n", modes[mode], nbulk.load(), pct(lat, 0.5), pct(lat, 1),
           pct(wait, 0.5), pct(wait, 1), ev / runs);
    fflush(stdout);
  }
  cuzk_host_free(bulk_pin);
  cuzk_host_free(lane_pin);
  cuzk_ctx_free(lane_ctx);
}

// bench pair: RUNS PoRep-shaped runs of one job on one context, one after
// the other, then the same count split over two contexts running at once
// (the same parameters and inputs, each context its own scratch): whether
// one partition's memory-bound phases (the NTTs, the SpMV) hide under
// another's compute-bound MSMs. Prints each way's ms a run.
static void bench_pair(cuzk_ctx* ctx, uint32_t lg, uint64_t naux, int runs) {
  const cuzk_config cfg = config_from_env();
  cuzk_ctx* ctx2 = cuzk_ctx_new(0, &cfg);
  if (!ctx2) {
    printf("ERROR second ctx: %s\n", cuzk_last_error());
    exit(2);
  }
  bench_job job(lg, naux, 21);
  cuzk_result* res[2] = {(cuzk_result*)cuzk_host_alloc(sizeof(cuzk_result)),
                         (cuzk_result*)cuzk_host_alloc(sizeof(cuzk_result))};
  cuzk_ctx* ctxs[2] = {ctx, ctx2};
  for (int c = 0; c < 2; c++)
    if (cuzk_run(ctxs[c], job.srs, &job.job, res[c])) {  // each context's scratch, and a warm-up
      printf("ERROR warm-up on context %d (both contexts' scratch beside the parameters?): %s\n", c,
             cuzk_last_error());
      exit(2);
    }
  const auto t0 = std::chrono::steady_clock::now();
  double ev = 0;
  for (int i = 0; i < runs; i++) {
    OK(cuzk_run(ctx, job.srs, &job.job, res[0]));
    ev += res[0]->ms_total;
  }
  const double one = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  printf("pair lg %u, %llu aux: one context, %d runs: %.1f ms a run (events %.1f)\n", lg, (unsigned long long)naux,
         runs, one / runs, ev / runs);
  std::atomic<int> failed{0};
  double evs[2] = {0, 0};
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<std::thread> th;
  for (int c = 0; c < 2; c++)
    th.emplace_back([&, c] {
      for (int i = c; i < runs; i += 2) {
        if (cuzk_run(ctxs[c], job.srs, &job.job, res[c])) {
          failed++;
          return;
        }
        evs[c] += res[c]->ms_total;
      }
    });
  for (std::thread& t : th) t.join();
  const double two = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  if (failed) printf("ERROR a run on two contexts: %s\n", cuzk_last_error());
  printf("pair lg %u: two contexts at once, %d runs: %.1f ms a run (%.3f of one context's; events %.1f a run)\n", lg,
         runs, two / runs, two / one, (evs[0] + evs[1]) / runs);
  cuzk_host_free(res[0]);
  cuzk_host_free(res[1]);
  cuzk_ctx_free(ctx2);
}

// bench regspan: is a host-to-device copy whose source spans two adjacent
// ranges page-locked by separate cudaHostRegister calls a page-locked copy?
// 512 MiB of mapped memory aligned to 256 MiB: copied once pageable, once
// registered whole, once registered as two 256 MiB pieces (one copy across
// both, then one copy per piece); each copy's GB/s, whether the call
// returned before the copy ended (asynchronous: the driver took it as
// page-locked), and the bytes checked on the device side.
static void bench_regspan() {
  const uint64_t piece = 256ull << 20, n = 2 * piece;
  char* raw = (char*)mmap(nullptr, n + piece, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) exit(3);
  char* h = (char*)(((uintptr_t)raw + piece - 1) & ~(uintptr_t)(piece - 1));
  for (uint64_t i = 0; i < n; i += 8) *(uint64_t*)(h + i) = i * 0x9e3779b97f4a7c15ull;
  char* d = nullptr;
  if (cudaMalloc(&d, n) != cudaSuccess) exit(3);
  cudaStream_t st;
  cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  std::vector<char> back(n);
  auto copy = [&](const char* what, int pieces_copy) {
    cudaMemset(d, 0, n);
    cudaDeviceSynchronize();
    const auto t0 = std::chrono::steady_clock::now();
    if (pieces_copy) {
      for (uint64_t o = 0; o < n; o += piece) cudaMemcpyAsync(d + o, h + o, piece, cudaMemcpyHostToDevice, st);
    } else {
      cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, st);
    }
    const double call = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const cudaError_t e = cudaStreamSynchronize(st);
    const double all = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    cudaMemcpy(back.data(), d, n, cudaMemcpyDeviceToHost);
    const bool same = e == cudaSuccess && memcmp(back.data(), h, n) == 0;
    printf("%-34s call %7.2f ms, copy %7.2f ms (%5.1f GB/s), %s, %s\n", what, call, all, n / all / 1e6,
           call < all / 2 ? "asynchronous" : "synchronous", same ? "bytes equal" : "BYTES DIFFER");
  };
  copy("pageable", 0);
  if (cudaHostRegister(h, n, cudaHostRegisterDefault) != cudaSuccess) exit(3);
  copy("registered whole", 0);
  cudaHostUnregister(h);
  for (uint64_t o = 0; o < n; o += piece)
    if (cudaHostRegister(h + o, piece, cudaHostRegisterDefault) != cudaSuccess) exit(3);
  copy("two pieces, one copy across both", 0);
  copy("two pieces, one copy per piece", 1);
  for (uint64_t o = 0; o < n; o += piece) cudaHostUnregister(h + o);
  cudaGetLastError();
  // the library's own allocation: one copy, the bytes checked
  const auto a0 = std::chrono::steady_clock::now();
  char* lib = (char*)cuzk_host_alloc(n);
  const double alloc_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a0).count();
  if (!lib) exit(3);
  memcpy(lib, h, n);
  std::swap(h, lib);
  printf("cuzk_host_alloc: %.1f ms\n", alloc_ms);
  copy("cuzk_host_alloc, one copy", 0);
  std::swap(h, lib);
  cuzk_host_free(lib);
  cudaStreamDestroy(st);
  cudaFree(d);
  munmap(raw, n + piece);
}
