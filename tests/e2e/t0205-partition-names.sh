#!/bin/sh
# Node data under the names DGL's distributed examples read (train_dist.py:
# features, labels, train_mask, val_mask, test_mask, trainer_id), renames
# with --ndata_name/--edata_name, sample and verify on both namings, and the
# registry's convert flags giving the edge counts DGL's loaders give.
. "$(dirname "$0")/lib.sh"

cd "$TMP" || exit 1
F=$SHARED/fixtures/dgl-cora

# has_key CONFIG KEY: sample finds node data KEY by its exact name
has_key() {
    "$DGLPART" sample --part_config "$1" --standalone --fanouts 2 \
        --batch_size 140 --feat "$2" --label "$2" >/dev/null 2>&1
}

expect_ok "pipeline, 2 parts, 2 trainers" "$DGLPART" --num_parts 2 \
    --balance_train --num_trainers_per_machine 2
for k in features labels train_mask val_mask test_mask trainer_id; do
    has_key data/cora.json "_N/$k" && pass "pipeline writes _N/$k" ||
        fail "pipeline writes _N/$k"
done
for k in feat label; do
    has_key data/cora.json "_N/$k" && fail "pipeline still writes _N/$k" ||
        pass "pipeline writes no _N/$k"
done
expect_eq "$(python3 -c 'import json
print(json.load(open("data/partition-stats.json"))["ndata_names"]["feat"])')" \
    features "partition-stats.json records the names"
expect_ok "verify --dataset matches features to feat" "$DGLPART" verify \
    data/cora.json --dataset dataset/cora-converted
expect_stdout '^dataset: compared' "dataset compared"
expect_ok "sample with default names on the pipeline's parts" "$DGLPART" \
    sample --part_config data/cora.json --standalone --fanouts 5,5
expect_stdout '^checksum [0-9a-f]{16}$' "checksum printed"
expect_ok "sample with default names on DGL's parts (feat, label)" \
    "$DGLPART" sample --part_config "$F/one-part/cora.json" --standalone \
    --fanouts 5,5
expect_stdout '^checksum [0-9a-f]{16}$' "checksum printed"
expect_ok "pipeline keeping the dataset's names" "$DGLPART" --num_parts 1 \
    --output keep --ndata_name feat=feat,label=label
has_key keep/cora.json _N/feat && pass "--ndata_name overrides the default" ||
    fail "--ndata_name overrides the default"
# the same data under either name: the same checksum
run "$DGLPART" sample --part_config keep/cora.json --standalone --fanouts 5,5
c1=$(cat "$OUT")
run "$DGLPART" sample --part_config keep/cora.json --standalone --fanouts 5,5 \
    --feat features --label labels
expect_eq "$(cat "$OUT")" "$c1" "features/labels read a feat/label part"

# partition: renames of node and edge data
expect_ok "partition --ndata_name" "$DGLPART" partition dataset/cora-converted \
    --num_parts 2 --output ren --ndata_name feat=x,label=y,test_mask=tm
for k in x y tm train_mask; do
    has_key ren/cora.json "_N/$k" && pass "renamed: _N/$k" ||
        fail "renamed: _N/$k"
done
expect_fail 1 "verify without the renames" "$DGLPART" verify ren/cora.json \
    --dataset dataset/cora-converted
expect_stderr "lacks '_N/x'|lacks '_N/feat'" "verify names the missing data"
expect_ok "verify with the renames" "$DGLPART" verify ren/cora.json \
    --dataset dataset/cora-converted --ndata_name feat=x,label=y,test_mask=tm
expect_fail 2 "a spec without =" "$DGLPART" partition dataset/cora-converted \
    --num_parts 2 --output bad --ndata_name feat
expect_stderr "expected OLD=NEW" "bad spec explained"
expect_fail 2 "a name with /" "$DGLPART" partition dataset/cora-converted \
    --num_parts 2 --output bad --ndata_name feat=a/b
expect_fail 1 "an unknown name" "$DGLPART" partition dataset/cora-converted \
    --num_parts 2 --output bad --ndata_name fet=x
expect_stderr "'fet' is not one of feat, label" "unknown name and the list"
expect_fail 1 "two data under one name" "$DGLPART" partition \
    dataset/cora-converted --num_parts 2 --output bad --ndata_name feat=label
expect_stderr "'feat' and 'label' would both be written as 'label'" \
    "collision named"
expect_missing bad "nothing written on a bad rename"

# edge data: a weighted METIS graph keeps its weights as edge data
expect_ok "convert a weighted graph" "$DGLPART" convert \
    "$SHARED/datasets/kahip-examples/example_weighted.graph" --out wg
expect_ok "partition --edata_name" "$DGLPART" partition wg --num_parts 2 \
    --output wp --edata_name weight=w
grep -aq '_N:_E:_N/w' wp/part0/edge_feat.dgl && pass "edge data renamed" ||
    fail "edge data renamed"
grep -aq '_N:_E:_N/weight' wp/part0/edge_feat.dgl &&
    fail "old edge data name left" || pass "no old edge data name"

# Edge counts as DGL loads each dataset, from the registry's own flags:
# the bundled ones, and ogbl-ddi fetched through a file:// mirror
dgl_edges() {
    python3 -c 'import json, sys
for e in json.load(open(sys.argv[1]))["datasets"]:
    if e["name"] == sys.argv[2]:
        print(e.get("dgl_edges", "none"))' "$TOP/datasets/registry.json" "$1"
}
expect_eq "$(dgl_edges cora)" 10556 "registry: Cora as DGL's CoraGraphDataset"
expect_ok "pipeline on cora" "$DGLPART" --dataset cora --num_parts 1 \
    --output c1
expect_stdout " 2708 nodes, $(dgl_edges cora) edges" "Cora's DGL edge count"
expect_ok "pipeline on citeseer" "$DGLPART" --dataset citeseer --num_parts 1 \
    --output s1
expect_stdout " 3312 nodes, 9196 edges" "citeseer: both directions, deduped"
mkdir -p mirror/ogb/data/linkproppred
python3 - "$SHARED/datasets/ogbl-ddi" mirror/ogb/data/linkproppred/ddi.zip <<'PY'
import os, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w") as z:
    for root, _, files in os.walk(src):
        for f in files:
            p = os.path.join(root, f)
            z.write(p, os.path.join("ddi", os.path.relpath(p, src)))
PY
expect_ok "pipeline on ogbl-ddi from a mirror" "$DGLPART" --dataset ogbl-ddi \
    --mirror "file://$TMP/mirror" --data_dir dl --num_parts 1 --output d1
expect_stdout " 4267 nodes, $(dgl_edges ogbl-ddi) edges" \
    "ogbl-ddi's edge count as OGB's DGL loader gives it"
finish
