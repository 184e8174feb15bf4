#!/bin/bash
# Witness-run session (cuzk_run_witness): the carried bin/local library and
# harness (built on the Go machine), else a build; then the harness check
# (all of it: the witness cases print "witness 2^.. ok=1"), the Go tests of
# device/cuda (bin/cuda.test, carried), bench witness at the 32 GiB shape with
# local and random columns, and bench part for the same partition through
# cuzk_run, in one run. Logs to $OUT/log. Knobs: WIT_LG (27), WIT_ROWS
# (2^27 - 1000), WIT_AUX (130000000), GOTEST_RUN (a -test.run pattern).
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used,temperature.gpu --format=csv,noheader
. "$(dirname "$0")/carried.sh"
carried_or_build
cat "$OUT/field.txt"
echo "=== harness check"
timeout 300 $H check | grep -vE "^(skewed msm|  refused)" | tee "$OUT/check.log" | tail -25
grep -E "^(FAIL|ERROR|  )" "$OUT/check.log" | head -40
echo "=== go test ./device/cuda ${GOTEST_RUN:+-run $GOTEST_RUN}"
(cd device/cuda && CUZK_CUDA_LIB=$LIB timeout 280 ../../bin/cuda.test -test.v -test.timeout 270s \
  ${GOTEST_RUN:+-test.run "$GOTEST_RUN"} > "$OUT/gotest.log" 2>&1; echo "go test exit $?")
grep -E "^(--- |PASS|FAIL|ok|panic)|_test.go" "$OUT/gotest.log" | head -60
LG=${WIT_LG:-27}
ROWS=${WIT_ROWS:-$(( (1 << LG) - 1000 ))}
AUX=${WIT_AUX:-130000000}
for cols in local random; do
  echo "=== bench witness $LG $ROWS $AUX $cols"
  timeout 200 $H bench witness $LG $ROWS $AUX $cols
done
echo "=== bench part (the same shape through cuzk_run)"
timeout 150 $H bench part 27 27 $LG $AUX
