#!/bin/bash
# A 32 GiB WinningPoSt through the daemon alone and beside 2 bulk jobs of BULK (snap, the default,
# or porep): latency p50/p95/max. LANE sets device.critical_lane (auto, on, off). Needs BULK's set
# and request of gpu-kind32.sh (KIND=$BULK STAGE=setup) under $P (default /dev/shm/p32-$BULK);
# makes the WinningPoSt set there. TAG names the run's files beside BULK and LANE (a variant of
# the environment, e.g. CUDA_DEVICE_MAX_CONNECTIONS or CUZK_MSM_WAVES). The WinningPoSt's mean
# kernel phases under the load (host_pre: the call to its first event; gpu_wait: beyond its
# kernels until its last synchronization returned; host_end: the call after it) from /metrics.
# The daemon logs at debug level (a page-locked free while a Run is in flight is said there) and
# the log's count of those is printed, and the library's own (CUZK_LOG_FREES). Logs to $OUT.
export OUT; BULK=${BULK:-snap}; P=${P:-/dev/shm/p32-$BULK}; export CUZK_CUDA_LIB=$PWD/bin/libcuzk_cuda.so
[ -f bin/local/libcuzk_cuda.so ] && export CUZK_CUDA_LIB=$PWD/bin/local/libcuzk_cuda.so
T=ws-$BULK-lane${LANE:-auto}${TAG:+-$TAG}
[ -f $P/winning.json ] || bin/cuzk setup --proof-type StackedDrgWinning32GiBV1 --kind winning-post --device cuda --params-dir $P 2>&1 | tail -3
bin/cuzk gen-vanilla winning-post --proof-type StackedDrgWinning32GiBV1 --seed 12 --out $P/winning.json --public $P/winning-public.json 2>&1 | tail -1
. "$(dirname "$0")/daemon-lib.sh"; daemon_toml "$OUT/daemon-$T.toml" "$P"
rm -f /tmp/cuzk.sock
CUZK_LOG_FREES=1 bin/cuzk daemon --log-level debug --config $OUT/daemon-$T.toml > $OUT/daemon-$T.log 2>&1 & dpid=$!
for i in $(seq 60); do [ -S /tmp/cuzk.sock ] && break; sleep 1; done
( while kill -0 $dpid 2>/dev/null; do echo "$(date +%s) $(grep VmRSS /proc/$dpid/status)" >> $OUT/rss-$T.txt; nvidia-smi --query-gpu=memory.used --format=csv,noheader >> $OUT/gpumem-$T.txt; sleep 1; done ) &
B="bin/cuzk bench --addr unix:///tmp/cuzk.sock --timeline-url 127.0.0.1:9821"
echo "=== winning alone (warm-up + 10)"; $B --request $P/winning.json --preload winning-32g --count 1 -j 1 2>&1 | grep -E "latency|params"
$B --request $P/winning.json --count 10 -j 1 2>&1 | grep -E "latency|wall"
echo "=== $BULK load: ${BULK_COUNT:-5} jobs 2 at a time, in the background (lane ${LANE:-auto})"
$B --request $P/req.json --preload $BULK-32g --count ${BULK_COUNT:-5} -j 2 > $OUT/bulkload-$T.txt 2>&1 & spid=$!
# the WinningPoSts start once the bulk set is loaded and WARM_RUNS (default 3) of its partitions
# ran, so that they meet the steady state, not the first Runs' allocations (a first compile of its
# constraint system takes minutes)
for i in $(seq ${WAIT_S:-400}); do
  n=$(curl -s http://127.0.0.1:9821/metrics | awk -v c="circuit=\"$BULK-32g\"" 'index($0, "cuzk_device_kernel_phase_runs_total{" c) && /phase="total"/ { print $NF }')
  [ "${n:-0}" -ge "${WARM_RUNS:-3}" ] && break; sleep 1
done
echo "bulk Runs: ${n:-0} after $i s"
echo "=== winning under the $BULK load: ${WIN_COUNT:-25} one after the other"
curl -s http://127.0.0.1:9821/metrics > $OUT/metrics-before-$T.txt
$B --request $P/winning.json --count ${WIN_COUNT:-25} -j 1 > $OUT/winload-$T.txt 2>&1
curl -s http://127.0.0.1:9821/metrics > $OUT/metrics-after-$T.txt
bin/cuzk timeline --url http://127.0.0.1:9821/timeline --csv $OUT/timeline-win-$T.csv > /dev/null 2>&1  # before the bulk drains
grep -E "latency|wall|synth|prep|kernel|finish" $OUT/winload-$T.txt | head -8
echo "WinningPoSt kernel phases under the load (mean per Run):"
phase_delta kernel $OUT/metrics-before-$T.txt $OUT/metrics-after-$T.txt | grep winning
wait $spid; echo "=== $BULK load"; grep -E "latency|wall|utilization" $OUT/bulkload-$T.txt
curl -s http://127.0.0.1:9821/metrics > $OUT/metrics-end-$T.txt
echo "prepare phases over the daemon's life, mean per run (alloc: stagings page-locked anew; kept: reused; await: waiting for the staging a Run in flight keeps, after the splits):"
phase_means prepare $OUT/metrics-end-$T.txt
echo "stagings taken over (kept: claimed between Runs; ahead: reserved during the Run in flight; missed):"
grep '^cuzk_memory_claims' $OUT/metrics-end-$T.txt
echo "aux vectors filled again (reused) and the one kept (bytes):"
grep -E '^cuzk_(witness_aux_reused_total|memory_aux_kept_bytes)' $OUT/metrics-end-$T.txt
bin/cuzk timeline --url http://127.0.0.1:9821/timeline --csv $OUT/timeline-$T.csv 2>&1 | grep -A12 "^stages" 
kill -TERM $dpid; wait $dpid
echo "daemon peak RSS: $(awk '{print $3}' $OUT/rss-$T.txt | sort -n | tail -1) kB; GPU memory peak: $(sort -n $OUT/gpumem-$T.txt | tail -1)"
echo "page-locked frees while a Run was in flight: $(grep -c 'freed while a Run is in flight' $OUT/daemon-$T.log)"
echo "the library's frees while another thread's Run was in flight (CUZK_LOG_FREES): $(grep -c 'run(s) in flight' $OUT/daemon-$T.log)"
grep 'run(s) in flight' $OUT/daemon-$T.log | sort | uniq -c | sort -rn | head -5
grep -iE "error|panic" $OUT/daemon-$T.log | head
