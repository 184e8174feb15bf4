#!/bin/bash
# One GPU session for the development setup on the GPU (cuzk_fixed_base_g1,
# cuzk setup --device cuda). Carry bin/cuzk and bin/cuda.test (built on the
# Go machine with CGO_ENABLED=0). Logs to $OUT/log; every step prints PASS or
# FAIL (or its timing) so that one run tells.
#
#   STAGE=checks (default)  build, harness check and bench, Go tests, the
#                           8 MiB set from both devices compared (≈ 6–8 min)
#   STAGE=32g               the 32 GiB PoRep set only (≈ 47.5 GB under
#                           $PARAMS/32g, kept; a second call, ≈ 3 min)
#   NOBUILD=1   use a bin/libcuzk_cuda.so and bin/cuzk_harness already there
#   PARAMS=dir  where the sets go (default $PWD/setup-params)
set -o pipefail
OUT=${OUT:-/tmp/out}
PARAMS=${PARAMS:-$PWD/setup-params}
mkdir -p "$OUT" "$PARAMS"
exec > >(tee -a "$OUT/log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,memory.used --format=csv,noheader
df -h "$PARAMS" | tail -1
if [ "${STAGE:-checks}" = 32g ]; then
  echo "=== setup 32 GiB --device cuda"
  /usr/bin/time -v timeout 590 bin/cuzk setup --proof-type StackedDrg32GiBV1_1 --device cuda --params-dir "$PARAMS/32g" 2> "$OUT/time32g.txt"
  echo "exit $?"
  cat "$OUT/time32g.txt"
  ls -l "$PARAMS/32g"
  df -h "$PARAMS" | tail -1
  exit 0
fi
start=$(date +%s)
if [ -z "$NOBUILD" ]; then make cuda-test -j16 || exit 1; fi
echo "build: $(( $(date +%s) - start )) s"
echo "=== harness check-fixed";   timeout 300 bin/cuzk_harness check-fixed || echo "FAIL harness check-fixed (exit $?)"
echo "=== harness bench fixed";   timeout 300 bin/cuzk_harness bench fixed 24; timeout 300 bin/cuzk_harness bench fixed 26
echo "=== go tests";              timeout 400 bin/cuda.test -test.run 'FixedBase|SetupCUDA' -test.v 2>&1 | grep -E '^(=== RUN|--- |PASS|FAIL|ok)|differ|rows=|fixedbase_test' || true
# The cheap end-to-end check: the 8 MiB PoRep set from both devices, byte for byte.
for dev in cuda cpu; do
  echo "=== setup 8 MiB --device $dev"
  rm -rf "$PARAMS/8m-$dev"
  /usr/bin/time -f "wall %e s, max RSS %M KB" timeout 550 bin/cuzk setup --proof-type StackedDrg8MiBV1_1 --device $dev --params-dir "$PARAMS/8m-$dev" || echo "FAIL setup 8m $dev"
done
ok=1
for f in "$PARAMS"/8m-cpu/*; do cmp "$f" "$PARAMS/8m-cuda/$(basename "$f")" || ok=0; done
[ "$ok" = 1 ] && echo "PASS 8 MiB set: cuda == cpu byte for byte" || echo "FAIL 8 MiB set: cuda != cpu"
rm -rf "$PARAMS"/8m-cpu "$PARAMS"/8m-cuda
