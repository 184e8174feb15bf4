#!/bin/bash
# Run on the Go machine before a device call: packs what the call carries
# into bin/g, gzipped (the carry limit is 64 MiB with the working tree): the
# Go binaries built from this tree (bin/cuzk, bin/cuda.test), bin/local's
# library, harness and fp52_bench (make cuda-fp52), and those of each
# folder in LIBS (e.g. LIBS=bin/base, a library built from an earlier
# commit for an A/B or a bisection).
# gpu-plan.sh unpacks bin/g first: carry: ["bin/g"].
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf bin/g
mkdir -p bin/g
CGO_ENABLED=0 go build -ldflags='-s -w' -o bin/cuzk ./cmd/cuzk
CGO_ENABLED=0 go test -c -o bin/cuda.test ./device/cuda
gzip -c bin/cuzk > bin/g/cuzk.gz
gzip -c bin/cuda.test > bin/g/cuda.test.gz
for d in bin/local ${LIBS:-}; do
  for f in libcuzk_cuda.so cuzk_harness fp52_bench; do
    if [ -f "$d/$f" ]; then gzip -c "$d/$f" > "bin/g/$(basename "$d")__$f.gz"; fi
  done
done
du -sh bin/g
