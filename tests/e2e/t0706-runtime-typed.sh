#!/bin/sh
# DGL's typed partitions (Cora as a paper/word heterograph, written by DGL
# 1.1.3): verify accepts all three, sampling seeds the train papers, and a
# distributed run (one server per part, two trainers) adds up to the
# standalone checksum; type names that do not exist are refused by name.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"

H=$SHARED/fixtures/dgl-cora-hetero
ARGS="--seed 7 --batch_size 32 --epochs 2 --fanouts 5,4"
addsum() { python3 -c 'import sys; print("%016x" % (sum(int(x,16) for x in sys.argv[1:]) % 2**64))' "$@"; }

for c in hetero-metis4-train hetero-metis2-edges hetero-one-part; do
    expect_ok "verify DGL's $c" "$DGLPART" verify "$H/$c/cora_hetero.json"
    expect_stdout '^ok$' "$c: no problem found"
    expect_ok "sample $c standalone" "$DGLPART" sample --part_config "$H/$c/cora_hetero.json" --standalone $ARGS
    expect_stderr '140 of 140 train nodes of type paper, standalone' "$c: the train papers are the seeds"
    expect_stderr 'epoch 1: 5 batches, 140 seeds, [1-9][0-9]* sampled edges' "$c: edges sampled over both types"
done

# a fanout per edge type (canonical and short names, a default for the
# rest), standalone and through the servers
CFG=$H/hetero-metis4-train/cora_hetero.json
TARGS="--seed 7 --batch_size 32 --epochs 2 --fanouts paper:cites:paper=5,has=2,rev_has=3;4"
expect_ok "typed fanouts, standalone" "$DGLPART" sample --part_config "$CFG" --standalone \
    --seed 7 --fanouts "cites=5,has=0,rev_has=0;cites=4,0"
expect_stderr 'epoch 0: 1 batches, 140 seeds, [1-9][0-9]* sampled edges' "citations alone: edges sampled"
for r in 0 1; do
    expect_ok "standalone rank $r of 2" "$DGLPART" sample --part_config "$CFG" --standalone --rank $r --world_size 2 $TARGS
    eval "s$r=\$(sed -n 's/^checksum //p' \"\$OUT\")"
done
rt_dist typed "$CFG" 4 $TARGS
d0=$(sed -n 's/^checksum //p' "$TMP/t0.out")
d1=$(sed -n 's/^checksum //p' "$TMP/t1.out")
expect_eq "$(addsum "$d0" "$d1")" "$(addsum "$s0" "$s1")" "typed: the job's checksum"
bad=0
for p in $spids; do wait "$p" || bad=$((bad + 1)); done
spids=""
expect_eq "$bad" 0 "the 4 servers exit 0 after both goodbyes"
grep -q "part 1 (1048 nodes, 25621 edges) listening" "$TMP/s1.err" &&
    pass "server 1 holds part 1's 1048 nodes of both types" ||
    fail "server 1 holds part 1's 1048 nodes of both types"

expect_fail 1 "--ntype word: words have no train_mask" "$DGLPART" sample \
    --part_config "$CFG" --standalone --ntype word
expect_stderr "no node feature 'word/train_mask'" "the missing typed feature named"
expect_fail 1 "--ntype author: no such type" "$DGLPART" sample \
    --part_config "$CFG" --standalone --ntype author
expect_stderr "no node type 'author'" "the unknown type named"
expect_ok "--ntype paper" "$DGLPART" sample --part_config "$CFG" --standalone --ntype paper \
    --rank 0 --world_size 2 $TARGS
expect_eq "$(sed -n 's/^checksum //p' "$OUT")" "$s0" "--ntype paper is the default choice"

expect_fail 1 "a fanout for an unknown edge type" "$DGLPART" sample --part_config "$CFG" \
    --standalone --fanouts "cites=5,writes=2,3"
expect_stderr "no edge type 'writes'" "the unknown edge type named"
expect_fail 1 "an edge type left without a fanout" "$DGLPART" sample --part_config "$CFG" \
    --standalone --fanouts "cites=5"
expect_stderr "no fanout for edge type 'paper:has:word'" "the type left out named"
# DGL's dict form as JSON gives the same picks as the string form
expect_ok "JSON fanouts" "$DGLPART" sample --part_config "$CFG" --standalone \
    --rank 0 --world_size 2 --seed 7 --batch_size 32 --epochs 2 --fanouts \
    '[{"paper:cites:paper": 5, "has": 2, "rev_has": 3}, {"cites": 4, "has": 4, "rev_has": 4}]'
expect_eq "$(sed -n 's/^checksum //p' "$OUT")" "$s0" "JSON fanouts = string fanouts"
expect_fail 1 "JSON fanouts name every type" "$DGLPART" sample --part_config "$CFG" \
    --standalone --fanouts '[{"cites": 5, "has": 2}]'
expect_stderr "no fanout for edge type 'word:rev_has:paper'" "JSON: the type left out named"
expect_fail 1 "JSON fanouts: a bad value" "$DGLPART" sample --part_config "$CFG" \
    --standalone --fanouts '[{"cites": "x", "has": 2, "rev_has": 1}]'
expect_stderr "expected an integer fanout" "JSON: the bad value named"
expect_fail 1 "JSON fanouts: not JSON" "$DGLPART" sample --part_config "$CFG" \
    --standalone --fanouts '[{"cites": 5'
expect_stderr "expected JSON" "JSON: broken text named"
expect_fail 1 "typed fanouts on an untyped set" "$DGLPART" sample --part_config \
    "$SHARED/fixtures/dgl-cora/one-part/cora.json" --standalone --fanouts "cites=5"
expect_stderr "has no edge types to name" "untyped set: said so"

# a config whose typed ranges break the (part, type) order
mkdir -p "$TMP/copy" && cp -r "$H/hetero-metis4-train/." "$TMP/copy/"
python3 - "$TMP/copy/cora_hetero.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["node_map"]["word"][1], d["node_map"]["word"][2] = d["node_map"]["word"][2], d["node_map"]["word"][1]
json.dump(d, open(sys.argv[1], "w"), indent=4)
EOF
expect_fail 1 "typed ranges out of order" "$DGLPART" verify "$TMP/copy/cora_hetero.json"
expect_stderr 'node_map\["word"\] part 1 is \[2750, 3076\), expected a range starting at 1745' \
    "the first range out of place named"

# _TYPE that disagrees with the typed ranges: node 0 of part 0 made a word,
# edge 0 a word:rev_has:paper
mkdir -p "$TMP/types" && cp -r "$H/hetero-metis4-train/." "$TMP/types/"
python3 - "$TMP/types/part0/graph.dgl" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
at = 0
for new in (1, 2):   # ndata _TYPE comes before edata _TYPE
    at = b.index(b"\x05\x00\x00\x00\x00\x00\x00\x00_TYPE", at) + 13
    ndim = struct.unpack_from("<i", b, at + 24)[0]
    bits = b[at + 29]
    data = at + 32 + 8 * ndim + 8
    b[data:data + bits // 8] = new.to_bytes(bits // 8, "little")
open(sys.argv[1], "wb").write(b)
EOF
expect_fail 1 "verify: _TYPE against the ranges" "$DGLPART" verify "$TMP/types/cora_hetero.json"
expect_stderr "local node 0 \(_ID 0\) has _TYPE 1, node_map puts it in type 0 \('paper'\)" \
    "a node of the wrong type named"
expect_stderr "edge 0 \(_ID [0-9]+\) has _TYPE 2, edge_map puts it in type [01]" \
    "an edge of the wrong type named"
finish
