#!/bin/sh
# Benchmark the Python package against DGL's own partition_graph on one
# in-memory dgl.graph: rmat SCALE x 16 (default 20: 1M nodes, 16.8M edges)
# with a train mask and 16 float features, 4 parts,
# balance_ntypes=train_mask, balance_edges=True, return_mapping=True.
# Each side runs in its own process that builds the same graph; printed:
# the call's wall time and the process's peak RSS (graph included), and
# the ratios. Needs DGL importable by /usr/bin/python3 (DGL_PYTHONPATH: a
# DGL built from source here, never by make test); without it only
# dglpart's side runs (on plain arrays). Disk: about 1.5 GB at scale 20,
# 3 GB at 21. Run under the shared lock:
#   flock /tmp/dglpart-bench.lock sh bench/python.sh        (SCALE=21 ...)
# Target: dglpart <= 0.2x DGL's time and <= 0.6x its peak RSS.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
scale=${SCALE:-20}
parts=${PARTS:-4}
data=${BENCHDATA:-/work/benchdata}/rmat${scale}x16f16
work=${BENCH_OUT:-/work/benchdata/python-bench}
PY=/usr/bin/python3

make -C "$top" -s -j2 dglpart shared >/dev/null
if [ ! -f "$data/raw/data.npz" ]; then
    make -C "$top" -s bench >/dev/null
    "$top/build/rel/bench/gengraph" rmat "$scale" 16 "$data" --seed 7 \
        --feat 16 --format npz
    gzip -dc "$data/split/time/train.csv.gz" >"$data/split/time/train.csv"
fi
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
export PYTHONPATH="$top/python${DGL_PYTHONPATH:+:$DGL_PYTHONPATH}"
export DGLPART_LIBRARY="$top/build/pic/libdglpart.so" DGLBACKEND=pytorch

side() { "$PY" "$top/bench/python_partition.py" "$1" "$data" "$work/$1" \
    "$parts" | tail -n 1; }
if "$PY" -c 'import dgl' 2>/dev/null; then
    set -- $(side dglpart) $(side dgl)
    echo "rmat $scale x 16, $parts parts, in-memory dgl.graph:"
    echo "  dglpart.partition_graph: $2 s, peak RSS $(($3 / 1024)) MiB"
    echo "  dgl.distributed.partition_graph: $5 s, peak RSS $(($6 / 1024)) MiB"
    awk -v a="$2" -v b="$5" -v c="$3" -v d="$6" 'BEGIN {
        printf "  ratios (dglpart / DGL): time %.3fx, peak RSS %.3fx\n",
            a / b, c / d }'
else
    set -- $(side arrays)
    echo "rmat $scale x 16, $parts parts (no DGL here: partition_arrays):"
    echo "  dglpart.partition_arrays: $2 s, peak RSS $(($3 / 1024)) MiB"
fi
