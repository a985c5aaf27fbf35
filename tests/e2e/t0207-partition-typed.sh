#!/bin/sh
# Typed graphs through partition: the typed Cora of dgl-cora-hetero (made by
# the mkdataset helper, dataset format version 2). Replaying DGL 1.1.3's own
# assignment (its <ntype>.txt folder, and one homogeneous id per line) gives
# DGL's partitions by content; METIS exact and multilevel, random and the
# balance options each give output that verify accepts; our output samples
# the same standalone and through the servers; so do node types without
# nodes; bad assignment folders are named by file and line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"

H=$SHARED/fixtures/dgl-cora-hetero
DS=$TMP/ds
expect_ok "typed Cora as a dataset" "$HELPERS/mkdataset" --typed-cora \
    "$SHARED/fixtures/dgl-cora/input" "$DS"

replay() {  # case, parts, extra partition flags...
    c=$1; k=$2; shift 2
    expect_ok "$c: DGL's assignment folder" "$HELPERS/partcmp" assign \
        "$H/$c" "$TMP/$c"
    expect_ok "$c: partition --part_assign DIR" "$DGLPART" partition "$DS" \
        --num_parts "$k" --part_assign "$TMP/$c" --output "$TMP/o-$c" "$@"
    expect_ok "$c: same content as DGL" "$HELPERS/partcmp" compare \
        "$H/$c" "$TMP/o-$c/cora_hetero.json"
    expect_ok "$c: verify" "$DGLPART" verify "$TMP/o-$c/cora_hetero.json" \
        --dataset "$DS"
    expect_stdout '^ok$' "$c: verify ok"
}
replay hetero-metis4-train 4 --balance_train
replay hetero-metis2-edges 2 --balance_edges
# the int64 arrays of graphs past 2^31 nodes or edges give the same parts
export DGLPART_TEST_WIDE_IDS=1
expect_ok "wide ids: partition" "$DGLPART" partition "$DS" --num_parts 4 \
    --part_assign "$TMP/hetero-metis4-train" --balance_train \
    --output "$TMP/o-wide"
unset DGLPART_TEST_WIDE_IDS
for f in cora_hetero.json part0/graph.dgl part3/graph.dgl part3/node_feat.dgl \
    part3/edge_feat.dgl part3/orig_eids.dgl; do
    cmp_files "$TMP/o-hetero-metis4-train/$f" "$TMP/o-wide/$f" "wide ids: $f"
done
expect_ok "hetero-one-part: partition" "$DGLPART" partition "$DS" \
    --num_parts 1 --output "$TMP/o-one"
expect_ok "hetero-one-part: same content as DGL" "$HELPERS/partcmp" compare \
    "$H/hetero-one-part" "$TMP/o-one/cora_hetero.json"
cmp_files "$H/hetero-one-part/cora_hetero.json" "$TMP/o-one/cora_hetero.json" \
    "hetero-one-part: the config is DGL's, byte for byte"
expect_ok "hetero-one-part: verify" "$DGLPART" verify \
    "$TMP/o-one/cora_hetero.json" --dataset "$DS"

# the config names the types as DGL does; features and orig ids per type
O=$TMP/o-hetero-metis4-train
grep -q '"ntypes": {' "$O/cora_hetero.json" &&
    grep -q '"word:rev_has:paper": 2' "$O/cora_hetero.json" &&
    pass "ntypes and etypes in the config" || fail "ntypes and etypes in the config"
grep -a -q 'paper/train_mask' "$O/part0/node_feat.dgl" &&
    grep -a -q 'word/count' "$O/part0/node_feat.dgl" &&
    grep -a -q 'paper:cites:paper/weight' "$O/part0/edge_feat.dgl" &&
    pass "typed feature keys" || fail "typed feature keys"
grep -a -q 'word' "$O/part0/orig_nids.dgl" &&
    grep -a -q 'paper:has:word' "$O/part0/orig_eids.dgl" &&
    pass "orig ids keyed by type" || fail "orig ids keyed by type"

# a homogeneous id per line works on a typed dataset too
expect_ok "assignment by homogeneous id" "$HELPERS/partcmp" assign \
    "$H/hetero-metis4-train" "$TMP/m4.txt"
expect_ok "partition --part_assign FILE" "$DGLPART" partition "$DS" \
    --num_parts 4 --part_assign "$TMP/m4.txt" --output "$TMP/o-file"
expect_ok "FILE: same content as DGL" "$HELPERS/partcmp" compare \
    "$H/hetero-metis4-train" "$TMP/o-file/cora_hetero.json"
expect_ok "FILE: verify" "$DGLPART" verify "$TMP/o-file/cora_hetero.json" \
    --dataset "$DS"

# the comparison can fail: one paper moved to another part
cp -r "$TMP/hetero-metis4-train" "$TMP/moved"
awk 'NR == 1 { print ($1 + 1) % 4; next } { print }' \
    "$TMP/hetero-metis4-train/paper.txt" >"$TMP/moved/paper.txt"
expect_ok "moved paper: partition" "$DGLPART" partition "$DS" --num_parts 4 \
    --part_assign "$TMP/moved" --output "$TMP/o-moved"
expect_fail 1 "moved paper: differs from DGL" "$HELPERS/partcmp" compare \
    "$H/hetero-metis4-train" "$TMP/o-moved/cora_hetero.json"
expect_stderr 'node sets differ' "moved paper: node sets reported"

# every assignment path gives valid typed output
CDS=$DS
VFLAGS=""
check() {  # name, flags... (dataset $CDS, verify flags $VFLAGS)
    n=$1; shift
    expect_ok "$n: partition" "$DGLPART" partition "$CDS" --output "$TMP/$n" "$@"
    cp "$OUT" "$TMP/$n.stats"
    # shellcheck disable=SC2086
    expect_ok "$n: verify" "$DGLPART" verify "$TMP/$n/cora_hetero.json" \
        --dataset "$CDS" $VFLAGS
    expect_stdout '^ok$' "$n: verify ok"
}
check exact4 --num_parts 4 --metis_mode exact --balance_train
grep -q 'paper train nodes 1\.0[0-3]' "$TMP/exact4.stats" &&
    grep -q 'word nodes 1\.0[0-3]' "$TMP/exact4.stats" &&
    pass "exact: train papers and words balanced" ||
    fail "exact: train papers and words balanced ($(tail -1 "$TMP/exact4.stats"))"
check ntypes4 --num_parts 4 --metis_mode exact --balance_ntypes paper
cmp_files "$TMP/exact4/part2/graph.dgl" "$TMP/ntypes4/part2/graph.dgl" \
    "--balance_ntypes paper = --balance_train"
check edges2 --num_parts 2 --balance_edges
grep -q 'in-edges of word nodes' "$TMP/edges2.stats" &&
    pass "balance_edges: in-edges per type" || fail "balance_edges: in-edges per type"
check plain3 --num_parts 3
grep -q 'paper nodes 1\.0[0-3][0-9], word nodes 1\.0[0-3]' "$TMP/plain3.stats" &&
    pass "no option: the node type is the balance class" ||
    fail "no option: the node type is the balance class"
check ml4 --num_parts 4 --metis_mode multilevel --balance_train
grep -q '(metis, multilevel)' "$TMP/ml4.stats" && pass "multilevel path taken" ||
    fail "multilevel path taken"
# coarsened for real: by default typed Cora is small enough that the
# multilevel path hands it to METIS whole
DGLPART_ML_NODES_PER_PART=250
export DGLPART_ML_NODES_PER_PART
check mllev4 --num_parts 4 --metis_mode multilevel --balance_train \
    --balance_edges
unset DGLPART_ML_NODES_PER_PART
python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
assert s["partitioner"] == "multilevel" and s["levels"] >= 1, s' \
    "$TMP/mllev4/partition-stats.json" 2>"$ERR" &&
    pass "multilevel: coarsened at least one level" ||
    fail "multilevel: coarsened at least one level"
grep -q 'paper train nodes 1\.0[0-3]' "$TMP/mllev4.stats" &&
    grep -q 'in-edges of word nodes 1\.0[0-3]' "$TMP/mllev4.stats" &&
    pass "multilevel: typed constraints met" ||
    fail "multilevel: typed constraints met ($(tail -1 "$TMP/mllev4.stats"))"
check random3 --num_parts 3 --part_method random --seed 5
check hops2 --num_parts 2 --part_assign "$TMP/hetero-metis2-edges" --num_hops 2
check hops0 --num_parts 2 --part_assign "$TMP/hetero-metis2-edges" --num_hops 0
check trainers --num_parts 2 --num_trainers_per_machine 2 --graph_formats coo,csc
grep -a -q 'word/trainer_id' "$TMP/trainers/part1/node_feat.dgl" &&
    grep -a -q 'word:rev_has:paper/trainer_id' "$TMP/trainers/part1/edge_feat.dgl" &&
    pass "trainer_id per type" || fail "trainer_id per type"
VFLAGS="--ndata_name feat=features,count=n --edata_name weight=w"
check renamed --num_parts 2 --part_assign "$TMP/hetero-metis2-edges" \
    --ndata_name feat=features,count=n --edata_name weight=w
VFLAGS=""
grep -a -q 'paper/features' "$TMP/renamed/part0/node_feat.dgl" &&
    grep -a -q 'word/n' "$TMP/renamed/part0/node_feat.dgl" &&
    grep -a -q 'paper:cites:paper/w' "$TMP/renamed/part0/edge_feat.dgl" &&
    pass "renames apply to every type" || fail "renames apply to every type"

# our typed output samples the same standalone and through the servers
CFG=$TMP/o-hetero-metis4-train/cora_hetero.json
TARGS="--seed 7 --batch_size 32 --epochs 2 --fanouts paper:cites:paper=5,has=2,rev_has=3;4"
expect_ok "ours: sample standalone" "$DGLPART" sample --part_config "$CFG" \
    --standalone --seed 7 --batch_size 32 --epochs 2 --fanouts 5,4
expect_stderr '140 of 140 train nodes of type paper, standalone' "ours: the train papers are the seeds"
for r in 0 1; do
    expect_ok "ours: standalone rank $r of 2" "$DGLPART" sample --part_config "$CFG" \
        --standalone --rank $r --world_size 2 $TARGS
    eval "s$r=\$(sed -n 's/^checksum //p' \"\$OUT\")"
done
rt_dist ours "$CFG" 4 $TARGS
bad=0
for p in $spids; do wait "$p" || bad=$((bad + 1)); done
spids=""
expect_eq "$bad" 0 "ours: the 4 servers exit 0"
# the standalone layout keeps input ids: DGL's checksum exactly
ONE="--seed 7 --batch_size 32 --epochs 2 --fanouts 5,4"
expect_ok "DGL's one part: sample" "$DGLPART" sample --part_config \
    "$H/hetero-one-part/cora_hetero.json" --standalone $ONE
dgl=$(sed -n 's/^checksum //p' "$OUT")
expect_ok "our one part: sample" "$DGLPART" sample --part_config \
    "$TMP/o-one/cora_hetero.json" --standalone $ONE
expect_eq "$(sed -n 's/^checksum //p' "$OUT")" "$dgl" "one part: DGL's checksum"

# bad assignment folders and balance options, named by file and line
A=$TMP/hetero-metis2-edges
bad_dir() {  # name, expected stderr, setup command...
    n=$1; re=$2; shift 2
    rm -rf "$TMP/bad-$n" && cp -r "$A" "$TMP/bad-$n"
    (cd "$TMP/bad-$n" && eval "$@")
    expect_fail 1 "$n: refused" "$DGLPART" partition "$DS" --num_parts 2 \
        --part_assign "$TMP/bad-$n" --output "$TMP/o-bad"
    expect_stderr "$re" "$n: named"
    expect_missing "$TMP/o-bad" "$n: nothing written"
}
bad_dir short "bad-short/paper.txt' line 2708: the file ends after 2707 part ids, expected 2708 \(one per 'paper' node\)" \
    'sed -i "\$d" paper.txt'
bad_dir long "bad-long/word.txt' line 1434: more than 1433 part ids \(one per 'word' node\)" \
    'echo 1 >>word.txt'
bad_dir range "bad-range/word.txt' line 3: part id 2 of 'word' node 2 out of range \[0, 2\)" \
    'sed -i "3s/.*/2/" word.txt'
bad_dir junk "bad-junk/paper.txt' line 5: expected a part id" \
    'sed -i "5s/.*/x1/" paper.txt'
bad_dir missing "bad-missing/word.txt': missing: DGL's assignment folder has one <ntype>.txt per node type" \
    'rm word.txt'
bad_dir stray "bad-stray/author.txt': 'author' is no node type of" \
    'cp word.txt author.txt'
bad_dir meta "bad-meta/partition_meta.json': num_parts is 4, but --num_parts 2" \
    'echo "{\"num_parts\": 4}" >partition_meta.json'
expect_fail 1 "--balance_ntypes word: no train_mask" "$DGLPART" partition "$DS" \
    --num_parts 2 --balance_ntypes word --output "$TMP/o-bad"
expect_stderr "has no ndata/word/train_mask.npy" "the type without a mask named"
expect_fail 1 "--balance_ntypes author: no such type" "$DGLPART" partition "$DS" \
    --num_parts 2 --balance_ntypes author --output "$TMP/o-bad"
expect_stderr "'author': .* has no such node type" "the unknown type named"
expect_fail 1 "--ndata_name of data no type has" "$DGLPART" partition "$DS" \
    --num_parts 2 --ndata_name cnt=x --output "$TMP/o-bad"
expect_stderr "'cnt' is not one of .*count" "the typed names listed"
# two types with a train_mask: --balance_train must be told which
cp -r "$DS" "$TMP/ds2"
head -c 1433 /dev/zero | python3 -c 'import sys
n = 1433
hdr = "{\x27descr\x27: \x27|u1\x27, \x27fortran_order\x27: False, \x27shape\x27: (%d,), }" % n
hdr += " " * (127 - 10 - len(hdr)) + "\n"
sys.stdout.buffer.write(b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode() + bytes([1]) * n)' \
    >"$TMP/ds2/ndata/word/train_mask.npy"
python3 - "$TMP/ds2/meta.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["node_data"].append({"ntype": "word", "name": "train_mask"})
json.dump(m, open(sys.argv[1], "w"))
EOF
expect_fail 1 "two train masks: --balance_train" "$DGLPART" partition "$TMP/ds2" \
    --num_parts 2 --balance_train --output "$TMP/o-bad"
expect_stderr "node types 'paper' and 'word' both have a train_mask: name one with --balance_ntypes" \
    "the two types named"
CDS=$TMP/ds2
check twomasks --num_parts 2 --balance_ntypes word

# node types without nodes (kept by convert, as dgl.heterograph keeps
# them): empty ranges in every part, no balance class, through every path
IN=$SHARED/fixtures/dgl-cora/input
E=$TMP/etn
mkdir -p "$E/nodes/author" "$E/nodes/paper" "$E/nodes/venue" \
    "$E/edges/paper:cites:paper"
for f in feat label train_mask val_mask test_mask; do
    cp "$IN/$f.npy" "$E/nodes/paper/"
done
echo 0 >"$E/nodes/author/num_nodes"
echo 0 >"$E/nodes/venue/num_nodes"
cp "$IN/src.npy" "$IN/dst.npy" "$E/edges/paper:cites:paper/"
expect_ok "empty types: convert" "$DGLPART" convert "$E" --out "$TMP/eds"
CDS=$TMP/eds
check e-exact --num_parts 3 --metis_mode exact --balance_train \
    --balance_edges --graph_name cora_hetero
grep -q 'paper train nodes 1\.0[0-3]' "$TMP/e-exact.stats" &&
    grep -q 'in-edges of paper train nodes 1\.0[0-3]' "$TMP/e-exact.stats" &&
    pass "empty types: the paper classes balanced" ||
    fail "empty types: the paper classes balanced ($(tail -1 "$TMP/e-exact.stats"))"
DGLPART_ML_NODES_PER_PART=200
export DGLPART_ML_NODES_PER_PART
check e-ml --num_parts 3 --metis_mode multilevel --balance_train \
    --graph_name cora_hetero
unset DGLPART_ML_NODES_PER_PART
check e-random --num_parts 3 --part_method random --graph_name cora_hetero
mkdir -p "$TMP/e-asg"
: >"$TMP/e-asg/author.txt"
: >"$TMP/e-asg/venue.txt"
awk '{ print NR % 2 }' "$TMP/hetero-metis2-edges/paper.txt" \
    >"$TMP/e-asg/paper.txt"
check e-dir --num_parts 2 --part_assign "$TMP/e-asg" --graph_name cora_hetero
check e-one --num_parts 1 --graph_name cora_hetero
python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
assert list(c["ntypes"]) == ["author", "paper", "venue"], c["ntypes"]
for t in ("author", "venue"):
    assert all(a == b for a, b in c["node_map"][t]), c["node_map"][t]' \
    "$TMP/e-exact/cora_hetero.json" 2>"$ERR" &&
    pass "empty types: empty ranges in the config" ||
    fail "empty types: empty ranges in the config"
CFG=$TMP/e-exact/cora_hetero.json
for r in 0 1; do
    expect_ok "empty types: standalone rank $r of 2" "$DGLPART" sample \
        --part_config "$CFG" --standalone --rank $r --world_size 2 $ONE
    eval "s$r=\$(sed -n 's/^checksum //p' \"\$OUT\")"
done
rt_dist empty "$CFG" 3 $ONE
bad=0
for p in $spids; do wait "$p" || bad=$((bad + 1)); done
spids=""
expect_eq "$bad" 0 "empty types: the 3 servers exit 0"
CDS=$DS

# an untyped dataset takes the folder too, with _N.txt
F=$SHARED/fixtures/dgl-cora
expect_ok "untyped: convert" "$DGLPART" convert "$F/input" --out "$TMP/hds" \
    --name cora
expect_ok "untyped: DGL's assignment folder" "$HELPERS/partcmp" assign \
    "$F/metis4-train-edges" "$TMP/hdir"
expect_ok "untyped: DGL's assignment file" "$HELPERS/partcmp" assign \
    "$F/metis4-train-edges" "$TMP/h.txt"
[ -f "$TMP/hdir/_N.txt" ] && pass "untyped: the folder holds _N.txt" ||
    fail "untyped: the folder holds _N.txt"
expect_ok "untyped: --part_assign DIR" "$DGLPART" partition "$TMP/hds" \
    --num_parts 4 --part_assign "$TMP/hdir" --output "$TMP/hd"
expect_ok "untyped: --part_assign FILE" "$DGLPART" partition "$TMP/hds" \
    --num_parts 4 --part_assign "$TMP/h.txt" --output "$TMP/hf"
for f in cora.json part1/graph.dgl part3/node_feat.dgl; do
    cmp_files "$TMP/hd/$f" "$TMP/hf/$f" "untyped: folder and file give the same $f"
done
echo 0 >"$TMP/hdir/paper.txt"
expect_fail 1 "untyped: a typed file refused" "$DGLPART" partition "$TMP/hds" \
    --num_parts 4 --part_assign "$TMP/hdir" --output "$TMP/hx"
expect_stderr "hdir/paper.txt': 'paper' is no node type of" "untyped: the file named"
finish
