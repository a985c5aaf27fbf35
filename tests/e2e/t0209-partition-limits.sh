#!/bin/sh
# The limits of a run at scale, on small inputs. DGLPART_TEST_IDX_MAX
# lowers what METIS's 32-bit idx_t is taken to hold, so a small graph
# takes the paths of one past 2^31 adjacency entries: the whole-graph
# METIS path refuses it in one line, the multilevel path saturates its
# weights, drops FM's gain cache and scales the coarsest graph's weights
# for METIS, and still gives valid, balanced parts, the same run after run.
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
finish
