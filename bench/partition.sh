#!/bin/sh
# Benchmark `dglpart` end to end (OGB csv.gz -> DGL partitions: convert,
# METIS, halos, files) against `gpmetis` alone on the same graph in METIS
# format with the same constraints. Input: rmat21 (2.1M nodes, 63M edges,
# OGB layout, shared/tools/gengraph.c) in /work/benchdata/rmat21. Prints wall
# time and peak RSS of both and the ratios. Run under the shared lock:
#   flock /tmp/dglpart-bench.lock sh bench/partition.sh
# Targets (issue 36): dglpart end to end <= 0.12x gpmetis in time, <= 0.1x
# in peak RSS, edge cut <= 1.0x (a graph this size takes the multilevel path; set
# FLAGS="... --metis_mode exact" to time whole-graph METIS instead).
# PARTS (4) and FLAGS (--balance_train --balance_edges) may be overridden;
# FEAT=100 uses rmat21f, the same kind of graph with 100 float features per
# node (as ogbn-products), which the pipeline converts beside METIS.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
name=rmat21${FEAT:+f}
data=${BENCHDATA:-/work/benchdata}/$name
shared=$(cd "$top/../shared" && pwd)
work=${BENCH_OUT:-/work/benchdata/partition-bench}
parts=${PARTS:-4}
flags=${FLAGS:---balance_train --balance_edges}

if [ ! -f "$data/raw/edge.csv.gz" ]; then
    mkdir -p "$(dirname "$data")"
    gen="$(dirname "$data")/gengraph"
    [ -x "$gen" ] || cc -O2 -o "$gen" "$shared/tools/gengraph.c" -lz -lm
    "$gen" rmat 21 30 "$data" --seed 7 ${FEAT:+--feat "$FEAT"}
fi
[ -x "$top/dglpart" ] || make -C "$top" -j2 dglpart >/dev/null

measure() {
    # measure LOG CMD...: prints "seconds kib cpu_seconds"
    log=$1; shift
    /usr/bin/time -v "$@" 2>"$log" >"$log.out" || { cat "$log" >&2; exit 1; }
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" |
           awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
    cpu=$(sed -n 's/.*\(User\|System\) time (seconds): //p' "$log" |
          awk '{ s += $1 } END { print s }')
    echo "$wall $rss $cpu"
}

rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
cat "$data/raw/edge.csv.gz" >/dev/null   # same warm page cache for both

# dglpart end to end, from the csv.gz files, with an empty convert cache
set -- $(measure "$work/dglpart.log" "$top/dglpart" -v --num_parts "$parts" \
    $flags --dataset "$data" --cache "$work/cache" --output "$work/data")
dp_s=$1 dp_kib=$2 dp_cpu=$3
grep -E 'dglpart: .*: [0-9.]+ s' "$work/dglpart.log" | sed 's/^/  /' >&2 || true

# the very graph and vertex weights METIS saw, for gpmetis (not timed)
"$top/dglpart" partition "$work/cache/$name-converted" --num_parts "$parts" \
    $flags --write_metis "$work/$name.graph"
set -- $(measure "$work/gpmetis.log" gpmetis "$work/$name.graph" "$parts")
gp_s=$1 gp_kib=$2 gp_cpu=$3
grep -E 'I/O|Partitioning:' "$work/gpmetis.log.out" | sed 's/^/  gpmetis/' >&2 || true
gp_cut=$(sed -n 's/.*Edgecut: \([0-9]*\).*/\1/p' "$work/gpmetis.log.out")
dp_cut=$(sed -n 's/.*"metis_edge_cut":[^0-9]*\([0-9]*\).*/\1/p' \
    "$work/data/partition-stats.json")

echo "$name, $parts parts, $flags"
awk -v ds="$dp_s" -v dk="$dp_kib" -v dc="$dp_cut" -v du="$dp_cpu" \
    -v gs="$gp_s" -v gk="$gp_kib" -v gc="$gp_cut" -v gu="$gp_cpu" 'BEGIN {
    f = "%-19s %7.1f s wall %7.1f s cpu %7.0f MiB peak RSS  METIS cut %s\n"
    printf f, "dglpart end to end:", ds, du, dk / 1024, dc
    printf f, "gpmetis alone:", gs, gu, gk / 1024, gc
    printf "ratio dglpart/gpmetis: wall %.2fx, cpu %.2fx, peak RSS %.2fx, edge cut %.4fx\n",
        ds / gs, du / gu, dk / gk, dc / gc
    printf "targets: wall 0.12x, peak RSS 0.1x, edge cut 1.0x\n"
}'
