#!/bin/sh
# dglpart verify finds damage in copies of a DGL partition set: one line per
# problem naming the file, exit 1.
. "$(dirname "$0")/lib.sh"

FIX="$SHARED/fixtures/dgl-cora"
SRC="$FIX/metis4-train-edges"
C="$TMP/c"

# a fresh copy whose files are symlinks into the fixture; own() makes one
# file a real, writable copy before it is damaged
fresh() {
    rm -rf "$C" && cp -rs "$SRC" "$C" && chmod -R u+w "$C"
}
own() {
    rm -f "$C/$1" && cp "$SRC/$1" "$C/$1" && chmod u+w "$C/$1"
}
verify() { run "$DGLPART" verify "$C/cora.json" "$@"; }
expect_rc() {
    if [ "$RC" = "$1" ]; then pass "$2"; else fail "$2 (exit $RC, wanted $1)"; fi
}

fresh
verify
expect_rc 0 "the symlinked copy verifies"

fresh
own part1/graph.dgl
head -c 20000 "$SRC/part1/graph.dgl" >"$C/part1/graph.dgl"
verify
expect_rc 1 "truncated graph.dgl fails"
expect_stderr '^dglpart verify: part1/graph.dgl: .* is truncated' \
    "truncation named with the file"
expect_stdout '^FAILED$' "FAILED on stdout"
expect_stderr 'problems? found$' "summary line"

fresh
own cora.json
sed 's/^\( *\)757\(,\{0,1\}\)$/\1750\2/' "$SRC/cora.json" >"$C/cora.json"
verify
expect_rc 1 "moved node_map boundary fails"
expect_stderr "part0/graph.dgl: local node 750 is inner, but node_map gives part 0 only 750 nodes" \
    "part 0 has too many inner nodes"
expect_stderr "part1/graph.dgl: inner node 0 has _ID 757, expected 750" \
    "part 1 ids off"
expect_stderr "part0/node_feat.dgl: '_N/.*' has 757 rows, expected 750" \
    "feature rows against node_map"

fresh
own cora.json
sed '15s/757/758/' "$SRC/cora.json" >"$C/cora.json"
verify
expect_rc 1 "gap in node_map fails"
expect_stderr "node_map part 1 is \[758, 1076\), expected a range starting at 757" \
    "gap named"

fresh
own cora.json
sed 's/"num_edges": 5429/"num_edges": 5430/' "$SRC/cora.json" >"$C/cora.json"
verify
expect_rc 1 "num_edges not matching edge_map fails"
expect_stderr "edge_map ends at 5429, expected num_edges = 5430" "total named"

# a JSON claiming a huge graph is refused before anything is sized by it
fresh
own cora.json
sed 's/2708/999999999999/' "$SRC/cora.json" >"$C/cora.json"
verify
expect_rc 1 "huge num_nodes fails"
expect_stderr "the config says 999999999999 nodes and 5429 edges, more than its 229360 bytes of graph files can hold" \
    "claim against the files"

fresh
mv "$C/part0" "$C/tmp" && mv "$C/part1" "$C/part0" && mv "$C/tmp" "$C/part1"
verify
expect_rc 1 "swapped part folders fail"
expect_stderr "part0/graph.dgl: 443 nodes, fewer than the 757 inner nodes" \
    "part 0 too small"
expect_stderr "part1/graph.dgl: inner node 0 has _ID 0, expected 757" \
    "part 1 ids are part 0's"

fresh
rm "$C/part2/node_feat.dgl" && ln -s "$SRC/part1/node_feat.dgl" "$C/part2/node_feat.dgl"
verify
expect_rc 1 "another part's features fail"
expect_stderr "part2/node_feat.dgl: '_N/feat' has 319 rows, expected 817" \
    "feature rows named"

fresh
rm "$C/part3/edge_feat.dgl"
verify
expect_rc 1 "missing edge_feat.dgl fails"
expect_stderr "part3/edge_feat.dgl: cannot open" "missing file named"

# orig ids: a repeated id breaks the permutation; a swap keeps it one but
# the dataset shows the features no longer match
"$HELPERS/mkdataset" "$FIX/input" "$TMP/cora" 2>"$ERR" &&
    pass "dataset built" || fail "dataset built"
fresh
own orig_nids.npy
dd if="$SRC/orig_nids.npy" of="$C/orig_nids.npy" bs=8 skip=17 seek=16 count=1 \
    conv=notrunc 2>/dev/null
verify
expect_rc 1 "repeated orig id fails"
expect_stderr "orig node ids: input id [0-9]+ appears twice" "repeat named"

fresh
own orig_nids.npy
dd if="$SRC/orig_nids.npy" of="$C/orig_nids.npy" bs=8 skip=17 seek=16 count=1 \
    conv=notrunc 2>/dev/null
dd if="$SRC/orig_nids.npy" of="$C/orig_nids.npy" bs=8 skip=16 seek=17 count=1 \
    conv=notrunc 2>/dev/null
verify
expect_rc 0 "swapped orig ids are still a permutation"
verify --dataset "$TMP/cora"
expect_rc 1 "swapped orig ids fail against the dataset"
expect_stderr "part0/node_feat.dgl: '_N/feat' row 0 \(node 0, input node [0-9]+\) differs from the dataset" \
    "feature row named"
expect_stderr "edges: input edge [0-9]+ .* is stored as edge" "edge named"

# the line cap
fresh
rm "$C"/part*/edge_feat.dgl
verify --max_lines 2
expect_rc 1 "many problems"
expect_eq "$(grep -c 'edge_feat.dgl: cannot open' "$ERR")" 2 "only 2 lines printed"
expect_stderr 'more problems not shown' "cap announced"
finish
