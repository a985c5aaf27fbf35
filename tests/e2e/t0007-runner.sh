#!/bin/sh
# tests/run.sh adds up the scripts' summary lines, bare or after a name,
# and fails a script that prints none or exits non-zero; run on a copy of
# itself with stand-in scripts.
. "$(dirname "$0")/lib.sh"

R=$TMP/top
mkdir -p "$R/tests/e2e"
cp "$TOP/tests/run.sh" "$R/tests/"
script() { printf '#!/bin/sh\n%s\n' "$2" >"$R/tests/e2e/$1.sh"; }
script t1-bare 'echo "ok - one"; echo "3 passed, 0 failed"'
script t2-named 'echo "t2-named.sh: 2 passed, 0 failed"'
script t3-skip 'echo "# skipped: no thing"; echo "1 passed, 0 failed"'
expect_ok "bare, named and skipped lines" env TESTS= BUILD="$TMP/none" sh "$R/tests/run.sh"
expect_eq "$(tail -n 1 "$OUT")" "6 passed, 0 failed, 1 skipped" "they add up"
expect_stdout '^ok: t1-bare\.sh [0-9]+s \(3\)$' "the bare line's script passes"

script t4-none 'echo nothing'
script t5-exit 'echo "4 passed, 0 failed"; exit 3'
script t6-failed 'echo "1 passed, 2 failed"'
expect_fail 1 "failures fail the run" env TESTS= BUILD="$TMP/none" sh "$R/tests/run.sh"
expect_eq "$(tail -n 1 "$OUT")" "11 passed, 4 failed, 1 skipped" \
    "no line, a bad exit and failed checks each count"
expect_stdout '^FAILED: t4-none\.sh' "no summary line fails"
expect_stdout '^FAILED: t5-exit\.sh .*\(exit 3\)$' "a non-zero exit fails"
finish
