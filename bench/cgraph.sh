#!/bin/sh
# Compressed neighbour lists (issue 36) on rmat: bytes per symmetrised
# entry, encode and decode speed against a plain CSR scan, on the fine
# graph and two coarse levels (bench/cgraph.c, one thread, CPU time).
#   sh bench/cgraph.sh [DATASET_DIR ...]
# Default: the converted rmat20 in /tmp/mb/r20, else
# $BENCHDATA/rmat20-csc (made from $BENCHDATA/rmat20 by dglpart convert).
# Target (issue 36): about 2-3 bytes per symmetrised entry on rmat.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bd=${BENCHDATA:-/work/benchdata}
make -C "$top" -s build/rel/bench/cgraph dglpart >/dev/null
if [ $# -eq 0 ]; then
    if [ -f /tmp/mb/r20/indptr.npy ]; then
        set -- /tmp/mb/r20
    else
        [ -f "$bd/rmat20-csc/indptr.npy" ] ||
            "$top/dglpart" convert "$bd/rmat20" --name rmat20 \
                --out "$bd/rmat20-csc" >/dev/null
        set -- "$bd/rmat20-csc"
    fi
fi
for d in "$@"; do
    echo "== $d"
    DGLPART_TEST_ONE_THREAD=1 "$top/build/rel/bench/cgraph" "$d" "${REPS:-3}"
done
