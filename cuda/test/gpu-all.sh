#!/bin/bash
# One device session without building (bin/ built here with `make cuda-test
# go-test-bin`, carried): field rates, the harness checks, the Go tests of
# device/cuda, then the benchmark table. Logs to $OUT.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
H=${HARNESS:-bin/cuzk_harness}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used,temperature.gpu --format=csv,noheader
echo "=== field rates"
$H bench field
echo "=== harness check"
timeout 200 $H check
echo "=== go test ./device/cuda"
(cd device/cuda && CUZK_CUDA_LIB=$PWD/../../bin/libcuzk_cuda.so timeout 200 ../../bin/cuda.test -test.v -test.timeout 190s > "$OUT/gotest.log" 2>&1; echo "go test exit $?")
grep -E "^(--- |PASS|FAIL|ok|panic)|cuda_test.go" "$OUT/gotest.log" | head -40
echo "=== bench"
timeout 60 $H bench ntt 27
timeout 100 $H bench msm 27 26
timeout 150 $H bench part 27 27 27 130000000
