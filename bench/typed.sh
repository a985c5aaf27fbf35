#!/bin/sh
# A typed graph end to end against the homogeneous run of the same size:
# bench/gengraph.c's ogbn-mag-shaped graph (4 node types, 4 edge types,
# 1.94M nodes, 21.1M edges by default) in OGB's heterogeneous layout, and
# the same edges in the homogeneous OGB layout. Times `dglpart convert`,
# `dglpart partition --num_parts 4` (typed: per-type balance, maps, data
# and orig ids, checked in the config) and `dglpart verify --dataset` of
# each, with peak RSS from /usr/bin/time -v. A step that fails is
# reported, not fatal. Data lives in $BENCH_TMP (/tmp), deleted after.
# Run under the shared bench lock:
#   flock /tmp/dglpart-bench.lock sh bench/typed.sh
# NODES, EDGES, FEAT (paper feature dim, 0) and SEED change the graph;
# convert runs REPS times (3), alternating, and the fastest run counts,
# since other jobs share the machine; partition and verify run once.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_TMP:-/tmp/dglpart-bench-typed}
nodes=${NODES:-1939743}
edges=${EDGES:-21111007}
feat=${FEAT:-0}
seed=${SEED:-7}

make -C "$top" -s -j2 dglpart build/rel/bench/gengraph >/dev/null
gen="$top/build/rel/bench/gengraph"
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

measure() {
    # measure NAME CMD...: prints "seconds MiB" or "failed"
    log="$work/$1.log"; shift
    if /usr/bin/time -v "$@" >"$log.out" 2>"$log"; then
        wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" |
               awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
        rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
        echo "$wall $((rss / 1024))"
    else
        echo "failed"
    fi
}

"$gen" mag "$nodes" "$edges" "$work/typed" --seed "$seed" --feat "$feat"
"$gen" mag "$nodes" "$edges" "$work/homo" --seed "$seed" --format homo
echo "input: typed $(du -sh "$work/typed" | cut -f1), homogeneous $(du -sh "$work/homo" | cut -f1)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
best() {
    # best "s1 m1" "s2 m2": the faster run (failed loses), the larger RSS
    case "$1" in ''|failed) echo "$2"; return ;; esac
    case "$2" in failed) echo "$2"; return ;; esac
    echo "$1 $2" | awk '{ printf "%s %d\n", ($3 < $1 ? $3 : $1), ($4 > $2 ? $4 : $2) }'
}
conv_typed= conv_homo=
i=0
while [ "$i" -lt "${REPS:-3}" ]; do
    for kind in typed homo; do
        r=$(measure "conv-$kind" "$top/dglpart" -v convert "$work/$kind" \
            --out "$work/$kind-ds" --overwrite)
        echo "  run $((i + 1)): convert $kind: $r"
        eval "conv_$kind=\$(best \"\$conv_$kind\" \"$r\")"
    done
    i=$((i + 1))
done
# The same edges in the same order: the typed CSC is the homogeneous one.
same=yes
for f in indptr indices eids; do
    cmp -s "$work/typed-ds/$f.npy" "$work/homo-ds/$f.npy" || same=no
done
echo "  typed CSC identical to the homogeneous one: $same"
rm -rf "$work/typed" "$work/homo"
for kind in typed homo; do
    r=$(measure "part-$kind" "$top/dglpart" -v partition "$work/$kind-ds" \
        --num_parts 4 --output "$work/$kind-parts")
    eval "part_$kind=\"$r\""
    echo "  partition $kind: $r"
    [ "$r" = failed ] && tail -n 1 "$work/part-$kind.log" | sed 's/^/    /'
    cfg=
    for f in "$work/$kind-parts"/*.json; do
        case "$f" in */partition-stats.json) ;; *) [ -f "$f" ] && cfg=$f ;; esac
    done
    if [ -n "$cfg" ]; then
        echo "    ntypes: $(python3 -c 'import json, sys
print(" ".join(json.load(open(sys.argv[1]))["ntypes"]))' "$cfg")"
        r=$(measure "verify-$kind" "$top/dglpart" -v verify "$cfg" \
            --dataset "$work/$kind-ds")
    else
        r=failed
    fi
    eval "verify_$kind=\"$r\""
    echo "  verify $kind: $r"
    [ "$r" = failed ] && tail -n 2 "$work/verify-$kind.log" | sed 's/^/    /'
    rm -rf "$work/$kind-parts"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
ratio() {
    # ratio "s1 m1" "s2 m2": time and RSS ratios of the first to the second
    case "$1 $2" in *failed*) echo "-"; return ;; esac
    echo "$1 $2" | awk '{ printf "%.2fx time, %.2fx RSS", $1 / $3, $2 / $4 }'
}
echo "graph: mag-shaped, $nodes nodes, $edges edges, paper feat $feat"
printf '%-10s %-22s %-22s %s\n' step typed homogeneous "typed / homogeneous"
printf '%-10s %-22s %-22s %s\n' convert "$conv_typed" "$conv_homo" "$(ratio "$conv_typed" "$conv_homo")"
printf '%-10s %-22s %-22s %s\n' partition "$part_typed" "$part_homo" "$(ratio "$part_typed" "$part_homo")"
printf '%-10s %-22s %-22s %s\n' verify "$verify_typed" "$verify_homo" "$(ratio "$verify_typed" "$verify_homo")"
echo "(seconds, peak RSS MiB; convert: fastest of ${REPS:-3}, largest RSS)"
