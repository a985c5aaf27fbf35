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

# int64 ids in the converted folder partition to the same bytes as int32
expect_ok "convert --id_dtype int64" "$DGLPART" convert "$FIX/input" \
    --out "$TMP/ds64" --name cora --id_dtype int64
grep -q '"index_dtype":.*"int32"' "$TMP/ds/meta.json" &&
    grep -q '"version":.*2' "$TMP/ds/meta.json"
expect_eq "$?" 0 "int32 ids by default, meta.json version 2"
grep -q '"version":.*1' "$TMP/ds64/meta.json" &&
    ! grep -q index_dtype "$TMP/ds64/meta.json"
expect_eq "$?" 0 "int64 ids: meta.json stays version 1"
expect_eq "$(od -An -c -j 10 -N 40 "$TMP/ds64/indices.npy" | tr -d ' \n' |
    grep -o "<i8")" "<i8" "int64 indices.npy"
expect_ok "int64: partition" "$DGLPART" partition "$TMP/ds64" --num_parts 4 \
    --part_assign "$TMP/metis4-train-edges.txt" --output "$TMP/p64" \
    --balance_train --balance_edges
diff -r "$TMP/p64" "$TMP/metis4-train-edges" >"$TMP/diff64" 2>&1
expect_eq "$?" 0 "int64 and int32 ids give identical partitions"
# and so do the int64 reshuffled sources and shuffled-to-input ids of
# graphs past 2^31 nodes
export DGLPART_TEST_WIDE_IDS=1
expect_ok "wide sources: partition" "$DGLPART" partition "$TMP/ds" \
    --num_parts 4 --part_assign "$TMP/metis4-train-edges.txt" \
    --output "$TMP/pwide" --balance_train --balance_edges
unset DGLPART_TEST_WIDE_IDS
diff -r "$TMP/pwide" "$TMP/metis4-train-edges" >"$TMP/diffwide" 2>&1
expect_eq "$?" 0 "int64 and int32 reshuffled sources and input ids give identical partitions"
expect_fail 2 "--id_dtype checked" "$DGLPART" convert "$FIX/input" \
    --out "$TMP/dsx" --id_dtype int16
expect_stderr "expected int32 or int64" "--id_dtype: what is expected"
finish
