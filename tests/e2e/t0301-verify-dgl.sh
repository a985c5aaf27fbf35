#!/bin/sh
# dglpart verify accepts the partitions DGL 1.1.3 wrote (dgl-cora), with and
# without the input dataset, and prints their stats.
. "$(dirname "$0")/lib.sh"

FIX="$SHARED/fixtures/dgl-cora"
for c in one-part metis2-hops2 metis4-train-edges; do
    expect_ok "verify DGL's $c" "$DGLPART" verify "$FIX/$c/cora.json"
    expect_stdout '^ok$' "$c: ok printed"
    expect_stdout '^orig ids: orig_nids.npy' "$c: DGL's orig ids found"
    expect_eq "$(wc -c <"$ERR")" 0 "$c: nothing on stderr"
done
# the stats: node counts are node_map's, halos as DGL built them
expect_ok "verify metis4" "$DGLPART" verify "$FIX/metis4-train-edges/cora.json"
expect_stdout '^ +1 +319 +124 +717 +768 +14$' "metis4 part 1 row"
expect_stdout '^balance \(max/avg\): nodes 1\.207, edges 1\.185, train 1\.200$' \
    "metis4 balance"
expect_ok "verify metis2-hops2" "$DGLPART" verify "$FIX/metis2-hops2/cora.json"
expect_stdout 'halo_hops 2$' "hop count read"
expect_stdout '^ +0 +1354 +336 +2706 +3002 +66$' "metis2 part 0 row"

# against the input itself, through DGL's orig ids
"$HELPERS/mkdataset" "$FIX/input" "$TMP/cora" 2>"$ERR" &&
    pass "dataset built" || fail "dataset built"
for c in one-part metis2-hops2 metis4-train-edges; do
    expect_ok "verify $c --dataset" "$DGLPART" verify "$FIX/$c/cora.json" \
        --dataset "$TMP/cora"
    expect_stdout '^dataset: compared$' "$c: dataset compared"
done

# the same through dglpart convert, from DGL's input arrays and from the raw
# LINQS files DGL's input was built from
expect_ok "convert the npy input" "$DGLPART" convert "$FIX/input" --format npy \
    --out "$TMP/cora-npy"
expect_ok "convert raw linqs-cora" "$DGLPART" convert \
    "$SHARED/datasets/linqs-cora" --out "$TMP/cora-linqs"
# (not $d: lib.sh's expect_ok and expect_fail set it)
for ds in cora-npy cora-linqs; do
    for c in one-part metis2-hops2 metis4-train-edges; do
        expect_ok "verify $c against $ds" "$DGLPART" verify \
            "$FIX/$c/cora.json" --dataset "$TMP/$ds"
        expect_stdout '^dataset: compared$' "$c/$ds: dataset compared"
    done
done
# a dataset of another graph is named as such
expect_ok "convert linqs-citeseer" "$DGLPART" convert \
    "$SHARED/datasets/linqs-citeseer" --out "$TMP/citeseer"
expect_fail 1 "verify cora parts against citeseer" "$DGLPART" verify \
    "$FIX/metis2-hops2/cora.json" --dataset "$TMP/citeseer"
expect_stderr "dataset '.*citeseer' has [0-9]+ nodes and [0-9]+ edges, the config 2708 and 5429" \
    "size mismatch named"

# misuse
expect_fail 2 "no config is misuse" "$DGLPART" verify
expect_stderr '^usage: dglpart verify' "usage on stderr"
expect_fail 2 "two configs is misuse" "$DGLPART" verify a.json b.json
expect_fail 2 "bad --max_lines" "$DGLPART" verify --max_lines 0 a.json
expect_stderr 'max_lines' "bad option named"
expect_fail 1 "missing config" "$DGLPART" verify "$TMP/none.json"
expect_stderr "^dglpart verify: cannot open '.*none.json'" "missing config named"
expect_eq "$(cat "$OUT")" "FAILED" "only FAILED on stdout"
finish
