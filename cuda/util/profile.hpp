// Phase timing for experiments (cuzk_config.profile): the NTT passes and the
// MSM phases of one call are timed with events on its stream, the stream is
// synchronized when the call's profile goes (so overlap with other streams is
// lost), and the totals per phase go to stderr at process exit.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <utility>
#include <vector>

class profile {
 public:
  // Off (on = false): every method is a no-op.
  profile(cudaStream_t st, bool on);
  ~profile();
  profile(const profile&) = delete;
  profile& operator=(const profile&) = delete;

  bool on() const { return st_ != nullptr; }
  // Ends the phase named here (it began at the previous mark).
  void mark(const std::string& phase);

 private:
  cudaStream_t st_ = nullptr;
  std::vector<std::pair<std::string, cudaEvent_t>> marks_;
};
