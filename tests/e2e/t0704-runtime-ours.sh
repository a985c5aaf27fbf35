#!/bin/sh
# The runtime on dglpart's own partitions of Cora (COO, CSC, CSR; metis and
# random; 1-3 parts; 2 hops; both halo layouts) and on DGL's: numbering-free
# facts (sorted in-degrees, feature+label rows, edges as pairs of rows) are
# the same for every partitioning, and fanout-2 samples are subsets of the
# true in-edges.
. "$(dirname "$0")/lib.sh"

INV="$HELPERS/rt_invariants"
F=$SHARED/fixtures/dgl-cora
expect_ok "DGL one-part" "$INV" "$F/one-part/cora.json"
expect_stdout ' violations 0$' "DGL one-part: samples are true in-edges"
want=$(cat "$OUT")
for c in metis4-train-edges metis2-hops2; do
    expect_ok "DGL $c" "$INV" "$F/$c/cora.json"
    expect_eq "$(cat "$OUT")" "$want" "DGL $c: same graph as one-part"
done

expect_ok "convert cora" "$DGLPART" convert "$SHARED/datasets/linqs-cora" --out "$TMP/cora"
n=0
ours() {  # flags...: partition, then compare its facts with DGL's
    n=$((n + 1))
    expect_ok "partition $*" "$DGLPART" partition "$TMP/cora" --output "$TMP/p$n" "$@"
    expect_ok "invariants $*" "$INV" "$TMP/p$n/linqs-cora.json"
    expect_eq "$(cat "$OUT")" "$want" "ours ($*) = DGL's"
    expect_ok "sample $*" "$DGLPART" sample --part_config "$TMP/p$n/linqs-cora.json" --standalone --seed 2
    expect_stdout '^checksum [0-9a-f]{16}$' "sample ($*) prints a checksum"
}
ours --num_parts 1
ours --num_parts 3 --graph_formats csc
ours --num_parts 2 --part_method random --graph_formats csr,coo
ours --num_parts 2 --num_hops 2 --graph_formats csr
ours --num_parts 3 --halo_edges in --graph_formats csc
ours --num_parts 2 --halo_edges in --num_hops 2
finish
