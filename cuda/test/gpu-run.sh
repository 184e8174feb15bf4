#!/bin/bash
# Build the library and the harness on the GPU machine, run the checks and
# benchmarks given as arguments ("check", "bench ntt 27", ...), one per
# argument, logging to $OUT/log.
set -o pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader
start=$(date +%s)
if [ -z "$NOBUILD" ]; then make cuda-test -j2 || exit 1; fi
echo "build: $(( $(date +%s) - start )) s"
cuobjdump --dump-resource-usage bin/libcuzk_cuda.so 2>/dev/null | grep -E "Function|REG" | paste - - | sed -E 's/.*Function ([^ ]+).*REG:([0-9]+).*STACK:([0-9]+).*SHARED:([0-9]+).*LOCAL:([0-9]+).*/\1 REG=\2 STACK=\3 SHARED=\4 LOCAL=\5/' > "$OUT/resources.txt"
for a in "$@"; do
  echo "=== $a"
  timeout 400 ${HARNESS:-bin/cuzk_harness} $a || echo "exit $?"
done
