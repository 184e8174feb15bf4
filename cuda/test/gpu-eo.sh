#!/bin/bash
# Compare the even/odd product variant (bin/eo) with the default (bin):
# field rates, the eo checks; if they pass, the Go tests and benchmarks with it.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used,temperature.gpu --format=csv,noheader
echo "=== field rates default / eo"
bin/cuzk_harness bench field
bin/eo/cuzk_harness bench field
echo "=== eo check"
timeout 200 bin/eo/cuzk_harness check | tee "$OUT/eocheck.log"
grep -q "^PASS" "$OUT/eocheck.log" || exit 0
echo "=== go test ./device/cuda (eo)"
(cd device/cuda && CUZK_CUDA_LIB=$PWD/../../bin/eo/libcuzk_cuda.so timeout 200 ../../bin/cuda.test -test.v -test.timeout 190s > "$OUT/gotest.log" 2>&1; echo "go test exit $?")
grep -E "^(--- |PASS|FAIL|ok|panic)|cuda_test.go" "$OUT/gotest.log" | head -40
echo "=== bench (eo)"
timeout 60 bin/eo/cuzk_harness bench ntt 27
timeout 100 bin/eo/cuzk_harness bench msm 27 26
timeout 150 bin/eo/cuzk_harness bench part 27 27 27 130000000
