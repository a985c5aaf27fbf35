#!/bin/sh
# dglpart verify --dataset compares data row by row through the orig ids:
# a typed set's "<ntype>/<name>" and "<src:rel:dst>/<name>" rows against
# ndata/<ntype>/ and edata/<etype>/, an untyped set's edge weights against
# edge_weight.npy. One changed row fails, named by key, row and input id.
. "$(dirname "$0")/lib.sh"

# corrupt FILE KEY ROW: add 1 to the first value of row ROW of entry KEY
# of a DGL tensors file (magic, count twice, then name + NDArray each)
corrupt() {
    python3 - "$@" <<'EOF'
import struct, sys
path, key, row = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(path, "rb").read())
n, = struct.unpack_from("<Q", b, 8)
off = 24
for _ in range(n):
    ln, = struct.unpack_from("<Q", b, off)
    name = b[off + 8:off + 8 + ln].decode()
    off += 8 + ln + 16  # name; NDArray magic and reserved
    _, _, ndim = struct.unpack_from("<iii", b, off)
    code, bits, _ = struct.unpack_from("<BBH", b, off + 12)
    shape = struct.unpack_from("<%dq" % ndim, b, off + 16)
    off += 16 + 8 * ndim
    nbytes, = struct.unpack_from("<Q", b, off)
    off += 8
    if name == key:
        items = 1
        for d in shape[1:]:
            items *= d
        at = off + row * items * bits // 8
        fmt = {(2, 32): "<f", (2, 64): "<d", (0, 64): "<q", (0, 32): "<i",
               (1, 8): "<B"}[(code, bits)]
        v, = struct.unpack_from(fmt, b, at)
        struct.pack_into(fmt, b, at, v + 1)
        open(path, "wb").write(b)
        sys.exit(0)
    off += nbytes
sys.exit("no entry " + key)
EOF
}

DS=$TMP/ds
expect_ok "typed Cora as a dataset" "$HELPERS/mkdataset" --typed-cora \
    "$SHARED/fixtures/dgl-cora/input" "$DS"
expect_ok "partition 3 parts" "$DGLPART" partition "$DS" --num_parts 3 \
    --part_method random --seed 3 --output "$TMP/p"
CFG=$TMP/p/cora_hetero.json
expect_ok "verify against the dataset" "$DGLPART" verify "$CFG" --dataset "$DS"
expect_stdout '^dataset: compared$' "dataset compared"

# typed() KEY FILE ROW REGEX: one row changed in a copy, named by verify
typed() {
    rm -rf "$TMP/c" && cp -r "$TMP/p" "$TMP/c"
    expect_ok "$1: copy corrupted" corrupt "$TMP/c/$2" "$1" "$3"
    expect_fail 1 "$1: the copy differs" cmp -s "$TMP/p/$2" "$TMP/c/$2"
    expect_ok "$1: the copy still verifies without the dataset" "$DGLPART" \
        verify "$TMP/c/cora_hetero.json"
    expect_fail 1 "$1: row $3 changed fails" "$DGLPART" verify \
        "$TMP/c/cora_hetero.json" --dataset "$DS"
    expect_stderr "$4" "$1: the row named"
    expect_eq "$(grep -c 'differs from the dataset' "$ERR")" 1 "$1: one line"
}
typed word/count part1/node_feat.dgl 5 \
    "verify: part1/node_feat.dgl: 'word/count' row 5 \(node [0-9]+, input 'word' node [0-9]+\) differs from the dataset"
typed paper/label part2/node_feat.dgl 0 \
    "verify: part2/node_feat.dgl: 'paper/label' row 0 \(node [0-9]+, input 'paper' node [0-9]+\) differs from the dataset"
typed paper:cites:paper/weight part0/edge_feat.dgl 7 \
    "verify: part0/edge_feat.dgl: 'paper:cites:paper/weight' row 7 \(edge [0-9]+, input 'paper:cites:paper' edge [0-9]+\) differs from the dataset"

# the named input id is the right one: the weight of cites edge k is k
rm -rf "$TMP/c" && cp -r "$TMP/p" "$TMP/c"
corrupt "$TMP/c/part0/edge_feat.dgl" paper:cites:paper/weight 0
run "$DGLPART" verify "$TMP/c/cora_hetero.json" --dataset "$DS"
k=$(sed -n "s/.*input 'paper:cites:paper' edge \([0-9]*\)).*/\1/p" "$ERR")
python3 - "$TMP/c/part0/edge_feat.dgl" "$k" <<'EOF' &&
import struct, sys
b = open(sys.argv[1], "rb").read()
i = b.index(b"paper:cites:paper/weight")
# the float after the entry's header is row 0: k + 1 once corrupted
off = i + len("paper:cites:paper/weight") + 16 + 16 + 8 + 8
assert struct.unpack_from("<f", b, off)[0] == int(sys.argv[2]) + 1
EOF
    pass "the input edge id named is the row's" ||
    fail "the input edge id named is the row's"

# renamed data: verify is told the names
expect_ok "partition with renames" "$DGLPART" partition "$DS" --num_parts 2 \
    --ndata_name count=n,label=y --edata_name weight=w --output "$TMP/r"
expect_fail 1 "renamed data, verify not told" "$DGLPART" verify \
    "$TMP/r/cora_hetero.json" --dataset "$DS"
expect_stderr "node_feat.dgl: lacks 'word/count', which the dataset has" \
    "the node data named"
expect_stderr "edge_feat.dgl: lacks 'paper:cites:paper/weight', which the dataset has" \
    "the edge data named"
expect_ok "renamed data, verify told" "$DGLPART" verify \
    "$TMP/r/cora_hetero.json" --dataset "$DS" --ndata_name count=n,label=y \
    --edata_name weight=w

# an untyped set's edge weights (a weighted METIS graph)
cat >"$TMP/w.graph" <<'EOF'
6 7 1
2 5 3 7
1 5 3 2 4 4
1 7 2 2
2 4 5 9 6 1
4 9 6 3
4 1 5 3
EOF
expect_ok "weighted METIS graph" "$DGLPART" convert "$TMP/w.graph" \
    --out "$TMP/wds"
expect_ok "partition it" "$DGLPART" partition "$TMP/wds" --num_parts 2 \
    --part_method random --output "$TMP/w"
expect_ok "weights verify" "$DGLPART" verify "$TMP/w/w.json" --dataset "$TMP/wds"
corrupt "$TMP/w/part1/edge_feat.dgl" _N:_E:_N/weight 2
expect_fail 1 "a changed weight fails" "$DGLPART" verify "$TMP/w/w.json" \
    --dataset "$TMP/wds"
expect_stderr "part1/edge_feat.dgl: '_N:_E:_N/weight' row 2 \(edge [0-9]+, input edge [0-9]+\) differs from the dataset" \
    "the weight row named"
finish
