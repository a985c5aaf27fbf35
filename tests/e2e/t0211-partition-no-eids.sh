#!/bin/sh
# Input edge ids left out for disk (rmat 27: 6.4 GB of the cache, 12.9 GB
# of the parts): convert --no_eids writes the same CSC without eids.npy,
# partition --no_orig_eids the same parts without orig_eids.dgl, and a
# partition that needs the ids of such a dataset is refused up front. The
# pipeline converts without them when the partition needs none and
# converts again when a later run does.
. "$(dirname "$0")/lib.sh"

cd "$TMP" || exit 1
expect_ok "convert" "$DGLPART" convert "$TOP/datasets/citeseer" --out full
expect_ok "convert --no_eids" "$DGLPART" convert "$TOP/datasets/citeseer" \
    --out lean --no_eids
for f in indptr indices feat label train_mask; do
    cmp_files full/$f.npy lean/$f.npy "--no_eids: $f.npy unchanged"
done
expect_missing lean/eids.npy "--no_eids: no eids.npy"
expect_eq "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1])).get("eids"))' lean/meta.json)" False \
    "meta.json: \"eids\": false"

for L in all in; do
    expect_ok "partition $L, full" "$DGLPART" partition full --num_parts 4 \
        --balance_train --halo_edges $L --output pf$L --no_orig_eids
    expect_ok "partition $L, lean" "$DGLPART" partition lean --num_parts 4 \
        --balance_train --halo_edges $L --output pl$L --no_orig_eids
    expect_eq "$(cd pf$L && find . -type f | sort | xargs sha256sum)" \
        "$(cd pl$L && find . -type f | sort | xargs sha256sum)" \
        "$L: the same parts from either dataset"
    expect_eq "$(ls pl$L/part0)" "$(printf '%s\n' graph.dgl node_feat.dgl \
        edge_feat.dgl orig_nids.dgl | sort)" "$L: orig_nids.dgl, no orig_eids"
    expect_ok "$L: verify against the lean dataset" "$DGLPART" verify \
        pl$L/citeseer.json --dataset lean
    expect_stdout '^dataset: compared, edges by endpoints' \
        "$L: edges compared by endpoints"
done
# the parts that have them agree with the lean ones
expect_ok "partition with orig_eids" "$DGLPART" partition full \
    --num_parts 4 --balance_train --output pfull
cmp_files pfull/part2/graph.dgl pfall/part2/graph.dgl \
    "--no_orig_eids: graph.dgl unchanged"
cmp_files pfull/part2/orig_nids.dgl pfall/part2/orig_nids.dgl \
    "--no_orig_eids: orig_nids.dgl unchanged"

expect_fail 1 "orig_eids without eids.npy" "$DGLPART" partition lean \
    --num_parts 4 --output bad1
expect_stderr "^dglpart partition: 'lean' has no eids.npy \(converted with --no_eids\): add --no_orig_eids" \
    "orig_eids without eids.npy: named"
expect_missing bad1 "orig_eids without eids.npy: no output"
expect_fail 1 "one part without eids.npy" "$DGLPART" partition lean \
    --num_parts 1 --no_orig_ids --output bad2
expect_stderr "one part keeps input edge ids" "one part: named"
sed 's/"eids":[^,}]*/"eids": "no"/' lean/meta.json >m && cp -r lean lean2 &&
    mv m lean2/meta.json
expect_fail 1 "\"eids\" not a boolean" "$DGLPART" partition lean2 \
    --num_parts 4 --no_orig_eids --output bad3
expect_stderr "lean2/meta.json': expected \"eids\": a boolean" \
    "\"eids\" not a boolean: named"

# trainer ids go by destination: edges need no input ids for them
expect_ok "trainers, full" "$DGLPART" partition full --num_parts 2 \
    --num_trainers_per_machine 2 --balance_train --output tf --no_orig_eids
expect_ok "trainers, lean" "$DGLPART" partition lean --num_parts 2 \
    --num_trainers_per_machine 2 --balance_train --output tl --no_orig_eids
expect_eq "$(cd tf && find . -type f | sort | xargs sha256sum)" \
    "$(cd tl && find . -type f | sort | xargs sha256sum)" \
    "trainers: the same parts from either dataset"

# edge weights are kept by input edge id, so they keep the eids
printf '3 3 001\n2 5 3 7\n1 5 3 9\n1 7 2 9\n' >w.graph
expect_ok "weighted --no_eids" "$DGLPART" convert w.graph --out w --no_eids
expect_ok "weighted: eids.npy kept" test -f w/eids.npy

# the pipeline: a lean cache for a lean run, a full one when asked for
cp -r "$TOP/datasets/cora" mycora
expect_ok "run --no_orig_eids" "$DGLPART" --num_parts 2 --dataset mycora \
    --no_orig_eids --output o1
expect_missing dataset/mycora-converted/eids.npy "run: lean cache"
expect_ok "run with orig_eids" "$DGLPART" --num_parts 2 --dataset mycora \
    --output o2
expect_stderr "converting" "run with orig_eids: converted again"
expect_ok "run: cache with eids" test -f dataset/mycora-converted/eids.npy
expect_ok "verify" "$DGLPART" verify o2/mycora.json \
    --dataset dataset/mycora-converted
expect_ok "run --no_orig_eids again" "$DGLPART" --num_parts 2 \
    --dataset mycora --no_orig_eids --output o3
expect_stderr "using the converted dataset" "a full cache serves a lean run"
cmp_files o1/part1/graph.dgl o3/part1/graph.dgl "lean runs: the same parts"
finish
