#!/bin/sh
# The servers of a machine share one copy of its part. dglpart launch with
# --num_servers 1, 2 and 4 on two simulated hosts (each with its own
# /dev/shm) gives the standalone checksums; on each host one server builds
# the copy, the others attach, the trainers read their local part through
# it, and nothing is left in /dev/shm afterwards. On a part of a few
# hundred MB made here, 4 servers' summed PSS stays within 1.15x one
# server's. Faults: a main server that dies before publishing (the backup
# builds again and answers the same), one that dies after (the backup keeps
# serving), copies left by killed runs (reused when current, removed when
# stale).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"
. "$(dirname "$0")/launch_lib.sh"

lt_setup 2 metis2-hops2
for i in 0 1; do
    cp -r "$SHARED/fixtures/dgl-cora/metis2-hops2/part0" \
        "$SHARED/fixtures/dgl-cora/metis2-hops2/part1" "$(host_dir "$i")/data/"
done
cp -r "$SHARED/fixtures/dgl-cora/metis2-hops2/part0" \
    "$SHARED/fixtures/dgl-cora/metis2-hops2/part1" "$WS/data/"
sample="$DGLPART sample --part_config data/cora.json --fanouts 5,5 --batch_size 64 --seed 7"
add() { python3 -c 'import sys; print("%016x" % (sum(int(l, 16) for l in sys.stdin) % 2**64))'; }

# shm_left I: dglpart's files in host I's /dev/shm
shm_left() { host_exec "$1" "ls /dev/shm" 2>/dev/null | grep -c '^dglpart-'; }

: >"$TMP/sums"
for r in 0 1 2 3; do
    expect_ok "standalone trainer $r of 4" \
        sh -c "cd '$WS' && RANK=$r WORLD_SIZE=4 $sample --standalone"
    sed -n 's/^checksum //p' "$OUT" >>"$TMP/sums"
done
want=$(add <"$TMP/sums")

for S in 1 2 4; do
    expect_ok "S=$S: launch with $S servers per host" \
        env DGLPART_CONNECT_WAIT=60 $DGLPART -v launch --workspace "$WS" \
        --ip_config ip_config.txt --part_config data/cora.json \
        --ssh_opts "-F $HOSTS_CFG" --grace 5 --num_trainers 2 \
        --num_servers $S \
        "if [ \"\$DGL_ROLE\" = server ]; then exec $DGLPART serve; else exec $sample; fi"
    got=$(sed -n 's/^\[.*:trainer:[0-3]\] checksum //p' "$OUT" | add)
    expect_eq "$got" "$want" "S=$S: checksums add up to the standalone ones"
    for i in 0 1; do
        ip=$(host_ip "$i")
        # the first of the host's servers and trainers builds it
        expect_eq "$(grep -c "^\[$ip:[a-z]*:[0-9]*\] .*[ (]built the shared copy '/dev/shm/dglpart-cora-part$i-" "$ERR")" 1 \
            "S=$S: host $i: one process built part $i's copy"
        expect_eq "$(grep -c "^\[$ip:[a-z]*:[0-9]*\] .*[ (]attached to the shared copy '/dev/shm/dglpart-cora-part$i-" "$ERR")" $((S + 1)) \
            "S=$S: host $i: the other $((S + 1)) attached to it"
        expect_eq "$(grep -c "^\[$ip:server:[0-9]*\] .* listening on .* the shared copy '/dev/shm/dglpart-cora-part$i-" "$ERR")" "$S" \
            "S=$S: host $i: the $S servers serve part $i from it"
        expect_eq "$(grep -c "^\[$ip:trainer:[0-9]*\] .*, part $i local (.* the shared copy '/dev/shm/dglpart-cora-part$i-" "$ERR")" 2 \
            "S=$S: host $i: both trainers read part $i through it"
        expect_eq "$(shm_left "$i")" 0 "S=$S: host $i: /dev/shm is empty after the job"
    done
done
lt_check_clean "after the launches"

# ---- memory: the servers' PSS on a big part ----
BIG=$TMP/big
expect_ok "a one-part set of a few hundred MB" "$HELPERS/rt_bigpart" "$BIG" 1048576 8388608 16
PORT=$(hosts_pick_port)
H0=$(host_ip 0)
spids=""
at_exit 'for p in $spids; do kill -9 $p 2>/dev/null; done'

# wait_gone PID...: until each has exited (60 s at most)
wait_gone() {
    for _p in "$@"; do
        _n=0
        while [ -d "/proc/$_p" ] && [ "$(awk '{print $3}' "/proc/$_p/stat" 2>/dev/null)" != Z ]; do
            [ "$_n" -ge 600 ] && return 1
            sleep 0.1
            _n=$((_n + 1))
        done
    done
}
# serve_on_host NAME CFG IPFILE SERVER_ID NUM_SERVERS ARGS...: dglpart serve
# on host 0 in the background (its own /dev/shm), pid in $TMP/NAME.pid,
# stderr in $TMP/NAME.err
serve_on_host() {
    _name=$1 _cfg=$2 _ip=$3 _id=$4 _ns=$5
    shift 5
    rm -f "$TMP/$_name.pid"
    timeout 900 nsenter -t "$(cat "$HOSTS_DIR/pid.0")" -m -- sh -c "cd / && echo \$\$ >'$TMP/$_name.pid'; exec env -u DGLPART_SHM_DIR $DGLPART serve --part_config '$_cfg' --ip_config '$_ip' --server_id $_id --num_servers $_ns $*" \
        2>"$TMP/$_name.err" &
    _n=0
    while [ ! -s "$TMP/$_name.pid" ] && [ "$_n" -lt 100 ]; do
        sleep 0.1
        _n=$((_n + 1))
    done
    spids="$spids $(cat "$TMP/$_name.pid" 2>/dev/null)"
}
pss_sum() {
    for _p in "$@"; do awk '/^Pss:/ { print $2 }' "/proc/$_p/smaps_rollup"; done |
        awk '{ s += $1 } END { printf "%d", s / 1024 }'
}

echo "$H0 $PORT" >"$TMP/bigip.txt"
for S in 1 4; do
    pids=""
    s=0
    while [ "$s" -lt "$S" ]; do
        serve_on_host "big$S.$s" "$BIG/big.json" "$TMP/bigip.txt" $s $S --keep_alive
        pids="$pids $(cat "$TMP/big$S.$s.pid")"
        s=$((s + 1))
    done
    up=0
    s=0
    while [ "$s" -lt "$S" ]; do
        wait_line "$TMP/big$S.$s.err" "listening on" 300 && up=$((up + 1))
        s=$((s + 1))
    done
    expect_eq "$up" "$S" "PSS: $S servers of the big part up"
    # some requests, so the servers' features and buffers are in use
    expect_ok "PSS: a trainer asks the $S servers" env DGLPART_CONNECT_WAIT=60 \
        "$DGLPART" sample --part_config "$BIG/big.json" --ip_config "$TMP/bigip.txt" \
        --num_servers "$S" --local_part -1 --fanouts 5,5
    eval "pss$S=\$(pss_sum $pids)"
    eval "echo \"# $S servers: summed PSS \$pss$S MB\""
    # shellcheck disable=SC2086
    kill $pids
    wait_gone $pids || fail "PSS: servers stopped"
done
# shellcheck disable=SC2154
if [ -n "$pss1" ] && [ -n "$pss4" ] && [ "$pss1" -gt 100 ] &&
    [ $((pss4 * 100)) -le $((pss1 * 115)) ]; then
    pass "PSS: 4 servers hold $pss4 MB, one $pss1 MB (at most 1.15x)"
else
    fail "PSS: 4 servers hold ${pss4:-?} MB, one ${pss1:-?} MB (at most 1.15x)"
fi
expect_eq "$(shm_left 0)" 0 "PSS: /dev/shm is empty after the servers"

# ---- faults, on a copy of the one-part set ----
ONE=$TMP/one
cp -r "$SHARED/fixtures/dgl-cora/one-part" "$ONE"
FA="--fanouts 5,5 --batch_size 64 --seed 3"
expect_ok "standalone reference" "$DGLPART" sample --part_config "$ONE/cora.json" --standalone $FA
ref=$(sed -n 's/^checksum //p' "$OUT")
PORT=$(hosts_pick_port)
echo "$H0 $PORT" >"$TMP/fip.txt"
echo "$H0 $((PORT + 1))" >"$TMP/backup.txt" # the backup alone

# trainer_on_host DESC: a trainer on host 0 asking the backup only
trainer_on_host() {
    expect_ok "$1" host_exec 0 "env -u DGLPART_SHM_DIR DGLPART_CONNECT_WAIT=60 $DGLPART sample --part_config '$ONE/cora.json' --ip_config '$TMP/backup.txt' $FA"
    expect_eq "$(sed -n 's/^checksum //p' "$OUT")" "$ref" "$1: the standalone checksum"
}

# 1. The main server stops itself with a complete copy not yet published,
# the backup waits for it; the main is killed: the backup builds again.
DGLPART_FAULT=share-stop
export DGLPART_FAULT
serve_on_host main "$ONE/cora.json" "$TMP/fip.txt" 0 2 --num_clients 1
unset DGLPART_FAULT
main=$(cat "$TMP/main.pid")
n=0
while [ "$(awk '{print $3}' "/proc/$main/stat" 2>/dev/null)" != T ] && [ "$n" -lt 600 ]; do
    sleep 0.1
    n=$((n + 1))
done
expect_eq "$(awk '{print $3}' "/proc/$main/stat" 2>/dev/null)" T "main server stopped before publishing"
expect_eq "$(host_exec 0 "ls /dev/shm" | grep -c '^dglpart-cora-part0-[0-9a-f]*\.tmp[0-9]*$')" 1 \
    "its copy is still under a temporary name"
serve_on_host backup "$ONE/cora.json" "$TMP/fip.txt" 1 2 --num_clients 1
wait_line "$TMP/backup.err" "waiting for another process to finish building" 60 &&
    pass "the backup waits for the main's copy" || fail "the backup waits for the main's copy"
kill -9 "$main"
wait_line "$TMP/backup.err" "listening on .*, built the shared copy" 60 &&
    pass "main killed: the backup built the copy itself" ||
    fail "main killed: the backup built the copy itself"
trainer_on_host "trainer served by the backup"
expect_stderr "part 0 local \(attached to the shared copy '/dev/shm/dglpart-cora-part0-" "the trainer maps the backup's copy"
wait_gone "$(cat "$TMP/backup.pid")" && pass "the backup exits after the goodbye" || fail "the backup exits after the goodbye"
expect_eq "$(shm_left 0)" 0 "no copy, lock or temporary file left"

# 2. The main dies after publishing: the backup keeps serving.
serve_on_host main2 "$ONE/cora.json" "$TMP/fip.txt" 0 2 --num_clients 1
wait_line "$TMP/main2.err" "listening on" 60
serve_on_host backup2 "$ONE/cora.json" "$TMP/fip.txt" 1 2 --num_clients 1
wait_line "$TMP/backup2.err" "listening on .*, attached to the shared copy" 60 &&
    pass "second backup attached" || fail "second backup attached"
kill -9 "$(cat "$TMP/main2.pid")"
wait_gone "$(cat "$TMP/main2.pid")"
trainer_on_host "main dead after publishing: the backup still answers"
wait_gone "$(cat "$TMP/backup2.pid")"
expect_eq "$(shm_left 0)" 0 "the backup, last out, removed the copy"

# 3. A server killed -9 leaves its copy: the next run reuses it while the
# set is unchanged, and removes it once the set changes.
serve_on_host dead "$ONE/cora.json" "$TMP/fip.txt" 0 1 --keep_alive
wait_line "$TMP/dead.err" "listening on" 60
kill -9 "$(cat "$TMP/dead.pid")"
wait_gone "$(cat "$TMP/dead.pid")"
old=$(host_exec 0 "ls /dev/shm" | grep '^dglpart-cora-part0-[0-9a-f]*$')
expect_eq "$(echo "$old" | grep -c .)" 1 "a killed server leaves its copy"
serve_on_host again "$ONE/cora.json" "$TMP/fip.txt" 0 1 --num_clients 1
wait_line "$TMP/again.err" "listening on .*, attached to the shared copy '/dev/shm/$old'" 60 &&
    pass "the next run reuses it" || fail "the next run reuses it"
trainer_on_host_main() {
    expect_ok "$1" env DGLPART_CONNECT_WAIT=60 "$DGLPART" sample --part_config "$ONE/cora.json" \
        --ip_config "$TMP/fip.txt" --local_part -1 $FA
    expect_eq "$(sed -n 's/^checksum //p' "$OUT")" "$ref" "$1: the standalone checksum"
}
trainer_on_host_main "trainer on the reused copy"
wait_gone "$(cat "$TMP/again.pid")"
serve_on_host dead2 "$ONE/cora.json" "$TMP/fip.txt" 0 1 --keep_alive
wait_line "$TMP/dead2.err" "listening on" 60
kill -9 "$(cat "$TMP/dead2.pid")"
wait_gone "$(cat "$TMP/dead2.pid")"
touch "$ONE/cora.json" # a changed set: another content id
serve_on_host changed "$ONE/cora.json" "$TMP/fip.txt" 0 1 --num_clients 1
wait_line "$TMP/changed.err" "listening on .*, built the shared copy" 60 &&
    pass "a changed set gets a new copy" || fail "a changed set gets a new copy"
if host_exec 0 "ls /dev/shm" | grep -q "^$old"; then
    fail "the stale copy was removed"
else
    pass "the stale copy was removed"
fi
trainer_on_host_main "trainer on the new copy"
wait_gone "$(cat "$TMP/changed.pid")"
expect_eq "$(shm_left 0)" 0 "nothing left at the end"
finish
