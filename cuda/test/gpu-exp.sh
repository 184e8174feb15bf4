#!/bin/bash
# Experiment session: use bin/local (library and harness built on the Go
# machine, carried) when they run here, else build; then the checks, the Go
# tests, the NTT table, an MSM window sweep and the partition with and without
# the L/A/B overlap. Logs to $OUT/log.
# Knobs: NTT_HI; MSM_CS (window sweep; set empty to skip), MSM_LO;
# VARIANTS (build variants carried in bin/<name>/: library + harness) run
# VCMD (default: the MSM bench); PROFILE=1 adds the per-pass NTT and
# per-phase MSM times (CUZK_PROFILE); SERIAL=1 the partition without overlap.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used,temperature.gpu --format=csv,noheader
. "$(dirname "$0")/carried.sh"
carried_or_build
cat "$OUT/field.txt"
echo "=== harness check"
timeout 200 $H check
echo "=== go test ./device/cuda"
(cd device/cuda && CUZK_CUDA_LIB=$LIB timeout 200 ../../bin/cuda.test -test.v -test.timeout 190s > "$OUT/gotest.log" 2>&1; echo "go test exit $?")
grep -E "^(--- |PASS|FAIL|ok|panic)|_test.go" "$OUT/gotest.log" | head -40
echo "=== bench ntt"
timeout 60 $H bench ntt ${NTT_HI:-27}
if [ -n "$PROFILE" ]; then
  echo "=== profile: ntt 2^27, msm 2^26..2^27"
  CUZK_PROFILE=1 timeout 60 $H bench ntt 27 2>&1 | grep -E "profile .*lg27|^ *27"
  CUZK_PROFILE=1 timeout 100 $H bench msm 27 27 26
fi
for c in ${MSM_CS-16 20 22}; do
  echo "=== bench msm, c=$c"
  CUZK_MSM_C=$c timeout 100 $H bench msm 27 27 ${MSM_LO:-25}
done
for v in $VARIANTS; do
  echo "=== variant $v: ${VCMD:-bench msm 27 27 ${MSM_LO:-25}}"
  timeout 100 bin/$v/cuzk_harness ${VCMD:-bench msm 27 27 ${MSM_LO:-25}}
done
echo "=== bench part (L/A/B overlapping the NTTs)"
timeout 150 $H bench part 27 27 27 130000000
if [ -n "$SERIAL" ]; then
  echo "=== bench part (serial)"
  CUZK_RUN_SERIAL=1 timeout 150 $H bench part 27 27 27 130000000
fi
