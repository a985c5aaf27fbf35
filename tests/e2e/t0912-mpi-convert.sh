#!/bin/sh
# A chunked input (DGL's chunked graph format), an edge list (plain or
# gzipped), an OGB folder (csv or npz) or a .npz converted by the ranks of
# an mpirun together,
# into one folder every rank sees: each rank reads its share of the chunks
# (of the file's lines; of a gzipped file's blocks of lines), and
# the converted dataset is byte for byte the one a single process writes,
# for typed Cora, ogbl-ddi and wiki-Vote, on 2, 3 and more ranks than
# chunks, from the pipeline and from dglpart convert (which leaves an input
# they cannot share to one rank); a rerun uses it; a bad chunk or line read
# by one rank stops them all with one line naming the file and the file's
# line, leaving nothing behind; ranks that see another metadata.json are
# refused.
. "$(dirname "$0")/lib.sh"

mpi_setup
MPIRUN="mpirun_hw timeout 300 mpirun --allow-run-as-root --oversubscribe"

# same_dataset A B: every file the same, and as many
same_dataset() {
    _ok=1
    for _f in $(cd "$1" && find . -type f ! -name .dglpart-input-sha256 | sort); do
        cmp -s "$1/$_f" "$2/$_f" || { _ok=0; echo "# differs: $_f"; }
    done
    [ "$(cd "$1" && find . -type f | wc -l)" = \
        "$(cd "$2" && find . -type f ! -name .dglpart-input-sha256 | wc -l)" ] ||
        { _ok=0; echo "# another number of files"; }
    [ $_ok = 1 ]
}

# bad_line NAME FILE RANK MPIRUN...: one process fails on FILE's bad line;
# the ranks (MPIRUN...) fail with the same message and line, named by the
# rank RANK that read it, and leave no dataset
bad_line() {
    _n=$1 _f=$2 _r=$3
    shift 3
    expect_fail 1 "one process: a bad line, $_n" "$DGLPART" convert "$_f" \
        --out "$TMP/bad1-$_n"
    _want=$(sed -n 's/^[^:]*: //p' "$ERR")
    expect_fail 1 "ranks: a bad line, $_n" "$@" "$DGLPART" convert "$_f" \
        --out "$TMP/badp-$_n"
    grep -qF "rank $_r on" "$ERR" && grep -qF -e "$_want" "$ERR" &&
        pass "$_n: the same message, the same line, and the rank" ||
        fail "$_n: the same message, the same line, and the rank"
    [ ! -e "$TMP/badp-$_n" ] && [ ! -e "$TMP/badp-$_n.tmp" ] &&
        pass "$_n: no dataset left" || fail "$_n: no dataset left"
}

# typed Cora in 3 chunks a type; the input is named by its path, so the
# runs below read it at the same path
expect_ok "typed Cora" "$HELPERS/mkdataset" --typed-cora \
    "$SHARED/fixtures/dgl-cora/input" "$TMP/hc"
expect_ok "as DGL's chunked format" "$HELPERS/mkchunked" "$TMP/hc" "$TMP/ch" 3
expect_ok "one process converts it" "$DGLPART" convert "$TMP/ch" \
    --out "$TMP/one"
for np in 2 3 5; do
    rm -rf "$TMP/cache"
    # shellcheck disable=SC2086
    expect_ok "$np ranks convert and partition it" $MPIRUN -np $np \
        "$DGLPART" -v --dataset "$TMP/ch" --cache "$TMP/cache" --num_parts 4 \
        --balance_train --output "$TMP/out$np"
    expect_stderr "converting '[^']*' into '[^']*' on $np ranks" \
        "$np ranks: converted together"
    same_dataset "$TMP/one" "$TMP/cache/ch-converted" &&
        pass "$np ranks: the dataset one process writes" ||
        fail "$np ranks: the dataset one process writes"
done
# shellcheck disable=SC2086
expect_ok "dglpart convert under mpirun" $MPIRUN -np 3 "$DGLPART" -v convert \
    "$TMP/ch" --out "$TMP/conv/ch"
expect_stderr "read \\(each rank its share\\)" "reads in shares"
same_dataset "$TMP/one" "$TMP/conv/ch" &&
    pass "dglpart convert: the dataset one process writes" ||
    fail "dglpart convert: the dataset one process writes"
# an input the ranks cannot share (a METIS graph) is converted by one
# shellcheck disable=SC2086
expect_ok "dglpart convert of METIS under mpirun" $MPIRUN -np 2 "$DGLPART" \
    convert "$SHARED/datasets/kahip-examples/delaunay_n15.graph" \
    --out "$TMP/conv/del"
expect_ok "converted once" "$HELPERS/dscheck" open "$TMP/conv/del"
expect_ok "the parts verify" "$DGLPART" verify "$TMP/out3/cora_hetero.json" \
    --dataset "$TMP/cache/ch-converted"
# shellcheck disable=SC2086
expect_ok "a rerun" $MPIRUN -np 3 "$DGLPART" --dataset "$TMP/ch" \
    --cache "$TMP/cache" --num_parts 4 --output "$TMP/again"
expect_stderr "using the converted dataset in" "uses the converted dataset"
# the ranks' stamp (the input's digest, its files hashed over the ranks)
# is the one a single process computes
expect_ok "one process after the ranks" "$DGLPART" --dataset "$TMP/ch" \
    --cache "$TMP/cache" --num_parts 2 --output "$TMP/single"
expect_stderr "using the converted dataset in" "takes their dataset as its own"

# a real untyped graph (ogbl-ddi, 1.07M edges) in 4 chunks, on 2 ranks
expect_ok "ogbl-ddi" "$DGLPART" convert "$SHARED/datasets/ogbl-ddi" \
    --out "$TMP/ddi"
expect_ok "ogbl-ddi chunked" "$HELPERS/mkchunked" "$TMP/ddi" "$TMP/ddich" 4
expect_ok "one process converts ogbl-ddi" "$DGLPART" convert "$TMP/ddich" \
    --out "$TMP/ddione"
# shellcheck disable=SC2086
expect_ok "2 ranks convert ogbl-ddi" $MPIRUN -np 2 "$DGLPART" \
    --dataset "$TMP/ddich" --cache "$TMP/cache" --num_parts 4 \
    --balance_edges --output "$TMP/ddiout"
same_dataset "$TMP/ddione" "$TMP/cache/ddich-converted" &&
    pass "ogbl-ddi: the dataset one process writes" ||
    fail "ogbl-ddi: the dataset one process writes"

# a plain edge list (SNAP's wiki-Vote, comment lines included) is read by
# byte ranges, each rank from its part of the file's lines on
cp "$SHARED/datasets/snap/wiki-Vote.txt" "$TMP/wv.txt"
for opts in "" "--undirected" "--num_nodes 9000 --no_eids"; do
    # shellcheck disable=SC2086
    expect_ok "one process: edge list $opts" "$DGLPART" convert "$TMP/wv.txt" \
        --out "$TMP/wv1" --overwrite $opts
    # shellcheck disable=SC2086
    expect_ok "3 ranks: edge list $opts" $MPIRUN -np 3 "$DGLPART" -v convert \
        "$TMP/wv.txt" --out "$TMP/wv3" --overwrite $opts
    expect_stderr "read \\(each rank its share\\)" "3 ranks: in shares $opts"
    same_dataset "$TMP/wv1" "$TMP/wv3" &&
        pass "3 ranks: the dataset one process writes $opts" ||
        fail "3 ranks: the dataset one process writes $opts"
done
# a gzipped edge list cannot be cut by bytes: every rank inflates it and
# parses the blocks of lines that are its turn (5000 lines a block here,
# so each of 3 ranks has several; the default 64Ki leaves 5 ranks with 2)
gzip -c "$TMP/wv.txt" >"$TMP/wv.txt.gz"
GZ="mpirun_hw env DGLPART_TEST_GZ_BLOCK=5000 timeout 300 mpirun --allow-run-as-root --oversubscribe"
for opts in "" "--undirected" "--num_nodes 9000 --no_eids"; do
    # shellcheck disable=SC2086
    expect_ok "one process: gzipped edge list $opts" "$DGLPART" convert \
        "$TMP/wv.txt.gz" --out "$TMP/wvg1" --overwrite $opts
    # shellcheck disable=SC2086
    expect_ok "3 ranks: gzipped edge list $opts" $GZ -np 3 "$DGLPART" -v \
        convert "$TMP/wv.txt.gz" --out "$TMP/wvg3" --overwrite $opts
    expect_stderr "read \\(each rank its share\\)" "3 ranks: in blocks $opts"
    same_dataset "$TMP/wvg1" "$TMP/wvg3" &&
        pass "3 ranks, gzipped: the dataset one process writes $opts" ||
        fail "3 ranks, gzipped: the dataset one process writes $opts"
done
expect_ok "one process: gzipped edge list" "$DGLPART" convert \
    "$TMP/wv.txt.gz" --out "$TMP/wvg0"
# shellcheck disable=SC2086
expect_ok "5 ranks, 2 blocks: gzipped edge list" $MPIRUN -np 5 "$DGLPART" \
    convert "$TMP/wv.txt.gz" --out "$TMP/wvg5"
same_dataset "$TMP/wvg0" "$TMP/wvg5" &&
    pass "5 ranks, gzipped: the dataset one process writes" ||
    fail "5 ranks, gzipped: the dataset one process writes"
# a bad line late in it: line 100000 is in block 19, rank 1's
sed '100000s/.*/12 x3/' "$TMP/wv.txt" | gzip -c >"$TMP/wvbad.txt.gz"
# shellcheck disable=SC2086
bad_line gzipped "$TMP/wvbad.txt.gz" 1 $GZ -np 3
# an OGB folder: every rank reads the counts and its blocks of
# raw/edge.csv.gz, rank 0 the features, labels and splits too (the
# generator's node-property layout: 1024 nodes, 8192 edges, 5 features)
cc -O2 -o "$TMP/gengraph" "$SHARED/tools/gengraph.c" -lz -lm &&
    "$TMP/gengraph" rmat 10 8 "$TMP/ogb" --seed 3 --feat 5 >/dev/null 2>&1
expect_ok "one process: an OGB folder" "$DGLPART" convert "$TMP/ogb" \
    --out "$TMP/ogb1"
OGB="mpirun_hw env DGLPART_TEST_GZ_BLOCK=1000 timeout 300 mpirun --allow-run-as-root --oversubscribe"
# shellcheck disable=SC2086
expect_ok "3 ranks: an OGB folder" $OGB -np 3 "$DGLPART" -v convert \
    "$TMP/ogb" --out "$TMP/ogb3"
expect_stderr "read \\(each rank its share\\)" "3 ranks: the OGB folder in blocks"
same_dataset "$TMP/ogb1" "$TMP/ogb3" &&
    pass "3 ranks, OGB: the dataset one process writes (features, labels, splits)" ||
    fail "3 ranks, OGB: the dataset one process writes (features, labels, splits)"
# a count that disagrees with the ranks' edges in all: rank 0 finds it
cp -r "$TMP/ogb" "$TMP/ogbbad"
echo 8000 | gzip -c >"$TMP/ogbbad/raw/num-edge-list.csv.gz"
expect_fail 1 "one process: a wrong edge count" "$DGLPART" convert \
    "$TMP/ogbbad" --out "$TMP/ogbbad1"
want=$(sed -n 's/^[^:]*: //p' "$ERR")
# shellcheck disable=SC2086
expect_fail 1 "3 ranks: a wrong edge count" $OGB -np 3 "$DGLPART" convert \
    "$TMP/ogbbad" --out "$TMP/ogbbad3"
grep -qF "rank 0 on" "$ERR" && grep -qF -e "$want" "$ERR" &&
    pass "OGB: one process's message, from rank 0" ||
    fail "OGB: one process's message, from rank 0"
[ ! -e "$TMP/ogbbad3" ] && [ ! -e "$TMP/ogbbad3.tmp" ] &&
    pass "OGB: no dataset left" || fail "OGB: no dataset left"
# the features by blocks too, each rank writing its rows: 11 blocks of
# 100 lines over 5 ranks
# shellcheck disable=SC2086
expect_ok "5 ranks: an OGB folder" mpirun_hw env DGLPART_TEST_GZ_BLOCK=100 \
    timeout 300 mpirun --allow-run-as-root --oversubscribe -np 5 "$DGLPART" \
    convert "$TMP/ogb" --out "$TMP/ogb5"
same_dataset "$TMP/ogb1" "$TMP/ogb5" &&
    pass "5 ranks, OGB: the dataset one process writes" ||
    fail "5 ranks, OGB: the dataset one process writes"
# a bad feature row: line 1010 is in block 1, rank 1's
cp -r "$TMP/ogb" "$TMP/ogbfeat"
zcat "$TMP/ogb/raw/node-feat.csv.gz" | sed '1010s/.*/1,2,x/' |
    gzip -c >"$TMP/ogbfeat/raw/node-feat.csv.gz"
# shellcheck disable=SC2086
bad_line ogb-feat "$TMP/ogbfeat" 1 $OGB -np 3
# a bad line of raw/edge.csv.gz: line 5000 is in block 4, rank 1's
cp -r "$TMP/ogb" "$TMP/ogbline"
zcat "$TMP/ogb/raw/edge.csv.gz" | sed '5000s/.*/12,x3/' |
    gzip -c >"$TMP/ogbline/raw/edge.csv.gz"
# shellcheck disable=SC2086
bad_line ogb "$TMP/ogbline" 1 $OGB -np 3
# papers100M's layout (raw/data.npz, node-label.npz, a split) from Cora,
# stored and deflated: each rank its P-th of edge_index, rank 0 the node
# arrays; and a data.npz alone, as the npz format
IN="$SHARED/fixtures/dgl-cora/input"
mkdir -p "$TMP/p/d" "$TMP/p/l"
"$HELPERS/dscheck" stack "$IN/src.npy" "$IN/dst.npy" "$TMP/p/d/edge_index.npy"
cp "$IN/feat.npy" "$TMP/p/d/node_feat.npy"
"$HELPERS/dscheck" flabel "$IN/label.npy" "$TMP/p/l/node_label.npy"
for fmt in npz npzc; do
    zopt=-0
    [ $fmt = npzc ] && zopt=-6
    mkdir -p "$TMP/$fmt/raw" "$TMP/$fmt/split/time"
    (cd "$TMP/p/d" && zip -q $zopt "../../$fmt/raw/data.npz" ./*.npy)
    (cd "$TMP/p/l" && zip -q $zopt "../../$fmt/raw/node-label.npz" ./*.npy)
    seq 0 2 99 | gzip >"$TMP/$fmt/split/time/train.csv.gz"
    seq 100 199 | gzip >"$TMP/$fmt/split/time/test.csv.gz"
    expect_ok "one process: OGB's $fmt layout" "$DGLPART" convert \
        "$TMP/$fmt" --out "$TMP/$fmt-1"
    # shellcheck disable=SC2086
    expect_ok "3 ranks: OGB's $fmt layout" $MPIRUN -np 3 "$DGLPART" -v \
        convert "$TMP/$fmt" --out "$TMP/$fmt-3"
    expect_stderr "read \\(each rank its share\\)" "3 ranks: $fmt in shares"
    same_dataset "$TMP/$fmt-1" "$TMP/$fmt-3" &&
        pass "3 ranks, $fmt: the dataset one process writes" ||
        fail "3 ranks, $fmt: the dataset one process writes"
done
expect_ok "one process: a .npz" "$DGLPART" convert "$TMP/npzc/raw/data.npz" \
    --out "$TMP/dnpz-1"
# shellcheck disable=SC2086
expect_ok "2 ranks: a .npz" $MPIRUN -np 2 "$DGLPART" convert \
    "$TMP/npzc/raw/data.npz" --out "$TMP/dnpz-2"
same_dataset "$TMP/dnpz-1" "$TMP/dnpz-2" &&
    pass "2 ranks, .npz: the dataset one process writes" ||
    fail "2 ranks, .npz: the dataset one process writes"
# an id beyond --num_nodes (edge_index alone, nothing else giving the
# count): the rank holding the largest names its entry, as one process
(cd "$TMP/p/d" && zip -q ../ei.npz edge_index.npy)
expect_fail 1 "one process: a .npz, too few nodes" "$DGLPART" convert \
    "$TMP/p/ei.npz" --num_nodes 1000 --out "$TMP/dnpzbad1"
want=$(sed -n 's/^[^:]*: //p' "$ERR")
# shellcheck disable=SC2086
expect_fail 1 "3 ranks: a .npz, too few nodes" $MPIRUN -np 3 "$DGLPART" \
    convert "$TMP/p/ei.npz" --num_nodes 1000 --out "$TMP/dnpzbad3"
expect_stderr "rank [0-9] on [^ ]+: '[^']*ei.npz:edge_index.npy' entry [0-9]+: node id 2707 out of range" \
    ".npz: the rank that holds the id names it"
grep -qF -e "$want" "$ERR" &&
    pass ".npz: one process's message" || fail ".npz: one process's message"
[ ! -e "$TMP/dnpzbad3" ] && [ ! -e "$TMP/dnpzbad3.tmp" ] &&
    pass ".npz: no dataset left" || fail ".npz: no dataset left"
# ogbl-ddi (1.07M edges, 17 blocks of 64Ki lines) by the pipeline
# shellcheck disable=SC2086
expect_ok "the pipeline on ogbl-ddi, 2 ranks" $MPIRUN -np 2 "$DGLPART" -v \
    --dataset "$SHARED/datasets/ogbl-ddi" --cache "$TMP/cache" \
    --num_parts 4 --output "$TMP/ddi2"
expect_stderr "converting '[^']*' into '[^']*' on 2 ranks" \
    "ogbl-ddi: converted together"
same_dataset "$TMP/ddi" "$TMP/cache/ogbl-ddi-converted" &&
    pass "ogbl-ddi: the dataset one process writes" ||
    fail "ogbl-ddi: the dataset one process writes"
# shellcheck disable=SC2086
expect_ok "the pipeline on an edge list, 2 ranks" $MPIRUN -np 2 "$DGLPART" \
    -v --dataset "$TMP/wv.txt" --cache "$TMP/cache" --num_parts 4 \
    --output "$TMP/wvout"
expect_stderr "converting '[^']*' into '[^']*' on 2 ranks" \
    "the pipeline converts it together"
# a bad line late in the file: the rank reading it names the file's line
sed '100000s/.*/12 x3/' "$TMP/wv.txt" >"$TMP/wvbad.txt"
# shellcheck disable=SC2086
bad_line plain "$TMP/wvbad.txt" 2 $MPIRUN -np 3

# a bad id in one chunk: every rank stops, one line names the file and
# line, and neither the dataset nor its temporary folder is left
cp -r "$TMP/ch" "$TMP/bad"
printf '0 999999\n' >>"$TMP/bad/edges/e1-2.csv"
rm -rf "$TMP/cache"
# shellcheck disable=SC2086
expect_fail 1 "a bad chunk" $MPIRUN -np 3 "$DGLPART" --dataset "$TMP/bad" \
    --cache "$TMP/cache" --num_parts 4 --output "$TMP/badout"
expect_stderr "rank [0-9] on [^ ]+: '[^']*bad/edges/e1-2.csv'" \
    "names the rank and the chunk"
[ ! -e "$TMP/cache/bad-converted" ] && [ ! -e "$TMP/cache/bad-converted.tmp" ] &&
    [ ! -e "$TMP/badout" ] && pass "nothing left behind" ||
    fail "nothing left behind"

# rank 1 sees another metadata.json at the same path's name
mkdir -p "$TMP/r1"
cp -r "$TMP/ch" "$TMP/r1/ch"
sed -i 's/"cora_hetero"/"other"/' "$TMP/r1/ch/metadata.json"
cat >"$TMP/by-rank.sh" <<'EOF'
#!/bin/sh
if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then d=$2; else d=$1; fi
shift 2
exec "$@" --dataset "$d"
EOF
# shellcheck disable=SC2086
expect_fail 1 "another metadata.json on rank 1" $MPIRUN -np 2 sh \
    "$TMP/by-rank.sh" "$TMP/ch" "$TMP/r1/ch" "$DGLPART" --cache "$TMP/c2" \
    --num_parts 4 --output "$TMP/mis"
expect_stderr "rank 1 on [^ ]+: '[^']*r1/ch/metadata.json' on [^ ]+ differs from rank 0's" \
    "names the rank and the file"
[ ! -e "$TMP/c2/ch-converted" ] && pass "and converts nothing" ||
    fail "and converts nothing"
finish
