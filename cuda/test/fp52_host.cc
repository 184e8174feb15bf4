// Host check of the FP64-pipe Fp product (ff/fp52.cuh) against fp_t
// (fp52_check.hpp): needs only a C++ compiler with -frounding-math (the
// product's splits round toward zero, which the check sets); the argument
// is the number of random pairs (default 200000). Build and run: make
// cuda-host-check; the Go test TestFieldHostCheck (device/cuda) does it
// where it finds a compiler.
#include <stdlib.h>

#include "fp52_check.hpp"

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 200000;
  int bad = fp52_host_check(n);
  fp52_points t(64);
  bad += fp52_acc_host_check(t, 200, 40);
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
