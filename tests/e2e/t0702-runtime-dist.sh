#!/bin/sh
# Distributed sampling on loopback: 4 graph servers (one per part of DGL's
# metis4 cora set, same address, distinct ports) and 2 trainers. The sum of
# the trainers' checksums equals the standalone run's with the same seeds,
# and the servers exit once both trainers said goodbye.
. "$(dirname "$0")/lib.sh"

F=$SHARED/fixtures/dgl-cora/metis4-train-edges
CFG=$F/cora.json
ARGS="--seed 11 --batch_size 16 --epochs 2 --fanouts 4,3"

# free_ports N: N currently unused loopback ports
free_ports() {
    python3 -c 'import socket,sys
ss=[socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1",0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"
}
# addsum HEX...: sum mod 2^64
addsum() { python3 -c 'import sys; print("%016x" % (sum(int(x,16) for x in sys.argv[1:]) % 2**64))' "$@"; }

ports=$(free_ports 4)
: >"$TMP/ip.txt"
for p in $ports; do echo "127.0.0.1 $p" >>"$TMP/ip.txt"; done

spids=""
at_exit 'for p in $spids; do kill $p 2>/dev/null; done'
for s in 0 1 2 3; do
    DGL_ROLE=server DGL_SERVER_ID=$s DGL_NUM_SERVER=1 DGL_NUM_CLIENT=2 \
    DGL_IP_CONFIG=$TMP/ip.txt DGL_CONF_PATH=$CFG \
        timeout 300 "$DGLPART" serve >"$TMP/s$s.out" 2>"$TMP/s$s.err" &
    spids="$spids $!"
done

tpids=""
for r in 0 1; do
    RANK=$r WORLD_SIZE=2 DGL_DIST_MODE=distributed DGL_IP_CONFIG=$TMP/ip.txt \
        timeout 300 "$DGLPART" sample --part_config "$CFG" $ARGS \
        >"$TMP/t$r.out" 2>"$TMP/t$r.err" &
    tpids="$tpids $!"
done
r=0
for p in $tpids; do
    wait "$p"
    expect_eq "$?" 0 "trainer $r exits 0"
    r=$((r + 1))
done
grep -q 'distributed, 4 parts, part 0 local' "$TMP/t0.err" && pass "trainer 0 ran distributed, part 0 local" || fail "trainer 0 ran distributed, part 0 local"
grep -q 'distributed, 4 parts, part 2 local' "$TMP/t1.err" && pass "trainer 1 has part 2 local" || fail "trainer 1 has part 2 local"
d0=$(sed -n 's/^checksum //p' "$TMP/t0.out")
d1=$(sed -n 's/^checksum //p' "$TMP/t1.out")

# servers leave on their own after two goodbyes
s=0
for p in $spids; do
    wait "$p"
    expect_eq "$?" 0 "server $s exits 0 after the goodbyes"
    s=$((s + 1))
done
spids=""
grep -q "part 2 (817 nodes, 1609 edges) listening on 127.0.0.1:" "$TMP/s2.err" && pass "server 2 loaded part 2" || fail "server 2 loaded part 2"

for r in 0 1; do
    expect_ok "standalone rank $r" env RANK=$r WORLD_SIZE=2 "$DGLPART" sample --part_config "$CFG" --standalone $ARGS
    eval "s$r=\$(sed -n 's/^checksum //p' \"\$OUT\")"
done
expect_eq "$d0" "$s0" "trainer 0: distributed checksum = standalone"
expect_eq "$d1" "$s1" "trainer 1: distributed checksum = standalone"
expect_eq "$(addsum "$d0" "$d1")" "$(addsum "$s0" "$s1")" "combined checksums equal"

# the same run through flags, with 2 servers per machine (DGL_NUM_SERVER=2):
# 8 servers, each machine's pair on port and port+1
# 4 machines, each with two free consecutive ports
pairs=$(python3 -c 'import socket
held=[]; out=[]
while len(out) < 4:
    a=socket.socket(); a.bind(("127.0.0.1",0)); p=a.getsockname()[1]; held.append(a)
    b=socket.socket()
    try:
        b.bind(("127.0.0.1",p+1)); held.append(b); out.append(p)
    except OSError:
        pass
print(" ".join(map(str,out)))')
: >"$TMP/ip2.txt"
for p in $pairs; do echo "127.0.0.1 $p" >>"$TMP/ip2.txt"; done
ok=0
[ "$(wc -l <"$TMP/ip2.txt")" = 4 ] && ok=1
if [ "$ok" = 1 ]; then
    for s in 0 1 2 3 4 5 6 7; do
        timeout 300 "$DGLPART" serve --part_config "$CFG" --ip_config "$TMP/ip2.txt" \
            --server_id $s --num_servers 2 --num_clients 2 2>"$TMP/b$s.err" &
        spids="$spids $!"
    done
    # two trainers one after the other (each server counts one goodbye per
    # rank): rank 0 as usual, rank 1 in rounds of at most 3 ids per server
    expect_ok "trainer 0 of 2, 8 servers" timeout 300 "$DGLPART" sample --part_config "$CFG" \
        --ip_config "$TMP/ip2.txt" --num_servers 2 --rank 0 --world_size 2 $ARGS
    expect_eq "$(sed -n 's/^checksum //p' "$OUT")" "$s0" "2 servers per machine: same checksum"
    reqs=$(sed -n 's/.* \([0-9]*\) requests to servers.*/\1/p' "$ERR")
    # sample, degree and gather requests in rounds of at most 3 ids per server
    expect_ok "trainer 1 of 2, requests of 3 ids" env DGLPART_RT_CHUNK=3 \
        timeout 300 "$DGLPART" sample --part_config "$CFG" \
        --ip_config "$TMP/ip2.txt" --num_servers 2 --rank 1 --world_size 2 $ARGS
    expect_eq "$(sed -n 's/^checksum //p' "$OUT")" "$s1" \
        "requests of 3 ids: same checksum"
    many=$(sed -n 's/.* \([0-9]*\) requests to servers.*/\1/p' "$ERR")
    [ -n "$many" ] && [ -n "$reqs" ] && [ "$many" -gt $((reqs * 2)) ] &&
        pass "requests of 3 ids: $many requests instead of $reqs" ||
        fail "requests of 3 ids: $many requests instead of $reqs"
    bad=0
    for p in $spids; do wait "$p" || bad=$((bad + 1)); done
    spids=""
    expect_eq "$bad" 0 "all 8 servers exit 0 after both ranks' goodbyes"
    grep -q "part 3 .* listening on 127.0.0.1:" "$TMP/b7.err" && pass "server 7 serves part 3" || fail "server 7 serves part 3"
else
    fail "could not find 4 pairs of free ports"
fi

# a trainer with no server to talk to fails cleanly (nothing listens)
ports=$(free_ports 4)
: >"$TMP/ip3.txt"
for p in $ports; do echo "127.0.0.1 $p" >>"$TMP/ip3.txt"; done
expect_fail 1 "no server listening" env DGLPART_CONNECT_WAIT=1 "$DGLPART" sample --part_config "$CFG" --ip_config "$TMP/ip3.txt"
expect_stderr "cannot connect to 127.0.0.1:[0-9]+" "connection failure named"
expect_fail 2 "distributed without ip_config is misuse" env DGL_DIST_MODE=distributed "$DGLPART" sample --part_config "$CFG"
expect_fail 1 "bad ip_config file" "$DGLPART" sample --part_config "$CFG" --ip_config "$TMP/none.txt"
finish
