#!/bin/sh
# dglpart verify checks the parts on two threads: what it prints is what
# one thread prints, line for line (the first problem named does not
# depend on the threads' timing). With DGLPART_PROGRESS=1 (or on a
# terminal) a bar counts each pass's edges, and the problem lines stay
# whole beside it; off a terminal nothing else is printed.
. "$(dirname "$0")/lib.sh"

ED="$HELPERS/editpart"
SRC="$SHARED/fixtures/dgl-cora/metis4-train-edges"
"$HELPERS/mkdataset" "$SHARED/fixtures/dgl-cora/input" "$TMP/cora" \
    2>"$ERR" && pass "dataset built" || fail "dataset built"
cp -r "$SRC" "$TMP/ok" && chmod -R u+w "$TMP/ok"
cp -r "$SRC" "$TMP/d" && chmod -R u+w "$TMP/d"
# damage in several parts, found in both passes and against the dataset:
# halo edges lost (parts 0 and 2), a source changed (part 1) and an edge
# stored twice (part 3)
for e in "drop 0 1600" "drop 2 1700" "src 1 8" "dup 3 20"; do
    set -- $e
    expect_ok "editpart $e" "$ED" "$1" "$TMP/d/cora.json" "$2" "$3"
done
D="$TMP/d/cora.json"
C="$TMP/cora"

run env DGLPART_TEST_ONE_THREAD=1 "$DGLPART" verify "$D" --dataset "$C"
expect_eq "$RC" 1 "one thread: the damage fails"
cp "$ERR" "$TMP/one.err"
cp "$OUT" "$TMP/one.out"
for p in 0 2 3; do
    expect_stderr "^dglpart verify: part$p/graph.dgl: " "part $p's damage named"
done
expect_stderr "part 1 has it as" "part 1's changed source named"
expect_eq "$(grep -c '^dglpart verify: part' "$ERR")" 7 "7 lines about parts"
for r in 1 2 3 4 5; do
    run "$DGLPART" verify "$D" --dataset "$C"
    cmp_files "$ERR" "$TMP/one.err" "two threads, run $r: the same lines"
    cmp_files "$OUT" "$TMP/one.out" "two threads, run $r: the same table"
done
run env DGLPART_TEST_ONE_THREAD=1 "$DGLPART" verify "$D" --dataset "$C" \
    --max_lines 3
cp "$ERR" "$TMP/one3.err"
expect_stderr 'more problems not shown' "one thread: the cap is reached"
run "$DGLPART" verify "$D" --dataset "$C" --max_lines 3
cmp_files "$ERR" "$TMP/one3.err" "two threads: the same first 3 lines"

# the bar: each pass to 100%, its count the edges of the parts
run env DGLPART_PROGRESS=1 "$DGLPART" verify "$TMP/ok/cora.json" --dataset "$C"
expect_eq "$RC" 0 "clean set with the bar"
tr '\r' '\n' <"$ERR" >"$TMP/bar"
grep -Eq '^verify: parts \[#+\] 100% 6000/6000 ' "$TMP/bar" &&
    pass "pass 1 counts the 6000 local edges" || fail "pass 1's bar"
grep -Eq '^verify: halos and dataset \[#+\] 100% 6000/6000 ' "$TMP/bar" &&
    pass "pass 2 counts them too" || fail "pass 2's bar"
cp "$OUT" "$TMP/bar.out"
run env -u DGLPART_PROGRESS "$DGLPART" verify "$TMP/ok/cora.json" --dataset "$C"
expect_eq "$(wc -c <"$ERR")" 0 "no bar off a terminal"
cmp_files "$OUT" "$TMP/bar.out" "the table is the same with the bar"
run env DGLPART_PROGRESS=1 "$DGLPART" verify "$D" --dataset "$C"
tr '\r' '\n' <"$ERR" | sed 's/^\x1b\[K//' | grep '^dglpart verify: ' \
    >"$TMP/lines"
cmp_files "$TMP/lines" "$TMP/one.err" "problem lines whole beside the bar"
finish
