// Phase timing (see profile.hpp).
#include <stdio.h>
#include <stdlib.h>

#include <map>
#include <mutex>

#include "profile.hpp"

namespace {

struct phase_total {
  double ms = 0;
  long n = 0;
};

// The process's totals per phase, printed at exit.
struct profile_totals {
  std::mutex mu;
  std::map<std::string, phase_total> by_phase;

  static profile_totals& get() {
    static profile_totals* t = [] {
      atexit([] {
        for (auto& kv : get().by_phase)
          fprintf(stderr, "profile %-28s %10.3f ms total, %6ld calls, %9.3f ms each\n", kv.first.c_str(),
                  kv.second.ms, kv.second.n, kv.second.ms / kv.second.n);
      });
      return new profile_totals();
    }();
    return *t;
  }
};

}  // namespace

profile::profile(cudaStream_t st, bool on) {
  if (on) st_ = st;
  mark("");
}

void profile::mark(const std::string& phase) {
  if (!st_) return;
  cudaEvent_t e;
  cudaEventCreate(&e);
  cudaEventRecord(e, st_);
  marks_.push_back({phase, e});
}

profile::~profile() {
  if (!st_) return;
  cudaStreamSynchronize(st_);
  profile_totals& t = profile_totals::get();
  {
    std::lock_guard<std::mutex> lock(t.mu);
    for (size_t i = 1; i < marks_.size(); i++) {
      float ms = 0;
      cudaEventElapsedTime(&ms, marks_[i - 1].second, marks_[i].second);
      phase_total& p = t.by_phase[marks_[i].first];
      p.ms += ms;
      p.n++;
    }
  }
  for (auto& m : marks_) cudaEventDestroy(m.second);
}
