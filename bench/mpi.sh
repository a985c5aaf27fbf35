#!/bin/sh
# The partition under mpirun on this machine (issue 37): rmat SCALE x 12
# with 8 features, converted once, then partitioned into 4 parts with
# --balance_train --balance_edges by one process (dglpart partition, the
# reference) and by P = 1, 2, 4 ranks (mpirun, the distributed path).
# Prints for each: wall, every rank's peak RSS and bytes sent per phase
# (partition-stats.json), the edge cut and its ratio to one process's, the
# largest rank peak as a ratio of one process's. Then bench/mpi_model.py
# fits per-phase costs to the runs and extrapolates to 8 and 32 machines.
# With P ranks on 2 cores the wall cannot fall here; memory per rank can.
#
#   flock /tmp/dglpart-bench.lock sh bench/mpi.sh          (SCALES="23 25")
#
# Needs per scale-23 graph (100M edges): input 1.2 GB, converted dataset
# 0.9 GB, parts 5.7 GB per run (removed after each); about 10 minutes.
# Scale 25 (400M edges): input 7.4 GB, dataset 4.6 GB, parts 22 GB per
# run, up to 9 GB of memory for 4 ranks; about 90 minutes.
# Target: at rmat 23, the largest rank's peak <= 0.45x one process's at
# P = 4.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
scales=${SCALES:-23}
ranks=${RANKS:-"1 2 4"}
flags=${FLAGS:---balance_train --balance_edges}
PY=/usr/bin/python3
# shellcheck source=bench/mpi_lib.sh
. "$top/bench/mpi_lib.sh"
make -C "$top" -s -j2 dglpart build/rel/bench/gengraph

for s in $scales; do
    g="$bd/rmat$s"
    rmat_graph "$s"
    echo "rmat $s x 12, 4 parts ($flags):"
    rm -rf "$bd/one"
    # shellcheck disable=SC2086
    set -- $(wall_rss "$top/dglpart" partition "$g-ds" --num_parts 4 $flags \
        --output "$bd/one")
    one_s=$1 one_kib=$2
    one_cut=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["edge_cut"])' \
        "$bd/one/partition-stats.json")
    echo "  one process: $one_s s, peak RSS $((one_kib / 1024)) MiB, cut $one_cut"
    rm -rf "$bd/one" # the disk for the ranks' parts
    for p in $ranks; do
        rm -rf "$bd/p$p"
        # one rank runs the distributed path too: the model fits its root
        # shellcheck disable=SC2086
        set -- $(DGLPART_TEST_DIST_ONE=1 wall_rss mpirun --allow-run-as-root \
            --oversubscribe -np "$p" \
            "$top/dglpart" partition "$g-ds" --num_parts 4 $flags \
            --output "$bd/p$p")
        cp "$bd/p$p/partition-stats.json" "$bd/stats-$s-$p.json"
        $PY - "$bd/p$p/partition-stats.json" "$1" "$one_kib" "$one_cut" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
wall, one_kib, one_cut = float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
r = s["ranks"]
peak = max(x["peak_rss"] for x in r)
print("  %d ranks: %.1f s, cut %d (%.3fx one process), largest rank peak "
      "%d MiB (%.2fx one process)" % (len(r), wall, s["edge_cut"],
      s["edge_cut"] / one_cut, peak >> 20, peak / 1024 / one_kib))
for x in r:
    print("    rank %d: graph %.1f s, sent %.1f MB, peak %d MiB; partition "
          "%.1f s, %.1f MB, %d MiB; parts %.1f s, %.1f MB, %d MiB" % (
          x["rank"], x["graph_s"], x["graph_bytes"] / 1e6,
          x["graph_peak_rss"] >> 20, x["partition_s"],
          x["partition_bytes"] / 1e6, x["partition_peak_rss"] >> 20,
          x["parts_s"], x["parts_bytes"] / 1e6, x["parts_peak_rss"] >> 20))
EOF
        rm -rf "$bd/p$p"
    done
done
$PY "$top/bench/mpi_model.py" "$bd"/stats-*.json
