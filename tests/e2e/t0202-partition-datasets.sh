#!/bin/sh
# Partition real graphs (shared/datasets) with many option combinations and
# verify every output against its dataset; METIS's edge cut must be within
# 5% of Debian's gpmetis on the very same graph and constraints.
. "$(dirname "$0")/lib.sh"

D="$SHARED/datasets"
expect_ok "convert citeseer" "$DGLPART" convert "$D/linqs-citeseer" \
    --out "$TMP/citeseer"
expect_ok "convert ca-GrQc" "$DGLPART" convert "$D/snap/ca-GrQc.txt" \
    --out "$TMP/grqc"
expect_ok "convert 4elt" "$DGLPART" convert "$D/metis-graphs/4elt.graph" \
    --out "$TMP/4elt"
expect_ok "convert ogbl-ddi" "$DGLPART" convert "$D/ogbl-ddi" --out "$TMP/ddi"

n=0
check() {  # dataset, flags...: partition, verify, and keep the stats
    ds=$1; shift
    n=$((n + 1))
    o="$TMP/out$n"
    expect_ok "$ds $*" "$DGLPART" partition "$TMP/$ds" --output "$o" "$@"
    cp "$OUT" "$TMP/summary$n"
    cfg=$(ls "$o"/*.json | grep -v partition-stats)
    case " $* " in
    *" --no_orig_ids "*) expect_ok "$ds $*: verify" "$DGLPART" verify "$cfg" ;;
    *) expect_ok "$ds $*: verify" "$DGLPART" verify "$cfg" \
        --dataset "$TMP/$ds" ;;
    esac
    expect_stdout '^ok$' "$ds $*: verify ok"
}
# node balance of the last run's summary: max/avg <= $1
node_balance_le() {
    b=$(sed -n 's/.*balance (max\/avg): nodes \([0-9.]*\).*/\1/p' \
        "$TMP/summary$n")
    if awk -v b="$b" -v m="$1" 'BEGIN { exit !(b != "" && b <= m) }'; then
        pass "out$n: node balance $b <= $1"
    else
        fail "out$n: node balance '$b' > $1"
    fi
}

check citeseer --num_parts 3
node_balance_le 1.031
check citeseer --num_parts 4 --balance_train --balance_edges --num_hops 2 \
    --graph_formats coo,csc,csr
check citeseer --num_parts 2 --objtype vol --num_trainers_per_machine 2 \
    --no_orig_ids
check citeseer --num_parts 1 --num_trainers_per_machine 3
check grqc --num_parts 8 --balance_edges
node_balance_le 1.031   # beyond DGL: node count kept with balance_edges
check grqc --part_method random --num_parts 5 --seed 7 --num_hops 0
node_balance_le 1.0001  # exactly balanced (26197 = 5 * 5239 + 2)
check 4elt --num_parts 16 --imbalance 1.01 --graph_formats csc
node_balance_le 1.011
check ddi --num_parts 4 --num_hops 3
check 4elt --num_parts 1

# trainer ids are stored per node and per edge
grep -aq '_N/trainer_id' "$TMP/out3/part0/node_feat.dgl" &&
    pass "trainer_id stored per node" || fail "trainer_id stored per node"
grep -aq '_N:_E:_N/trainer_id' "$TMP/out3/part1/edge_feat.dgl" &&
    pass "trainer_id stored per edge" || fail "trainer_id stored per edge"
# the random assignment depends on the seed, and only on it
"$DGLPART" partition "$TMP/grqc" --part_method random --num_parts 5 --seed 7 \
    --output "$TMP/again" >/dev/null 2>&1
cmp_files "$TMP/again/part2/orig_nids.dgl" "$TMP/out6/part2/orig_nids.dgl" \
    "random: same seed, same parts"
"$DGLPART" partition "$TMP/grqc" --part_method random --num_parts 5 --seed 8 \
    --output "$TMP/other" >/dev/null 2>&1
if cmp -s "$TMP/other/part2/orig_nids.dgl" "$TMP/out6/part2/orig_nids.dgl"
then fail "random: another seed, other parts"
else pass "random: another seed, other parts"; fi

# a saved assignment replays the METIS run exactly, in either format
for f in npy txt; do
    expect_ok "write_assign .$f" "$DGLPART" partition "$TMP/ddi" --num_parts 4 \
        --balance_edges --write_assign "$TMP/ddi-assign.$f" --output "$TMP/wa-$f"
    expect_ok "part_assign .$f" "$DGLPART" partition "$TMP/ddi" --num_parts 4 \
        --part_assign "$TMP/ddi-assign.$f" --output "$TMP/wa-$f-again"
    for i in 0 1 2 3; do
        cmp_files "$TMP/wa-$f/part$i/graph.dgl" \
            "$TMP/wa-$f-again/part$i/graph.dgl" "assign .$f: part $i replayed"
    done
done
expect_eq "$(wc -l < "$TMP/ddi-assign.txt")" \
    "$(sed -n 's/.*"num_nodes":[[:space:]]*\([0-9]*\).*/\1/p' "$TMP/ddi/meta.json")" \
    "write_assign .txt: one line per node"

# METIS's copy of the graph goes to a scratch file on the output's disk; it
# stays in memory with DGLPART_SPILL=0 or when the output is on tmpfs. The
# parts are the same either way.
expect_ok "spill: scratch file" "$DGLPART" -v partition "$TMP/ddi" \
    --num_parts 4 --balance_edges --output "$TMP/sp-file"
expect_stderr "METIS input to a scratch file \\([0-9.]+ MiB\\): [0-9.]+ s" \
    "spill: graph and edge weights in a scratch file"
expect_ok "spill: DGLPART_SPILL=0" env DGLPART_SPILL=0 "$DGLPART" -v partition \
    "$TMP/ddi" --num_parts 4 --balance_edges --output "$TMP/sp-mem"
if grep -q "scratch file" "$ERR"; then fail "spill: DGLPART_SPILL=0 ignored"
else pass "spill: DGLPART_SPILL=0 keeps the graph in memory"; fi
for i in 0 3; do
    cmp_files "$TMP/sp-file/part$i/graph.dgl" "$TMP/sp-mem/part$i/graph.dgl" \
        "spill: same part $i"
done
# a tmpfs of the test's own, in its folder: nothing is written to the
# machine's /dev/shm
if [ "$(id -u)" = 0 ] && mkdir "$TMP/tmpfs" &&
    mount -t tmpfs -o size=256m dglpart-test "$TMP/tmpfs" 2>/dev/null; then
    at_exit "umount '$TMP/tmpfs'"
    shm=$TMP/tmpfs
    expect_ok "spill: output on tmpfs" "$DGLPART" -v partition "$TMP/ddi" \
        --num_parts 4 --balance_edges --output "$shm/out"
    expect_stderr "METIS input stays in memory: .*tmpfs" \
        "spill: tmpfs output keeps the graph in memory"
    cmp_files "$shm/out/part1/graph.dgl" "$TMP/sp-mem/part1/graph.dgl" \
        "spill: same parts from tmpfs"
else
    echo "# no tmpfs (not root): the output on tmpfs is not checked"
fi

# edge cut against gpmetis on the same graph and constraints
gp() {  # dataset, parts, flags...
    ds=$1; k=$2; shift 2
    expect_ok "$ds: write METIS graph" "$DGLPART" partition "$TMP/$ds" \
        --num_parts "$k" --write_metis "$TMP/$ds.graph" "$@"
    ref=$(gpmetis "$TMP/$ds.graph" "$k" | sed -n 's/.*Edgecut: \([0-9]*\).*/\1/p')
    expect_ok "$ds: partition $k $*" "$DGLPART" partition "$TMP/$ds" \
        --num_parts "$k" --output "$TMP/gp-$ds" --overwrite "$@"
    cut=$(sed -n 's/.*"metis_edge_cut":[^0-9]*\([0-9]*\).*/\1/p' \
        "$TMP/gp-$ds/partition-stats.json")
    if [ -n "$ref" ] && [ -n "$cut" ] && [ $((cut * 100)) -le $((ref * 105)) ]
    then pass "$ds: edge cut $cut within 5% of gpmetis $ref"
    else fail "$ds: edge cut '$cut' vs gpmetis '$ref'"; fi
}
command -v gpmetis >/dev/null || { fail "gpmetis not installed"; finish; }
gp 4elt 4
gp grqc 8 --balance_edges
gp citeseer 4 --balance_train --balance_edges
gp ddi 3
finish
