#!/bin/sh
# The limits of a run at scale, on small inputs. DGLPART_TEST_IDX_MAX
# lowers what METIS's 32-bit idx_t is taken to hold, so a small graph
# takes the paths of one past 2^31 adjacency entries: the whole-graph
# METIS path refuses it in one line, the multilevel path saturates its
# weights, drops FM's gain cache and scales the coarsest graph's weights
# for METIS, and still gives valid, balanced parts, the same run after run.
# --mem_limit: the run is planned before any long work; a budget it cannot
# fit is refused at once with the figures, a tight one puts every graph in
# a scratch file and the parts stay byte for byte those of the roomy run.
. "$(dirname "$0")/lib.sh"

cd "$TMP" || exit 1
D=$SHARED/datasets
expect_ok "convert ogbl-ddi" "$DGLPART" convert "$D/ogbl-ddi" --out ddi \
    --undirected

cut_of() { sed -n 's/.*edge cut \([0-9]*\).*/\1/p' "$OUT"; }

DGLPART_TEST_IDX_MAX=1000000 expect_fail 1 "exact METIS past idx_t" \
    "$DGLPART" partition ddi --num_parts 4 --output x --metis_mode exact
expect_stderr "graph too large for METIS's 32-bit idx_t: 2135822 adjacency entries after symmetrising \(at most 1000000; .*use --metis_mode multilevel$" \
    "refused in one line, with the figures"
expect_missing x "nothing written"

DGLPART_ML_NODES_PER_PART=100 expect_ok "multilevel, 32-bit limits" \
    "$DGLPART" partition ddi --num_parts 4 --output n --seed 1 \
    --metis_mode multilevel
normal=$(cut_of)
for i in 1 2; do
    DGLPART_TEST_IDX_MAX=60000 DGLPART_ML_NODES_PER_PART=100 expect_ok \
        "multilevel past the lowered limits ($i)" "$DGLPART" partition ddi \
        --num_parts 4 --output w$i --seed 1 --metis_mode multilevel \
        --write_assign w$i.npy
done
wide=$(cut_of)
cmp_files w1.npy w2.npy "the same parts run after run"
expect_ok "verify them" "$DGLPART" verify w1/ogbl-ddi.json --dataset ddi
python3 - <<'PY' && pass "nodes within 1.03" || fail "nodes within 1.03"
import json, sys
s = json.load(open("w1/partition-stats.json"))
b = [b["max_over_avg"] for b in s["balance"] if b["constraint"] == "nodes"]
sys.exit(0 if b and b[0] <= 1.03 + 1e-9 else 1)
PY
[ "$wide" -le $((normal + normal / 100)) ] &&
    pass "cut within 1% of the unlimited run ($wide vs $normal)" ||
    fail "cut within 1% of the unlimited run ($wide vs $normal)"
DGLPART_TEST_IDX_MAX=50000 DGLPART_ML_NODES_PER_PART=100 expect_fail 1 \
    "a coarsest graph past idx_t" "$DGLPART" partition ddi --num_parts 4 \
    --output y --metis_mode multilevel
expect_stderr "the coarsest graph has [0-9]+ adjacency entries, more than METIS's 32-bit idx_t takes \(50000\)" \
    "refused in one line"

# --mem_limit: a budget of 1.5 times the plan leaves less than the
# headroom the plan wants, so every graph goes to a scratch file; the
# parts must not change.
plan_mib() {
    sed -n 's/.*plan: memory about \([0-9.]*\) MiB .*/\1/p' "$ERR" |
        awk '{ printf "%d", $1 * 1.5 + 1 }'
}
for mode in exact multilevel; do
    expect_ok "$mode, no limit" "$DGLPART" -v partition ddi --num_parts 8 \
        --output free-$mode --seed 1 --metis_mode $mode
    expect_stderr "plan: memory about [0-9.]+ MiB of [0-9.]+ [MG]iB \(MemAvailable\), disk about [0-9.]+ MiB of [0-9.]+ [MGT]iB free; symmetrised in one band$" \
        "-v shows the plan, with room for one band"
    lim=$(plan_mib)
    DGLPART_SPILL=0 expect_ok "$mode, in memory" "$DGLPART" partition ddi \
        --num_parts 8 --output mem-$mode --seed 1 --metis_mode $mode
    expect_ok "$mode, --mem_limit ${lim}M" "$DGLPART" -v partition ddi \
        --num_parts 8 --output lean-$mode --seed 1 --metis_mode $mode \
        --mem_limit "${lim}M"
    expect_stderr "plan: memory about [0-9.]+ MiB of $lim.0 MiB \(--mem_limit\), .*; every graph in a scratch file$" \
        "the plan says lean"
    expect_stderr "METIS input to a scratch file" "the graph went to scratch"
    # the symmetrised graph made in many small bands, each a sweep of
    # the CSC, a few rows larger than a band (ddi's degrees reach 2234)
    DGLPART_TEST_SYM_BAND=4000 expect_ok "$mode, in bands" "$DGLPART" \
        -vv partition ddi --num_parts 8 --output band-$mode --seed 1 \
        --metis_mode $mode --mem_limit "${lim}M"
    # bands split the entries evenly, ceil(all / 4000) of them, each at
    # most a share and a row: no band of leftover rows costs a sweep more
    # (a hub row spanning shares leaves the band after it empty, unswept)
    python3 - "$ERR" <<'PY' && pass "$mode: even bands, one sweep each" ||
import re, sys
log = open(sys.argv[1]).read()
head = re.findall(r"symmetrise: (\d+) band\(s\) of at most (\d+) entries, "
                  r"(\d+) in all", log)
bands = [int(x) for x in
         re.findall(r"symmetrise: band of rows \d+-\d+, (\d+) entries", log)]
ok = len(head) == 1 and bands
if ok:
    nb, most, total = map(int, head[0])
    ok = (nb == -(-total // 4000) and len(bands) <= nb and
          sum(bands) == total and max(bands) == most and
          nb > 1 and min(bands) > 0 and most < total // nb + 2 * 2234 + 2)
sys.exit(0 if ok else 1)
PY
        fail "$mode: even bands, one sweep each"
    # in the degree order (the multilevel path), the sources' rows are
    # looked up once into a file the bands read; looked up by every band
    # instead, the parts are the same
    if [ $mode = multilevel ]; then
        expect_stderr "symmetrise: rows in ascending degree order" \
            "$mode: rows in the degree order"
        expect_stderr "symmetrise: the sources' rows written" \
            "$mode: the bands read their sources' rows from a file"
        DGLPART_TEST_SYM_NO_ROWS=1 DGLPART_TEST_SYM_BAND=4000 expect_ok \
            "$mode, in bands, rows looked up" "$DGLPART" -vv partition ddi \
            --num_parts 8 --output look-$mode --seed 1 --metis_mode $mode \
            --mem_limit "${lim}M"
        if grep -q "the sources' rows written" "$ERR"; then
            fail "$mode: no rows file with DGLPART_TEST_SYM_NO_ROWS=1"
        else
            pass "$mode: no rows file with DGLPART_TEST_SYM_NO_ROWS=1"
        fi
        for f in partition-stats.json part0/graph.dgl part7/graph.dgl; do
            cmp_files band-$mode/$f look-$mode/$f "$mode $f, rows looked up"
        done
    fi
    # the levels' pages taken from the process whenever it is checked,
    # while coarsening and refinement read them
    DGLPART_TEST_LEVEL_RSS_CAP=0 expect_ok "$mode, level pages dropped" \
        "$DGLPART" partition ddi --num_parts 8 --output drop-$mode --seed 1 \
        --metis_mode $mode --mem_limit "${lim}M"
    for f in partition-stats.json ogbl-ddi.json part0/graph.dgl \
        part3/graph.dgl part7/graph.dgl part7/orig_nids.dgl; do
        cmp_files free-$mode/$f lean-$mode/$f "$mode $f as without a limit"
        cmp_files mem-$mode/$f lean-$mode/$f "$mode $f as in memory"
        cmp_files free-$mode/$f band-$mode/$f "$mode $f made in bands"
        cmp_files free-$mode/$f drop-$mode/$f "$mode $f, level pages dropped"
    done
done
# Levels whose rows are in a file contracted in sweeps of them, in bands
# of 4 KiB (hubs alone in one past that), not by random reads: the same
# levels, so the same parts (ddi coarsened to 50 nodes a part, every level
# in a file).
DGLPART_ML_NODES_PER_PART=50 expect_ok "levels read at random" "$DGLPART" \
    partition ddi --num_parts 8 --output random --seed 1 \
    --metis_mode multilevel --mem_limit "${lim}M" --write_assign random.npy
DGLPART_TEST_CT_BAND=4096 DGLPART_ML_NODES_PER_PART=50 expect_ok \
    "levels contracted in sweeps" "$DGLPART" partition ddi --num_parts 8 \
    --output sweep --seed 1 --metis_mode multilevel --mem_limit "${lim}M" \
    --write_assign sweep.npy
cmp_files random.npy sweep.npy "the same parts from levels made in sweeps"
# A band's rows summed from the back (one thread: all of them) in place,
# the weights that fit nowhere else in a buffer (room 0: none, such rows
# summed again when put), or from both ends by two threads: the same parts.
for room in 0 20000 two; do
    set -- env DGLPART_TEST_ONE_THREAD=1 DGLPART_TEST_CT_SUM_ROOM=$room
    [ $room = two ] && set -- env
    DGLPART_TEST_CT_BAND=1048576 DGLPART_ML_NODES_PER_PART=50 expect_ok \
        "sums with room $room" "$@" "$DGLPART" partition ddi --num_parts 8 \
        --output sum-$room --seed 1 --metis_mode multilevel \
        --mem_limit "${lim}M" --write_assign sum-$room.npy
    cmp_files random.npy sum-$room.npy "the same parts, sums with room $room"
done
# FM reads the rows of nodes it moves on coarse levels in files past the
# cap (0 here) with pread, not through the mapping: the same parts, with
# its gain table and without.
DGLPART_TEST_LEVEL_RSS_CAP=0 DGLPART_ML_NODES_PER_PART=50 expect_ok \
    "moved rows read with pread" "$DGLPART" partition ddi --num_parts 8 \
    --output pread --seed 1 --metis_mode multilevel --mem_limit "${lim}M" \
    --write_assign pread.npy
cmp_files random.npy pread.npy "the same parts from rows read with pread"
for cap in 1G 0; do
    DGLPART_TEST_LEVEL_RSS_CAP=$cap DGLPART_TEST_FM_CACHE_MAX=0 \
        DGLPART_ML_NODES_PER_PART=50 expect_ok "no gain table, cap $cap" \
        "$DGLPART" partition ddi --num_parts 8 --output nocache-$cap \
        --seed 1 --metis_mode multilevel --mem_limit "${lim}M" \
        --write_assign nocache-$cap.npy
done
cmp_files nocache-1G.npy nocache-0.npy \
    "the same parts from rows read with pread, no gain table"

expect_fail 1 "a budget far too small" "$DGLPART" partition ddi \
    --num_parts 8 --output tiny --mem_limit 16M
expect_stderr "^dglpart partition: not enough memory to partition 'ddi' \(4267 nodes, 2135822 edges\) into 8 parts: needs about [0-9.]+ MiB, 16.0 MiB available \(--mem_limit\)$" \
    "refused at once in one line, needed vs available"
expect_missing tiny "nothing written"
expect_missing tiny.tmp "no temporary output"
expect_fail 2 "a bad size" "$DGLPART" partition ddi --num_parts 8 \
    --output tiny --mem_limit 64Q
expect_stderr "--mem_limit: expected a size such as 64M or 20G, got '64Q'" \
    "the bad size named"
expect_fail 2 "a size below 1M" "$DGLPART" partition ddi --num_parts 8 \
    --output tiny --mem_limit 4K
expect_stderr "--mem_limit: 4K out of range" "the range named"
# the pipeline takes it too (the shared partition options)
expect_fail 1 "the pipeline, a budget far too small" "$DGLPART" \
    --num_parts 2 --output cora-out --cache cache --mem_limit 1M
expect_stderr "not enough memory to convert and partition .* 1.0 MiB available \(--mem_limit\)" \
    "the pipeline refuses it in one line"
expect_missing cora-out "nothing written"
finish
