#!/bin/sh
# bench/runtime_share.sh: the runtime as DGL runs it, on rmat 20 x 16 with
# 32 float32 features (bench/gengraph, cut by bench/rt_mkparts; made once
# under $BENCHDATA, default /work/benchdata), on simulated hosts
# (tests/e2e/hosts.sh: each its own /dev/shm):
#  (a) the servers' summed PSS (/proc/PID/smaps_rollup) with S = 1, 2, 4
#      servers of the one-part set on one host, after a trainer's requests;
#      ratio to S = 1 (target S = 4 <= 1.15);
#  (c) start-up: from starting S servers to the last one accepting a
#      connection (it listens only once its part is loaded); best of
#      ROUNDS, ratio to S = 1 (target S = 4 <= 1.2);
#  (b) throughput, fanouts 25,10, batch 1000: sampled edges/s and batches/s
#      for M = 0, 1, 2 samplers, standalone (one part) and through dglpart
#      launch on two hosts (two parts, one trainer per host) with S = 1, 2;
#      standalone also with --compute K, a trainer whose own work per batch
#      is about the sampling time (the time it waits shows the overlap).
# DGL's DistGraph and DistDataLoader on the same parts: bench/runtime_dgl.sh.
#   usage: make bench && flock /tmp/dglpart-bench.lock sh bench/runtime_share.sh [ROUNDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/e2e/lib.sh"
. "$here/../tests/e2e/hosts.sh"
HOSTS_NET=127.0.9
TOP=$(cd "$here/.." && pwd)
mkdir -p "$TMP/bin"
cp "$TOP/build/rel/dglpart" "$TMP/bin/" || exit 1
DP="$TMP/bin/dglpart"
ROUNDS=${1:-3}
BD=${BENCHDATA:-/work/benchdata}
ONE=$BD/rmat20-rt1/rmat20.json
TWO=$BD/rmat20-rt2/rmat20.json
unset DGLPART_SHM_DIR # the hosts' own /dev/shm

peak() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1" | awk '{printf "%.0f MB", $1/1024}'; }
ms() { date +%s%3N; }
. "$here/rt_sets.sh"
rt_sets "$TOP" "$BD" || exit 1

hosts_start 2 "$TMP/ws" || { echo "simulated hosts need root and unshare" >&2; exit 1; }
H0=$(host_ip 0)
PORT=$(hosts_pick_port)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores; other jobs share them)"
echo "input: rmat 20 x 16 (1,048,576 nodes, 16,777,216 edges), 32 float32 features"

# serve0 NAME S ARGS: S servers of the one-part set on host 0 (pids in $sp)
serve0() {
    _name=$1 _S=$2
    shift 2
    echo "$H0 $PORT" >"$TMP/ip1.txt"
    sp=""
    _s=0
    while [ "$_s" -lt "$_S" ]; do
        rm -f "$TMP/$_name.$_s.pid"
        nsenter -t "$(cat "$HOSTS_DIR/pid.0")" -m -- sh -c "echo \$\$ >'$TMP/$_name.$_s.pid'; exec '$DP' serve --part_config '$ONE' --ip_config '$TMP/ip1.txt' --server_id $_s --num_servers $_S $*" 2>"$TMP/$_name.$_s.err" &
        _s=$((_s + 1))
    done
    _s=0
    while [ "$_s" -lt "$_S" ]; do
        while [ ! -s "$TMP/$_name.$_s.pid" ]; do sleep 0.01; done
        sp="$sp $(cat "$TMP/$_name.$_s.pid")"
        _s=$((_s + 1))
    done
}
# answering S: wait until all S ports accept a connection
answering() {
    python3 - "$H0" "$PORT" "$1" <<'EOF'
import socket, sys, time
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
left = set(range(n))
while left:
    for k in list(left):
        try:
            socket.create_connection((host, port + k), timeout=5).close()
            left.discard(k)
        except OSError:
            pass
    time.sleep(0.005)
EOF
}
stop() {
    # shellcheck disable=SC2086
    kill $sp 2>/dev/null
    for _p in $sp; do
        while [ -d "/proc/$_p" ] && [ "$(awk '{print $3}' "/proc/$_p/stat")" != Z ]; do sleep 0.05; done
    done
}

# ---- (c) start-up, and (a) memory ----
serve0 warm 1 --keep_alive # page cache warm for everyone
answering 1
stop
echo
echo "start-up until the last of S servers accepts (best of $ROUNDS rounds, S=1,2,4 in turn in"
echo "each round), the servers' CPU time to get there, and after a trainer's requests their"
echo "summed PSS and largest peak RSS:"
cpu() { # utime + stime of the pids, in seconds
    for _p in "$@"; do awk '{ print $14 + $15 }' "/proc/$_p/stat"; done |
        awk -v hz="$(getconf CLK_TCK)" '{ s += $1 } END { printf "%.2f", s / hz }'
}
r=0
while [ "$r" -lt "$ROUNDS" ]; do
    for S in 1 2 4; do
        t0=$(ms)
        serve0 "up$S.$r" "$S" --keep_alive
        answering "$S"
        t=$(($(ms) - t0))
        eval "b=\${up$S:-}"
        if [ -z "$b" ] || [ "$t" -lt "$b" ]; then
            eval "up$S=$t cpu$S=$(cpu $sp)"
        fi
        if [ "$r" = 0 ]; then
            "$DP" sample --part_config "$ONE" --ip_config "$TMP/ip1.txt" --num_servers "$S" \
                --local_part -1 --feat feat --label label --fanouts 25,10 >/dev/null 2>&1
            eval "pss$S=$(for p in $sp; do awk '/^Pss:/ { print $2 }' "/proc/$p/smaps_rollup"; done |
                awk '{ s += $1 } END { printf "%d", s / 1024 }')"
            eval "rss$S=$(for p in $sp; do awk '/^VmHWM/ { print $2 }' "/proc/$p/status"; done |
                awk '{ if ($1 > m) m = $1 } END { printf "%d", m / 1024 }')"
        fi
        stop
    done
    r=$((r + 1))
done
for S in 1 2 4; do
    eval "t=\$up$S c=\$cpu$S p=\$pss$S m=\$rss$S"
    printf "  S=%d: up in %5.2f s (%.2fx S=1; servers' CPU %s s), summed PSS %4d MB (%.2fx S=1), largest peak RSS %d MB\n" \
        "$S" "$(echo "$t / 1000" | bc -l)" "$(echo "$t / $up1" | bc -l)" "$c" \
        "$p" "$(echo "$p / $pss1" | bc -l)" "$m"
done

# ---- (b) throughput ----
SARGS="--feat feat --label label --fanouts 25,10 --batch_size 1000 --seed 1"
rates() { # the epoch line: edges/s, batches/s, waited
    sed -n 's/.*in \([0-9.]*\) s: \([0-9]*\) edges\/s, \([0-9.]*\) batches\/s.*/\2 edges\/s \3 batches\/s/p' "$1" | tail -n 1
}
waited() { sed -n 's/.*the trainer waited \([0-9.]*\) s.*/, the trainer waited \1 s/p' "$1" | tail -n 1; }
echo
echo "standalone, one part (trainer peak RSS; ratios to M=0):"
for K in 0 8; do
    for M in 0 1 2; do
        /usr/bin/time -v "$DP" sample --part_config "$ONE" --standalone $SARGS --num_samplers $M \
            --compute $K >"$TMP/sa.out" 2>"$TMP/sa.err"
        e=$(rates "$TMP/sa.err" | awk '{print $1}')
        [ "$M" = 0 ] && e0=$e
        printf "  --compute %d, M=%d: %s (%.2fx)%s, peak RSS %s, %s\n" "$K" "$M" "$(rates "$TMP/sa.err")" \
            "$(echo "$e / $e0" | bc -l)" "$(waited "$TMP/sa.err")" "$(peak "$TMP/sa.err")" "$(cat "$TMP/sa.out")"
    done
done

echo
echo "two hosts, two parts, dglpart launch, one trainer per host (trainer 0's epoch; ratios to S=1 M=0):"
WS=$TMP/ws
awk -v p="$PORT" '{ print $1, p }' "$HOSTS_IPCONFIG" >"$WS/ip_config.txt"
for i in 0 1; do cp "$WS/ip_config.txt" "$(host_dir "$i")/"; done
for S in 1 2; do
    for M in 0 1 2; do
        "$DP" launch --workspace "$WS" --ip_config ip_config.txt --part_config "$TWO" \
            --ssh_opts "-F $HOSTS_CFG" --grace 5 --num_trainers 1 --num_servers $S \
            --num_samplers $M \
            "if [ \"\$DGL_ROLE\" = server ]; then exec $DP serve; else exec $DP sample --part_config $TWO $SARGS; fi" \
            >"$TMP/l.out" 2>"$TMP/l.err" || { echo "  S=$S M=$M: launch failed: $(tail -n 3 "$TMP/l.err")"; continue; }
        grep ':trainer:0\]' "$TMP/l.err" >"$TMP/l0.err"
        e=$(rates "$TMP/l0.err" | awk '{print $1}')
        [ "$S$M" = 10 ] && e10=$e
        printf "  S=%d M=%d: %s (%.2fx)%s; checksums %s\n" "$S" "$M" "$(rates "$TMP/l0.err")" \
            "$(echo "$e / $e10" | bc -l)" "$(waited "$TMP/l0.err")" \
            "$(sed -n 's/^\[.*:trainer:\([01]\)\] checksum /\1:/p' "$TMP/l.out" | tr '\n' ' ')"
    done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
