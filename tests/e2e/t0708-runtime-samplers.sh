#!/bin/sh
# Sampler processes (dglpart sample --num_samplers M, DGL_NUM_SAMPLER under
# dglpart launch): the checksum is the same for M = 0, 1 and 2, standalone
# and on two simulated hosts, where the servers count the samplers among
# their clients and leave by themselves; a sampler killed with -9 fails the
# trainer at once, naming it; samplers end with their trainer (killed, or
# Ctrl-C); a trainer that stops reading leaves each sampler waiting with
# its queue full, never more.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"
. "$(dirname "$0")/launch_lib.sh"

ONE=$SHARED/fixtures/dgl-cora/one-part/cora.json
HET=$SHARED/fixtures/dgl-cora-hetero/hetero-metis2-edges/cora_hetero.json
ARGS="--seed 5 --batch_size 8 --epochs 3 --fanouts 4,3"

# ---- standalone: every M gives the same batches ----
for set in "$ONE" "$HET"; do
    name=$(basename "$set" .json)
    expect_ok "$name: M=0" "$DGLPART" sample --part_config "$set" --standalone $ARGS
    want=$(sed -n 's/^checksum //p' "$OUT")
    for m in 1 2; do
        expect_ok "$name: M=$m" "$DGLPART" sample --part_config "$set" --standalone \
            $ARGS --num_samplers $m
        expect_eq "$(sed -n 's/^checksum //p' "$OUT")" "$want" "$name: M=$m: the checksum of M=0"
        expect_stderr "epoch 2: [0-9]+ batches, 140 seeds, .*\($m samplers: .*the trainer waited" \
            "$name: M=$m: the epochs went through the samplers"
    done
done
expect_ok "DGL_NUM_SAMPLER is the default" env DGL_NUM_SAMPLER=2 "$DGLPART" sample \
    --part_config "$ONE" --standalone $ARGS
expect_stderr "1 parts, 2 samplers" "DGL_NUM_SAMPLER=2: 2 samplers"
expect_fail 2 "a bad DGL_NUM_SAMPLER" env DGL_NUM_SAMPLER=x "$DGLPART" sample \
    --part_config "$ONE" --standalone
expect_fail 2 "a bad --num_samplers" "$DGLPART" sample --part_config "$ONE" \
    --standalone --num_samplers -1
expect_fail 2 "a bad --queue_size" "$DGLPART" sample --part_config "$ONE" \
    --standalone --num_samplers 1 --queue_size 0

# alive PID: running (a zombie is not)
alive() {
    [ -d "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}
# wait_dead SECONDS PID...: 0 once none is alive
wait_dead() {
    _s=$1
    shift
    _n=0
    while :; do
        _any=0
        for _p in "$@"; do alive "$_p" && _any=1; done
        [ "$_any" = 0 ] && return 0
        [ "$_n" -ge $((_s * 10)) ] && return 1
        sleep 0.1
        _n=$((_n + 1))
    done
}
# samplers PID: the trainer's children
samplers() { ps -o pid= --ppid "$1" 2>/dev/null | tr -d ' ' | tr '\n' ' '; }
LONG="--seed 5 --batch_size 1 --epochs 100000 --fanouts 4,3"
tpid=""
at_exit '[ -n "$tpid" ] && kill -9 $tpid 2>/dev/null'

# ---- a sampler killed with -9 ----
"$DGLPART" -v sample --part_config "$ONE" --standalone $LONG --num_samplers 2 \
    >"$TMP/k.out" 2>"$TMP/k.err" &
tpid=$!
wait_line "$TMP/k.err" "sampler 1: batch [0-9]+ ready" || fail "samplers started"
ws=$(samplers "$tpid")
expect_eq "$(echo $ws | wc -w)" 2 "two sampler processes"
victim=$(echo $ws | cut -d' ' -f2)
kill -9 "$victim"
if wait_dead 20 "$tpid"; then pass "the trainer ends within seconds"; else fail "the trainer ends within seconds"; fi
wait "$tpid"
expect_eq "$?" 1 "the trainer fails"
tpid=""
grep -Eq "sampler [01] \(pid $victim\) was killed by signal 9" "$TMP/k.err" &&
    pass "the error names the sampler, its pid and the signal" ||
    fail "the error names the sampler, its pid and the signal"
wait_dead 20 $ws && pass "the other sampler is gone too" || fail "the other sampler is gone too"

# ---- the trainer killed, or Ctrl-C: no sampler stays ----
"$DGLPART" -v sample --part_config "$ONE" --standalone $LONG --num_samplers 2 \
    >/dev/null 2>"$TMP/d.err" &
tpid=$!
wait_line "$TMP/d.err" "sampler 1: batch [0-9]+ ready" || fail "samplers started"
ws=$(samplers "$tpid")
kill -9 "$tpid"
wait "$tpid" 2>/dev/null
tpid=""
wait_dead 20 $ws && pass "trainer killed: its samplers end" || fail "trainer killed: its samplers end"
# Ctrl-C reaches the terminal's foreground group, the trainer and its
# samplers: a group of its own, SIGINT not ignored (as it is for a
# background job of this shell)
python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execv(sys.argv[1], sys.argv[1:])' "$DGLPART" -v sample --part_config "$ONE" \
    --standalone $LONG --num_samplers 2 >/dev/null 2>"$TMP/c.err" &
tpid=$!
wait_line "$TMP/c.err" "sampler 1: batch [0-9]+ ready" || fail "samplers started"
ws=$(samplers "$tpid")
expect_eq "$(echo $ws | wc -w)" 2 "Ctrl-C: two samplers running"
kill -INT "-$tpid"
wait_dead 20 "$tpid" $ws && pass "Ctrl-C: trainer and samplers end" || fail "Ctrl-C: trainer and samplers end"
wait "$tpid" 2>/dev/null
tpid=""

# ---- a trainer that stops reading: each sampler fills its queue, no more ----
"$DGLPART" -v sample --part_config "$ONE" --standalone $LONG --num_samplers 2 \
    --queue_size 6 >/dev/null 2>"$TMP/q.err" &
tpid=$!
wait_line "$TMP/q.err" "sampler 1: batch [0-9]+ ready" || fail "samplers started"
kill -STOP "$tpid"
# Each sampler now runs into its 3 slots and waits for one back: the last
# line of each says so, and none ever had more than 3 batches made ahead
# (tests/unit/test_runtime.c checks the bound against the slots handed back).
full() { grep "sampler $1: " "$TMP/q.err" | tail -n 1 | grep -q "queue full (3 batches), waiting"; }
n=0
while ! { full 0 && full 1; } && [ "$n" -lt 600 ]; do
    sleep 0.1
    n=$((n + 1))
done
full 0 && full 1 && pass "both samplers wait with their queue full" ||
    fail "both samplers wait with their queue full"
most=$(sed -n 's/.*ready (\([0-9]*\) queued).*/\1/p' "$TMP/q.err" | sort -n | tail -n 1)
expect_eq "$most" 3 "at most 3 batches queued per sampler"
ws=$(samplers "$tpid")
kill -9 "$tpid"
wait "$tpid" 2>/dev/null
tpid=""
wait_dead 20 $ws && pass "queue test: samplers end with their trainer" || fail "queue test: samplers end with their trainer"

# ---- on two simulated hosts, through dglpart launch ----
lt_setup 2 metis2-hops2
for i in 0 1; do
    cp -r "$SHARED/fixtures/dgl-cora/metis2-hops2/part0" \
        "$SHARED/fixtures/dgl-cora/metis2-hops2/part1" "$(host_dir "$i")/data/"
done
cp -r "$SHARED/fixtures/dgl-cora/metis2-hops2/part0" \
    "$SHARED/fixtures/dgl-cora/metis2-hops2/part1" "$WS/data/"
sample="$DGLPART sample --part_config data/cora.json --fanouts 5,5 --batch_size 16 --seed 7"
add() { python3 -c 'import sys; print("%016x" % (sum(int(l, 16) for l in sys.stdin) % 2**64))'; }
: >"$TMP/sums"
for r in 0 1 2 3; do
    expect_ok "standalone trainer $r of 4" \
        sh -c "cd '$WS' && RANK=$r WORLD_SIZE=4 $sample --standalone"
    sed -n 's/^checksum //p' "$OUT" >>"$TMP/sums"
done
want=$(add <"$TMP/sums")
for m in 1 2; do
    expect_ok "launch: 2 servers and 2 trainers per host, $m samplers each" \
        env DGLPART_CONNECT_WAIT=60 $DGLPART -v launch --workspace "$WS" \
        --ip_config ip_config.txt --part_config data/cora.json \
        --ssh_opts "-F $HOSTS_CFG" --grace 5 --num_trainers 2 --num_servers 2 \
        --num_samplers $m \
        "if [ \"\$DGL_ROLE\" = server ]; then exec $DGLPART serve; else exec $sample; fi"
    got=$(sed -n 's/^\[.*:trainer:[0-3]\] checksum //p' "$OUT" | add)
    expect_eq "$got" "$want" "launch M=$m: checksums add up to the standalone ones"
    expect_eq "$(grep -c "^\[.*:trainer:[0-3]\] .* $m samplers$" "$ERR")" 4 \
        "launch M=$m: every trainer ran $m samplers"
    s=0
    while [ "$s" -lt 4 ]; do
        expect_stderr "\[$(host_ip $((s / 2))):server:$s\] done" \
            "launch M=$m: server $s left by itself after $((4 * (1 + m))) goodbyes"
        s=$((s + 1))
    done
done
lt_check_clean "after the sampler jobs"
finish
