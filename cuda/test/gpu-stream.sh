#!/bin/bash
# The memory-limit checks and benchmarks, with the library
# and harness built on the Go machine and carried in bin/local (else built
# here), bin/cuda.test and bin/cuzk carried. Logs to $OUT/log.
#   1. harness check (includes the stream checks: every case prints its plan; B_G2 under a limit
#      (check_stream_bg2); the witness runs under limits, tails on the device (witness_check.cuh))
#   2. the device/cuda Go tests (TestMemoryLimit*, TestEngineTwoWorkersLimited and the rest)
#   3. bench part (resident, for the same run's baseline; and with B_G2 on the device) and
#      bench part-limit at 16 and 24 GiB
#   4. the engine with 2 workers, 2^20-row partitions (a 2^21 domain: ~4 GiB for everything
#      resident, ~0.43 GiB at least) under 512 MiB (every query streams, chunks of 2^18) and
#      1 GiB (h and b_g1 partly resident) and unlimited (cuzk bench --memory-limit), each with
#      the witness-only path on and off (an explicit limit takes the classic path either way:
#      EvaluatesWitness is false; unlimited with --witness on is cuzk_run_witness)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader
. "$(dirname "$0")/carried.sh"
carried_or_build
cat "$OUT/field.txt"
echo "=== harness check"
timeout 300 $H check 2>&1 | grep -vE "^skewed msm"
echo "=== go test ./device/cuda"
(cd device/cuda && CUZK_CUDA_LIB=$LIB timeout 300 ../../bin/cuda.test -test.v -test.timeout 290s > "$OUT/gotest.log" 2>&1; echo "go test exit $?")
grep -E "^(--- |PASS|FAIL|ok|panic)|_test.go|plan:" "$OUT/gotest.log" | head -80
echo "=== bench part (resident)"
timeout 150 $H bench part 27 27 27 130000000
echo "=== bench part (resident, B_G2 on the device)"
timeout 200 $H bench part 27 27 27 130000000 g2
echo "=== bench part-limit 16 GiB, 24 GiB"
timeout 300 $H bench part-limit 27 130000000 16G 24G
if [ -x bin/cuzk ]; then
  for L in 512MiB 1GiB 0; do
    for W in on off; do
      echo "=== engine, 2 workers, memory limit $L, witness $W"
      CUZK_CUDA_LIB=$LIB timeout 200 bin/cuzk bench batch --device cuda --memory-limit $L --witness $W \
        --constraints 1048576 --partitions 10 --count 4 --budget 64
    done
  done
fi
