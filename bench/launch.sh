#!/bin/sh
# bench/launch.sh: on 4 simulated hosts (tests/e2e/hosts.sh), the time from
# `dglpart launch` to all graph servers listening and from Ctrl-C to every
# process of the job gone (targets 1 s and 2 s), against a model of DGL's
# tools/launch.py doing the same: one ssh per process, 0.2 s between
# spawns, and on Ctrl-C its cleanup (ssh `ps | grep`, then one ssh `kill`
# per pid). Also the launcher's peak RSS. Needs root (mount namespaces).
#   usage: make dglpart build/rel/helpers/envprobe
#          flock /tmp/dglpart-bench.lock sh bench/launch.sh [ROUNDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/e2e/lib.sh"
. "$here/../tests/e2e/hosts.sh"
. "$here/../tests/e2e/launch_lib.sh"
HOSTS_NET=127.0.8
# lib.sh finds the tree from $0, which is one level shallower here.
TOP=$(cd "$here/.." && pwd)
# Snapshots of the binaries: a rebuild during a long queue for the lock
# must not change (or break) what is measured.
mkdir -p "$TMP/bin"
cp "$TOP/dglpart" "$TOP/${BUILD:-build/rel}/helpers/envprobe" "$TMP/bin/" || exit 1
DGLPART="$TMP/bin/dglpart"
HELPERS="$TMP/bin"
PROBE="$HELPERS/envprobe"
SHARED=$(cd "$TOP/../shared" && pwd)
ROUNDS=${1:-3}
N=4

lt_setup "$N" metis4-train-edges >/dev/null
cmd="$PROBE --dgl-bind --trainer-port $((LT_PORT + 100)) --sleep 600"

# Poll until every host's server port listens; prints the elapsed ms.
wait_listening() {
    while :; do
        k=$(ss -Hltn "( sport = :$LT_PORT )" 2>/dev/null | wc -l)
        [ "$k" -ge "$N" ] && break
        sleep 0.01
    done
    echo $(($(lt_ms) - $1))
}

# Poll until no host runs anything but sshd's listener (one `ls` of every
# process's mount namespace per poll) and the job's ports are free; prints
# the elapsed ms.
wait_gone() {
    nss=""
    lis=""
    i=0
    while [ "$i" -lt "$N" ]; do
        nss="$nss $(cat "$HOSTS_DIR/ns.$i")"
        lis="$lis $(cat "$HOSTS_DIR/pid.$i")"
        i=$((i + 1))
    done
    while :; do
        left=$(ls -l /proc/[0-9]*/ns/mnt 2>/dev/null | awk -v nss="$nss" \
            -v lis="$lis" 'BEGIN { split(nss, a); for (k in a) ns[a[k]] = 1
                                   split(lis, b); for (k in b) skip[b[k]] = 1 }
            ($NF in ns) { split($(NF - 2), p, "/"); if (!(p[3] in skip)) print p[3] }')
        # Zombies hold nothing (and the init here never reaps them).
        [ -n "$left" ] && left=$(ps -o stat= -p "$(echo $left | tr ' ' ,)" |
            grep -v '^Z')
        if [ -z "$left" ] && ! ss -Hltn 2>/dev/null |
            grep -q ":$LT_PORT \|:$((LT_PORT + 100)) "; then
            break
        fi
        sleep 0.01
    done
    echo $(($(lt_ms) - $1))
}

# The launch.py model: servers then one client command per host.
pyref_start() {
    i=0
    while [ "$i" -lt "$N" ]; do
        ip=$(host_ip "$i")
        ssh -F "$HOSTS_CFG" "$ip" "cd $WS; (export DGL_ROLE=server \
DGL_NUM_SAMPLER=0 OMP_NUM_THREADS=1 DGL_NUM_CLIENT=8 \
DGL_CONF_PATH=data/cora.json DGL_IP_CONFIG=ip_config.txt DGL_NUM_SERVER=1 \
DGL_GRAPH_FORMAT=csc DGL_SERVER_ID=$i; $cmd)" >/dev/null 2>&1 &
        REFPIDS="$REFPIDS $!"
        sleep 0.2
        i=$((i + 1))
    done
    i=0
    while [ "$i" -lt "$N" ]; do
        ip=$(host_ip "$i")
        ssh -F "$HOSTS_CFG" "$ip" "cd $WS; (export DGL_DIST_MODE=distributed \
DGL_ROLE=client DGL_NUM_SAMPLER=0 DGL_NUM_CLIENT=8 \
DGL_CONF_PATH=data/cora.json DGL_IP_CONFIG=ip_config.txt DGL_NUM_SERVER=1 \
DGL_GRAPH_FORMAT=csc OMP_NUM_THREADS=1 DGL_GROUP_ID=0 RANK=$((2 * i)) \
LOCAL_RANK=0 LOCAL_WORLD_SIZE=1; $cmd)" >/dev/null 2>&1 &
        REFPIDS="$REFPIDS $!"
        sleep 0.2
        i=$((i + 1))
    done
}

# launch.py's cleanup: per host, list the matching processes over ssh,
# kill each with its own ssh, then check again. (The hosts share one pid
# namespace, so the match is on this run's own probe path.)
pyref_stop() {
    i=0
    while [ "$i" -lt "$N" ]; do
        ip=$(host_ip "$i")
        pids=$(ssh -F "$HOSTS_CFG" "$ip" "ps -aux | grep '$PROBE' | grep -v grep" |
            awk '{ print $2 }' | sort -n)
        for p in $pids; do
            ssh -F "$HOSTS_CFG" "$ip" "kill $p" 2>/dev/null
        done
        ssh -F "$HOSTS_CFG" "$ip" "ps -p $(echo $pids | tr ' ' ,) -h" \
            >/dev/null 2>&1
        i=$((i + 1))
    done
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

: >"$TMP/up.ours"
: >"$TMP/down.ours"
: >"$TMP/up.nomux"
: >"$TMP/up.ref"
: >"$TMP/down.ref"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
    for mode in ours nomux; do
        t0=$(lt_ms)
        if [ "$mode" = nomux ]; then
            DGLPART_SSH_MUX=0 lt_launch_bg --num_trainers 2 --num_servers 1 "$cmd"
        else
            (exec /usr/bin/time -v -o "$TMP/rss" $DGLPART launch \
                --workspace "$WS" --ip_config ip_config.txt \
                --part_config data/cora.json --ssh_opts "-F $HOSTS_CFG" \
                --grace 0.5 --num_trainers 2 --num_servers 1 "$cmd") \
                >"$OUT" 2>"$ERR" &
            LPID=$!
        fi
        wait_listening "$t0" >>"$TMP/up.$mode"
        lt_wait_up "$OUT" $((3 * N)) || echo "job did not come up" >&2
        # Ctrl-C goes to the launcher (under time: its child).
        target=$LPID
        [ "$mode" = ours ] && target=$(pgrep -P "$LPID" | head -n 1)
        t1=$(lt_ms)
        kill -INT "$target"
        if [ "$mode" = ours ]; then
            wait_gone "$t1" >>"$TMP/down.ours"
        else
            wait_gone "$t1" >/dev/null
        fi
        wait "$LPID"
    done
    t0=$(lt_ms)
    REFPIDS=""
    pyref_start
    wait_listening "$t0" >>"$TMP/up.ref"
    sleep 0.5
    t1=$(lt_ms)
    pyref_stop
    wait_gone "$t1" >>"$TMP/down.ref"
    # shellcheck disable=SC2086
    wait $REFPIDS
    r=$((r + 1))
done

up=$(median <"$TMP/up.ours")
down=$(median <"$TMP/down.ours")
upnm=$(median <"$TMP/up.nomux")
upref=$(median <"$TMP/up.ref")
downref=$(median <"$TMP/down.ref")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$TMP/rss")
echo "dglpart launch, $N hosts x (1 server + 2 trainers), median of $ROUNDS:"
echo "  launch -> all servers listening: ${up} ms (target 1000; no ssh mux ${upnm} ms)"
echo "  Ctrl-C -> every process gone:    ${down} ms (target 2000)"
echo "  launch.py model: ${upref} ms to listening, ${downref} ms to clean up"
awk -v a="$up" -v b="$upref" -v c="$down" -v d="$downref" 'BEGIN {
    printf "  ratio vs launch.py model: start %.2fx, stop %.2fx (lower is better)\n", a / b, c / d }'
echo "  launcher peak RSS: ${rss} kB"
