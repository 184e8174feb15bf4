#!/bin/bash
# One 32 GiB proof kind through the daemon on the GPU, from a fresh machine.
#   KIND=wpost|snap|winning|porep (default wpost)
#   STAGE=build   libcuzk_cuda.so with make cuda (≈ 100 s on 16 cores) unless bin/local has one
#   STAGE=setup   development parameters of KIND at 32 GiB on the GPU (cuzk setup --device cuda)
#                 under $P and a generated request (gen-vanilla) with its public data
#   STAGE=prove   the daemon (CUDA device, witness-only synthesis, parameters read from the file
#                 into the GPU) and cuzk bench --request: the preload and a cold proof, ALONE proofs
#                 one at a time, COUNT proofs JOBS at a time; one proof through cuzk prove --addr
#                 saved and checked with cuzk verify --public; the kernel and prepare phases from
#                 /metrics, the daemon's peak RSS and the GPU memory peak
# STAGE may list stages ("build setup prove"). Binaries: bin/cuzk (carried, or bin/c/cuzk.gz);
# $P defaults to /dev/shm/p32-$KIND (RAM: the disk is 64 GiB). Logs to $OUT/log.
OUT=${OUT:-/tmp/out}
STAGE=${STAGE:-prove}
KIND=${KIND:-wpost}
if [ "$STAGE" != "${STAGE%% *}" ]; then
  for s in $STAGE; do STAGE=$s bash "$0" || exit $?; done; exit 0
fi
P=${P:-/dev/shm/p32-$KIND}
mkdir -p "$OUT" "$P"
exec > >(tee -a "$OUT/log") 2>&1
[ -x bin/cuzk ] || { mkdir -p bin; gunzip -c bin/c/cuzk.gz > bin/cuzk && chmod +x bin/cuzk; }
LIB=$PWD/bin/local/libcuzk_cuda.so
[ -f "$LIB" ] || LIB=$PWD/bin/libcuzk_cuda.so
export CUZK_CUDA_LIB=$LIB
. "$(dirname "$0")/daemon-lib.sh"
case "$KIND" in
porep)   PROOF=StackedDrg32GiBV1_1;       SK=porep;        ID=porep-32g;   GEN="porep --proof-type $PROOF";;
wpost)   PROOF=StackedDrgWindow32GiBV1_2; SK=window-post;  ID=wpost-32g;   GEN="window-post --proof-type $PROOF";;
winning) PROOF=StackedDrgWinning32GiBV1;  SK=winning-post; ID=winning-32g; GEN="winning-post --proof-type $PROOF";;
snap)    PROOF=StackedDrg32GiBV1;         SK=snap;         ID=snap-32g;    GEN="snap --proof-type $PROOF";;
*) echo "KIND $KIND: want wpost, snap, winning or porep"; exit 2;;
esac
echo "=== $STAGE $KIND ($PROOF, $ID) $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader; df -h /tmp /dev/shm | tail -2; free -g | head -2
case "$STAGE" in
build)
  if [ -f bin/local/libcuzk_cuda.so ]; then echo "carried library: bin/local"; exit 0; fi
  start=$(date +%s)
  make -j16 cuda > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  echo "build: $(( $(date +%s) - start )) s"; ls -l bin/libcuzk_cuda.so
  ;;
setup)
  /usr/bin/time -f "setup: wall %e s, max RSS %M KB" timeout ${SETUP_S:-560} bin/cuzk setup --proof-type $PROOF \
    --kind $SK --device cuda --params-dir "$P" 2>&1 | tail -25
  ls -l "$P"
  /usr/bin/time -f "gen-vanilla: wall %e s, max RSS %M KB" bin/cuzk gen-vanilla $GEN --seed ${SEED:-11} \
    --out "$P/req.json" --public "$P/public.json" 2>&1 | tail -3
  ls -l "$P/req.json" "$P/public.json"
  ;;
prove)
  daemon_toml "$OUT/daemon-$KIND.toml" "$P"
  cat "$OUT/daemon-$KIND.toml"
  rm -f "$OUT/rss-$KIND.txt" "$OUT/gpumem-$KIND.txt" /tmp/cuzk.sock
  bin/cuzk daemon --config "$OUT/daemon-$KIND.toml" > "$OUT/daemon-$KIND.log" 2>&1 &
  dpid=$!
  for i in $(seq 60); do [ -S /tmp/cuzk.sock ] && break; sleep 1; done
  ( while kill -0 $dpid 2>/dev/null; do echo "$(date +%s) $(grep VmRSS /proc/$dpid/status)" >> "$OUT/rss-$KIND.txt"; nvidia-smi --query-gpu=memory.used --format=csv,noheader >> "$OUT/gpumem-$KIND.txt"; sleep 1; done ) &
  B="bin/cuzk bench --addr unix:///tmp/cuzk.sock --request $P/req.json --timeline-url 127.0.0.1:9821"
  t0=$(date +%s)
  echo "=== preload + cold proof"
  timeout ${PRELOAD_S:-300} $B --preload $ID --count 1 -j 1 2>&1 | tail -14
  echo "preload + cold proof: $(( $(date +%s) - t0 )) s; RSS after: $(grep VmRSS /proc/$dpid/status)"
  for i in $(seq ${ALONE:-2}); do
    echo "=== one proof alone ($i)"
    timeout ${ALONE_S:-120} $B --count 1 -j 1 2>&1 | tail -14
  done
  if [ "${COUNT:-0}" -gt 0 ]; then
    echo "=== steady state: $COUNT proofs, ${JOBS:-2} at a time"
    timeout ${BENCH_S:-300} $B --count $COUNT -j ${JOBS:-2} 2>&1 | tail -14
  fi
  echo "=== prove --addr, then verify --public"
  cp "$P/public.json" "$OUT/public-$KIND.json"
  PART=""; [ "$KIND" = wpost ] && PART="--partition 0"
  timeout ${ALONE_S:-120} bin/cuzk prove --addr unix:///tmp/cuzk.sock --request "$P/req.json" --out "$OUT/proof-$KIND.bin" \
    --public "$OUT/public-$KIND.json" --params-dir "$P" 2>&1 | tail -3
  bin/cuzk verify --public "$OUT/public-$KIND.json" --params-dir "$P" $PART 2>&1 | tail -2
  bin/cuzk timeline --url http://127.0.0.1:9821/timeline --html "$OUT/timeline-$KIND.html" --csv "$OUT/timeline-$KIND.csv" 2>&1 | tail -20
  curl -s http://127.0.0.1:9821/metrics > "$OUT/metrics-$KIND.txt" 2>/dev/null || true
  echo "kernel phases, mean per run (device events; they overlap):"
  phase_means kernel "$OUT/metrics-$KIND.txt"
  echo "prepare phases, mean per run (host):"
  phase_means prepare "$OUT/metrics-$KIND.txt"
  grep -E '^cuzk_(synthesis|device)_[a-z_]*seconds' "$OUT/metrics-$KIND.txt" | head -20
  kill -TERM $dpid; wait $dpid
  echo "daemon peak RSS: $(awk '{print $3}' "$OUT/rss-$KIND.txt" | sort -n | tail -1) kB"; echo "GPU memory peak: $(sort -n "$OUT/gpumem-$KIND.txt" | tail -1)"
  grep -iE "error|warn|panic" "$OUT/daemon-$KIND.log" | head -10; tail -5 "$OUT/daemon-$KIND.log"
  ;;
esac
