#!/bin/bash
# G2's accumulation (CUZK_G2_ACC: 0 the generic msm_acc_chunks, 1 cuda/msm/acc_g2.cuh's, the
# default) in one device session: the library and harness carried in $G2BIN (default bin/g2exp,
# built on the Go machine with `make cuda-test BIN=bin/g2exp`) when they run here, else
# `make -j16 cuda-test BIN=$G2BIN`; the G2 kernels' resources; `check-g2` (the G2 MSM against host
# sums with both); then `bench msm-g2-acc` at 2^24 and 2^25 with CUZK_PROFILE=1, both at c = 16
# and 22 (2^25), at 2^26 (LG26=0 skips it), and `bench bshape 33100000` (B_G1 and B_G2 at the
# 32 GiB PoRep's B shape, whose ones are batch-added) for both (BSHAPE=0 skips it). One table at
# the end; logs to $OUT/log, the profile totals to $OUT/profile-*.txt.
# Knobs: VARIANTS (default "0 1"), CS (default "16 22"), LG26, BSHAPE.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used,temperature.gpu --format=csv,noheader
G2BIN=${G2BIN:-bin/g2exp}
VARIANTS=${VARIANTS:-0 1}
H=$G2BIN/cuzk_harness
if ! $H bench field > "$OUT/field.txt" 2>&1; then
  cat "$OUT/field.txt"
  echo "carried $G2BIN does not run here: building"
  start=$(date +%s)
  make -j16 cuda-test BIN="$G2BIN" > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  echo "build: $(( $(date +%s) - start )) s"
  $H bench field > "$OUT/field.txt" 2>&1
fi
LIB=$G2BIN/libcuzk_cuda.so
cuobjdump --dump-resource-usage "$LIB" 2>/dev/null | grep -E "Function|REG" | paste - - | grep -v cub |
  sed -E 's/.*Function ([^ :]+).*REG:([0-9]+).*STACK:([0-9]+).*SHARED:([0-9]+).*LOCAL:([0-9]+).*/REG=\2 STACK=\3 SHARED=\4 LOCAL=\5 \1/' > "$OUT/resources.txt"
grep -E "g2_acc|msm_acc_chunks" "$OUT/resources.txt"
echo "=== check-g2 (both accumulations)"
timeout 150 $H check-g2 | tee "$OUT/check.txt" | grep -E "ok=|FAIL|PASS|ERROR"
grep -q "^PASS" "$OUT/check.txt" || echo "CHECK FAILED: the timings below compare wrong sums"
bench() {  # bench NAME ENV... -- HARNESS ARGS
  local name=$1
  shift
  echo "=== $name"
  env CUZK_PROFILE=1 "$@" 2> "$OUT/profile-$name.txt" | tee "$OUT/bench-$name.txt"
  grep -E "acc chunks|acc merge" "$OUT/profile-$name.txt" | grep -E "lg2[456] "
}
bench lg24-25 timeout 120 $H bench msm-g2-acc 25 24 $VARIANTS
for c in ${CS-16 22}; do
  bench c$c CUZK_MSM_C=$c timeout 60 $H bench msm-g2-acc 25 25 0 1
done
[ "${LG26:-1}" = 1 ] && bench lg26 timeout 90 $H bench msm-g2-acc 26 26 $VARIANTS
if [ "${BSHAPE:-1}" = 1 ]; then  # the PoRep B shape: ones batch-added (g2_batch_add_regs for v != 0)
  for v in 0 1; do
    echo "=== bench bshape 33100000, CUZK_G2_ACC=$v"
    CUZK_G2_ACC=$v timeout 60 $H bench bshape 33100000
  done
fi
echo "=== table: G2 MSM ms (CUDA events, median), by accumulation (0 = generic msm_acc_chunks)"
for f in "$OUT"/bench-*.txt; do
  n=$(basename "$f" .txt)
  awk -v n="${n#bench-}" '$1 ~ /^[0-9]+$/ && NF >= 5 { printf "%-8s lg%-3s acc=%-3s %10s ms  x%-6s %s\n", n, $1, $2, $3, $5, $6 }' "$f"
done
