#!/bin/bash
# One device call's worth of steps, in order, each only where its estimated time still fits before
# DEADLINE_S (default 570) seconds from the start; then $OUT packed into one file, out.tgz (the
# device tool brings back only a few files). A step cut by its own timeout or skipped for time is
# said in the log; the next call names the steps left. Steps (their estimate, on the H200):
#   porep-setup   the 32 GiB PoRep set and request under /dev/shm/p32-day (gpu-kind32.sh)   150 s
#   oneshot       cuzk prove --request --device cuda on it (gpu-oneshot.sh)                  180 s
#   winning       WinningPoSt beside 2 PoRep jobs, steady state (gpu-winning-under-load.sh)  200 s
#   winning14     the same with the daemon on 14 of the 16 cores (GOMAXPROCS=14)              200 s
#   winningmc     the same with CUDA_DEVICE_MAX_CONNECTIONS=32 (more hardware queues than streams)  200 s
#   winninglate   the same with each Run keeping its a, b staging only when it returns
#                 (CUZK_KEEP_EARLY=0), to measure the keep once they are uploaded against   200 s
#   day-setup     the day's other sets: WinningPoSt 32 GiB, WindowPoSt and SnapDeals 512 MiB 120 s
#   day           cuzk bench day (gpu-day.sh STAGE=day)                                      420 s
#   wpost-setup   the 32 GiB WindowPoSt set (the PoRep set removed from /dev/shm first)       200 s
#   wpost         the 32 GiB WindowPoSt through the daemon, 2 alone, 4 two at a time         300 s
#   ni            the NI-PoRep stand-in: 13 proofs of the 32 GiB PoRep request              330 s
#   limit24       the 32 GiB PoRep under 24 GiB, streamed from the file, 2 workers, 3 proofs 130 s
#   limit24map    the same with the file mapped and page-locked (CUZK_FILE_MAP=1)            150 s
#   limit16map    the same under 16 GiB                                                       170 s
#   limit16pairs  the 32 GiB PoRep under 16 GiB from the file, 2 workers, 2 proofs two at a
#                 time, budget PAIRS_BUDGET (56GiB), with pairs off (CUZK_PAIRS=0), then on;
#                 each daemon's timeline kept (timeline-pairs0.csv, timeline-pairs1.csv)    360 s
#   regspan       whether a copy across two separately page-locked ranges is page-locked, and
#                 and the library's allocation                                               30 s
#   lanepin       a lane run's wait (bulk 2^26) while 8 GiB is page-locked whole / in 256 MiB pieces 120 s
#   limit16cache  the same (pairs on, budget 56GiB) without device.stream_cache, then with
#                 CACHE (16GiB) and the budget grown by it; timelines timeline-cache*.csv
#                 (CACHES: the list instead, e.g. "none 16GiB 16GiB@a": @a the copy from a's
#                 first streamed point on, CUZK_STREAM_CACHE_AT=a, instead of the end;
#                 CACHE_COUNT proofs each, default 2; WORKERS device workers, default 2)                           380 s
#   ncu           the H MSM accumulation kernel's counters at 2^24                            60 s
#   chunkmsm      MSMs of 2^23, 2^24 and 2^25 points at the window by size, each phase timed
#                 (CUZK_PROFILE=1): what larger chunks of a streamed query would cost           40 s
#   lanemodes     a 2^22 run on its own context beside a looping 2^27 one, with a third thread
#                 freeing page-locked or device memory, allocating 2 GiB page-locked
#                 buffers, or every core busy (bench lane)                                  180 s
#   pair          2^27 runs on one context, then on two at once (bench pair)                  90 s
#   gotest        device/cuda's tests of the file stream, the result layout, the witness
#                 run, the a, b staging kept while a Run is in flight and the engine's two
#                 workers, once as built and once with the file mapped (CUZK_FILE_MAP=1)   120 s
#   sanitize      TestRunWitness (SAN_RUN: another -test.run) under compute-sanitizer's
#                 memcheck with bin/local's library (SAN_LIB: another folder's): the kernel
#                 and address of a bad access                                                 60 s
#   gotestall     every device/cuda test (not short) with bin/local's library              300 s
#   fp52          the FP64-pipe Fp product (ff/fp52.cuh) checked against the host and timed
#                 against fp_t's (bin/local/fp52_bench, make cuda-fp52)                       40 s
#   check         cuzk_harness check with bin/local's library                             150 s
#   runpair       two partitions in one pass (cuzk_run_pair) with bin/local's library (PAIR_LIB:
#                 another folder's): device/cuda's paired-run, memory-limit and MSM tests, then the
#                 harness's stream checks                                                    150 s
#   pairbench     bench part-limit of the 2^27 partition with B_G2 under 16 and 24 GiB with
#                 bin/local's library (PAIR_LIB): three single runs, then two paired ones   150 s
#   ab            the G1 MSM 2^26, the G2 MSM 2^25 and the partition with B_G2, each library
#                 of AB_LIBS (default bin/base bin/local) in turn, twice                    240 s
#   bisect        TestRunWitness (BISECT_RUN: another -test.run), each kernel launch blocking
#                 (CUDA_LAUNCH_BLOCKING=1), with the library in bin/base (an earlier build,
#                 where present) and with bin/local's                                       160 s
# Usage: STEPS="porep-setup oneshot winning" bash cuda/test/gpu-plan.sh (after cuda/test/pack.sh
#        here, with carry: ["bin/g"])
#        DRY=1 prints the plan without running it (each step taking its estimate).
OUT=${OUT:-/tmp/out}; export OUT
STEPS=${STEPS:-"porep-setup oneshot winning"}
DEADLINE=$(( $(date +%s) + ${DEADLINE_S:-570} ))
P32=/dev/shm/p32-day
mkdir -p "$OUT"
# What cuda/test/pack.sh packed: folder__name.gz to bin/folder/name, the rest to bin/
if [ -d bin/g ] && [ -z "${DRY:-}" ]; then
  for f in bin/g/*.gz; do
    n=$(basename "$f" .gz)
    case "$n" in *__*) out=bin/${n%%__*}/${n#*__};; *) out=bin/$n;; esac
    mkdir -p "$(dirname "$out")" && gunzip -c "$f" > "$out" && chmod +x "$out"
  done
fi
T=cuda/test
# bin/cuda.test, from an older carry's bin/c where pack.sh's bin/g did not bring it
cuda_test() { [ -x bin/cuda.test ] || { gunzip -c bin/c/cuda.test.gz > bin/cuda.test && chmod +x bin/cuda.test; }; }

estimate() {
  case "$1" in
  porep-setup) echo 150;; oneshot) echo 180;; winning|winning14|winningmc|winninglate) echo 200;; day-setup) echo 120;; day) echo 420;;
  wpost-setup) echo 200;; wpost) echo 300;; ni) echo 330;; ncu) echo 60;; chunkmsm) echo 40;;
  gotest) echo 120;; bisect) echo 160;; sanitize) echo 60;; check) echo 150;; fp52) echo 40;; gotestall) echo 300;; runpair) echo 150;; pairbench) echo 150;; ab) echo 150;; lanemodes) echo 180;; pair) echo 90;; limit24) echo 130;; limit24map) echo 150;; limit16map) echo 170;; limit16pairs) echo 360;; limit16cache) echo 380;; regspan) echo 30;; lanepin) echo 120;; *) echo 0;;
  esac
}

run_step() {
  local left=$1
  case "$2" in
  porep-setup) KIND=porep STAGE=setup P=$P32 SETUP_S=$left timeout "$left" bash $T/gpu-kind32.sh 2>&1 | grep -E "setup:|gen-vanilla:|rror" | head -5;;
  oneshot) KIND=porep P=$P32 timeout "$left" bash $T/gpu-oneshot.sh 2>&1 | tail -8;;
  winning|winning14|winningmc|winninglate)
    local tag=steady gm= mc= late=; [ "$2" = winning14 ] && tag=gomax14 gm=14; [ "$2" = winningmc ] && tag=maxconn32 mc=32
    [ "$2" = winninglate ] && tag=keeplate late=0
    env ${gm:+GOMAXPROCS=$gm} ${mc:+CUDA_DEVICE_MAX_CONNECTIONS=$mc} ${late:+CUZK_KEEP_EARLY=$late} TAG=$tag BULK=porep P=$P32 WIN_COUNT=${WIN_COUNT:-20} BULK_COUNT=2 WARM_RUNS=3 WAIT_S=150 timeout "$left" \
      bash $T/gpu-winning-under-load.sh 2>&1 | tail -40;;
  day-setup) STAGE=setup P=$P32 timeout "$left" bash $T/gpu-day.sh 2>&1 | tail -12;;
  day) STAGE=day P=$P32 DAY_S=150 SOLO_S=35 WIN_EVERY=8s timeout "$left" bash $T/gpu-day.sh 2>&1 | tail -70;;
  wpost-setup) rm -rf "$P32"; KIND=wpost STAGE=setup timeout "$left" bash $T/gpu-kind32.sh 2>&1 | grep -E "setup:|gen-vanilla:|rror" | head -5;;
  wpost) KIND=wpost STAGE=prove ALONE=2 COUNT=4 JOBS=2 timeout "$left" bash $T/gpu-kind32.sh 2>&1 | tail -60;;
  ni) KIND=porep STAGE=prove P=$P32 ALONE=0 COUNT=13 JOBS=3 BENCH_S=$(( left - 100 )) timeout "$left" bash $T/gpu-kind32.sh 2>&1 | tail -40;;
  limit24|limit24map|limit16map)
    local lim=24GiB map=; [ "$2" = limit16map ] && lim=16GiB; [ "$2" != limit24 ] && map=1
    CUZK_FILE_MAP=$map STAGE=limit LIMIT=$lim FROMFILE=1 BUDGET=56GiB COUNT=3 JOBS=2 P=$P32 timeout "$left" \
      bash $T/gpu-porep32.sh 2>&1 | grep -E "params:|wall|latency|utilization|  kernel |stream_|  total |peak RSS|rror" | head -30;;
  limit16pairs) for pairs in 0 1; do echo "--- CUZK_PAIRS=$pairs"; CUZK_PAIRS=$pairs STAGE=limit LIMIT=16GiB FROMFILE=1 \
      BUDGET=${PAIRS_BUDGET:-56GiB} COUNT=2 JOBS=2 P=$P32 timeout $(( left / 2 - 5 )) bash $T/gpu-porep32.sh 2>&1 \
      | grep -E "wall|utilization|  kernel |stream_|peak RSS|beyond|rror|WARN|memory_used" | head -17
      cp $OUT/timeline-limit.csv $OUT/timeline-pairs$pairs.csv 2>/dev/null; done;;
  limit16cache) for cache in ${CACHES:-none ${CACHE:-16GiB}}; do [ "$cache" = none ] && cache=; at=; case "$cache" in *@*) at=${cache#*@}; cache=${cache%@*};; esac
      b=56; [ -n "$cache" ] && b=$(( 56 + ${cache%GiB} ))
      echo "--- stream_cache ${cache:-none}${at:+ from $at}, budget ${b}GiB"; CUZK_STREAM_CACHE_AT=$at CACHE=$cache STAGE=limit LIMIT=16GiB FROMFILE=1 \
      BUDGET=${b}GiB COUNT=${CACHE_COUNT:-2} JOBS=2 P=$P32 timeout $(( left / 2 - 5 )) bash $T/gpu-porep32.sh 2>&1 \
      | grep -E "wall|utilization|  kernel |stream_|peak RSS|beyond|rror|WARN|memory_used|memory_claims" | head -24
      cp $OUT/timeline-limit.csv $OUT/timeline-cache${cache:-0}${at}.csv 2>/dev/null; done;;
  gotest) cuda_test
    for map in "" 1; do echo "CUZK_FILE_MAP=${map:-off}"; (cd device/cuda && CUZK_FILE_MAP=$map CUZK_CUDA_LIB=$PWD/../../bin/local/libcuzk_cuda.so \
      timeout $(( left / 2 - 5 )) ../../bin/cuda.test -test.run 'StreamFromFile|StreamCache|CacheRange|StreamLayout|FileOffsets|ResultLayout|HostTimes|Witness|KeepsStagingEarly|EngineTwoWorkers' \
      -test.v 2>&1 | grep -E "^(--- |ok|FAIL|PASS)" | head -40); done;;
  bisect) cuda_test
    for lib in ${BISECT_LIBS:-bin/base bin/local}; do [ -f $lib/libcuzk_cuda.so ] || continue; echo "library $lib"
      (cd device/cuda && CUDA_LAUNCH_BLOCKING=1 CUZK_CUDA_LIB=$PWD/../../$lib/libcuzk_cuda.so timeout $(( left / 2 - 5 )) \
        ../../bin/cuda.test -test.run "${BISECT_RUN:-TestRunWitness\$}" -test.v 2>&1 | grep -vE "^=== |witness_test.go:281" | tail -25); done;;
  sanitize) cuda_test
    (cd device/cuda && CUZK_CUDA_LIB=$PWD/../../${SAN_LIB:-bin/local}/libcuzk_cuda.so timeout $(( left - 5 )) \
      /usr/local/cuda/bin/compute-sanitizer --tool memcheck --print-limit 8 --show-backtrace device \
      ../../bin/cuda.test -test.run "${SAN_RUN:-TestRunWitness\$}" -test.v 2>&1 | grep -vE "^=== |witness_test.go:281" | head -80);;
  gotestall) cuda_test
    (cd device/cuda && CUZK_CUDA_LIB=$PWD/../../bin/local/libcuzk_cuda.so timeout $(( left - 5 )) ../../bin/cuda.test -test.v \
      2>&1 | grep -E "^(--- |ok|FAIL|PASS)|panic" > $OUT/gotestall.txt; grep -c "^--- PASS" $OUT/gotestall.txt; grep -vE "^--- PASS" $OUT/gotestall.txt | head -30);;
  fp52) timeout "$left" bin/local/fp52_bench 2>&1 | tail -16;;
  check) timeout "$left" bin/local/cuzk_harness check 2>&1 | grep -vE "^  ok|^ok " | tail -25;;
  runpair) cuda_test; pl=${PAIR_LIB:-bin/local}; cp -n bin/local/cuzk_harness $pl/ 2>/dev/null
    (cd device/cuda && CUZK_CUDA_LIB=$PWD/../../$pl/libcuzk_cuda.so timeout 90 ../../bin/cuda.test -test.short \
      -test.run 'TestRunPair|TestMemoryLimitSums|TestStreamLayout|TestProveVerify$|TestMSM|TestFinishB2' -test.v 2>&1 \
      | grep -E "^(--- |ok|FAIL|PASS)|panic|pair_test.go|limit_test.go:1[1-9]" | grep -v "^--- PASS.*/" | head -40)
    timeout $(( left - 95 )) $pl/cuzk_harness check-stream 2>&1 | grep -E "FAIL|differ|stream:|rror" | head -20;;
  chunkmsm) CUZK_PROFILE=1 timeout "$left" bin/local/cuzk_harness bench msm 27 25 23 2>&1 | tail -40;;
  pairbench) timeout "$left" ${PAIR_LIB:-bin/local}/cuzk_harness bench part-limit 27 130000000 16G 24G g2 2>&1 | grep -vE "^  plan|B_G2 streamed" | tail -24;;
  ab) for lib in ${AB_LIBS:-bin/base bin/local}; do cp -n bin/local/cuzk_harness $lib/ 2>/dev/null; done
    for round in 1 2; do for lib in ${AB_LIBS:-bin/base bin/local}; do echo "--- $lib round $round"
      timeout $(( left / 5 )) $lib/cuzk_harness bench msm 27 26 26 2>&1 | tail -2
      timeout $(( left / 5 )) $lib/cuzk_harness bench msm-g2 25 25 2>&1 | tail -2
      [ $round = 1 ] && timeout $(( left / 5 )) $lib/cuzk_harness bench part 27 27 27 130000000 g2 2>&1 | tail -4
    done; done;;
  lanemodes) MODES=pinned,free,devfree,cpuload,allocbig timeout "$left" bin/local/cuzk_harness bench lane 27 130000000 22 3500000 8 2>&1 | tail -8;;
  pair) timeout "$left" bin/local/cuzk_harness bench pair 27 130000000 8 2>&1 | tail -4;;
  regspan) timeout "$left" bin/local/cuzk_harness bench regspan 2>&1 | tail -8;;
  lanepin) MODES=pinned,bigpin,pinpieces timeout "$left" bin/local/cuzk_harness bench lane 26 65000000 22 3500000 12 2>&1 | tail -6;;
  ncu) timeout "$left" /usr/local/cuda/bin/ncu -k regex:msm_acc_chunks -c 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section WarpStateStats --metrics sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active \
    bin/local/cuzk_harness bench msm 24 24 24 2>&1 | grep -vE "^==PROF==" | tail -60;;
  *) echo "unknown step $2"; return 2;;
  esac
}

dry_spent=0  # DRY: the estimates of the steps planned so far stand for their time
for s in $STEPS; do
  now=$(( $(date +%s) + dry_spent )); left=$(( DEADLINE - now )); need=$(estimate "$s")
  if [ "$need" -eq 0 ]; then echo "=== $s: unknown step"; continue; fi
  if [ "$left" -lt "$need" ]; then echo "=== $s: skipped ($left s left, it needs ≈ $need s)"; continue; fi
  echo "=== $s ($left s left) $(date -u +%T)"
  if [ -n "$DRY" ]; then dry_spent=$(( dry_spent + need )); continue; fi
  t0=$(date +%s)
  run_step "$left" "$s"
  echo "=== $s: $(( $(date +%s) - t0 )) s"
done
if [ -z "$DRY" ]; then
  (cd "$OUT" && tar czf out.tgz --exclude out.tgz --exclude log -- * 2>/dev/null && find . -type f ! -name out.tgz ! -name log -delete)
  ls -la "$OUT"
fi
