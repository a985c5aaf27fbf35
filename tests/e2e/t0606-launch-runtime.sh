#!/bin/sh
# dglpart launch running the dglpart runtime on two simulated hosts: one
# command that is `dglpart serve` under DGL_ROLE=server and a sampling
# trainer (`dglpart sample`) otherwise, both configured by DGL's variables. The trainers' checksums add up to the
# standalone run's, and the servers exit by themselves once their clients
# said goodbye (no SIGTERM needed).
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

# The reference: the same 4 trainers, each standalone (all parts local).
: >"$TMP/sums"
for r in 0 1 2 3; do
    expect_ok "standalone trainer $r of 4" \
        sh -c "cd '$WS' && RANK=$r WORLD_SIZE=4 $sample --standalone"
    sed -n 's/^checksum //p' "$OUT" >>"$TMP/sums"
done
add() { python3 -c 'import sys; print("%016x" % (sum(int(l, 16) for l in sys.stdin) % 2**64))'; }
want=$(add <"$TMP/sums")
expect_eq "$(wc -l <"$TMP/sums")" 4 "standalone checksums"

# A grace far longer than a server needs: one that waited for it to run
# out would be stopped with TERM, not end by itself.
expect_ok "launch servers and trainers of the runtime" \
    env DGLPART_CONNECT_WAIT=60 $DGLPART -v launch --workspace "$WS" \
    --ip_config ip_config.txt --part_config data/cora.json \
    --ssh_opts "-F $HOSTS_CFG" --grace 60 --num_trainers 2 --num_servers 1 \
    "if [ \"\$DGL_ROLE\" = server ]; then exec $DGLPART -v serve; else exec $sample; fi"
expect_eq "$(grep -c '^\[.*:trainer:[0-3]\] checksum ' "$OUT")" 4 "4 trainers reported"
got=$(sed -n 's/^\[.*:trainer:[0-3]\] checksum //p' "$OUT" | add)
expect_eq "$got" "$want" "distributed checksums add up to the standalone ones"
for s in 0 1; do
    expect_stderr "^\[$(host_ip $s):server:$s\] dglpart serve: part $s: goodbye from a trainer \(4 of 4\)$" \
        "server $s counted its 4 trainers' goodbyes"
    # the launcher stops a server only once the 60 s grace has run out
    expect_stderr "\[$(host_ip $s):server:$s\] done \([1-5]?[0-9]\.[0-9]+ s\)$" \
        "server $s exited 0 by itself, within the grace"
done
lt_check_clean "after the runtime job"
finish
