#!/bin/sh
# --halo_edges in: parts holding only the in-edges of the nodes within the
# hops (DGL's dispatch_data layout). verify finds the layout in the parts
# and accepts them, every in-edge of every inner node is there and no
# out-edge halo; removed and added edges are caught; a CSC stored without
# its data array (edge id = position) is read back by verify and the
# runtime, which sample exactly as on the default layout.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"

ED="$HELPERS/editpart"
expect_ok "convert cora" "$DGLPART" convert "$SHARED/datasets/linqs-cora" \
    --out "$TMP/cora"
part() {  # name, flags...
    n=$1; shift
    expect_ok "partition $n" "$DGLPART" partition "$TMP/cora" \
        --output "$TMP/$n" --num_parts 4 "$@"
    expect_ok "verify $n" "$DGLPART" verify "$TMP/$n/linqs-cora.json" \
        --dataset "$TMP/cora"
    expect_stdout '^ok$' "$n: verify ok"
    sed -n 's/^ *\([0-9]\) /\1 /p' "$OUT" >"$TMP/$n.table"
}
part all-coo
expect_stdout_lacks() {
    if grep -Eq -- "$1" "$OUT"; then fail "$2"; else pass "$2"; fi
}
expect_stdout_lacks '^halo edges' "all: no layout line"
part all-csc --graph_formats csc
part in-coo --halo_edges in
expect_stdout '^halo edges: in-edges only' "in: the layout found in the parts"
part in-csc --halo_edges in --graph_formats csc

# each part: the same inner nodes and inner edges as DGL's layout, no
# local edge besides them, fewer halo nodes
awk '{ print $1, $2, $4 }' "$TMP/all-coo.table" >"$TMP/a"
awk '{ print $1, $2, $4 }' "$TMP/in-coo.table" >"$TMP/b"
cmp_files "$TMP/a" "$TMP/b" "in: the inner nodes and edges of all"
expect_eq "$(awk '$4 != $5' "$TMP/in-coo.table")" "" \
    "in: local edges = inner edges (inner_edge all 1)"
expect_eq "$(paste "$TMP/all-coo.table" "$TMP/in-coo.table" |
    awk '$9 >= $3')" "" "in: fewer halo nodes than all"
expect_eq "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["halo_edges"])' \
    "$TMP/in-coo/partition-stats.json")" in "partition-stats.json: in"

# the CSC's data array: empty for in (ids in CSC order), the identity for
# all. A part's csc file is its coo file less src and dst (16 B an edge)
# plus indptr and indices (and data), one sorted flag fewer.
for L in in all; do
    read -r p ni nh ie le tr <"$TMP/$L-coo.table"
    d=$(($(wc -c <"$TMP/$L-csc/part0/graph.dgl") -
        $(wc -c <"$TMP/$L-coo/part0/graph.dgl")))
    if [ "$L" = in ]; then want=$((8 * (ni + nh + 1) - 8 * le - 1))
    else want=$((8 * (ni + nh + 1) - 1)); fi
    expect_eq "$d" "$want" "$L: CSC data array $([ $L = in ] && echo empty ||
        echo stored)"
done

# the same samples on every layout and format, standalone and distributed
ARGS="--seed 5 --batch_size 16 --fanouts 5,-1,3"
for n in all-coo all-csc in-coo in-csc; do
    expect_ok "sample $n" "$DGLPART" sample \
        --part_config "$TMP/$n/linqs-cora.json" --standalone $ARGS
    eval "c_$(echo $n | tr - _)=\$(cat \"\$OUT\")"
done
expect_eq "$c_in_coo" "$c_all_coo" "in = all, standalone (coo)"
expect_eq "$c_in_csc" "$c_all_coo" "in = all, standalone (csc, no data)"
for r in 0 1; do
    expect_ok "all: rank $r of 2" "$DGLPART" sample --part_config \
        "$TMP/all-coo/linqs-cora.json" --standalone --rank $r \
        --world_size 2 $ARGS
    eval "s$r=\$(sed -n 's/^checksum //p' \"\$OUT\")"
done
rt_dist in-csc "$TMP/in-csc/linqs-cora.json" 4 $ARGS

# more hops, other assignments, typed
part in-hops2 --halo_edges in --num_hops 2 --graph_formats csc,coo
part in-random --halo_edges in --part_method random
expect_ok "typed cora" "$HELPERS/mkdataset" --typed-cora \
    "$SHARED/fixtures/dgl-cora/input" "$TMP/tds"
expect_ok "typed: partition in" "$DGLPART" partition "$TMP/tds" --num_parts 3 \
    --halo_edges in --graph_formats csc,coo --output "$TMP/typed"
expect_ok "typed: verify" "$DGLPART" verify "$TMP/typed/cora_hetero.json" \
    --dataset "$TMP/tds"
expect_stdout '^ok$' "typed: verify ok"
expect_eq "$(sed -n 's/^ *[0-9] //p' "$OUT" | awk '$3 != $4')" "" \
    "typed: local edges = inner edges"

# damage: an edge removed, an out-edge halo added
cp -r "$TMP/in-coo" "$TMP/d1"
expect_ok "remove edge 5 of part 1" "$ED" drop "$TMP/d1/linqs-cora.json" 1 5
expect_fail 1 "removed edge" "$DGLPART" verify "$TMP/d1/linqs-cora.json"
expect_stderr "part1/graph.dgl: [0-9]+ edges, fewer than the [0-9]+ inner edges" \
    "removed edge named"
cp -r "$TMP/in-hops2" "$TMP/d2"
e=$(sed -n '1s/^[0-9]* *[0-9]* *[0-9]* *[0-9]* *\([0-9]*\).*/\1/p' \
    "$TMP/in-hops2.table")
expect_ok "remove a halo edge of part 0" "$ED" drop "$TMP/d2/linqs-cora.json" \
    0 $((e - 1))
expect_fail 1 "removed halo edge" "$DGLPART" verify "$TMP/d2/linqs-cora.json"
expect_stderr "part0/graph.dgl: edge _ID [0-9]+ .* belongs to the 2-hop halo but is missing" \
    "missing halo edge named"
cp -r "$TMP/in-coo" "$TMP/d3"
expect_ok "add an out-edge to part 1" "$ED" add "$TMP/d3/linqs-cora.json" 1
expect_fail 1 "extra edge" "$DGLPART" verify "$TMP/d3/linqs-cora.json"
expect_stderr "1 of the [0-9]+ edges leaving their part are stored as out-edge halos" \
    "extra edge: the mixed layout named"

expect_fail 2 "--halo_edges bogus" "$DGLPART" partition "$TMP/cora" \
    --num_parts 2 --halo_edges bogus --output "$TMP/bogus"
expect_stderr "^dglpart partition: --halo_edges 'bogus': expected all or in$" \
    "bogus: one line naming the value"
finish
