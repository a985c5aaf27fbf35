#!/bin/sh
# dglpart with no command: bundled Cora offline, convert cached by the
# inputs' sha256, partition into data/ like DGL's partition_graph.py.
. "$(dirname "$0")/lib.sh"

cd "$TMP" || exit 1
expect_ok "--help" "$DGLPART" --num_parts 4 --help
expect_stdout '--balance_train' "--help lists the partition options"
expect_ok "bundled Cora, 4 parts, balance_train" "$DGLPART" --num_parts 4 \
    --balance_train
expect_stdout '^config: data/cora.json$' "prints where the config is"
expect_stderr "converting" "first run converts"
expect_ok "verify data/" "$DGLPART" verify data/cora.json \
    --dataset dataset/cora-converted
expect_stdout '^ok$' "verify ok"
expect_stdout '^graph: 2708 nodes, 10556 edges, 4 parts' \
    "Cora as DGL loads it: both directions, duplicates dropped"

expect_ok "rerun, balance_edges too" "$DGLPART" --num_parts 2 \
    --balance_train --balance_edges
expect_stderr "using the converted dataset" "rerun uses the cache"
expect_ok "rerun replaced data/" "$DGLPART" verify data/cora.json
expect_stdout ' 2 parts' "data/ now holds 2 parts"

# a data/ that dglpart did not write is not replaced
mkdir other && echo keep >other/file
expect_fail 1 "foreign output refused" "$DGLPART" --num_parts 2 \
    --output other
expect_eq "$(cat other/file)" keep "foreign output kept"

# --dataset PATH; a changed input reconverts
cp -r "$TOP/datasets/cora" mycora
expect_ok "--dataset PATH" "$DGLPART" --num_parts 3 --dataset mycora \
    --output out3
expect_stdout '^config: out3/mycora.json$' "named after the folder"
expect_ok "same input again" "$DGLPART" --num_parts 3 --dataset mycora \
    --output out3
expect_stderr "using the converted dataset" "unchanged input: cached"
expect_ok "--halo_edges in passes through" "$DGLPART" --num_parts 3 \
    --dataset mycora --output outin --halo_edges in --graph_formats csc
expect_ok "verify in" "$DGLPART" verify outin/mycora.json \
    --dataset dataset/mycora-converted
expect_stdout '^halo edges: in-edges only' "pipeline: the in layout"
head -n 5000 "$TOP/datasets/cora/cora.cites" >mycora/cora.cites
expect_ok "changed input" "$DGLPART" --num_parts 3 --dataset mycora \
    --output out3
expect_stderr "converting" "changed input: converted again"
expect_ok "verify changed" "$DGLPART" verify out3/mycora.json \
    --dataset dataset/mycora-converted
expect_stdout ' 5000 edges' "the changed graph was partitioned"

# the dataset convert has just written is not read through again for its
# ranges; one from the cache is, and a damaged entry there is named
rm -rf dataset/mycora-converted
expect_ok "-v, converted now" "$DGLPART" -v --num_parts 3 --dataset mycora \
    --output out5
expect_stderr "converted in this run, its columns not checked again" \
    "a fresh conversion's columns are not checked again"
python3 - dataset/mycora-converted/indices.npy <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(-4, 2)
    f.write(b"\x7f\x7f\x7f\x7f")
PY
expect_fail 1 "-v, damaged cache" "$DGLPART" -v --num_parts 3 \
    --dataset mycora --output out5
expect_stderr "using the converted dataset" "damaged cache: taken from the cache"
expect_stderr "indices.npy': entry [0-9]+ = [0-9]+ out of range" \
    "damaged cache: its columns are checked, the entry named"

expect_fail 1 "unknown dataset" "$DGLPART" --num_parts 2 --dataset nosuch
expect_stderr "unknown dataset 'nosuch'" "unknown dataset: named"
# A registry dataset is downloaded first: ogbl-ddi packed as OGB's zip and
# served from a file:// mirror (never the real host), then converted with
# the registry's --undirected and partitioned; a second run reuses both.
www="$TMP/www"
mkdir -p "$www/ogb/data/linkproppred"
python3 "$TOP/tests/helpers/mkarchive.py" dir "$SHARED/datasets/ogbl-ddi" ddi \
    "$www/ogb/data/linkproppred/ddi.zip"
expect_ok "registry name: download, convert, partition" "$DGLPART" \
    --num_parts 2 --dataset ogbl-ddi --mirror "file://$www" \
    --data_dir "$TMP/dl" --output ddi
expect_stdout '^config: ddi/ogbl-ddi.json$' "ogbl-ddi config"
expect_ok "verify the downloaded dataset's parts" "$DGLPART" verify \
    ddi/ogbl-ddi.json --dataset dataset/ogbl-ddi-converted
expect_stdout ' 2135822 edges' "both directions of every ddi edge"
rm "$www/ogb/data/linkproppred/ddi.zip"
expect_ok "second run: nothing fetched" "$DGLPART" --num_parts 2 \
    --dataset ogbl-ddi --mirror "file://$www" --data_dir "$TMP/dl" \
    --output ddi
expect_fail 1 "registry name, mirror without the file" "$DGLPART" \
    --num_parts 2 --dataset ogbl-ddi --mirror "file://$www" \
    --data_dir "$TMP/dl2" --output ddi2
expect_stderr "ddi\.zip" "missing download: the URL is named"
expect_missing ddi2 "no output after a failed download"
expect_ok "bundled by name" "$DGLPART" --num_parts 2 --dataset citeseer \
    --output cs
expect_stdout '^config: cs/citeseer.json$' "citeseer config"
# Huge pages for METIS's heap: one restart sets glibc's tunable when the
# kernel gives them on request; DGLPART_HUGEPAGES=0 and a GLIBC_TUNABLES
# that already decides are respected. A restart loop would hang here.
thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
expect_ok "-v: huge pages reported" env -u GLIBC_TUNABLES -u \
    DGLPART_HUGEPAGES "$DGLPART" -v --num_parts 2 --output thp
case $thp in
*"[madvise]"*) expect_stderr '^dglpart: huge pages: on \(GLIBC_TUNABLES\)$' \
    "madvise mode: restarted with the tunable" ;;
*) expect_stderr '^dglpart: huge pages: kernel default' \
    "no madvise mode: no restart" ;;
esac
expect_eq "$(grep -c 'huge pages' "$ERR")" 1 "reported once: one restart"
case $thp in
*"[madvise]"*)
    # a restart whose tunable the loader dropped (setuid) must not loop
    expect_ok "tunable lost at restart" env -u GLIBC_TUNABLES \
        DGLPART_HUGEPAGES_RESTARTED=1 "$DGLPART" -v partition \
        dataset/cora-converted --num_parts 2 --output thp2
    expect_stderr '^dglpart partition: huge pages: off \(GLIBC_TUNABLES ignored\)$' \
        "no second restart" ;;
esac
expect_ok "huge pages off" env DGLPART_HUGEPAGES=0 "$DGLPART" -v partition \
    dataset/cora-converted --num_parts 2 --output thp0
expect_stderr '^dglpart partition: huge pages: off \(DGLPART_HUGEPAGES=0\)$' \
    "DGLPART_HUGEPAGES=0: off"
expect_ok "user's tunable wins" env GLIBC_TUNABLES=glibc.malloc.hugetlb=0 \
    "$DGLPART" -v partition dataset/cora-converted --num_parts 2 \
    --output thp1
expect_stderr '^dglpart partition: huge pages: as GLIBC_TUNABLES sets$' \
    "GLIBC_TUNABLES set: left alone"
cmp_files thp0/part0/graph.dgl thp1/part0/graph.dgl "same parts either way"
# METIS reports nothing while it runs: a heartbeat shows it is alive
expect_ok "METIS heartbeat" env DGLPART_PROGRESS=1 "$DGLPART" partition \
    dataset/cora-converted --num_parts 2 --output tick
expect_stderr 'METIS: 0 s, [0-9.]+ (KiB|MiB|GiB) resident' \
    "heartbeat: elapsed time and memory"
expect_stderr 'METIS: done in [0-9]+ s' "heartbeat ends with METIS's time"
# the multilevel path shows each step: levels coarsened, METIS, levels
# refined, parts written
expect_ok "multilevel progress" env DGLPART_PROGRESS=1 \
    DGLPART_ML_NODES_PER_PART=20 "$DGLPART" partition dataset/cora-converted \
    --num_parts 4 --metis_mode multilevel --output bars
tr '\r' '\n' <"$ERR" >"$TMP/bars.txt"
for re in 'coarsening \[[#.]+\] +[0-9]+% [0-9]+/[0-9]+' \
    'METIS on the coarsest graph: done in [0-9]+ s' \
    'refining levels \[#+\] 100% [1-9][0-9]*/[1-9]' \
    'writing parts \[#+\] 100% 4/4'; do
    grep -Eq "$re" "$TMP/bars.txt" && pass "progress: /$re/" ||
        fail "progress: /$re/ not in stderr"
done
expect_ok "no heartbeat off a terminal" env -u DGLPART_PROGRESS "$DGLPART" \
    partition dataset/cora-converted --num_parts 2 --output tick2
grep -q resident "$ERR" && fail "no heartbeat in a log file" ||
    pass "no heartbeat in a log file"
expect_fail 2 "bad option" "$DGLPART" --num_parts 2 --bogus

# OGB node features are converted beside METIS: the parts and the cache
# are the same as from convert then partition, from a folder or a zip
cc -O2 -o gengraph "$SHARED/tools/gengraph.c" -lz -lm &&
    ./gengraph rmat 11 8 g11 --seed 5 --feat 6 >/dev/null 2>&1
expect_ok "pipeline, OGB with features" "$DGLPART" -v --num_parts 3 \
    --balance_train --dataset g11 --cache fc --output f1
expect_stderr '^dglpart: node features: ' "features converted in the pipeline"
expect_ok "convert alone" "$DGLPART" convert g11 --out fsep
# the pipeline writes feat and label as DGL's examples name them
expect_ok "partition alone" "$DGLPART" partition fsep --num_parts 3 \
    --balance_train --graph_name g11 --output f2 \
    --ndata_name feat=features,label=labels
for f in g11.json part0/node_feat.dgl part1/node_feat.dgl part2/node_feat.dgl \
    part2/graph.dgl; do
    cmp_files "f1/$f" "f2/$f" "pipeline = convert + partition: $f"
done
cmp_files fc/g11-converted/feat.npy fsep/feat.npy "cached feat.npy"
expect_eq "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["feat_dim"])' fc/g11-converted/meta.json)" \
    6 "cached meta.json: feat_dim"
grep -q 'node-feat.csv.gz' fc/g11-converted/meta.json &&
    pass "cached meta.json lists node-feat" ||
    fail "cached meta.json lists node-feat"
expect_ok "verify with the cached dataset" "$DGLPART" verify f1/g11.json \
    --dataset fc/g11-converted
python3 "$TOP/tests/helpers/mkarchive.py" dir g11 g11 g11z.zip
expect_ok "pipeline, OGB zip with features" "$DGLPART" --num_parts 3 \
    --balance_train --dataset g11z.zip --cache fc --output f3
cmp_files f3/part1/node_feat.dgl f2/part1/node_feat.dgl "zip: same features"
# a bad feature row fails the run, names the line, writes no parts, and
# leaves the cache unstamped so the next run converts again
mkdir bad && cp -r g11/* bad/
zcat g11/raw/node-feat.csv.gz | sed '7s/^[^,]*,/0.5,x1,/' | gzip >bad/raw/node-feat.csv.gz
expect_fail 1 "bad feature row" "$DGLPART" --num_parts 3 --balance_train \
    --dataset bad --cache fc --output f4
expect_stderr "node-feat.csv.gz' line 7: column 2: expected a number" \
    "bad feature: file, line and column named"
expect_missing f4 "bad feature: no parts"
cp g11/raw/node-feat.csv.gz bad/raw/
expect_ok "fixed features" "$DGLPART" --num_parts 3 --balance_train \
    --dataset bad --cache fc --output f4
expect_stderr "converting" "unstamped cache: converted again"
cmp_files f4/part0/node_feat.dgl f2/part0/node_feat.dgl "fixed: same features"
finish
