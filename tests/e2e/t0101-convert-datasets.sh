#!/bin/sh
# dglpart convert on every real graph in shared/datasets: node and edge
# counts, the exact Cora arrays DGL's fixture was built from, OGB as a folder
# and as a zip, --undirected / --dedup / --no_self_loops, and --overwrite.
. "$(dirname "$0")/lib.sh"
D="$SHARED/datasets"
CHK="$HELPERS/dscheck"

# conv NAME INPUT WANT [OPTIONS...]: convert, open with dp_dataset_open and
# compare the summary line.
conv() {
    name=$1; in=$2; want=$3; shift 3
    expect_ok "convert $name" "$DGLPART" convert "$in" --out "$TMP/$name" "$@"
    cp "$ERR" "$TMP/conv.err"
    run "$CHK" open "$TMP/$name"
    expect_eq "$(cat "$OUT")" "$want" "$name: dp_dataset_open accepts it, counts"
}
# conv_stderr REGEX DESC: the stderr of the last conv's convert
conv_stderr() {
    if grep -Eq -- "$1" "$TMP/conv.err"; then pass "$2"; else fail "$2"; fi
}
plain() { echo "nodes $1 edges $2 feat 0 classes 0 ncon 0 ew 0 splits 000 directed ${3:-1}"; }

# SNAP: CRLF, comments, self-loops, non-contiguous ids (N = max id + 1).
conv grqc "$D/snap/ca-GrQc.txt" "$(plain 26197 28980)"
conv email "$D/snap/email-Eu-core.txt.gz" "$(plain 1005 25571)"
conv fb "$D/snap/facebook_combined.txt.gz" "$(plain 4039 88234)"
conv wiki "$D/snap/wiki-Vote.txt" "$(plain 8298 103689)"
conv wiki-n "$D/snap/wiki-Vote.txt" "$(plain 9000 103689)" --num_nodes 9000
# SNAP's ground-truth departments as node labels.
conv email-lab "$D/snap/email-Eu-core.txt.gz" \
    "nodes 1005 edges 25571 feat 0 classes 42 ncon 0 ew 0 splits 000 directed 1" \
    --labels "$D/snap/email-Eu-core-department-labels.txt"
set -- $(sed -n 11p "$D/snap/email-Eu-core-department-labels.txt")
expect_eq "$(od -An -t d8 -j $((128 + 8 * $1)) -N 8 "$TMP/email-lab/label.npy" | tr -d ' ')" \
    "$2" "--labels: department of node $1"
conv email-nsl "$D/snap/email-Eu-core.txt.gz" "$(plain 1005 24929)" --no_self_loops
conv_stderr 'dropped 642 of 25571 edges \(self-loops\)' "self-loops counted"
# ca-GrQc lists both directions: doubling then dedup gives the same count.
conv grqc-ud "$D/snap/ca-GrQc.txt" "$(plain 26197 28980 0)" --undirected --dedup
conv fb-u "$D/snap/facebook_combined.txt.gz" "$(plain 4039 176468 0)" --undirected

# A pipe is read once: no peeking for magic bytes, hashed as it streams.
expect_ok "gzip edge list from a pipe" sh -c \
    "cat '$D/snap/facebook_combined.txt.gz' | '$DGLPART' convert /dev/stdin --out '$TMP/fb-pipe'"
cmp_files "$TMP/fb-pipe/indices.npy" "$TMP/fb/indices.npy" "pipe = file"
expect_ok "--output, as partition spells it" "$DGLPART" convert \
    "$D/snap/facebook_combined.txt.gz" --output "$TMP/fb-output"
cmp_files "$TMP/fb-output/indices.npy" "$TMP/fb/indices.npy" "--output = --out"
grep -q "$(sha256sum <"$D/snap/facebook_combined.txt.gz" | cut -c1-64)" "$TMP/fb-pipe/meta.json" &&
    pass "pipe input hashed" || fail "pipe input hashed"

# Edge 2k and 2k+1 are line k and its reverse.
"$CHK" coo "$TMP/fb" "$TMP/fb" >/dev/null 2>&1 && mkdir -p "$TMP/fbu" &&
    "$CHK" coo "$TMP/fb-u" "$TMP/fbu" >/dev/null 2>&1
line3=$(zcat "$D/snap/facebook_combined.txt.gz" | sed -n 3p)
expect_eq "$(od -An -t d8 -j $((128 + 16 * 2)) -N 16 "$TMP/fbu/src.npy" | tr -s ' ')" \
    " $(echo "$line3" | awk '{print $1, $2}')" "--undirected: src of edges 4, 5"
expect_eq "$(od -An -t d8 -j $((128 + 16 * 2)) -N 16 "$TMP/fbu/dst.npy" | tr -s ' ')" \
    " $(echo "$line3" | awk '{print $2, $1}')" "--undirected: dst of edges 4, 5"

# OGB: ogbl-ddi as a folder and as a zip (streamed), symmetrised.
conv ddi "$D/ogbl-ddi" "$(plain 4267 1067911)"
conv ddi-u "$D/ogbl-ddi" "$(plain 4267 2135822 0)" --undirected
# OGB states its counts up front, so its parser counts degrees and a thread
# faults in the edge arrays ahead of it; the same edges as a plain edge list
# go through the CSC's own counting pass.
zcat "$D/ogbl-ddi/raw/edge.csv.gz" | tr ',' ' ' >"$TMP/ddi.txt"
conv ddi-txt "$TMP/ddi.txt" "$(plain 4267 1067911)"
conv ddi-txt-u "$TMP/ddi.txt" "$(plain 4267 2135822 0)" --undirected
for f in indptr indices eids; do
    cmp_files "$TMP/ddi/$f.npy" "$TMP/ddi-txt/$f.npy" "OGB = edge list: $f"
    cmp_files "$TMP/ddi-u/$f.npy" "$TMP/ddi-txt-u/$f.npy" "OGB = edge list, --undirected: $f"
done
# The CSC against sort(1): sources and input edge ids by destination,
# input order within each column.
zcat "$D/ogbl-ddi/raw/edge.csv.gz" | awk -F, '{ print $2, $1, NR - 1 }' |
    sort -s -n -k1,1 >"$TMP/ddi.sorted"
npy_i32() { od -An -v -t d4 -j 128 "$1" | tr -s ' ' '\n' | sed '/^$/d'; }
expect_eq "$(npy_i32 "$TMP/ddi/indices.npy" | cksum)" \
    "$(cut -d' ' -f2 "$TMP/ddi.sorted" | cksum)" "ddi: indices = sources sorted by destination"
expect_eq "$(npy_i32 "$TMP/ddi/eids.npy" | cksum)" \
    "$(cut -d' ' -f3 "$TMP/ddi.sorted" | cksum)" "ddi: eids = input ids sorted by destination"
# The slices go to two threads and skip the page cache in whole pages;
# neither changes a byte.
expect_ok "convert ddi on one thread, page cache only" env DGLPART_TEST_ONE_THREAD=1 \
    DGLPART_DIRECT_IO=0 "$DGLPART" convert "$D/ogbl-ddi" --out "$TMP/ddi-1" --undirected
for f in indptr indices eids; do
    cmp_files "$TMP/ddi-u/$f.npy" "$TMP/ddi-1/$f.npy" "one thread, page cache = two, direct: $f"
done
# Where the CPU has AVX2, the slices list their edges with vector compares;
# the scalar loop must give the same bytes, sliced and filtered.
for u in "" --undirected "--undirected --dedup"; do
    n=ddi-s$(echo "$u" | tr -d ' -')
    expect_ok "convert ddi $u, scalar" env DGLPART_TEST_NO_SIMD=1 \
        "$DGLPART" convert "$D/ogbl-ddi" --out "$TMP/$n" $u
    expect_ok "convert ddi $u" "$DGLPART" convert "$D/ogbl-ddi" --out "$TMP/$n-v" $u
    for f in indptr indices eids; do
        cmp_files "$TMP/$n/$f.npy" "$TMP/$n-v/$f.npy" "scalar = vector listing $u: $f"
    done
done
cmp_files "$TMP/ddi-u/indices.npy" "$TMP/ddi-sundirected/indices.npy" \
    "--undirected, scalar = the run above"
# OGB states both counts, so its edges go into buckets by destination and
# the CSC is made a bucket at a time. The same bytes as the slices give,
# with passes of a few slots (a node alone past the cap), on one thread,
# and without eids.
for v in "" "DGLPART_TEST_BUCKET_CAP=1000" "DGLPART_TEST_BUCKET_CAP=1" \
    "DGLPART_TEST_ONE_THREAD=1"; do
    expect_ok "convert ddi in buckets ${v:-}" env $v "$DGLPART" -v convert \
        "$D/ogbl-ddi" --out "$TMP/ddi-b" --overwrite
    expect_stderr "csc: 17 buckets of 256 nodes" "ddi: the CSC from buckets ${v:-}"
    for f in indptr indices eids; do
        cmp_files "$TMP/ddi/$f.npy" "$TMP/ddi-b/$f.npy" "buckets = slices ${v:-}: $f"
    done
done
expect_ok "convert ddi in buckets, no eids" "$DGLPART" convert "$D/ogbl-ddi" \
    --out "$TMP/ddi-bn" --no_eids
expect_ok "convert ddi in slices, no eids" env DGLPART_TEST_NO_BUCKETS=1 \
    "$DGLPART" -v convert "$D/ogbl-ddi" --out "$TMP/ddi-sn" --no_eids
expect_stderr "csc: 16 slices of up to [0-9]+ entries" "DGLPART_TEST_NO_BUCKETS: slices"
cmp_files "$TMP/ddi-sn/indices.npy" "$TMP/ddi-bn/indices.npy" "buckets = slices, no eids"
# A bucket whose edges come rarely: gaps past 255 edge ids take an escape.
mkdir -p "$TMP/gaps/raw"
awk 'BEGIN { for (i = 0; i < 3000; i++) print i % 61 "," (i % 700 == 5 ? 63 : i % 7) }' |
    gzip >"$TMP/gaps/raw/edge.csv.gz"
echo 64 | gzip >"$TMP/gaps/raw/num-node-list.csv.gz"
echo 3000 | gzip >"$TMP/gaps/raw/num-edge-list.csv.gz"
expect_ok "convert rare-bucket graph" "$DGLPART" -v convert "$TMP/gaps" --out "$TMP/gaps-b"
expect_stderr "csc: 32 buckets of 2 nodes" "rare-bucket graph: in buckets"
expect_ok "convert rare-bucket graph, slices" env DGLPART_TEST_NO_BUCKETS=1 \
    "$DGLPART" convert "$TMP/gaps" --out "$TMP/gaps-s"
for f in indptr indices eids; do
    cmp_files "$TMP/gaps-s/$f.npy" "$TMP/gaps-b/$f.npy" "rare-bucket graph: buckets = slices: $f"
done
expect_eq "$(od -An -t d4 -j $((128 + 4 * 2996)) -N 16 "$TMP/gaps-b/eids.npy" | tr -s ' ')" \
    " 705 1405 2105 2805" "rare-bucket graph: node 63's edge ids"
# Past DGLPART_EDGE_SPILL the buckets go in chunks to a scratch file with
# direct I/O and come back a bucket at a time: the same bytes whether the
# writer keeps up, falls behind (chunks stay in memory) or takes none.
# Where $TMP's file system refuses direct I/O, the arrays spill instead.
expect_ok "ddi past the spill point" env DGLPART_EDGE_SPILL=1M "$DGLPART" -v \
    convert "$D/ogbl-ddi" --out "$TMP/ddi-c"
for f in indptr indices eids; do
    cmp_files "$TMP/ddi/$f.npy" "$TMP/ddi-c/$f.npy" "past the spill point: same $f"
done
if grep -q "not in buckets: " "$ERR"; then
    echo "# $TMP refuses direct I/O: $(grep -o 'not in buckets: .*' "$ERR")"
    expect_stderr "csc: 16 slices" "no direct I/O: slices of a spilled store"
else
    for v in "" "DGLPART_TEST_BUCKET_CHUNK=1 DGLPART_TEST_BUCKET_QUEUE=2" \
        "DGLPART_TEST_BUCKET_QUEUE=0"; do
        expect_ok "ddi in chunks ${v:-}" env DGLPART_EDGE_SPILL=1M $v \
            "$DGLPART" -v convert "$D/ogbl-ddi" --out "$TMP/ddi-c" --overwrite
        expect_stderr "csc: 34 buckets of 128 nodes" "ddi in chunks: buckets ${v:-}"
        for f in indptr indices eids; do
            cmp_files "$TMP/ddi/$f.npy" "$TMP/ddi-c/$f.npy" "chunks = slices ${v:-}: $f"
        done
    done
    expect_stderr "buckets: 0 chunks of 256 KiB to a scratch file, [1-9][0-9]* kept in memory" \
        "DGLPART_TEST_BUCKET_QUEUE=0: every chunk in memory"
    expect_ok "ddi in chunks, no eids" env DGLPART_EDGE_SPILL=1M "$DGLPART" -v \
        convert "$D/ogbl-ddi" --out "$TMP/ddi-cn" --no_eids
    expect_stderr "buckets: [1-9][0-9]* chunks of 256 KiB to a scratch file" \
        "chunks: written to the scratch file"
    cmp_files "$TMP/ddi-sn/indices.npy" "$TMP/ddi-cn/indices.npy" "chunks = slices, no eids"
    # A scratch file the disk refuses (a limit of 1 MB, 512-byte blocks in
    # dash, where the chunks take 3 MB), as a full disk would: one line
    # naming the folder, no output.
    (trap '' XFSZ; ulimit -f 2000 && exec env DGLPART_EDGE_SPILL=1M \
        "$DGLPART" convert "$D/ogbl-ddi" --out "$TMP/ddi-full") >"$OUT" 2>"$ERR"
    expect_eq "$?" 1 "scratch write refused: exit 1"
    expect_stderr "ddi-full.tmp': cannot write the edges' scratch file: File too large" \
        "scratch write refused: the folder and the reason"
    expect_eq "$(wc -l <"$ERR")" 1 "scratch write refused: one line"
    expect_missing "$TMP/ddi-full" "scratch write refused: no output"
fi
expect_ok "ddi past the spill point, DGLPART_DIRECT_IO=0" env DGLPART_EDGE_SPILL=1M \
    DGLPART_DIRECT_IO=0 "$DGLPART" -v convert "$D/ogbl-ddi" --out "$TMP/ddi-nd"
expect_stderr "csc: 16 slices" "DGLPART_DIRECT_IO=0: no chunks, slices of a spilled store"
cmp_files "$TMP/ddi/indices.npy" "$TMP/ddi-nd/indices.npy" "DGLPART_DIRECT_IO=0: same indices"
if [ "$(id -u)" = 0 ] && mkdir "$TMP/tmpfs" &&
    mount -t tmpfs -o size=64m dglpart-test "$TMP/tmpfs" 2>/dev/null; then
    at_exit "umount '$TMP/tmpfs'"
    expect_ok "ddi past the spill point on tmpfs" env DGLPART_EDGE_SPILL=1M \
        "$DGLPART" -v convert "$D/ogbl-ddi" --out "$TMP/tmpfs/ddi"
    expect_stderr "not in buckets: .*tmpfs" "tmpfs: no chunks, and why"
    cmp_files "$TMP/ddi/eids.npy" "$TMP/tmpfs/ddi/eids.npy" "tmpfs: same eids"
else
    echo "# no tmpfs (not root): the fallback there is not checked"
fi
(cd "$D" && zip -qr -1 "$TMP/ogbl-ddi.zip" ogbl-ddi)
conv ddi-zip "$TMP/ogbl-ddi.zip" "$(plain 4267 1067911)"
for a in indptr indices eids; do
    cmp_files "$TMP/ddi/$a.npy" "$TMP/ddi-zip/$a.npy" "ddi zip = folder: $a.npy"
done
grep -q '"sha256":[[:space:]]*"'"$(sha256sum "$TMP/ogbl-ddi.zip" | cut -c1-64)" \
    "$TMP/ddi-zip/meta.json" && pass "meta.json has the zip's sha256" ||
    fail "meta.json has the zip's sha256"

# A full node-property layout (features, labels, a split) from the shared
# generator, as a folder and as a zip with a top folder, like OGB's zips.
cc -O2 -o "$TMP/gengraph" "$SHARED/tools/gengraph.c" -lz -lm &&
    "$TMP/gengraph" rmat 10 8 "$TMP/genin/rmat10" --seed 3 --feat 5 >/dev/null 2>&1
G="$TMP/genin/rmat10"
classes=$(zcat "$G/raw/node-label.csv.gz" | sort -n | tail -n 1)
conv gen "$G" "nodes 1024 edges 8192 feat 5 classes $((classes + 1)) ncon 0 ew 0 splits 111 directed 1"
(cd "$TMP/genin" && zip -qr "$TMP/rmat10.zip" rmat10)
conv gen-zip "$TMP/rmat10.zip" "$(cat "$OUT")"
for a in indptr indices eids feat label train_mask val_mask test_mask; do
    cmp_files "$TMP/gen-zip/$a.npy" "$TMP/gen/$a.npy" "generated zip = folder: $a.npy"
done
expect_eq "$(od -An -v -t u1 -j 128 "$TMP/gen-zip/train_mask.npy" | tr -s ' ' '\n' | grep -c '^1$')" \
    "$(zcat "$G/split/random/train.csv.gz" | wc -l)" "train mask = split/random/train"
expect_eq "$(zcat "$G/raw/node-feat.csv.gz" | sed -n 2p | cut -d, -f1 | awk '{printf "%.4f", $1}')" \
    "$(od -An -t f4 -j $((128 + 20)) -N 4 "$TMP/gen-zip/feat.npy" | awk '{printf "%.4f", $1}')" \
    "feat row 1 col 0"

# ogbn-arxiv-partial has counts and labels but no edge list: refused.
expect_fail 1 "arxiv-partial without edges is refused" \
    "$DGLPART" convert "$D/ogbn-arxiv-partial" --out "$TMP/arxiv"
expect_stderr "raw/edge.csv.gz' is missing" "names the missing edge list"
expect_missing "$TMP/arxiv" "no output folder"
# With an edge list of the promised size, its counts and labels are used.
mkdir -p "$TMP/arxiv-in/raw"
cp "$D"/ogbn-arxiv-partial/raw/* "$TMP/arxiv-in/raw/"
awk 'BEGIN { for (i = 0; i < 1166243; i++) print i % 169343 "," (i * 7919) % 169343 }' |
    gzip -1 >"$TMP/arxiv-in/raw/edge.csv.gz"
conv arxiv "$TMP/arxiv-in" \
    "nodes 169343 edges 1166243 feat 0 classes 40 ncon 0 ew 0 splits 000 directed 1"

# METIS: fmt 0/1/10/11, ncon, trailing blank line (karate), isolated vertices.
conv 4elt "$D/metis-graphs/4elt.graph" "$(plain 15606 91756)"
conv copter2 "$D/metis-graphs/copter2.graph" "$(plain 55476 704476)"
conv mdual "$D/metis-graphs/mdual.graph" "$(plain 258569 1026264)"
conv mgraph "$D/metis-graphs/test.mgraph" \
    "nodes 766 edges 2628 feat 0 classes 0 ncon 2 ew 0 splits 000 directed 1"
conv delaunay "$D/kahip-examples/delaunay_n15.graph" "$(plain 32768 196548)"
conv rgg "$D/kahip-examples/rgg_n_2_15_s0.graph" "$(plain 32768 320480)"
conv weighted "$D/kahip-examples/example_weighted.graph" \
    "nodes 132 edges 656 feat 0 classes 0 ncon 1 ew 1 splits 000 directed 1"
conv wing "$D/walshaw/wing.graph" "$(plain 62032 243088)"
conv fe4elt2 "$D/walshaw/fe_4elt2.graph" "$(plain 11143 65636)"
conv karate "$D/dimacs10-clustering/karate.graph" "$(plain 34 156)"
conv pgp "$D/dimacs10-clustering/PGPgiantcompo.graph" "$(plain 10680 48632)"
# example_weighted: line 1 of vertices is "287 2 53 10 75": weight 287, then
# neighbours 2 (w 53) and 10 (w 75) give edges 1->0 and 9->0.
expect_eq "$(od -An -t d8 -j 128 -N 8 "$TMP/weighted/node_weight.npy" | tr -d ' ')" \
    287 "METIS vertex weight kept"
expect_eq "$(od -An -t d8 -j 128 -N 16 "$TMP/weighted/edge_weight.npy" | tr -s ' ')" \
    " 53 75" "METIS edge weights kept by edge id"
expect_fail 1 "metis.mesh is refused" \
    "$DGLPART" convert "$D/metis-graphs/metis.mesh" --out "$TMP/mesh"
expect_stderr "metis.mesh' is a METIS mesh" "mesh named clearly"
expect_fail 1 "metis.mesh with --format metis" \
    "$DGLPART" convert "$D/metis-graphs/metis.mesh" --format metis --out "$TMP/mesh"
expect_stderr "line 1: expected a METIS header .*m2gmetis" "mesh header explained"
expect_missing "$TMP/mesh" "no output for the mesh"

# LINQS: Cora gives exactly the arrays of DGL's fixture.
conv cora "$D/linqs-cora" \
    "nodes 2708 edges 5429 feat 1433 classes 7 ncon 0 ew 0 splits 111 directed 1"
mkdir -p "$TMP/cora-coo"
expect_ok "cora back to src/dst" "$CHK" coo "$TMP/cora" "$TMP/cora-coo"
for a in src dst; do
    expect_ok "cora $a.npy = fixture" "$CHK" npycmp "$TMP/cora-coo/$a.npy" \
        "$SHARED/fixtures/dgl-cora/input/$a.npy"
done
for a in feat label train_mask val_mask test_mask; do
    expect_ok "cora $a.npy = fixture" "$CHK" npycmp "$TMP/cora/$a.npy" \
        "$SHARED/fixtures/dgl-cora/input/$a.npy"
done
conv citeseer "$D/linqs-citeseer" \
    "nodes 3312 edges 4715 feat 3703 classes 6 ncon 0 ew 0 splits 111 directed 1"
conv_stderr 'skipped 17 citations of papers missing' "citeseer: unknown papers counted"
# The bundled copy is detected as LINQS.
conv bundled "$TOP/datasets/cora" \
    "nodes 2708 edges 5429 feat 1433 classes 7 ncon 0 ew 0 splits 111 directed 1"
cmp_files "$TMP/bundled/indices.npy" "$TMP/cora/indices.npy" "bundled cora = linqs-cora"

# The npy folder layout: the fixture's own input.
conv npy "$SHARED/fixtures/dgl-cora/input" \
    "nodes 2708 edges 5429 feat 1433 classes 7 ncon 0 ew 0 splits 111 directed 1"
for a in indptr indices eids feat label train_mask; do
    cmp_files "$TMP/npy/$a.npy" "$TMP/cora/$a.npy" "npy folder = linqs: $a.npy"
done

# An existing output is refused unless --overwrite.
expect_fail 1 "existing output refused" \
    "$DGLPART" convert "$D/snap/wiki-Vote.txt" --out "$TMP/karate"
expect_stderr "karate' already exists \(use --overwrite" "says how to replace it"
conv karate "$D/snap/wiki-Vote.txt" "$(plain 8298 103689)" --overwrite
expect_missing "$TMP/karate.tmp" "no .tmp left"
# killed right after swapping the new folder in: it is whole, and the old
# one (now at karate.tmp) goes with the next run
expect_fail 137 "convert killed after the swap" env DGLPART_FAULT=exchanged \
    "$DGLPART" convert "$D/snap/wiki-Vote.txt" --out "$TMP/karate" --overwrite
run "$CHK" open "$TMP/karate"
expect_eq "$(cat "$OUT")" "$(plain 8298 103689)" "the swapped-in folder is whole"
expect_fail 137 "convert killed before the swap" env DGLPART_FAULT=install \
    "$DGLPART" convert "$D/snap/wiki-Vote.txt" --out "$TMP/karate" --overwrite
run "$CHK" open "$TMP/karate"
expect_eq "$(cat "$OUT")" "$(plain 8298 103689)" "the old folder is whole"
conv karate "$D/snap/wiki-Vote.txt" "$(plain 8298 103689)" --overwrite
expect_missing "$TMP/karate.tmp" "rerun: no .tmp left"
# Edges past DGLPART_EDGE_SPILL bytes move to scratch files mid-read: the
# arrays are the same byte for byte, and no scratch file is left behind.
expect_ok "convert, edges in memory" "$DGLPART" convert "$D/snap/wiki-Vote.txt" \
    --out "$TMP/mem" --undirected
expect_ok "convert, edges spilled at 64 KiB" env DGLPART_EDGE_SPILL=65536 \
    "$DGLPART" convert "$D/snap/wiki-Vote.txt" --out "$TMP/spilled" --undirected
for a in indptr indices eids; do
    cmp_files "$TMP/mem/$a.npy" "$TMP/spilled/$a.npy" "spilled edges: same $a.npy"
done
expect_eq "$(ls "$TMP/spilled" | sort | tr '\n' ' ')" "$(ls "$TMP/mem" | sort | tr '\n' ' ')" \
    "spilled edges: the same files, no scratch left"
expect_fail 2 "missing --out is misuse" "$DGLPART" convert "$D/snap/wiki-Vote.txt"
finish
