#!/bin/bash
# A Curio node's day compressed on one GPU through the daemon (cuzk bench day): 32 GiB PoRep C2 bulk
# (PORJ jobs in flight, default 2), a 32 GiB WinningPoSt every WIN_EVERY (default 10s, late over 1 s),
# and, because the 64 GiB disk and 128 GiB of RAM hold one 32 GiB bulk set beside WinningPoSt's,
# WindowPoSt deadlines and SnapDeals at 512 MiB (StackedDrgWindow512MiBV1_2 partitions,
# StackedDrg512MiBV1 updates). All sets are development parameters made on the GPU under $P
# (default /dev/shm/p32-day: RAM).
#   STAGE=setup  the four sets and their requests (PoRep via gpu-kind32.sh KIND=porep STAGE=setup)
#   STAGE=day    the daemon (CUDA, 2 workers, witness-only, device.critical_lane $LANE, default auto)
#                and bench day for DAY (default 150s) after SOLO (default 40s) of each bulk kind alone;
#                the report, the JSON, the timeline HTML, the daemon's peak RSS and GPU memory peak
# Binaries: bin/cuzk (or bin/c/cuzk.gz). Logs to $OUT/log.
OUT=${OUT:-/tmp/out}; STAGE=${STAGE:-day}
if [ "$STAGE" != "${STAGE%% *}" ]; then
  for s in $STAGE; do STAGE=$s bash "$0" || exit $?; done; exit 0
fi
export P=${P:-/dev/shm/p32-day}
mkdir -p "$OUT" "$P"
exec > >(tee -a "$OUT/log") 2>&1
[ -x bin/cuzk ] || { mkdir -p bin; gunzip -c bin/c/cuzk.gz > bin/cuzk && chmod +x bin/cuzk; }
LIB=$PWD/bin/local/libcuzk_cuda.so; [ -f "$LIB" ] || LIB=$PWD/bin/libcuzk_cuda.so; export CUZK_CUDA_LIB=$LIB
. "$(dirname "$0")/daemon-lib.sh"
echo "=== day $STAGE $(date -u +%FT%TZ)"
case "$STAGE" in
setup)
  [ -f "$P/req.json" ] || KIND=porep STAGE=setup P=$P bash "$(dirname "$0")/gpu-kind32.sh" || exit 1
  bin/cuzk setup --proof-type StackedDrgWinning32GiBV1 --kind winning-post --device cuda --params-dir "$P" 2>&1 | tail -2
  bin/cuzk setup --proof-type StackedDrgWindow512MiBV1_2 --kind window-post --device cuda --params-dir "$P" 2>&1 | tail -2
  bin/cuzk setup --proof-type StackedDrg512MiBV1 --kind snap --device cuda --params-dir "$P" 2>&1 | tail -2
  bin/cuzk gen-vanilla winning-post --proof-type StackedDrgWinning32GiBV1 --seed 12 --out "$P/winning.json" 2>&1 | tail -1
  bin/cuzk gen-vanilla window-post --proof-type StackedDrgWindow512MiBV1_2 --seed 13 --partition 0 --out "$P/wpost.json" 2>&1 | tail -1
  bin/cuzk gen-vanilla snap --proof-type StackedDrg512MiBV1 --seed 14 --out "$P/snap.json" 2>&1 | tail -1
  ls -l "$P"; df -h /dev/shm | tail -1
  ;;
day)
  daemon_toml "$OUT/daemon-day.toml" "$P"
  rm -f /tmp/cuzk.sock "$OUT/rss-day.txt" "$OUT/gpumem-day.txt"
  bin/cuzk daemon --config "$OUT/daemon-day.toml" > "$OUT/daemon-day.log" 2>&1 & dpid=$!
  for i in $(seq 60); do [ -S /tmp/cuzk.sock ] && break; sleep 1; done
  ( while kill -0 $dpid 2>/dev/null; do echo "$(date +%s) $(grep VmRSS /proc/$dpid/status)" >> "$OUT/rss-day.txt"; nvidia-smi --query-gpu=memory.used --format=csv,noheader >> "$OUT/gpumem-day.txt"; sleep 1; done ) &
  A="--addr unix:///tmp/cuzk.sock --timeline-url 127.0.0.1:9821"
  for f in req.json winning.json wpost.json snap.json; do   # load each set (and compile its system) before the day
    timeout 400 bin/cuzk bench $A --request "$P/$f" --count 1 -j 1 2>&1 | grep -E "latency|failed" | head -2
  done
  timeout $(( ${DAY_S:-150} + 3 * ${SOLO_S:-40} + 200 )) bin/cuzk bench day $A --porep "$P/req.json" --snap "$P/snap.json" \
    --wpost "$P/wpost.json" --winning "$P/winning.json" --porep-jobs ${PORJ:-2} --snap-jobs 1 \
    --duration ${DAY_S:-150}s --solo ${SOLO_S:-40}s --deadline-partitions ${DL_PARTS:-4} --deadline-at 30s \
    --deadline-window ${DL_WINDOW:-60s} --deadline-every ${DL_EVERY:-60s} --winning-every ${WIN_EVERY:-10s} \
    --winning-deadline 1s --json "$OUT/day.json" 2>&1 | tail -60
  echo "bench day exit: ${PIPESTATUS[0]}"
  bin/cuzk timeline --url http://127.0.0.1:9821/timeline --html "$OUT/timeline-day.html" 2>&1 | tail -15
  kill -TERM $dpid; wait $dpid
  echo "daemon peak RSS: $(awk '{print $3}' "$OUT/rss-day.txt" | sort -n | tail -1) kB; GPU memory peak: $(sort -n "$OUT/gpumem-day.txt" | tail -1)"
  grep -iE "error|panic" "$OUT/daemon-day.log" | head
  ;;
esac
