#!/bin/sh
# bench/runtime_dgl.sh: dglpart serve / sample against DGL's DistGraph
# servers and DistNodeDataLoader (bench/rt_dgl.py) on the same partition
# files, runtime_share.sh's rmat 20 x 16 sets with 32 float32 features
# (bench/rt_sets.sh; DGL's load_partition reads them as they are).
# Fanouts 25,10, batch 1000, M = 0, 1, 2 samplers, in three settings:
#   standalone  one part in the trainer's process (DGL_DIST_MODE=standalone;
#               DGL has no sampler processes there, so M = 0 only for it);
#   one host    the one-part set, S = 1, 2 servers and the trainer on
#               simulated host 0 (its own /dev/shm, as DGL's servers need:
#               see below);
#   two hosts   the two-part set, S servers and one trainer on each of two
#               simulated hosts (tests/e2e/hosts.sh); trainer 0's figures.
# Each configuration runs ROUNDS times, ours and DGL's back to back (the
# order swapped every round, as the cores are shared); every run is two
# epochs and the second is timed (DGL builds its sampling format on the
# first); the medians are printed with their ratio ours / DGL.
# The work is the same on both sides: the same train nodes split evenly
# among trainers (104,732 seeds an epoch), the same fanouts without
# replacement, per batch the input nodes' features, the seeds' labels and
# in-degrees; each line prints the sampled edges and feature bytes of both,
# which agree to sampling noise. What differs: DGL's samplers only sample
# and its trainer pulls the features, labels and degrees (as DGL's own
# examples do), where ours gather in the sampler; our trainer hashes every
# edge and feature row for its checksum, which DGL's does not (the ratio is
# against us by that much); every process of both sides has one thread
# (launch.py's OMP_NUM_THREADS on this 2-core machine).
# DGL's servers name their shared memory without the graph's name or part
# ("node~_N~feat-kvdata-"), so each simulated host gets a larger /dev/shm
# of its own, where no other job's DGL can meet them; the trainers are told
# their host's machine number (rt_dgl.py: RT_DGL_MACHINE), which DGL would
# otherwise look up among the addresses of the network interfaces.
#   usage: make bench && flock /tmp/dglpart-bench.lock sh bench/runtime_dgl.sh [ROUNDS]
#   env: DGL_PYTHONPATH (DGL's python folder; default /work/dgl-build/dgl/python),
#        DGL_PYTHON (/usr/bin/python3), WHERE ("sa h1 h2": the settings run),
#        SS ("1 2": servers a host), MS ("0 1 2": samplers)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/e2e/lib.sh"
. "$here/../tests/e2e/hosts.sh"
. "$here/rt_sets.sh"
HOSTS_NET=127.0.10
TOP=$(cd "$here/.." && pwd)
mkdir -p "$TMP/bin"
cp "$TOP/build/rel/dglpart" "$TMP/bin/" || exit 1
DP="$TMP/bin/dglpart"
ROUNDS=${1:-3}
WHERE=${WHERE:-sa h1 h2}
SS=${SS:-1 2}
MS=${MS:-0 1 2}
BD=${BENCHDATA:-/work/benchdata}
ONE=$BD/rmat20-rt1/rmat20.json
TWO=$BD/rmat20-rt2/rmat20.json
EPOCHS=2
SARGS="--feat feat --label label --fanouts 25,10 --batch_size 1000 --seed 1 --epochs $EPOCHS"
unset DGLPART_SHM_DIR # the hosts' own /dev/shm
rt_sets "$TOP" "$BD" || exit 1

PY=${DGL_PYTHON:-/usr/bin/python3}
DGLPY=${DGL_PYTHONPATH:-/work/dgl-build/dgl/python}
DGL="env PYTHONPATH=$DGLPY DGLBACKEND=pytorch PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 $PY $here/rt_dgl.py"
if ! env PYTHONPATH="$DGLPY" DGLBACKEND=pytorch "$PY" -c 'import dgl.distributed' >/dev/null 2>&1; then
    echo "DGL not found ($PY with PYTHONPATH=$DGLPY; set DGL_PYTHON, DGL_PYTHONPATH): dglpart's side only"
    DGL=""
fi

hosts_start 2 "$TMP/ws" || { echo "simulated hosts need root and unshare" >&2; exit 1; }
for i in 0 1; do # a one-part DGL server keeps about 0.6 GB in /dev/shm
    nsenter -t "$(cat "$HOSTS_DIR/pid.$i")" -m -- mount -o remount,size=4g /dev/shm || exit 1
done
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores; other jobs share them)"
echo "input: rmat 20 x 16 (1,048,576 nodes, 16,777,216 edges), 32 float32 features; $ROUNDS rounds, medians"

# bg HOST LOG CMD...: CMD in the background in a session of its own (so
# that reap ends what it spawned too), on simulated host HOST (- for none)
bg() {
    _bh=$1 _log=$2
    shift 2
    if [ "$_bh" = - ]; then
        setsid "$@" >"$_log" 2>&1 &
    else
        setsid nsenter -t "$(cat "$HOSTS_DIR/pid.$_bh")" -m -- "$@" >"$_log" 2>&1 &
    fi
    pids="$pids $!"
}
reap() {
    for _p in $pids; do kill -- "-$_p" 2>/dev/null; done
    sleep 0.2
    for _p in $pids; do kill -9 -- "-$_p" 2>/dev/null; done
    # shellcheck disable=SC2086
    [ -z "$pids" ] || wait $pids 2>/dev/null # never the hosts' sshd
    pids=""
}
pids=""
at_exit reap

# run SIDE WHERE S M: one run, trainer 0's stderr left in $TMP/t0.err
run() {
    _side=$1 _where=$2 _S=$3 _M=$4
    _port=$(hosts_pick_port)
    rm -f "$TMP"/s*.log "$TMP"/t*.err
    case $_where in
    sa) _hosts="-" _cfg=$ONE ;;
    h1) _hosts="0" _cfg=$ONE ;;
    h2) _hosts="0 1" _cfg=$TWO ;;
    esac
    _W=$(echo "$_hosts" | wc -w)
    _nc=$((_W * (1 + _M))) # DGL_NUM_CLIENT: samplers are clients
    for _h in $_hosts; do
        [ "$_h" = - ] && break
        echo "$(host_ip "$_h") $_port"
    done >"$TMP/ip.txt"
    for _h in $_hosts; do
        [ "$_h" = - ] && break
        _s=0
        while [ "$_s" -lt "$_S" ]; do
            _id=$((_h * _S + _s))
            if [ "$_side" = ours ]; then
                bg "$_h" "$TMP/s$_id.log" "$DP" serve --part_config "$_cfg" --ip_config "$TMP/ip.txt" \
                    --server_id $_id --num_servers "$_S" --num_clients $_nc
            else
                # shellcheck disable=SC2086
                bg "$_h" "$TMP/s$_id.log" $DGL server $_id "$TMP/ip.txt" "$_S" $_nc "$_cfg"
            fi
            _s=$((_s + 1))
        done
    done
    if [ "$_side" = dgl ]; then # a connection before it listens would count as a client
        for _l in "$TMP"/s*.log; do
            [ -f "$_l" ] || continue
            wait_line "$_l" 'waiting for connections' 300 || { echo "    dgl server did not start: $(tail -n 2 "$_l")"; reap; return 1; }
        done
    fi
    _tp=""
    _r=0
    for _h in $_hosts; do
        if [ "$_side" = ours ] && [ "$_h" = - ]; then
            # shellcheck disable=SC2086
            bg - "$TMP/t0.err" "$DP" sample --part_config "$_cfg" --standalone --num_samplers "$_M" $SARGS
        elif [ "$_side" = ours ]; then
            # shellcheck disable=SC2086
            bg "$_h" "$TMP/t$_r.err" "$DP" sample --part_config "$_cfg" --ip_config "$TMP/ip.txt" \
                --num_servers "$_S" --rank $_r --world_size "$_W" --num_samplers "$_M" $SARGS
        elif [ "$_h" = - ]; then
            # shellcheck disable=SC2086
            bg - "$TMP/t0.err" env DGL_DIST_MODE=standalone $DGL trainer "$_cfg" rmat20 $EPOCHS
        else
            # shellcheck disable=SC2086
            bg "$_h" "$TMP/t$_r.err" env DGL_DIST_MODE=distributed DGL_NUM_SERVER="$_S" \
                DGL_NUM_SAMPLER="$_M" RT_DGL_MACHINE="$_h" $DGL trainer "$TMP/ip.txt" rmat20 $EPOCHS
        fi
        _tp="$_tp $!"
        _r=$((_r + 1))
    done
    _ok=0
    for _p in $_tp; do
        wait_exit "$_p" 600 && [ "$RC" = 0 ] || _ok=1
    done
    for _p in $pids; do wait_until 60 ended "$_p"; done
    reap
    [ "$_ok" = 0 ] || { echo "    $_side $_where S=$_S M=$_M failed: $(tail -n 3 "$TMP/t0.err")"; return 1; }
}

# the last epoch line: edges/s, batches/s, sampled edges, MB of features
last() {
    sed -n 's/.*epoch [0-9]*: [0-9]* batches, [0-9]* seeds, \([0-9]*\) sampled edges, \([0-9.]*\) MB of features in [0-9.]* s: \([0-9]*\) edges\/s, \([0-9.]*\) batches\/s.*/\3 \4 \1 \2/p' \
        "$TMP/t0.err" | tail -n 1
}
med() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# config WHERE S M: ROUNDS paired runs, then one line of medians
config() {
    _e1="" _b1="" _e2="" _b2="" _rr="" wo="" wd=""
    r=0
    while [ "$r" -lt "$ROUNDS" ]; do
        sides="ours dgl"
        [ $((r % 2)) = 1 ] && sides="dgl ours"
        [ -z "$DGL" ] || { [ "$1" = sa ] && [ "$3" != 0 ]; } && sides=ours
        eo="" ed=""
        for side in $sides; do
            run "$side" "$1" "$2" "$3" || continue
            l=$(last)
            if [ "$side" = ours ]; then
                _e1="$_e1 ${l%% *}" _b1="$_b1 $(echo "$l" | cut -d' ' -f2)" wo=$(echo "$l" | cut -d' ' -f3,4) eo=${l%% *}
            else
                _e2="$_e2 ${l%% *}" _b2="$_b2 $(echo "$l" | cut -d' ' -f2)" wd=$(echo "$l" | cut -d' ' -f3,4) ed=${l%% *}
            fi
        done
        [ -n "$eo" ] && [ -n "$ed" ] && _rr="$_rr $(echo "$eo / $ed" | bc -l)"
        r=$((r + 1))
    done
    case $1 in sa) w="standalone     " ;; h1) w="one host,  S=$2" ;; h2) w="two hosts, S=$2" ;; esac
    printf "  %s M=%d: ours %5.2fM edges/s %6.1f batches/s" "$w" "$3" \
        "$(echo "$(echo "$_e1" | med) / 1000000" | bc -l)" "$(echo "$_b1" | med)"
    if [ -n "$_e2" ]; then
        printf " | DGL %5.2fM edges/s %6.1f batches/s | ours/DGL %.2fx (rounds %s)" \
            "$(echo "$(echo "$_e2" | med) / 1000000" | bc -l)" "$(echo "$_b2" | med)" \
            "$(echo "$(echo "$_e1" | med) / $(echo "$_e2" | med)" | bc -l)" \
            "$(echo "$_rr" | tr ' ' '\n' | grep . | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }')"
        printf "; work: ours %s, DGL %s edges, MB" "$(echo "$wo" | tr ' ' /)" "$(echo "$wd" | tr ' ' /)"
    fi
    echo
}

echo "trainer 0's second epoch (edges/s, batches/s: medians; ratio of the medians, and the range of"
echo "the rounds' own ratios; work: sampled edges / MB of features of one epoch, last round):"
for where in $WHERE; do
    if [ "$where" = sa ]; then
        for M in $MS; do config sa 0 "$M"; done
    else
        for S in $SS; do for M in $MS; do config "$where" "$S" "$M"; done; done
    fi
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
