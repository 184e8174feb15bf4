#!/bin/bash
# sppark's G1 MSM against ours in one process (cuda/test/sppark_msm.cu): the same synthetic points
# resident for both, device scalars, 2^LO..2^HI points (default 20 26), after a check that both give
# the same point. sppark and blst are not part of this repository: the program is built from
# checkouts of supranational/sppark and supranational/blst at SPPARK and BLST (default
# bin/ref/sppark, bin/ref/blst), on the Go machine (nvcc 11.8 builds it) or here:
#   bash cuda/test/gpu-sppark.sh build   (blst built with ./build.sh -D__ADX__ first)
# writes bin/local/sppark_msm beside bin/local/libcuzk_cuda.so; carry bin/local, then
#   bash cuda/test/gpu-sppark.sh         (LO, HI, REPS: the sizes and the repetitions, median)
set -e
SPPARK=${SPPARK:-bin/ref/sppark}; BLST=${BLST:-bin/ref/blst}
if [ "$1" = build ]; then
  [ -f "$BLST/libblst.a" ] || (cd "$BLST" && ./build.sh -D__ADX__ > /dev/null)
  mkdir -p bin/local
  [ -f bin/local/libcuzk_cuda.so ] || { echo "bin/local/libcuzk_cuda.so first (make cuda-test, copied there)"; exit 1; }
  nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -D__ADX__ -DFEATURE_BLS12_381 \
    -DTAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE -I"$SPPARK" -I"$BLST/src" -Xcompiler -Wno-unused-function \
    -o bin/local/sppark_msm cuda/test/sppark_msm.cu "$SPPARK/util/all_gpus.cpp" -Lbin/local -lcuzk_cuda \
    -Xlinker -rpath,'$ORIGIN' "$BLST/libblst.a" 2>&1 | grep -v "warning #\|^$\|Remark" || true
  ls -l bin/local/sppark_msm
  exit 0
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader
bin/local/sppark_msm ${LO:-20} ${HI:-26} ${REPS:-3}
