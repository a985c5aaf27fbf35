#!/bin/sh
# Benchmark dglpart verify on rmat21 (see bench/partition.sh for the graph):
# wall time and peak RSS of verify on a 4-part, 1-hop partition set, next to
# those of the 'dglpart partition' run that wrote it (random assignment, so
# METIS time does not dominate). Heavy: runs under the shared bench lock.
#   DGLPART=./dglpart  binary to verify with
#   PART_BIN=$DGLPART  binary that converts and partitions
#   DATA=/work/benchdata/dglfile  cache of the dataset and the parts
set -eu
DGLPART=${DGLPART:-./dglpart}
PART_BIN=${PART_BIN:-$DGLPART}
RAW=${RAW:-/work/benchdata/rmat21}
DATA=${DATA:-/work/benchdata/dglfile}
LOCK=/tmp/dglpart-bench.lock
mkdir -p "$DATA"

timed() {  # log cmd...: run under /usr/bin/time -v, keep its report
    log=$1; shift
    flock "$LOCK" /usr/bin/time -v "$@" >"$log.out" 2>"$log" || {
        tail -n 30 "$log" >&2
        return 1
    }
}
secs() { sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$1" |
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'; }
rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }

if [ ! -f "$DATA/rmat21/meta.json" ]; then
    timed "$DATA/convert.log" "$PART_BIN" convert "$RAW" --out "$DATA/rmat21"
fi
if [ ! -f "$DATA/parts/rmat21.json" ]; then
    rm -rf "$DATA/parts"
    timed "$DATA/partition.log" "$PART_BIN" partition "$DATA/rmat21" \
        --num_parts 4 --part_method random --seed 1 --output "$DATA/parts"
fi
timed "$DATA/verify.log" "$DGLPART" verify "$DATA/parts/rmat21.json" \
    --dataset "$DATA/rmat21"
cat "$DATA/verify.log.out"
pt=$(secs "$DATA/partition.log"); vt=$(secs "$DATA/verify.log")
pr=$(rss "$DATA/partition.log"); vr=$(rss "$DATA/verify.log")
awk -v pt="$pt" -v vt="$vt" -v pr="$pr" -v vr="$vr" 'BEGIN {
    printf "partition: %.1f s, peak RSS %.2f GB\n", pt, pr / 1048576
    printf "verify --dataset: %.1f s, peak RSS %.2f GB\n", vt, vr / 1048576
    printf "ratio verify/partition: time %.2f, RSS %.2f\n", vt / pt, vr / pr
}'
