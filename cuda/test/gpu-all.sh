#!/bin/bash
# One device session without building: field rates of both variants, the
# PTX variant's checks, the Go tests of device/cuda against the chosen
# library, then the benchmark table. Expects bin/ and bin/ptx/ built here.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used,temperature.gpu --format=csv,noheader
echo "=== field rates (default, ptx)"
bin/cuzk_harness bench field
bin/ptx/cuzk_harness bench field
echo "=== ptx check"
timeout 200 bin/ptx/cuzk_harness check | tee "$OUT/ptxcheck.log"
H=bin/cuzk_harness
LIB=$PWD/bin/libcuzk_cuda.so
if grep -q "^PASS" "$OUT/ptxcheck.log"; then H=bin/ptx/cuzk_harness; LIB=$PWD/bin/ptx/libcuzk_cuda.so; fi
echo "=== go test ./device/cuda with $LIB"
(cd device/cuda && CUZK_CUDA_LIB=$LIB timeout 200 ../../bin/cuda.test -test.v -test.timeout 190s > "$OUT/gotest.log" 2>&1; echo "go test exit $?")
grep -E "^(--- |PASS|FAIL|ok|panic)|cuda_test.go" "$OUT/gotest.log" | head -40
echo "=== bench with $H"
timeout 60 $H bench ntt 27
timeout 100 $H bench msm 27 26
timeout 150 $H bench part 27 27 27 130000000
