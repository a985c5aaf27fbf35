# Shared by the t07xx runtime tests and t0207 (sourced after lib.sh): one
# distributed job on loopback, checked against the standalone checksums.
#
#   rt_dist LABEL CFG NSERVERS ARGS...
#       start NSERVERS `dglpart serve` of CFG on free ports (ip config in
#       $TMP/ip.txt, their pids in $spids, killed at exit), then trainers
#       of rank 0 and 1 with ARGS; each must exit 0, and its checksum
#       ($TMP/t<r>.out) must equal $s0 / $s1, set by the caller from the
#       standalone runs.

rt_dist() {
    rt_label=$1 rt_cfg=$2 rt_n=$3
    shift 3
    rt_ports=$(python3 -c 'import socket, sys
ss=[socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1",0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$rt_n")
    : >"$TMP/ip.txt"
    for p in $rt_ports; do echo "127.0.0.1 $p" >>"$TMP/ip.txt"; done
    spids=""
    at_exit 'for p in $spids; do kill $p 2>/dev/null; done'
    rt_s=0
    while [ "$rt_s" -lt "$rt_n" ]; do
        timeout 300 "$DGLPART" serve --part_config "$rt_cfg" \
            --ip_config "$TMP/ip.txt" --server_id $rt_s --num_clients 2 \
            2>"$TMP/s$rt_s.err" &
        spids="$spids $!"
        rt_s=$((rt_s + 1))
    done
    rt_t=""
    for r in 0 1; do
        timeout 300 "$DGLPART" sample --part_config "$rt_cfg" \
            --ip_config "$TMP/ip.txt" --rank $r --world_size 2 "$@" \
            >"$TMP/t$r.out" 2>"$TMP/t$r.err" &
        rt_t="$rt_t $!"
    done
    r=0
    for p in $rt_t; do
        wait "$p"
        expect_eq "$?" 0 "$rt_label: distributed trainer $r exits 0"
        r=$((r + 1))
    done
    expect_eq "$(sed -n 's/^checksum //p' "$TMP/t0.out")" "$s0" \
        "$rt_label: trainer 0 distributed = standalone"
    expect_eq "$(sed -n 's/^checksum //p' "$TMP/t1.out")" "$s1" \
        "$rt_label: trainer 1 distributed = standalone"
}
