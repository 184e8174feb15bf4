#!/bin/bash
# A 32 GiB WinningPoSt through the daemon alone and beside 2 SnapDeals jobs: latency p50/p95/max.
# Needs the SnapDeals set and request of gpu-kind32.sh (KIND=snap STAGE=setup) under $P; makes the
# WinningPoSt set there. Logs to $OUT.
export OUT; P=/dev/shm/p32-snap; export CUZK_CUDA_LIB=$PWD/bin/libcuzk_cuda.so
[ -f $P/winning.json ] || bin/cuzk setup --proof-type StackedDrgWinning32GiBV1 --kind winning-post --device cuda --params-dir $P 2>&1 | tail -3
bin/cuzk gen-vanilla winning-post --proof-type StackedDrgWinning32GiBV1 --seed 12 --out $P/winning.json --public $P/winning-public.json 2>&1 | tail -1
. "$(dirname "$0")/daemon-lib.sh"; daemon_toml "$OUT/daemon-ws.toml" "$P"
rm -f /tmp/cuzk.sock
bin/cuzk daemon --config $OUT/daemon-ws.toml > $OUT/daemon-ws.log 2>&1 & dpid=$!
for i in $(seq 60); do [ -S /tmp/cuzk.sock ] && break; sleep 1; done
( while kill -0 $dpid 2>/dev/null; do echo "$(date +%s) $(grep VmRSS /proc/$dpid/status)" >> $OUT/rss-ws.txt; nvidia-smi --query-gpu=memory.used --format=csv,noheader >> $OUT/gpumem-ws.txt; sleep 1; done ) &
B="bin/cuzk bench --addr unix:///tmp/cuzk.sock --timeline-url 127.0.0.1:9821"
echo "=== winning alone (warm-up + 10)"; $B --request $P/winning.json --preload winning-32g --count 1 -j 1 2>&1 | grep -E "latency|params"
$B --request $P/winning.json --count 10 -j 1 2>&1 | grep -E "latency|wall"
echo "=== snap load: 5 jobs 2 at a time, in the background"
$B --request $P/req.json --preload snap-32g --count 5 -j 2 > $OUT/snapload.txt 2>&1 & spid=$!
sleep 25
echo "=== winning under the snap load: 25 one after the other"
$B --request $P/winning.json --count 25 -j 1 > $OUT/winload.txt 2>&1
grep -E "latency|wall|synth|prep|kernel|finish" $OUT/winload.txt | head -8
wait $spid; echo "=== snap load"; grep -E "latency|wall|utilization" $OUT/snapload.txt
bin/cuzk timeline --url http://127.0.0.1:9821/timeline --csv $OUT/timeline-ws.csv 2>&1 | grep -A12 "^stages" 
kill -TERM $dpid; wait $dpid
echo "daemon peak RSS: $(awk '{print $3}' $OUT/rss-ws.txt | sort -n | tail -1) kB; GPU memory peak: $(sort -n $OUT/gpumem-ws.txt | tail -1)"
grep -iE "error|panic" $OUT/daemon-ws.log | head
