#!/bin/sh
# Runtime benchmark: sampled edges/s for fanouts 25,10 and batch 1000,
# standalone and distributed over loopback (4 servers), and feature gather
# bandwidth next to memcpy. Input: rmat21 (gengraph, /work/benchdata) cut into
# 4 contiguous-range parts in DGL's format by bench/rt_mkparts (made once,
# cached under /work/benchdata/rmat21-rt-range4). No DGL here to compare
# with: the ratios are distributed/standalone and gather/memcpy.
# Usage: sh bench/runtime.sh   (runs under flock /tmp/dglpart-bench.lock)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${DGLPART_BENCH_LOCKED:-}" ]; then
    DGLPART_BENCH_LOCKED=1 exec flock /tmp/dglpart-bench.lock sh "$0" "$@"
fi
cd "$top"
make -s -j2 bench >/dev/null
DP=$top/build/rel/dglpart  # not ./dglpart: that may be a SAN=1 copy
BD=${BENCHDATA:-/work/benchdata}
RAW=$BD/rmat21
PARTS=$BD/rmat21-rt-range4  # outside the dataset: the pipeline hashes all of it
CFG=$PARTS/rmat21.json
EPOCHS=${EPOCHS:-1}
ARGS="--fanouts 25,10 --batch_size 1000 --epochs $EPOCHS --seed 1"
tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

peak() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1" | awk '{printf "%.0f MB", $1/1024}'; }
rate() { sed -n 's/.* \([0-9][0-9]*\) edges\/s.*/\1/p' "$1" | tail -n 1; }

if [ ! -f "$CFG" ]; then
    [ -f "$RAW/raw/edge.csv.gz" ] || { echo "no $RAW/raw: generate rmat21 with gengraph first" >&2; exit 1; }
    echo "making $PARTS (once)" >&2
    rm -rf "$PARTS.tmp"
    /usr/bin/time -v build/rel/bench/rt_mkparts "$RAW" "$PARTS.tmp" 4 100 2>"$tmp/mk.time"
    mv "$PARTS.tmp" "$PARTS"
    echo "  parts made, peak RSS $(peak "$tmp/mk.time")" >&2
fi
echo "input: rmat21 (2,097,152 nodes, 62,914,560 edges), 4 range parts, 100-dim float32 features"

# standalone: every part in this process
/usr/bin/time -v "$DP" sample --part_config "$CFG" --standalone $ARGS >"$tmp/sa.out" 2>"$tmp/sa.err"
sa=$(rate "$tmp/sa.err")
echo "standalone:            $(grep 'epoch [0-9]*:' "$tmp/sa.err" | tail -n 1 | sed 's/^dglpart sample: //')"
echo "                       $sa sampled edges/s, peak RSS $(peak "$tmp/sa.err") ($(cat "$tmp/sa.out"))"

# distributed: 4 servers on loopback; trainer 1 of 1 with part 0 local, then
# a trainer with no local part (every request over TCP)
ports=$(python3 -c 'import socket
ss=[socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1",0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
: >"$tmp/ip.txt"
for p in $ports; do echo "127.0.0.1 $p" >>"$tmp/ip.txt"; done
for s in 0 1 2 3; do
    /usr/bin/time -v timeout 900 "$DP" serve --part_config "$CFG" --ip_config "$tmp/ip.txt" \
        --server_id $s --num_clients 2 2>"$tmp/s$s.err" &
    pids="$pids $!"
done
/usr/bin/time -v "$DP" sample --part_config "$CFG" --ip_config "$tmp/ip.txt" $ARGS >"$tmp/d1.out" 2>"$tmp/d1.err"
d1=$(rate "$tmp/d1.err")
/usr/bin/time -v "$DP" sample --part_config "$CFG" --ip_config "$tmp/ip.txt" --local_part -1 $ARGS >"$tmp/d2.out" 2>"$tmp/d2.err"
d2=$(rate "$tmp/d2.err")
for p in $pids; do wait "$p" || true; done
pids=""
echo "distributed, local p0: $(grep 'epoch [0-9]*:' "$tmp/d1.err" | tail -n 1 | sed 's/^dglpart sample: //')"
echo "distributed, all TCP:  $(grep 'epoch [0-9]*:' "$tmp/d2.err" | tail -n 1 | sed 's/^dglpart sample: //')"
echo "distributed, local p0: $d1 sampled edges/s ($(awk "BEGIN{printf \"%.2f\", $d1/$sa}")x standalone), trainer peak RSS $(peak "$tmp/d1.err") ($(cat "$tmp/d1.out"))"
echo "distributed, all TCP:  $d2 sampled edges/s ($(awk "BEGIN{printf \"%.2f\", $d2/$sa}")x standalone), trainer peak RSS $(peak "$tmp/d2.err") ($(cat "$tmp/d2.out"))"
echo "servers peak RSS:      $(for s in 0 1 2 3; do peak "$tmp/s$s.err"; printf ' '; done)"
[ "$(cat "$tmp/d1.out")" = "$(cat "$tmp/sa.out")" ] && echo "checksums: distributed = standalone" || echo "checksums DIFFER"

# gather: 1M random rows of 400 bytes from part 0 vs memcpy of 400 MB
/usr/bin/time -v build/rel/bench/rt_gather "$CFG" 1000000 >"$tmp/g.out" 2>"$tmp/g.err"
echo "gather:                $(cat "$tmp/g.out"), peak RSS $(peak "$tmp/g.err")"
