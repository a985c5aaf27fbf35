#!/bin/sh
# The pipeline plans the whole run from the raw input before converting:
# a budget or a disk that cannot hold it is refused in one line naming the
# memory and the disk needed and available, before anything is written
# (no cache folder, no output). A run that fits by spilling still runs,
# the early plan and the partition's agreeing on it; a dataset already
# converted is planned after opening it, as before.
. "$(dirname "$0")/lib.sh"

cd "$TMP" || exit 1
D=$SHARED/datasets
DDI="4267 nodes, 1067911 edges, from num-node-list and num-edge-list"

expect_fail 1 "a budget far too small, before converting" "$DGLPART" \
    --dataset "$D/ogbl-ddi" --num_parts 4 --cache cache --output parts \
    --mem_limit 4M
expect_stderr "^dglpart: not enough memory to convert and partition 'ogbl-ddi' \($DDI\) into 4 parts: memory needs about [0-9.]+ MiB, 4.0 MiB available \(--mem_limit\); disk needs about [0-9.]+ MiB, [0-9.]+ [GT]iB free for 'cache' and 'parts'$" \
    "one line: memory and disk, needed and available"
expect_eq "$(wc -l <"$ERR")" 1 "refused before converting"
expect_missing cache "no cache folder"
expect_missing parts "no output"

# an edge list past the first MiB: its counts are estimated
expect_fail 1 "a sampled edge list, a budget far too small" "$DGLPART" \
    --dataset "$D/snap/wiki-Vote.txt" --num_parts 2 --cache cache \
    --output parts --mem_limit 1M
expect_stderr "^dglpart: not enough memory to convert and partition 'wiki-Vote' \(about [0-9]+ nodes, [0-9]+ edges, from its first MiB\) into 2 parts: memory needs about [0-9.]+ MiB, 1.0 MiB available" \
    "estimated counts say so"
expect_missing cache "no cache folder"

# an .npz, deflated: its arrays' headers read through the zip directory
python3 - <<'PY'
import struct, zipfile
def npy(descr, shape, data):
    d = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, "(%s)" % "".join("%d, " % x for x in shape) if len(shape) == 1
        else str(tuple(shape)))
    pad = 64 - (10 + len(d) + 1) % 64
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d) + pad + 1) + \
        (d + " " * pad + "\n").encode() + data
E, N = 5000, 1000
src = struct.pack("<%di" % E, *[(7 * k) % N for k in range(E)])
dst = struct.pack("<%di" % E, *[k % N for k in range(E)])
feat = bytes(4 * N * 8)
with zipfile.ZipFile("g.npz", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("src.npy", npy("<i4", [E], src))
    z.writestr("dst.npy", npy("<i4", [E], dst))
    z.writestr("feat.npy", npy("<f4", [N, 8], feat))
PY
expect_fail 1 "a deflated .npz, a budget far too small" "$DGLPART" \
    --dataset g.npz --num_parts 2 --cache cache --output parts --mem_limit 1M
expect_stderr "^dglpart: not enough memory to convert and partition 'g' \(1000 nodes, 5000 edges, from the arrays' headers\)" \
    "exact counts from the headers"
expect_missing cache "no cache folder"
expect_ok "the same .npz converts and partitions" "$DGLPART" \
    --dataset g.npz --num_parts 2 --cache cache --output parts
expect_eq "$(sed -n 's/.*"num_nodes":[^0-9]*\([0-9]*\).*/\1/p; s/.*"num_edges":[^0-9]*\([0-9]*\).*/\1/p' \
    cache/g-converted/meta.json | tr '\n' ' ')" "1000 5000 " \
    "as many nodes and edges as estimated"
rm -rf cache parts

DGLPART_TEST_DISK_FREE=1M expect_fail 1 "a disk far too small" "$DGLPART" \
    --num_parts 2 --cache cache --output parts
expect_stderr "^dglpart: not enough disk to convert and partition 'cora' \(about [0-9]+ nodes, [0-9]+ edges, from [a-z ]+\) into 2 parts: memory needs about [0-9.]+ MiB, [0-9.]+ GiB available \(MemAvailable\); disk needs about [0-9.]+ MiB, 1.0 MiB free for 'cache' and 'parts'$" \
    "one line: the disk short, both figures"
expect_missing cache "no cache folder"
expect_missing parts "no output"

# two file systems: the one that is short is named
if [ "$(id -u)" = 0 ] && mkdir small &&
    mount -t tmpfs -o size=1m dglpart-test small 2>/dev/null; then
    at_exit "umount '$TMP/small'"
    expect_fail 1 "the output on a 1 MiB tmpfs" "$DGLPART" \
        --dataset "$D/ogbl-ddi" --num_parts 4 --cache cache \
        --output small/out
    expect_stderr "not enough disk .*; disk needs about [0-9.]+ MiB, 1.0 MiB free for 'small/out'$" \
        "the output's file system named"
    expect_fail 1 "the cache on a 1 MiB tmpfs" "$DGLPART" \
        --dataset "$D/ogbl-ddi" --num_parts 4 --cache small/cache \
        --output parts
    expect_stderr "not enough disk .*; disk needs about [0-9.]+ MiB, 1.0 MiB free for 'small/cache'$" \
        "the cache's file system named"
    expect_missing small/cache "no cache folder"
    expect_missing parts "no output"
else
    echo "# no tmpfs (not root): one file system only"
fi

expect_ok "bundled Cora" "$DGLPART" -v --num_parts 2 --cache c0 --output o0
expect_stderr "^dglpart: plan before converting \(about [0-9]+ nodes, [0-9]+ edges, from [a-z ]+\): memory about [0-9.]+ MiB of [0-9.]+ GiB \(MemAvailable\), disk about [0-9.]+ MiB of [0-9.]+ [GT]iB free for 'c0' and 'o0'$" \
    "-v shows the plan before converting"
expect_stdout "^config: o0/cora.json$" "Cora partitioned"

# a budget the run fits only by spilling: both plans say so, the run
# goes through and its parts are those of the roomy run
plan_mib() {
    sed -n 's/.*plan before converting .* memory about \([0-9.]*\) MiB .*/\1/p' \
        "$ERR" | awk '{ printf "%d", $1 * 1.5 + 1 }'
}
expect_ok "ogbl-ddi, no limit" "$DGLPART" -v --dataset "$D/ogbl-ddi" \
    --num_parts 8 --seed 1 --cache c1 --output free
lim=$(plan_mib)
expect_ok "ogbl-ddi, --mem_limit ${lim}M" "$DGLPART" -v \
    --dataset "$D/ogbl-ddi" --num_parts 8 --seed 1 --cache c2 \
    --output lean --mem_limit "${lim}M"
expect_stderr "plan before converting \($DDI\): memory about [0-9.]+ MiB of $lim.0 MiB \(--mem_limit\), .*; every graph in a scratch file$" \
    "the early plan spills"
expect_stderr "plan: memory about [0-9.]+ MiB of $lim.0 MiB \(--mem_limit\), .*; every graph in a scratch file$" \
    "and so does the partition's"
expect_stderr "METIS input to a scratch file" "the graph went to a scratch file"
for f in ogbl-ddi.json part0/graph.dgl part7/graph.dgl part7/orig_nids.dgl; do
    cmp_files free/$f lean/$f "$f as without a limit"
done

# a budget convert fits only with its edge arrays in scratch files (random
# parts take less than its 8 bytes an edge): the dataset is the same
random_run() {
    expect_ok "random parts, --mem_limit $1" "$DGLPART" -v \
        --dataset "$D/ogbl-ddi" --num_parts 64 --part_method random \
        --seed 1 --cache c$1 --output p$1 --mem_limit $1
}
random_run 1G
expect_eq "$(grep -c "convert's edges in scratch files" "$ERR")" 0 \
    "convert keeps its edges in memory at 1G"
random_run 24M
expect_stderr "plan before converting .*; convert's edges in scratch files" \
    "and spills them at 24M"
for f in indices.npy eids.npy indptr.npy; do
    cmp_files c1G/ogbl-ddi-converted/$f c24M/ogbl-ddi-converted/$f \
        "$f as converted in memory"
done
cmp_files p1G/part63/graph.dgl p24M/part63/graph.dgl "the same parts"

# converted already: nothing to plan before, the partition's plan refuses
expect_fail 1 "a cached dataset, a budget far too small" "$DGLPART" \
    --dataset "$D/ogbl-ddi" --num_parts 8 --cache c1 --output tiny \
    --mem_limit 4M
expect_stderr "^dglpart: not enough memory to partition 'c1/ogbl-ddi-converted' \(4267 nodes, 1067911 edges\) into 8 parts: needs about [0-9.]+ MiB, 4.0 MiB available \(--mem_limit\)$" \
    "the partition's plan, from the dataset"
expect_missing tiny "no output"
finish
