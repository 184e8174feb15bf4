#!/bin/bash
# 32 GiB PoRep C2 through the daemon on the GPU (issue 13's acceptance run).
# Carry bin/cuzk; the library is bin/local/libcuzk_cuda.so (or bin/).
#   STAGE=setup   development parameters at 2^27 on the GPU (cuzk setup
#                 --device cuda, ≈ 47.5 GB under $P) and a gen-vanilla C1
#   STAGE=prove   the daemon (CUDA device, witness-only synthesis) and
#                 cuzk bench --request: COUNT proofs, every one verified;
#                 the timeline (csv and html) and the daemon's RSS
# Logs to $OUT/log.
OUT=${OUT:-/tmp/out}
P=${P:-/tmp/p32}
mkdir -p "$OUT" "$P"
exec > >(tee -a "$OUT/log") 2>&1
export CUZK_CUDA_LIB=${CUZK_CUDA_LIB:-$PWD/bin/local/libcuzk_cuda.so}
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader; df -h /tmp | tail -1; free -g | head -2
case "${STAGE:-setup}" in
setup)
  /usr/bin/time -f "setup: wall %e s, max RSS %M KB" timeout 500 bin/cuzk setup --proof-type StackedDrg32GiBV1_1 \
    --device cuda --params-dir "$P" 2>&1 | tail -25
  ls -l "$P"
  /usr/bin/time -f "gen-vanilla: wall %e s, max RSS %M KB" bin/cuzk gen-vanilla porep --proof-type StackedDrg32GiBV1_1 \
    --out "$P/req.json" --public "$P/seal.json" 2>&1 | tail -3
  ls -l "$P/req.json"
  ;;
prove)
  cat > "$OUT/daemon.toml" <<TOML
[daemon]
listen = "unix:///tmp/cuzk.sock"
status_listen = "127.0.0.1:9821"
[device]
kind = "cuda"
[srs]
param_cache = "$P"
[timeline]
events = 200000
TOML
  bin/cuzk daemon --config "$OUT/daemon.toml" > "$OUT/daemon.log" 2>&1 &
  dpid=$!
  for i in $(seq 60); do [ -S /tmp/cuzk.sock ] && break; sleep 1; done
  ( while kill -0 $dpid 2>/dev/null; do grep VmRSS /proc/$dpid/status >> "$OUT/rss.txt"; nvidia-smi --query-gpu=memory.used --format=csv,noheader >> "$OUT/gpumem.txt"; sleep 2; done ) &
  timeout ${PRELOAD_S:-240} bin/cuzk bench --addr unix:///tmp/cuzk.sock --request "$P/req.json" --preload porep-32g \
    --count 1 -j 1 --timeline-url 127.0.0.1:9821 2>&1 | tail -14
  timeout ${BENCH_S:-300} bin/cuzk bench --addr unix:///tmp/cuzk.sock --request "$P/req.json" \
    --count ${COUNT:-6} -j ${JOBS:-3} --timeline-url 127.0.0.1:9821 2>&1 | tail -14
  bin/cuzk timeline --url http://127.0.0.1:9821/timeline --html "$OUT/timeline.html" --csv "$OUT/timeline.csv" 2>&1 | tail -20
  kill -TERM $dpid; wait $dpid
  echo "daemon peak RSS: $(sort -k2 -n "$OUT/rss.txt" | tail -1)"; echo "GPU memory peak: $(sort -n "$OUT/gpumem.txt" | tail -1)"
  tail -20 "$OUT/daemon.log"
  ;;
esac
