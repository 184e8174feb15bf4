#!/bin/bash
# One device session: build the library, the harness and the portable-product
# baseline here (bin/cuda.test and bin/cuzk are built on the Go machine and
# carried), then resources, field rates (wide and portable), the harness
# checks, the Go tests of device/cuda, the benchmark table and the engine
# with 2 workers on the GPU (cuzk bench --device cuda). Logs to $OUT/log.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used,temperature.gpu --format=csv,noheader
nvcc --version | tail -1
start=$(date +%s)
if [ -z "$NOBUILD" ]; then make -j4 cuda-test cuda-portable > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }; fi
echo "build: $(( $(date +%s) - start )) s"
cuobjdump --dump-resource-usage bin/libcuzk_cuda.so 2>/dev/null | grep -E "Function|REG" | paste - - | grep -v cub |
  sed -E 's/.*Function ([^ :]+).*REG:([0-9]+).*STACK:([0-9]+).*SHARED:([0-9]+).*LOCAL:([0-9]+).*/REG=\2 STACK=\3 SHARED=\4 LOCAL=\5 \1/' > "$OUT/resources.txt"
H=${HARNESS:-bin/cuzk_harness}
echo "=== field rates (wide, then portable)"
$H bench field
bin/portable/cuzk_harness bench field
echo "=== harness check"
timeout 200 $H check
echo "=== go test ./device/cuda"
(cd device/cuda && CUZK_CUDA_LIB=$PWD/../../bin/libcuzk_cuda.so timeout 200 ../../bin/cuda.test -test.v -test.timeout 190s > "$OUT/gotest.log" 2>&1; echo "go test exit $?")
grep -E "^(--- |PASS|FAIL|ok|panic)|_test.go" "$OUT/gotest.log" | head -40
echo "=== bench"
timeout 60 $H bench ntt ${NTT_HI:-27}
timeout 120 $H bench msm 27 ${MSM_HI:-27} 20
timeout 150 $H bench part 27 27 27 130000000
if [ -x bin/cuzk ]; then  # carried: the engine with 2 workers on the GPU
  echo "=== cuzk bench --device cuda"
  CUZK_CUDA_LIB=$PWD/bin/libcuzk_cuda.so timeout 240 bin/cuzk bench --device cuda --constraints 1048576 \
    --partitions 10 --count 4 --params-dir /tmp/cuzk-params --budget 64
fi
