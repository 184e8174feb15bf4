#!/bin/bash
# cuzk prove --request --device cuda (one process, no daemon) at 32 GiB: peak RSS and time.
#   KIND=snap|winning|wpost|porep (default snap); the set and request from gpu-kind32.sh STAGE=setup
#   under $P; BUDGET (GiB, default 32) is prove's --budget. RSS sampled each second.
OUT=${OUT:-/tmp/out}
KIND=${KIND:-snap}
P=${P:-/dev/shm/p32-$KIND}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
LIB=$PWD/bin/local/libcuzk_cuda.so
[ -f "$LIB" ] || LIB=$PWD/bin/libcuzk_cuda.so
export CUZK_CUDA_LIB=$LIB
cp "$P/public.json" "$OUT/oneshot-public-$KIND.json"
PART=""; [ "$KIND" = wpost ] && PART="--partition 0"
t0=$(date +%s.%N)
/usr/bin/time -f "prove --device cuda: wall %e s, max RSS %M KB" bin/cuzk prove --request "$P/req.json" --device cuda \
  --budget ${BUDGET:-32} --params-dir "$P" --out "$OUT/oneshot-$KIND.bin" --public "$OUT/oneshot-public-$KIND.json" 2>&1 | tail -6 &
pid=$!
sleep 0.5; cp=$(pgrep -n -x cuzk)
( while kill -0 $cp 2>/dev/null; do echo "$(date +%s) $(grep VmRSS /proc/$cp/status 2>/dev/null)" >> "$OUT/oneshot-rss-$KIND.txt"; sleep 1; done ) &
wait $pid
echo "sampled peak RSS: $(awk '{print $3}' "$OUT/oneshot-rss-$KIND.txt" | sort -n | tail -1) kB"
bin/cuzk verify --public "$OUT/oneshot-public-$KIND.json" --params-dir "$P" $PART 2>&1 | tail -1
