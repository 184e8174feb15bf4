#!/bin/bash
# 32 GiB PoRep C2 through the daemon on the GPU: the runs behind its figures in docs/benchmarks.md.
# Carry bin/cuzk; the library is bin/local/libcuzk_cuda.so (or bin/).
#   STAGE=setup   development parameters at 2^27 on the GPU (cuzk setup
#                 --device cuda, ≈ 47.5 GB under $P) and a gen-vanilla C1
#   STAGE=prove   the daemon (CUDA device, witness-only synthesis, the
#                 parameters read from the file into the GPU) and cuzk bench
#                 --request: a cold proof, one alone, COUNT proofs JOBS at a
#                 time, every one verified; the timeline (csv and html), the
#                 daemon's RSS and the GPU memory each second
#   STAGE=limit   the same daemon under device.memory_limit LIMIT (24GiB), device.pinned_keep
#                 PINNED where set, device.stream_from_file with FROMFILE=1 (and
#                 device.stream_cache CACHE where set); WORKERS device workers (default 2)
# STAGE may list stages ("setup limit") and LIMIT limits ("16GiB 24GiB"): each runs in turn, a
# limit's daemon with its files under $OUT/<limit>.
# Logs to $OUT/log.
OUT=${OUT:-/tmp/out}
STAGE=${STAGE:-setup}
LIMIT=${LIMIT:-24GiB}
if [ "$STAGE" != "${STAGE%% *}" ]; then
  for s in $STAGE; do STAGE=$s bash "$0" || exit $?; done; exit 0
fi
if [ "$STAGE" = limit ] && [ "$LIMIT" != "${LIMIT%% *}" ]; then
  for l in $LIMIT; do LIMIT=$l OUT=$OUT/$l bash "$0" || exit $?; done; exit 0
fi
P=${P:-/tmp/p32}
mkdir -p "$OUT" "$P"
exec > >(tee -a "$OUT/log") 2>&1
export CUZK_CUDA_LIB=${CUZK_CUDA_LIB:-$PWD/bin/local/libcuzk_cuda.so}
. "$(dirname "$0")/daemon-lib.sh"
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader; df -h /tmp | tail -1; free -g | head -2
case "$STAGE" in
setup)
  /usr/bin/time -f "setup: wall %e s, max RSS %M KB" timeout 500 bin/cuzk setup --proof-type StackedDrg32GiBV1_1 \
    --device cuda --params-dir "$P" 2>&1 | tail -25
  ls -l "$P"
  /usr/bin/time -f "gen-vanilla: wall %e s, max RSS %M KB" bin/cuzk gen-vanilla porep --proof-type StackedDrg32GiBV1_1 \
    --out "$P/req.json" --public "$P/seal.json" 2>&1 | tail -3
  ls -l "$P/req.json"
  ;;
prove|limit)
  # prove: parameters read from the file into the GPU (no host copy), witness-only synthesis, the
  #        memory budget BUDGET (default 28GiB); a cold proof (the compiled system built), one proof
  #        alone, then COUNT proofs JOBS at a time (steady state).
  # limit: device.memory_limit LIMIT (default 24GiB): the queries and B_G2 stream from a host
  #        copy, the classic path (a and b evaluated on the host into the pinned staging); one
  #        proof, then COUNT proofs JOBS at a time where COUNT is set.
  LIMITLINE=""; BUDGETLINE="total_budget = \"${BUDGET:-28GiB}\""
  if [ "$STAGE" = limit ]; then LIMITLINE="memory_limit = \"${LIMIT:-24GiB}\""; BUDGETLINE="total_budget = \"${BUDGET:-110GiB}\""; fi
  # PINNED: device.pinned_keep (the free pinned buffers kept outside the budget; a partition's
  # a, b staging is kept within it, with the share of its reservation)
  [ -n "$PINNED" ] && LIMITLINE="$LIMITLINE
pinned_keep = \"$PINNED\""
  # FROMFILE=1: device.stream_from_file (the streamed points read from the parameter file at every Run)
  [ -n "$FROMFILE" ] && LIMITLINE="$LIMITLINE
stream_from_file = true"
  # CACHE: device.stream_cache (the first streamed bytes kept page-locked in host memory, not read)
  [ -n "$CACHE" ] && LIMITLINE="$LIMITLINE
stream_cache = \"$CACHE\""
  cat > "$OUT/daemon.toml" <<TOML
[daemon]
listen = "unix:///tmp/cuzk.sock"
status_listen = "127.0.0.1:9821"
[gpus]
gpu_workers_per_device = ${WORKERS:-2}
[device]
kind = "cuda"
$LIMITLINE
[memory]
$BUDGETLINE
[srs]
param_cache = "$P"
[timeline]
events = 400000
TOML
  cat "$OUT/daemon.toml"
  rm -f "$OUT/rss.txt" "$OUT/gpumem.txt"
  # a daemon before this one (a run cut by its timeout) may still hold the socket and the status
  # port: stop it and wait for it to go
  pkill -x cuzk 2>/dev/null && for i in $(seq 30); do pgrep -x cuzk >/dev/null || break; sleep 1; done
  rm -f /tmp/cuzk.sock
  bin/cuzk daemon --config "$OUT/daemon.toml" > "$OUT/daemon.log" 2>&1 &
  dpid=$!
  for i in $(seq 60); do [ -S /tmp/cuzk.sock ] && break; sleep 1; done
  # each second: the RSS and the budget's reservations in use (what RSS holds beyond them is what no
  # reservation counts: the Go heap's slack, gRPC and request buffers)
  ( while kill -0 $dpid 2>/dev/null; do
      used=$(curl -s --max-time 1 http://127.0.0.1:9821/metrics 2>/dev/null | awk '/^cuzk_memory_used_bytes/ { printf "%.0f", $2 }')
      echo "$(date +%s) $(grep VmRSS /proc/$dpid/status) ${used:-}" >> "$OUT/rss.txt"
      nvidia-smi --query-gpu=memory.used --format=csv,noheader >> "$OUT/gpumem.txt"; sleep 1; done ) &
  t0=$(date +%s)
  echo "=== preload + cold proof"
  timeout ${PRELOAD_S:-240} bin/cuzk bench --addr unix:///tmp/cuzk.sock --request "$P/req.json" --preload porep-32g \
    --count 1 -j 1 --timeline-url 127.0.0.1:9821 2>&1 | tail -14
  echo "preload + cold proof: $(( $(date +%s) - t0 )) s; RSS after: $(grep VmRSS /proc/$dpid/status)"
  if [ "$STAGE" = prove ] && [ "${ALONE:-1}" = 1 ]; then
    echo "=== one proof alone"
    timeout 90 bin/cuzk bench --addr unix:///tmp/cuzk.sock --request "$P/req.json" --count 1 -j 1 \
      --timeline-url 127.0.0.1:9821 2>&1 | tail -14
  fi
  if [ "$STAGE" = prove ] || [ -n "$COUNT" ]; then
    echo "=== steady state: ${COUNT:-6} proofs, ${JOBS:-3} at a time"
    timeout ${BENCH_S:-300} bin/cuzk bench --addr unix:///tmp/cuzk.sock --request "$P/req.json" \
      --count ${COUNT:-6} -j ${JOBS:-3} --timeline-url 127.0.0.1:9821 2>&1 | tail -14
  fi
  bin/cuzk timeline --url http://127.0.0.1:9821/timeline --html "$OUT/timeline-$STAGE.html" --csv "$OUT/timeline-$STAGE.csv" 2>&1 | tail -20
  curl -s http://127.0.0.1:9821/metrics > "$OUT/metrics-$STAGE.txt" 2>/dev/null || true
  echo "kernel phases over the run, mean per partition (device events; they overlap):"
  phase_means kernel "$OUT/metrics-$STAGE.txt"
  echo "prepare phases, mean per partition (host, one after the other):"
  phase_means prepare "$OUT/metrics-$STAGE.txt"
  grep '^cuzk_device_kept_bytes\|^cuzk_memory_used_bytes\|^cuzk_memory_claims' "$OUT/metrics-$STAGE.txt"
  kill -TERM $dpid; wait $dpid
  peak=$(awk '{print $3}' "$OUT/rss.txt" | sort -n | tail -1)
  budget=$(sed -n 's/^total_budget = "\(.*\)B"$/\1/p' "$OUT/daemon.toml" | numfmt --from=iec-i 2>/dev/null)
  echo "daemon peak RSS: $peak kB${budget:+ (budget $(( budget / 1024 )) kB: $([ "$peak" -le $(( budget / 1024 )) ] && echo within || echo EXCEEDED))}"
  echo "RSS beyond the reservations in use, at most: $(awk 'NF >= 5 { g = $3 * 1024 - $5; if (g > m) m = g } END { printf "%.2f GB", m / 1e9 }' "$OUT/rss.txt")"
  echo "GPU memory peak: $(sort -n "$OUT/gpumem.txt" | tail -1)"
  grep -iE "error|warn|panic" "$OUT/daemon.log" | head -10; tail -5 "$OUT/daemon.log"
  ;;
esac
