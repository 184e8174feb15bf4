# Sourced by the GPU session scripts: H (the harness) and LIB (the library)
# are the carried bin/local ones when they run here (built on the Go machine
# with `make cuda-test`, copied to bin/local), else a build here (≈ 10 min on
# the lent H200: carry a library when you can). The field rates the check
# prints go to $OUT/field.txt.
carried_or_build() {
  H=bin/local/cuzk_harness
  LIB=$PWD/bin/local/libcuzk_cuda.so
  if $H bench field > "$OUT/field.txt" 2>&1; then
    return 0
  fi
  cat "$OUT/field.txt"
  echo "carried binaries do not run here: building"
  local start=$(date +%s)
  make -j16 cuda-test > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  echo "build: $(( $(date +%s) - start )) s"
  H=bin/cuzk_harness
  LIB=$PWD/bin/libcuzk_cuda.so
  $H bench field > "$OUT/field.txt" 2>&1
}
