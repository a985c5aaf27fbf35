#!/bin/sh
# dglpart verify on dglpart's own partitions (per-part orig ids, CSC/CSR
# stored), and the damage it finds in them.
. "$(dirname "$0")/lib.sh"

expect_ok "convert cora" "$DGLPART" convert "$SHARED/datasets/linqs-cora" \
    --out "$TMP/cora"
expect_ok "partition 3 parts, 2 hops, csc+csr" "$DGLPART" partition \
    "$TMP/cora" --num_parts 3 --num_hops 2 --graph_formats csc,csr \
    --output "$TMP/p"
cfg=$(ls "$TMP"/p/*.json | grep -v partition-stats)
expect_ok "verify ours against the dataset" "$DGLPART" verify "$cfg" \
    --dataset "$TMP/cora"
expect_stdout '^orig ids: part\*/orig_nids.dgl' "per-part orig ids found"
expect_stdout '^dataset: compared$' "dataset compared"
expect_stdout 'halo_hops 2$' "2 hops read"

# a feature of zero rows whose other dimensions multiply past 2^63 (the
# fuzz corpus keeps one) overflowed verify's row size against the dataset:
# now the file is refused as it is read
cp "$TMP/p/part1/node_feat.dgl" "$TMP/nf1"
cp "$TOP/tests/fuzz/corpus/tensors/zero-dim-hides-overflow.dgl" \
    "$TMP/p/part1/node_feat.dgl"
expect_fail 1 "a zero-row feature with a huge row" "$DGLPART" verify "$cfg" \
    --dataset "$TMP/cora"
expect_stderr "part1/node_feat.dgl: '[^']*part1/node_feat.dgl' byte 39: tensor 0 shape overflows" \
    "the overflowing shape named"
cp "$TMP/nf1" "$TMP/p/part1/node_feat.dgl"

# another part's orig edge ids: right length only by accident, so the
# length or the dataset's edges say so
cp "$TMP/p/part1/orig_eids.dgl" "$TMP/eids1"
cp "$TMP/p/part0/orig_eids.dgl" "$TMP/p/part1/orig_eids.dgl"
expect_fail 1 "part 0's orig_eids in part 1" "$DGLPART" verify "$cfg" \
    --dataset "$TMP/cora"
expect_stderr "part1/orig_eids.dgl: expected an entry '_N:_E:_N' of [0-9]+ integer ids" \
    "wrong orig_eids named"
cp "$TMP/eids1" "$TMP/p/part1/orig_eids.dgl"

# part 0's missing must not look like "no orig ids at all"
cp "$TMP/p/part0/orig_nids.dgl" "$TMP/nids0"
rm "$TMP/p/part0/orig_nids.dgl"
expect_fail 1 "missing part0/orig_nids.dgl" "$DGLPART" verify "$cfg"
expect_stderr "part0/orig_nids.dgl: cannot open" "part 0's file named"
cp "$TMP/nids0" "$TMP/p/part0/orig_nids.dgl"

rm "$TMP/p/part2/orig_nids.dgl"
expect_fail 1 "missing orig_nids.dgl" "$DGLPART" verify "$cfg" \
    --dataset "$TMP/cora"
expect_stderr "part2/orig_nids.dgl: cannot open" "missing file named"
expect_stderr "no orig ids .*cannot compare with the dataset" \
    "dataset comparison refused"

# without any orig ids the structure still verifies
rm "$TMP"/p/part*/orig_*ids.dgl
expect_ok "no orig ids: structure only" "$DGLPART" verify "$cfg"
expect_stdout '^orig ids: none$' "none reported"
finish
