#!/bin/sh
# Replay DGL 1.1.3's own assignment (dgl-cora) through --part_assign and
# compare the result with DGL's files by content: node and edge sets per
# part, inner flags, part_id, feature rows per input id. Then verify.
. "$(dirname "$0")/lib.sh"

FIX="$SHARED/fixtures/dgl-cora"
expect_ok "convert the fixture input" "$DGLPART" convert "$FIX/input" \
    --out "$TMP/ds" --name cora

replay() {  # case, parts, extra partition flags...
    c=$1; k=$2; shift 2
    expect_ok "$c: DGL's assignment" "$HELPERS/partcmp" assign "$FIX/$c" \
        "$TMP/$c.txt"
    expect_ok "$c: partition --part_assign" "$DGLPART" partition "$TMP/ds" \
        --num_parts "$k" --part_assign "$TMP/$c.txt" --output "$TMP/$c" "$@"
    expect_ok "$c: same content as DGL" "$HELPERS/partcmp" compare \
        "$FIX/$c" "$TMP/$c/cora.json"
    expect_ok "$c: verify" "$DGLPART" verify "$TMP/$c/cora.json" \
        --dataset "$TMP/ds"
    expect_stdout '^ok$' "$c: verify ok"
}
replay metis4-train-edges 4 --balance_train --balance_edges
replay metis2-hops2 2 --num_hops 2
expect_ok "one-part: partition" "$DGLPART" partition "$TMP/ds" --num_parts 1 \
    --output "$TMP/one-part"
expect_ok "one-part: same content as DGL" "$HELPERS/partcmp" compare \
    "$FIX/one-part" "$TMP/one-part/cora.json"
expect_ok "one-part: verify" "$DGLPART" verify "$TMP/one-part/cora.json" \
    --dataset "$TMP/ds"

# the comparison can fail: move one node to another part
awk 'NR == 1 { print ($1 + 1) % 4; next } { print }' \
    "$TMP/metis4-train-edges.txt" >"$TMP/moved.txt"
expect_ok "moved node: partition" "$DGLPART" partition "$TMP/ds" \
    --num_parts 4 --part_assign "$TMP/moved.txt" --output "$TMP/moved"
expect_fail 1 "moved node: differs from DGL" "$HELPERS/partcmp" compare \
    "$FIX/metis4-train-edges" "$TMP/moved/cora.json"
expect_stderr 'node sets differ' "moved node: node sets reported"
# and one hop instead of two gives other halos
expect_ok "hops 1: partition" "$DGLPART" partition "$TMP/ds" --num_parts 2 \
    --part_assign "$TMP/metis2-hops2.txt" --output "$TMP/h1"
sed 's/"halo_hops": 1/"halo_hops": 2/' "$TMP/h1/cora.json" >"$TMP/h1/x.json" &&
    mv "$TMP/h1/x.json" "$TMP/h1/cora.json"
expect_fail 1 "hops 1: halos differ from DGL's 2 hops" "$HELPERS/partcmp" \
    compare "$FIX/metis2-hops2" "$TMP/h1/cora.json"
expect_stderr 'sets differ' "hops 1: sets reported"
finish
