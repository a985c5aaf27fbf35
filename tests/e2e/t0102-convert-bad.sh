#!/bin/sh
# dglpart convert on real files damaged here: every bad input gives exit 1,
# one line naming the file, the line (or byte offset) and what was expected,
# and leaves neither the output folder nor OUT.tmp behind.
. "$(dirname "$0")/lib.sh"
D="$SHARED/datasets"

# bad DESC REGEX CONVERT-ARGS...: fails with one message matching REGEX.
bad() {
    d=$1; re=$2; shift 2
    rm -rf "$TMP/res" "$TMP/res.tmp"
    expect_fail 1 "$d: exit 1" "$DGLPART" convert "$@" --out "$TMP/res"
    expect_stderr "^dglpart convert: .*$re" "$d: message"
    expect_eq "$(grep -vc warning "$ERR")" 1 "$d: one line"
    expect_missing "$TMP/res" "$d: no output folder"
    expect_missing "$TMP/res.tmp" "$d: no temporary folder"
}

# Edge lists.
sed '100s/^[0-9]*/x17/' "$D/snap/wiki-Vote.txt" >"$TMP/wiki-alpha.txt"
bad "non-numeric id" "wiki-alpha.txt' line 100: column 1: expected a node id \(non-negative integer\), found 'x17'" \
    "$TMP/wiki-alpha.txt"
zcat "$D/snap/email-Eu-core.txt.gz" | sed '5s/ [0-9]*$/ -3/' | gzip >"$TMP/email-neg.txt.gz"
bad "negative id" "email-neg.txt.gz' line 5: column 2: expected a non-negative node id, found -3" \
    "$TMP/email-neg.txt.gz"
zcat "$D/snap/facebook_combined.txt.gz" | sed '777s/ .*//' >"$TMP/fb-col.txt"
bad "missing column" "fb-col.txt' line 777: expected 2 columns \(src dst\), found 1" \
    "$TMP/fb-col.txt"
# ids at INT64_MAX once overflowed the node count (max id + 1)
sed '6s/\t[0-9]*/\t9223372036854775807/' "$D/snap/wiki-Vote.txt" >"$TMP/wiki-max.txt"
bad "id at INT64_MAX" "wiki-max.txt' line 6: node id 9223372036854775807 too large \(ids must be below 2\^62\)" \
    "$TMP/wiki-max.txt"
sed '6s/\t[0-9]*/\t4611686018427387904/' "$D/snap/wiki-Vote.txt" >"$TMP/wiki-2p62.txt"
bad "id just past 2^62" "line 6: node id 4611686018427387904 too large" \
    "$TMP/wiki-2p62.txt"
# ...and so did the readers that take the count from the largest id
mkdir -p "$TMP/ogbmax/raw" "$TMP/npymax"
printf '0,1\n1,9223372036854775807\n' | gzip >"$TMP/ogbmax/raw/edge.csv.gz"
bad "OGB id at INT64_MAX, no node count" "ogbmax/raw/edge.csv.gz' line 2: node id 9223372036854775807 too large \(ids must be below 2\^62\)" \
    "$TMP/ogbmax"
"$HELPERS/dscheck" ints "$TMP/npymax/src.npy" 0 1
"$HELPERS/dscheck" ints "$TMP/npymax/dst.npy" 1 9223372036854775807
bad "npy id at INT64_MAX" "npymax/dst.npy' entry 1: node id 9223372036854775807 too large \(ids must be below 2\^62\)" \
    "$TMP/npymax"
(cd "$TMP/npymax" && zip -q ../max.npz src.npy dst.npy)
bad "npz id at INT64_MAX" "max.npz:dst.npy' entry 1: node id 9223372036854775807 too large \(ids must be below 2\^62\)" \
    "$TMP/max.npz"
bad "id beyond --num_nodes" "ca-GrQc.txt' line [0-9]+: node id [0-9]+ out of range \[0, 100\) \(--num_nodes\)" \
    "$D/snap/ca-GrQc.txt" --num_nodes 100
# int64 ids in range take a loop with no check an item: a negative one,
# and the entry of the largest, are still named
mkdir -p "$TMP/npzneg" "$TMP/npzbig"
"$HELPERS/dscheck" ints "$TMP/npzneg/src.npy" 0 1 2 3
"$HELPERS/dscheck" ints "$TMP/npzneg/dst.npy" 1 2 -5 0
(cd "$TMP/npzneg" && zip -q ../neg.npz src.npy dst.npy)
bad "npz negative id" "neg.npz:dst.npy' entry 2: expected a non-negative node id" \
    "$TMP/neg.npz"
"$HELPERS/dscheck" ints "$TMP/npzbig/src.npy" 0 1 2 3
"$HELPERS/dscheck" ints "$TMP/npzbig/dst.npy" 1 9 7 9
(cd "$TMP/npzbig" && zip -q ../big.npz src.npy dst.npy)
bad "npz id beyond --num_nodes" "entry 1: node id 9 out of range \[0, 5\)" \
    "$TMP/big.npz" --num_nodes 5
head -c 100000 "$D/snap/facebook_combined.txt.gz" >"$TMP/fb-cut.txt.gz"
bad "truncated gzip" "fb-cut.txt.gz': truncated gzip data at byte offset 100000" \
    "$TMP/fb-cut.txt.gz"
cp "$D/snap/facebook_combined.txt.gz" "$TMP/fb-flip.txt.gz"
printf 'XXXXXXXX' | dd of="$TMP/fb-flip.txt.gz" bs=1 seek=50000 conv=notrunc 2>/dev/null
bad "corrupt gzip" "fb-flip.txt.gz' at byte offset [0-9]+: bad gzip data" "$TMP/fb-flip.txt.gz"

sed '20s/ [0-9]*$/ dept/' "$D/snap/email-Eu-core-department-labels.txt" >"$TMP/labels.txt"
bad "non-numeric label" "labels.txt' line 20: column 2: expected a label" \
    "$D/snap/email-Eu-core.txt.gz" --labels "$TMP/labels.txt"
printf '1004 3\n1005 2\n' >"$TMP/labels2.txt"
bad "label node beyond --num_nodes" "labels2.txt' line 2: node id 1005 out of range \[0, 1005\) \(--num_nodes\)" \
    "$D/snap/email-Eu-core.txt.gz" --labels "$TMP/labels2.txt" --num_nodes 1005
# Labels at INT64_MAX overflowed num_classes (max label + 1); meta.json
# holds it as a double, exact below 2^53.
printf '0 1\n1 9223372036854775807\n' >"$TMP/labmax.txt"
bad "label at INT64_MAX" "labmax.txt' line 2: label 9223372036854775807 too large \(labels must be below 2\^53\)" \
    "$D/snap/email-Eu-core.txt.gz" --labels "$TMP/labmax.txt"
printf '0 9007199254740992\n' >"$TMP/lab2p53.txt"
bad "label at 2^53" "lab2p53.txt' line 1: label 9007199254740992 too large" \
    "$D/snap/email-Eu-core.txt.gz" --labels "$TMP/lab2p53.txt"
mkdir -p "$TMP/ogblab/raw" "$TMP/npylab"
printf '0,1\n1,0\n' | gzip >"$TMP/ogblab/raw/edge.csv.gz"
printf '0\n9223372036854775807\n' | gzip >"$TMP/ogblab/raw/node-label.csv.gz"
bad "OGB label at INT64_MAX" "ogblab/raw/node-label.csv.gz' line 2: label 9223372036854775807 too large \(labels must be below 2\^53\)" \
    "$TMP/ogblab"
"$HELPERS/dscheck" ints "$TMP/npylab/src.npy" 0 1
"$HELPERS/dscheck" ints "$TMP/npylab/dst.npy" 1 0
"$HELPERS/dscheck" ints "$TMP/npylab/label.npy" 0 9223372036854775807
bad "npy label at INT64_MAX" "npylab/label.npy' entry 1: label 9223372036854775807 too large \(labels must be below 2\^53\)" \
    "$TMP/npylab"
(cd "$TMP/npylab" && zip -q ../lab.npz src.npy dst.npy label.npy)
bad "npz label at INT64_MAX" "lab.npz:label.npy' entry 1: label 9223372036854775807 too large \(labels must be below 2\^53\)" \
    "$TMP/lab.npz"

# OGB: ids and counts against the count files.
mkdir -p "$TMP/ddi/raw"
cp "$D"/ogbl-ddi/raw/num-*.csv.gz "$TMP/ddi/raw/"
zcat "$D/ogbl-ddi/raw/edge.csv.gz" | sed '1234s/^[0-9]*/4267/' | gzip -1 >"$TMP/ddi/raw/edge.csv.gz"
bad "OGB id out of range" "ddi/raw/edge.csv.gz' line 1234: node id 4267 out of range \[0, 4267\) \('.*num-node-list.csv.gz' says 4267\)" \
    "$TMP/ddi"
cp "$D/ogbl-ddi/raw/edge.csv.gz" "$TMP/ddi/raw/edge.csv.gz"
echo 1067910 | gzip >"$TMP/ddi/raw/num-edge-list.csv.gz"
bad "edge count file disagrees" "num-edge-list.csv.gz' line 1: says 1067910 edges, but '.*edge.csv.gz' has 1067911" \
    "$TMP/ddi"
# A count far too low stops the in-memory buckets early, not at the end.
echo 1000 | gzip >"$TMP/ddi/raw/num-edge-list.csv.gz"
bad "edge count file far too low" "ddi/raw/edge.csv.gz': more than twice the 1000 edges stated up front \\([0-9]+ so far\\)" \
    "$TMP/ddi"
cp "$D/ogbl-ddi/raw/num-edge-list.csv.gz" "$TMP/ddi/raw/"
echo 4000 | gzip >"$TMP/ddi/raw/num-node-list.csv.gz"
bad "node count file disagrees" "edge.csv.gz' line [0-9]+: node id [0-9]+ out of range \[0, 4000\)" "$TMP/ddi"
echo "4267,x" | gzip >"$TMP/ddi/raw/num-node-list.csv.gz"
bad "bad count file" "num-node-list.csv.gz' line 1: expected a count" "$TMP/ddi"
cp "$D/ogbl-ddi/raw/num-node-list.csv.gz" "$TMP/ddi/raw/"
# Labels of the wrong length (arxiv's labels do not fit ddi's nodes).
cp "$D/ogbn-arxiv-partial/raw/node-label.csv.gz" "$TMP/ddi/raw/"
bad "label count disagrees" "node-label.csv.gz': 169343 labels, expected 4267" "$TMP/ddi"
rm "$TMP/ddi/raw/node-label.csv.gz"

# Zip: an entry that is not a regular file.
mkdir -p "$TMP/z/ddi/raw"
cp "$D"/ogbl-ddi/raw/num-*.csv.gz "$TMP/z/ddi/raw/"
ln -s /etc/passwd "$TMP/z/ddi/raw/edge.csv.gz"
(cd "$TMP/z" && zip -qry "$TMP/link.zip" ddi)
bad "zip symlink entry" "link.zip' entry 'ddi/raw/edge.csv.gz': expected a regular file, found a symbolic link" \
    "$TMP/link.zip"
printf 'PK\003\004garbage' >"$TMP/junk.zip"
bad "not a zip" "junk.zip" "$TMP/junk.zip"

# METIS: header against body.
sed '1s/^15606 45878/15606 45877/' "$D/metis-graphs/4elt.graph" >"$TMP/m-less.graph"
bad "METIS m too small" "m-less.graph' line [0-9]+: more adjacency entries than the 2m = 91754 the header \(line 1\) promises" \
    "$TMP/m-less.graph"
sed '1s/^15606 45878/15606 45879/' "$D/metis-graphs/4elt.graph" >"$TMP/m-more.graph"
bad "METIS m too large" "m-more.graph': the header \(line 1\) says m = 45879, i.e. 91758 adjacency entries, but the 15606 vertex lines hold 91756" \
    "$TMP/m-more.graph"
sed '1s/^15606/15607/' "$D/metis-graphs/4elt.graph" >"$TMP/n-more.graph"
bad "METIS n too large" "n-more.graph' line 15608: expected 15607 vertex lines after the header \(line 1\), found 15606" \
    "$TMP/n-more.graph"
sed '1s/^15606/15605/' "$D/metis-graphs/4elt.graph" >"$TMP/n-less.graph"
bad "METIS n too small" "n-less.graph' line [0-9]+: neighbour 15606 of vertex [0-9]+ out of range \[1, 15605\]" \
    "$TMP/n-less.graph"
sed '1s/ 11$/ 12/' "$D/kahip-examples/example_weighted.graph" >"$TMP/fmt.graph"
bad "METIS bad fmt" "fmt.graph' line 1: fmt '12' is not a METIS format" "$TMP/fmt.graph"
sed '5s/ [0-9]*$//' "$D/kahip-examples/example_weighted.graph" >"$TMP/ew.graph"
bad "METIS missing edge weight" "ew.graph' line 5: expected an edge weight after neighbour" "$TMP/ew.graph"
sed '10s/^ *[0-9]* /7 x /' "$D/walshaw/wing.graph" >"$TMP/alpha.graph"
bad "METIS non-numeric" "alpha.graph' line 10: expected a neighbour \(an integer\), found 'x'" "$TMP/alpha.graph"
{ cat "$D/dimacs10-clustering/karate.graph"; echo "1 2"; } >"$TMP/karate-extra.graph"
bad "METIS extra line" "karate-extra.graph' line 37: expected the end of the file after 34 vertex lines" \
    "$TMP/karate-extra.graph"

# .npy folder: wrong dtype, wrong shape, ids beyond the node arrays.
in="$SHARED/fixtures/dgl-cora/input"
mkdir -p "$TMP/npy1" "$TMP/npy2" "$TMP/npy3"
cp "$in"/*.npy "$TMP/npy1/" && cp "$in/train_mask.npy" "$TMP/npy1/src.npy"
bad "npy wrong dtype" "npy1/src.npy': expected int64 \[-1\] or int32, found uint8 \[2708\]" "$TMP/npy1"
cp "$in"/*.npy "$TMP/npy2/" && cp "$in/label.npy" "$TMP/npy2/dst.npy"
bad "npy wrong shape" "npy2/dst.npy': expected int64 \[5429\] or int32, found int64 \[2708\]" "$TMP/npy2"
cp "$in"/src.npy "$in"/dst.npy "$in"/feat.npy "$TMP/npy3/" && cp "$in/train_mask.npy" "$TMP/npy3/label.npy"
bad "npy label dtype" "npy3/label.npy': expected int64 \[2708\] or int32, found uint8 \[2708\]" "$TMP/npy3"
head -c 1000 "$in/src.npy" >"$TMP/npy3/src.npy"
bad "npy truncated" "npy3/src.npy': header promises 43432 data bytes, file has 872" "$TMP/npy3"

# LINQS: a paper line with a missing word.
mkdir -p "$TMP/cora"
cp "$D/linqs-cora/cora.cites" "$TMP/cora/"
sed '42s/\t0\t/\t/' "$D/linqs-cora/cora.content" >"$TMP/cora/cora.content"
bad "LINQS short line" "cora.content' line 42: expected 1435 fields \(id, 1433 words, class\), found 1434" "$TMP/cora"
# --overwrite never deletes the input it reads, nor a trailing '/' confuses.
mkdir -p "$TMP/keep"
cp "$D/snap/wiki-Vote.txt" "$TMP/keep/"
expect_fail 1 "output folder holding the input" \
    "$DGLPART" convert "$TMP/keep/wiki-Vote.txt" --out "$TMP/keep" --overwrite
expect_stderr "output '[^']*keep' holds the input" "says why"
cmp_files "$TMP/keep/wiki-Vote.txt" "$D/snap/wiki-Vote.txt" "input kept"
expect_ok "--out with a trailing slash" \
    "$DGLPART" convert "$TMP/keep/wiki-Vote.txt" --out "$TMP/slash/"
expect_missing "$TMP/slash/.tmp" "no .tmp inside the output"
finish
