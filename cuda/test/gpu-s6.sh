#!/bin/bash
# The issue-13 device session: the witness run (cuzk_run_witness), B_G2 and
# the fixed-base setup on the GPU, checked and timed. Carry bin/local (the
# library and harness built on the Go machine with `make cuda-test`, copied
# there), bin/cuda.test, bin/cuzk, bin/porep.test and bin/compiled.test.
#   STAGE=check (default): harness check, device/cuda Go tests, the kernel
#                          benches (witness, part with B_G2, G2 MSM, fixed base)
#   STAGE=engine:          cuzk bench on the GPU with and without witness-only
#                          synthesis; the 32 GiB witness and compile on the CPU
# Logs to $OUT/log.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used,temperature.gpu --format=csv,noheader
. "$(dirname "$0")/carried.sh"
carried_or_build
cat "$OUT/field.txt"
export CUZK_CUDA_LIB=$LIB
case "${STAGE:-check}" in
check)
  echo "=== harness check"
  timeout 240 $H check > "$OUT/check.log" 2>&1; echo "check exit $?"
  grep -vE "^(skewed msm|  refused)" "$OUT/check.log" | grep -E "FAIL|ERROR|differ|ok=0|PASS|failures" | head -40
  echo "=== go test ./device/cuda"
  (cd device/cuda && timeout 240 ../../bin/cuda.test -test.v -test.timeout 230s > "$OUT/gotest.log" 2>&1; echo "go test exit $?")
  grep -E "^(--- |PASS|FAIL|ok|panic)|_test.go" "$OUT/gotest.log" | head -70
  echo "=== bench witness 27 (32 GiB shape, local columns)"
  timeout 120 $H bench witness 27 $(( (1 << 27) - 1000 )) 130000000 local
  echo "=== bench part 27 with B_G2 (b_aux 33.1 M)"
  timeout 120 $H bench part 27 27 27 132400000 g2
  echo "=== bench msm-g2 25 23"
  timeout 100 $H bench msm-g2 25 23
  echo "=== bench fixed 26"
  timeout 100 $H bench fixed 26
  ;;
engine)
  for w in off on; do
    echo "=== cuzk bench --device cuda --witness $w (10 x 2^20, 4 jobs)"
    timeout 170 bin/cuzk bench --device cuda --witness $w --constraints 1048576 --partitions 10 --count 4 \
      --params-dir /tmp/cuzk-params --budget 64 2>&1 | tail -12
  done
  echo "=== porep witness, 32 GiB blank partition (1 core, then 16)"
  timeout 120 bin/porep.test -test.run '^$' -test.bench 'Synthesize/32GiB-blank/witness($|-reuse)' -test.benchtime 2x \
    -test.benchmem -test.cpu 1 -porep.sizes=32GiB 2>&1 | grep -E "Benchmark|ok|FAIL"
  timeout 120 bin/porep.test -test.run '^$' -test.bench 'Synthesize/32GiB-blank/witness-(parallel|reuse)' -test.benchtime 2x \
    -test.benchmem -test.cpu 16 -porep.sizes=32GiB 2>&1 | grep -E "Benchmark|ok|FAIL"
  echo "=== compile the 32 GiB PoRep system (1 core)"
  /usr/bin/time -f "wall %e s, max RSS %M KB" timeout 200 bin/compiled.test -test.run '^$' -test.bench 'Compile/32GiB' \
    -test.benchtime 1x -test.cpu 1 -compiled.sizes 32GiB -compiled.out /tmp/porep32g.r1cs 2>&1 | grep -vE "^goos|^goarch|^pkg|^cpu"
  ls -l /tmp/porep32g.r1cs
  ;;
esac
