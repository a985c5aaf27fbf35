#!/bin/sh
# dglpart convert on typed inputs through the real binary: the typed npy
# folder (from DGL's Cora arrays plus a small venue type), OGB's
# heterogeneous layout and DGL's chunked format, each detected by layout;
# --add_reverse_edges; a node type without nodes; one-line errors with
# exit 1 (chunk counts against the files, ids beyond their type's count);
# and the pipeline's --dataset DIR converting a typed folder. The unit tests (test_convert.c)
# check every array of the typed Cora in all three layouts.
. "$(dirname "$0")/lib.sh"
CHK="$HELPERS/dscheck"
IN="$SHARED/fixtures/dgl-cora/input"

# typed-npy: paper = Cora, venue = 3 nodes known by their count only.
T="$TMP/tn"
mkdir -p "$T/nodes/paper" "$T/nodes/venue" "$T/edges/paper:cites:paper" \
    "$T/edges/paper:in:venue"
for f in feat label train_mask val_mask test_mask; do
    cp "$IN/$f.npy" "$T/nodes/paper/"
done
echo 3 >"$T/nodes/venue/num_nodes"
cp "$IN/src.npy" "$IN/dst.npy" "$T/edges/paper:cites:paper/"
"$CHK" ints "$T/edges/paper:in:venue/src.npy" 0 1 2 2707
"$CHK" ints "$T/edges/paper:in:venue/dst.npy" 0 0 1 2
expect_ok "typed-npy detected and converted" "$DGLPART" -v convert "$T" --out "$TMP/tn-out"
expect_stderr "read as typed-npy" "detected by its nodes/ and edges/"
expect_ok "the typed dataset opens" "$CHK" open "$TMP/tn-out"
expect_stdout "^nodes 2711 edges 5433 " "2708 + 3 nodes, 5429 + 4 edges"
grep -q '"version":[[:space:]]*2' "$TMP/tn-out/meta.json"
expect_eq $? 0 "meta.json is version 2"
grep -q '"name":[[:space:]]*"paper:in:venue"' "$TMP/tn-out/meta.json"
expect_eq $? 0 "meta.json lists paper:in:venue"
for f in label train_mask val_mask test_mask; do
    expect_ok "ndata/paper/$f.npy is the input's" "$CHK" npycmp \
        "$TMP/tn-out/ndata/paper/$f.npy" "$IN/$f.npy"
done
expect_missing "$TMP/tn-out/feat.npy" "no top-level feat.npy"
# Features stay in the input's file: meta.json names it, nothing copied.
expect_missing "$TMP/tn-out/ndata/paper/feat.npy" "feat is not copied"
grep -q "\"chunks\":[[:space:]]*\[\"$(realpath "$T/nodes/paper/feat.npy")\"\]" \
    "$TMP/tn-out/meta.json"
expect_eq $? 0 "meta.json names the input's feat.npy"
expect_ok "--copy_data copies it" "$DGLPART" convert "$T" --copy_data \
    --out "$TMP/tn-copy"
expect_ok "the copied feat.npy is the input's" "$CHK" npycmp \
    "$TMP/tn-copy/ndata/paper/feat.npy" "$IN/feat.npy"
expect_ok "parts of the kept features" "$DGLPART" partition "$TMP/tn-out" \
    --num_parts 3 --output "$TMP/tn-parts"
expect_ok "verify reads the rows from the input's file" "$DGLPART" verify \
    "$TMP/tn-parts/tn.json" --dataset "$TMP/tn-out"
# the input's last row changed after the parts were written: verify sees it
cp "$T/nodes/paper/feat.npy" "$TMP/feat-keep.npy"
printf '\377\377\377\377' | dd of="$T/nodes/paper/feat.npy" bs=1 conv=notrunc \
    seek=$(($(wc -c <"$T/nodes/paper/feat.npy") - 4)) 2>/dev/null
expect_fail 1 "verify finds the changed row" "$DGLPART" verify \
    "$TMP/tn-parts/tn.json" --dataset "$TMP/tn-out"
expect_stderr "'paper/feat' row [0-9]* \(node [0-9]*, input 'paper' node 2707\) differs from the dataset" \
    "naming the input node"
mv "$TMP/feat-keep.npy" "$T/nodes/paper/feat.npy"
expect_ok "parts of the copy" "$DGLPART" partition "$TMP/tn-copy" \
    --num_parts 3 --output "$TMP/tn-cparts"
cmp -s "$TMP/tn-parts/part1/node_feat.dgl" "$TMP/tn-cparts/part1/node_feat.dgl"
expect_eq $? 0 "the same node_feat.dgl as from the copy"
mv "$T/nodes/paper/feat.npy" "$TMP/feat.npy"
expect_fail 1 "a kept input file that moved" "$DGLPART" partition \
    "$TMP/tn-out" --num_parts 3 --output "$TMP/tn-gone"
expect_stderr "^dglpart partition: '.*/nodes/paper/feat.npy' is missing \('.*tn-out/meta.json' reads data 'feat' from it: convert again\)$" \
    "one line naming the file and the dataset"
expect_missing "$TMP/tn-gone" "nothing written"
"$CHK" ints "$T/nodes/paper/feat.npy" 1 2 3
expect_fail 1 "a kept input file that changed" "$DGLPART" partition \
    "$TMP/tn-out" --num_parts 3 --output "$TMP/tn-gone"
expect_stderr "^dglpart partition: '.*tn-out': data 'feat' has 3 rows in its chunks, expected 2708, the type's count \(they changed: convert again\)$" \
    "one line naming the dataset and the rows"
mv "$TMP/feat.npy" "$T/nodes/paper/feat.npy"

expect_ok "--add_reverse_edges" "$DGLPART" convert "$T" --add_reverse_edges \
    --out "$TMP/rev"
expect_ok "the reversed dataset opens" "$CHK" open "$TMP/rev"
expect_stdout "^nodes 2711 edges 10866 " "every edge doubled"
grep -q '"venue:in-rev:paper"' "$TMP/rev/meta.json"
expect_eq $? 0 "venue:in-rev:paper added"
grep -q '"paper:cites-rev:paper"' "$TMP/rev/meta.json"
expect_eq $? 0 "paper:cites-rev:paper added"
expect_fail 1 "--undirected refused on typed input" "$DGLPART" convert "$T" \
    --undirected --out "$TMP/und"
expect_stderr "^dglpart convert: --undirected does not apply to typed graphs" "says why"
expect_fail 1 "--add_reverse_edges refused on a homogeneous input" \
    "$DGLPART" convert "$IN" --add_reverse_edges --out "$TMP/hrev"
expect_stderr "needs a typed graph" "says why"

# OGB's heterogeneous layout, as ogbn-mag ships it (gzip, folder).
O="$TMP/mag/mag"
R="$O/raw/relations"
mkdir -p "$R/author___writes___paper" "$R/paper___cites___paper" \
    "$O/raw/node-feat/paper" "$O/raw/node-label/paper" "$O/split/time/paper"
printf 'paper,author\n3,2\n' >"$O/raw/num-node-dict.csv"
printf 'paper,cites,paper\nauthor,writes,paper\n' >"$O/raw/triplet-type-list.csv"
printf '0,1\n1,2\n' >"$R/paper___cites___paper/edge.csv"
printf '2\n' >"$R/paper___cites___paper/num-edge-list.csv"
printf '0,0\n1,2\n1,1\n' >"$R/author___writes___paper/edge.csv"
printf '3\n' >"$R/author___writes___paper/num-edge-list.csv"
printf '1\n1\n1\n' >"$R/author___writes___paper/edge_reltype.csv"
printf '0.5,1\n2,3\n4,5.25\n' >"$O/raw/node-feat/paper/node-feat.csv"
printf '2019\n2020\n2018\n' >"$O/raw/node-feat/paper/node_year.csv"
printf '7\nnan\n3\n' >"$O/raw/node-label/paper/node-label.csv"
printf '0\n2\n' >"$O/split/time/paper/train.csv"
printf '1\n' >"$O/split/time/paper/valid.csv"
printf '' >"$O/split/time/paper/test.csv"
find "$O" -name '*.csv' -exec gzip {} +
expect_ok "OGB heterogeneous folder" "$DGLPART" -v convert "$TMP/mag" --out "$TMP/mag-out"
expect_stderr "read as ogb" "detected as ogb"
expect_ok "it opens" "$CHK" open "$TMP/mag-out"
expect_stdout "^nodes 5 edges 5 " "2 authors + 3 papers, 3 + 2 edges"
grep -q '"name":[[:space:]]*"author:writes:paper"' "$TMP/mag-out/meta.json"
expect_eq $? 0 "author:writes:paper listed"
for f in feat year label train_mask val_mask test_mask; do
    [ -f "$TMP/mag-out/ndata/paper/$f.npy" ]
    expect_eq $? 0 "ndata/paper/$f.npy written"
done
[ -f "$TMP/mag-out/edata/author:writes:paper/reltype.npy" ]
expect_eq $? 0 "edata/author:writes:paper/reltype.npy written"
printf '0,0\n1,2\n2,1\n' | gzip >"$R/author___writes___paper/edge.csv.gz"
expect_fail 1 "an author id beyond its type" "$DGLPART" convert "$TMP/mag" \
    --out "$TMP/mag-bad"
expect_stderr "^dglpart convert: '.*author___writes___paper/edge.csv.gz' line 3: source id 2 out of range \[0, 2\) \(node type 'author' of edge type 'author:writes:paper'\)$" \
    "one line naming file, line and type"
expect_missing "$TMP/mag-bad" "nothing left behind"
(cd "$TMP/mag" && zip -q -r ../mag.zip mag)
expect_fail 1 "a heterogeneous OGB zip is refused" "$DGLPART" convert \
    "$TMP/mag.zip" --out "$TMP/mag-zip"
expect_stderr "is a heterogeneous OGB dataset: unpack it and convert the folder" \
    "and told to unpack it"

# DGL's chunked format: two chunks of paper, csv edges, numpy data.
C="$TMP/chunked"
mkdir -p "$C/edges" "$C/data"
cat >"$C/metadata.json" <<JSON
{"graph_name": "tiny", "node_type": ["paper", "venue"],
 "num_nodes_per_chunk": [[1354, 1354], [3]],
 "edge_type": ["paper:cites:paper", "paper:in:venue"],
 "num_edges_per_chunk": [[3, 2], [4]],
 "edges": {
   "paper:cites:paper": {"format": {"name": "csv", "delimiter": " "},
                         "data": ["edges/c0.csv", "edges/c1.csv"]},
   "paper:in:venue": {"format": {"name": "csv", "delimiter": " "},
                      "data": ["edges/v0.csv"]}},
 "node_data": {"venue": {"label": {"format": {"name": "numpy"},
                                   "data": ["data/venue-label.npy"]}}}}
JSON
printf '0 1\n1 2\n2 3\n' >"$C/edges/c0.csv"
printf '2706 2707\n2707 0\n' >"$C/edges/c1.csv"
printf '0 0\n1 0\n2 1\n2707 2\n' >"$C/edges/v0.csv"
"$CHK" ints "$C/data/venue-label.npy" 4 5 6
expect_ok "chunked folder" "$DGLPART" -v convert "$C" --out "$TMP/ch-out"
expect_stderr "read as chunked" "detected by metadata.json"
expect_ok "it opens" "$CHK" open "$TMP/ch-out"
expect_stdout "^nodes 2711 edges 9 " "2711 nodes, 9 edges"
grep -q '"name":[[:space:]]*"tiny"' "$TMP/ch-out/meta.json"
expect_eq $? 0 "graph_name kept"
# The pipeline names the config after graph_name, as DGL's pipeline does,
# and keeps a typed graph's data names (DGL's typed tools read them so).
expect_ok "the pipeline on the chunked folder" "$DGLPART" --dataset "$C" \
    --num_parts 2 --cache "$TMP/ch-cache" --output "$TMP/ch-parts"
expect_stdout "^config: $TMP/ch-parts/tiny.json$" "config named after graph_name"
expect_ok "its parts verify" "$DGLPART" verify "$TMP/ch-parts/tiny.json" \
    --dataset "$TMP/ch-cache/chunked-converted"
grep -q '"graph_name":[[:space:]]*"tiny"' "$TMP/ch-parts/tiny.json"
expect_eq $? 0 "and the graph too"
nf() { cat "$TMP/$1/part0/node_feat.dgl" "$TMP/$1/part1/node_feat.dgl"; }
nf ch-parts | grep -a -q 'venue/label' && ! nf ch-parts | grep -a -q 'labels'
expect_eq $? 0 "typed node data keeps its name by default"
expect_ok "--ndata_name still renames" "$DGLPART" --dataset "$C" \
    --num_parts 2 --cache "$TMP/ch-cache" --output "$TMP/ch-ren" \
    --ndata_name label=labels --graph_name other
expect_stdout "^config: $TMP/ch-ren/other.json$" "--graph_name still names it"
nf ch-ren | grep -a -q 'venue/labels'
expect_eq $? 0 "renamed to venue/labels"
printf '0 1\n1 2\n' >"$C/edges/c0.csv"
expect_fail 1 "a chunk shorter than num_edges_per_chunk" "$DGLPART" convert "$C" \
    --out "$TMP/ch-bad"
expect_stderr "^dglpart convert: '.*edges/c0.csv': 2 edges, expected 3 \(metadata.json num_edges_per_chunk of 'paper:cites:paper', chunk 0\)$" \
    "one line naming the chunk and the count"
expect_missing "$TMP/ch-bad" "nothing left behind"

# More chunk counts that disagree with the files: a chunk with a line too
# many, a node_data chunk a row short of num_nodes_per_chunk.
printf '0 1\n1 2\n2 3\n' >"$C/edges/c0.csv"
printf '2706 2707\n2707 0\n5 6\n' >"$C/edges/c1.csv"
expect_fail 1 "a chunk longer than num_edges_per_chunk" "$DGLPART" convert \
    "$C" --out "$TMP/ch-bad"
expect_stderr "^dglpart convert: '.*edges/c1.csv': 3 edges, expected 2 \(metadata.json num_edges_per_chunk of 'paper:cites:paper', chunk 1\)$" \
    "the long chunk named"
expect_eq "$(wc -l <"$ERR")" 1 "one line"
printf '2706 2707\n2707 0\n' >"$C/edges/c1.csv"
"$CHK" ints "$C/data/venue-label.npy" 4 5
expect_fail 1 "node_data a row short" "$DGLPART" convert "$C" \
    --out "$TMP/ch-bad"
expect_stderr "^dglpart convert: '.*data/venue-label.npy': 2 rows, expected 3 \(\"node_data\" venue/label, chunk 0\)$" \
    "the short data chunk named"
expect_eq "$(wc -l <"$ERR")" 1 "one line"
expect_missing "$TMP/ch-bad" "nothing left behind"
"$CHK" ints "$C/data/venue-label.npy" 4 5 6

# An id beyond its node type's count, in the typed npy folder.
cp "$T/edges/paper:in:venue/dst.npy" "$TMP/dst.npy"
"$CHK" ints "$T/edges/paper:in:venue/dst.npy" 0 0 3 2
expect_fail 1 "a venue id beyond the 3 venues" "$DGLPART" convert "$T" \
    --out "$TMP/tn-bad"
expect_stderr "^dglpart convert: '.*edges/paper:in:venue/dst.npy' entry 2: destination id 3 out of range \[0, 3\) \(node type 'venue' of edge type 'paper:in:venue'\)$" \
    "one line naming the file, entry and types"
expect_eq "$(wc -l <"$ERR")" 1 "one line"
expect_missing "$TMP/tn-bad" "nothing left behind"
cp "$TMP/dst.npy" "$T/edges/paper:in:venue/dst.npy"

# A node type without nodes is kept, as dgl.heterograph keeps one of
# num_nodes_dict 0; an edge into it is out of range like any other.
E="$TMP/empty"
cp -r "$T" "$E"
echo 0 >"$E/nodes/venue/num_nodes"
expect_fail 1 "edges into an empty type" "$DGLPART" convert "$E" \
    --out "$TMP/e-bad"
expect_stderr "^dglpart convert: '.*edges/paper:in:venue/dst.npy' entry 0: destination id 0 out of range \[0, 0\) \(node type 'venue' of edge type 'paper:in:venue'\)$" \
    "the edge into the empty type named"
expect_eq "$(wc -l <"$ERR")" 1 "one line"
rm -r "$E/edges/paper:in:venue"
expect_ok "an empty node type converts" "$DGLPART" convert "$E" --out "$TMP/e-out"
expect_ok "it opens" "$CHK" open "$TMP/e-out"
expect_stdout "^nodes 2708 edges 5429 " "2708 papers, no venues"
python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
assert {"name": "venue", "num_nodes": 0} in m["ntypes"], m["ntypes"]' \
    "$TMP/e-out/meta.json" 2>"$ERR" &&
    pass "venue listed with 0 nodes" || fail "venue listed with 0 nodes"
expect_ok "and partitions" "$DGLPART" partition "$TMP/e-out" --num_parts 2 \
    --output "$TMP/e-parts"
expect_ok "and verifies" "$DGLPART" verify "$TMP/e-parts/empty.json" \
    --dataset "$TMP/e-out"

# The pipeline's --dataset DIR detects the typed layout the same way.
run "$DGLPART" --dataset "$T" --num_parts 1 --cache "$TMP/cache" --output "$TMP/parts"
expect_stderr "converting '$T'" "the pipeline converts the typed folder"
grep -q '"version":[[:space:]]*2' "$TMP/cache/tn-converted/meta.json"
expect_eq $? 0 "into a typed dataset"
finish
