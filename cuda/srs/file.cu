// Parameter sets read from their file at every run (file.hpp, srs.hpp's
// file_source): cuzk_srs_open_file and the chunk reads.
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "file.hpp"
#include "plan.hpp"
#include "srs.hpp"

// One thread's part of a read: 0, or the errno of its failure (-1: end of file).
static int read_part(int fd, char* dst, uint64_t n, uint64_t off) {
  while (n) {
    const ssize_t got = pread(fd, dst, n > (1u << 30) ? (1u << 30) : n, (off_t)off);
    if (got < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (got == 0) return -1;
    dst += got;
    off += (uint64_t)got;
    n -= (uint64_t)got;
  }
  return 0;
}

unsigned file_read_threads() {
  static const unsigned n = [] {
    const char* v = getenv("CUZK_FILE_READ_THREADS");
    const long x = v ? strtol(v, nullptr, 10) : 0;
    return x >= 1 && x <= 64 ? (unsigned)x : 8u;
  }();
  return n;
}

int file_read(int fd, void* dst, uint64_t n, uint64_t off, double* ms) {
  const auto t0 = std::chrono::steady_clock::now();
  // parts of at least 4 MiB, on page boundaries
  const uint64_t min_part = 4ull << 20;
  const unsigned parts = (unsigned)std::max<uint64_t>(1, std::min<uint64_t>(file_read_threads(), n / min_part));
  const uint64_t per = (n / parts + 4095) / 4096 * 4096;
  std::vector<int> rc(parts, 0);
  std::vector<std::thread> th;
  for (unsigned i = 1; i < parts; i++) {
    const uint64_t lo = std::min(n, i * per), len = std::min(n, lo + per) - lo;
    th.emplace_back([&rc, i, fd, dst, lo, len, off] { rc[i] = read_part(fd, (char*)dst + lo, len, off + lo); });
  }
  rc[0] = read_part(fd, (char*)dst, std::min(n, per), off);
  for (std::thread& t : th) t.join();
  *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (int e : rc) {
    if (e == -1)
      return set_err(CUZK_ERR_ARG, "srs stream: the parameter file ends within bytes %llu..%llu (it changed after it "
                     "was opened?)", (unsigned long long)off, (unsigned long long)(off + n));
    if (e)
      return set_err(CUZK_ERR_ARG, "srs stream: reading bytes %llu..%llu of the parameter file: %s",
                     (unsigned long long)off, (unsigned long long)(off + n), strerror(e));
  }
  return 0;
}

bool file_mapping::map(int fd, size_t n) {
  reset();
  void* p = n ? mmap(nullptr, n, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (p == MAP_FAILED) return false;
  p_ = (const char*)p;
  n_ = n;
  return true;
}

void file_mapping::reset() {
  if (p_) munmap(const_cast<char*>(p_), n_);
  p_ = nullptr;
  n_ = 0;
}

// CUZK_FILE_MAP=1: the files of streamed sets are mapped and page-locked.
static bool file_map_wanted() {
  static const bool on = [] {
    const char* v = getenv("CUZK_FILE_MAP");
    return v && strcmp(v, "1") == 0;
  }();
  return on;
}

// f's whole file mapped read-only and page-locked in place (f.mapping), so that
// every streamed chunk is uploaded straight from the page cache; left
// unmapped (the chunks read into the context's host slots) where either
// fails. The page-locked file stays in host memory while the set is open.
static void map_file(file_source& f) {
  struct stat st;
  if (fstat(f.fd, &st) != 0 || st.st_size <= 0) return;
  if (!f.mapping.map(f.fd, (size_t)st.st_size)) return;
  if (!f.pin.pin(f.mapping.get(), f.mapping.size())) {
    f.mapping.reset();
    return;
  }
  f.cache = f.mapping.get();
  f.cache_off = 0;
  f.cache_len = f.mapping.size();
}

// The resident prefixes of s's plan allocated, points unset (the caller
// writes them, cuzk_srs_write).
static int alloc_resident(cuzk_srs* s, const uint64_t* n) {
  for (int q = 0; q < 4; q++) {
    s->n[q] = n[q];
    s->host[q] = nullptr;
    const uint64_t r = s->plan.res[q];
    if (s->q[q].allocate(r * sizeof(g1_affine) + 1)) {
      const std::string why = cuzk_last_error();
      return set_err(CUZK_ERR_MEM, "srs: %llu resident points: %s", (unsigned long long)r, why.c_str());
    }
    if (r < n[q]) s->plan.pinned |= 1u << q;  // (streamed through the context's page-locked host slots)
  }
  return 0;
}

// B_G2 as the plan has it: resident (allocated, the caller writes it) or
// streamed from the file.
static int alloc_bg2(cuzk_srs* s, uint64_t nbg2) {
  if (!nbg2) return 0;
  if (s->plan.bg2 == nbg2) {
    TRY(s->bg2.allocate(nbg2 * sizeof(g2_affine) + 1));
  } else if (s->plan.bg2_stream == nbg2) {
    s->plan.pinned |= 1u << 4;
  } else {
    return set_err(CUZK_ERR_ARG, "srs open file: the plan neither holds nor streams B_G2 (%llu points)",
                   (unsigned long long)nbg2);
  }
  s->has_bg2 = true;
  return 0;
}

extern "C" cuzk_srs* cuzk_srs_open_file(int dev, const uint64_t* n, uint64_t nbg2, const cuzk_limits* lim, int fd,
                                        const uint64_t* off) {
  if (!n || !lim || !lim->limit || fd < 0 || !off) {
    set_err(CUZK_ERR_ARG, "srs open file: nil argument, no limit or no file");
    return nullptr;
  }
  if (nbg2 && nbg2 != n[SRS_B_G1]) {
    set_err(CUZK_ERR_ARG, "srs open file: %llu B_G2 points, b_g1 has %llu", (unsigned long long)nbg2,
            (unsigned long long)n[SRS_B_G1]);
    return nullptr;
  }
  if (cudaSetDevice(dev) != cudaSuccess) {
    set_err(CUZK_ERR_CUDA, "cudaSetDevice(%d)", dev);
    return nullptr;
  }
  std::unique_ptr<cuzk_srs> s(new cuzk_srs());
  s->dev = dev;
  cuzk_limits l = *lim;
  l.bg2 = nbg2 ? 1 : 0;
  if (srs_plan_make(dev, n, &l, &s->plan)) return nullptr;
  if (alloc_resident(s.get(), n) || alloc_bg2(s.get(), nbg2)) return nullptr;
  s->file.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (s->file.fd < 0) {
    set_err(CUZK_ERR_ARG, "srs open file: duplicating descriptor %d: %s", fd, strerror(errno));
    return nullptr;
  }
  memcpy(s->file.off, off, sizeof s->file.off);
  if (file_map_wanted()) map_file(s->file);
  return s.release();
}

extern "C" int cuzk_srs_file_cache(cuzk_srs* s, const void* p, uint64_t file_off, uint64_t len) {
  if (!s || s->file.fd < 0) return set_err(CUZK_ERR_ARG, "srs file cache: not a set streamed from its file");
  if (s->file.mapping.get()) return 0;  // the whole file is page-locked already (CUZK_FILE_MAP=1)
  if (!p || !len) {
    s->file.cache = nullptr;
    s->file.cache_off = s->file.cache_len = 0;
    return 0;
  }
  if (!host_page_locked(p))
    return set_err(CUZK_ERR_ARG, "srs file cache: the copy of bytes %llu..%llu is not page-locked host memory",
                   (unsigned long long)file_off, (unsigned long long)(file_off + len));
  s->file.cache = (const char*)p;
  s->file.cache_off = file_off;
  s->file.cache_len = len;
  return 0;
}
