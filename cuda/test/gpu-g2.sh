#!/bin/bash
# B_G2 on the GPU, one device session: bin/local (library and harness built on
# the Go machine with `make cuda-test`, carried with bin/cuda.test) when they
# run here, else a build; then the kernels' resources, the harness checks
# (Fp2 and G2 arithmetic, G2 MSMs, cuzk_run with B_G2), the Go tests of
# device/cuda (TestBG2OnDevice, TestMSMG2, TestMSMSplitG2, TestProveVerify ...),
# the G2 MSM at 2^23..2^25 beside G1's, B_G1 and B_G2 alone at the 32 GiB
# partition's B shape, and the partition with and without B_G2. Logs to $OUT/log.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used,temperature.gpu --format=csv,noheader
. "$(dirname "$0")/carried.sh"
carried_or_build
cat "$OUT/field.txt"
cuobjdump --dump-resource-usage "$LIB" 2>/dev/null | grep -E "Function|REG" | paste - - | grep -v cub |
  sed -E 's/.*Function ([^ :]+).*REG:([0-9]+).*STACK:([0-9]+).*SHARED:([0-9]+).*LOCAL:([0-9]+).*/REG=\2 STACK=\3 SHARED=\4 LOCAL=\5 \1/' > "$OUT/resources.txt"
grep -E "msm_acc_chunks|batch_add_chunks|msm_windows|msm_segments" "$OUT/resources.txt"
echo "=== harness check"
timeout 300 $H check
echo "=== go test ./device/cuda"
(cd device/cuda && CUZK_CUDA_LIB=$LIB timeout 300 ../../bin/cuda.test -test.v -test.timeout 290s > "$OUT/gotest.log" 2>&1; echo "go test exit $?")
grep -E "^(--- |PASS|FAIL|ok|panic)|_test.go" "$OUT/gotest.log" | head -60
echo "=== bench msm (G1) and msm-g2, 2^23..2^25"
timeout 120 $H bench msm 27 25 23
timeout 200 $H bench msm-g2 25 23
echo "=== bench bshape (B alone, 32 GiB shape: 33.1 M bases)"
timeout 150 $H bench bshape 33100000
echo "=== bench part without and with B_G2 (b_aux 33.1 M)"
timeout 150 $H bench part 27 27 27 132400000
timeout 200 $H bench part 27 27 27 132400000 g2
if [ -n "$PROFILE" ]; then
  echo "=== profile: msm-g2 2^24"
  CUZK_PROFILE=1 timeout 100 $H bench msm-g2 24 24
fi
