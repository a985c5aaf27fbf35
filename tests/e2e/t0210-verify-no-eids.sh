#!/bin/sh
# dglpart verify on sets with orig node ids but no orig edge ids (DGL's
# dispatch_data without --save-orig-eids, partition --no_orig_eids) and
# against datasets without eids.npy: the dataset's edges are compared by
# endpoints, each column's multiset of input sources. A changed source, a
# lost edge and a stored duplicate are named; orig_eids.dgl in some parts
# only is a damaged set.
. "$(dirname "$0")/lib.sh"

ED="$HELPERS/editpart"
expect_ok "convert cora" "$DGLPART" convert "$SHARED/datasets/linqs-cora" \
    --out "$TMP/cora"
for L in all in; do
    expect_ok "partition $L" "$DGLPART" partition "$TMP/cora" --num_parts 4 \
        --halo_edges $L --output "$TMP/full-$L"
    cp -r "$TMP/full-$L" "$TMP/$L"
    rm "$TMP/$L"/part*/orig_eids.dgl
    expect_ok "$L: verify without orig_eids" "$DGLPART" verify \
        "$TMP/$L/linqs-cora.json" --dataset "$TMP/cora"
    expect_stdout '^orig ids: part\*/orig_nids\.dgl \(no orig_eids\.dgl' \
        "$L: no orig edge ids said"
    expect_stdout '^dataset: compared, edges by endpoints \(no orig edge ids\)$' \
        "$L: edges compared by endpoints"
done
expect_ok "with orig_eids" "$DGLPART" verify "$TMP/full-in/linqs-cora.json" \
    --dataset "$TMP/cora"
expect_stdout '^dataset: compared$' "with orig_eids: by input edge id"

# damage: copies of the sets without orig_eids
damage() { # layout, editpart command, edge
    rm -rf "$TMP/d" && cp -r "$TMP/$1" "$TMP/d"
    expect_ok "$1: $2 part 1 edge $3" "$ED" "$2" "$TMP/d/linqs-cora.json" 1 "$3"
    ID=$(awk '{ print $4 }' "$OUT") # dup and src print the edge's _ID
    expect_fail 1 "$1: $2 caught" "$DGLPART" verify \
        "$TMP/d/linqs-cora.json" --dataset "$TMP/cora"
}
E='[0-9]+ -> [0-9]+'
for L in all in; do
    damage $L src 5
    expect_stderr "edges: 1 input edge stored in no part \(by endpoints\): $E$" \
        "$L: the source's old edge missing"
    expect_stderr "edges: 1 stored edge not in the dataset or stored too often \(by endpoints\): $E \(_ID $ID\)$" \
        "$L: the new source's edge extra"
    damage $L dup 5
    expect_stderr "edges: 1 stored edge not in the dataset or stored too often \(by endpoints\): $E \(_ID $ID\)$" \
        "$L: a duplicate named"
done
damage all drop 5
expect_stderr "edges: 1 input edge stored in no part \(by endpoints\): $E$" \
    "all: a removed edge named"
damage in drop 5
expect_stderr "part1/graph.dgl: 1483 edges, fewer than the 1484 inner edges" \
    "in: a removed edge named"

# orig_eids.dgl in some parts only
rm -rf "$TMP/d" && cp -r "$TMP/full-in" "$TMP/d" && rm "$TMP/d/part2/orig_eids.dgl"
expect_fail 1 "one part without orig_eids" "$DGLPART" verify \
    "$TMP/d/linqs-cora.json"
expect_stderr "^dglpart verify: part2/orig_eids\.dgl: missing, but 3 of the 4 parts have one: expected every part or none$" \
    "the part without named"

# DGL's return_mapping saved without the edges: orig_nids.npy only
FIX="$SHARED/fixtures/dgl-cora"
expect_ok "dgl dataset" "$HELPERS/mkdataset" "$FIX/input" "$TMP/dcora"
cp -rL "$FIX/metis4-train-edges" "$TMP/dgl" && chmod -R u+w "$TMP/dgl"
rm "$TMP/dgl/orig_eids.npy"
expect_ok "dgl: orig_nids.npy only" "$DGLPART" verify "$TMP/dgl/cora.json" \
    --dataset "$TMP/dcora"
expect_stdout '^orig ids: orig_nids\.npy \(no orig_eids\.npy' \
    "dgl: no orig edge ids said"

# edge data is by input edge id: not compared without orig_eids
expect_ok "typed cora" "$HELPERS/mkdataset" --typed-cora "$FIX/input" \
    "$TMP/tds"
expect_ok "typed: partition" "$DGLPART" partition "$TMP/tds" --num_parts 2 \
    --output "$TMP/typed"
rm "$TMP"/typed/part*/orig_eids.dgl
expect_ok "typed: verify" "$DGLPART" verify "$TMP/typed/cora_hetero.json" \
    --dataset "$TMP/tds"
expect_stdout ', edge data not compared$' "typed: edge data not compared said"

# a dataset without eids.npy (convert's mode for the largest graphs)
cp -r "$TMP/cora" "$TMP/cne" && rm "$TMP/cne/eids.npy"
python3 -c 'import json, sys
m = json.load(open(sys.argv[1])); m["eids"] = False
json.dump(m, open(sys.argv[1], "w"))' "$TMP/cne/meta.json"
expect_ok "no eids.npy" "$DGLPART" verify "$TMP/full-all/linqs-cora.json" \
    --dataset "$TMP/cne"
expect_stdout '^dataset: compared, edges by endpoints \(the dataset has no eids\.npy\)$' \
    "no eids.npy: edges compared by endpoints"
expect_ok "no eids.npy, no orig_eids" "$DGLPART" verify \
    "$TMP/in/linqs-cora.json" --dataset "$TMP/cne"
rm -rf "$TMP/d" && cp -r "$TMP/full-in" "$TMP/d"
expect_ok "src part 1 edge 5" "$ED" src "$TMP/d/linqs-cora.json" 1 5
expect_fail 1 "no eids.npy: a changed source" "$DGLPART" verify \
    "$TMP/d/linqs-cora.json" --dataset "$TMP/cne"
expect_stderr "edges: 1 input edge stored in no part \(by endpoints\): $E$" \
    "no eids.npy: the changed source named"
finish
