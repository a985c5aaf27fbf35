#!/bin/sh
# Settings: the library reads the environment only in core/env.c, through
# its one table, which `dglpart help env` prints and which names every
# variable the code and the scripts use; a malformed value is refused before
# any work with one line naming it, and help stays readable.
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
LIBDIRS="core format download convert partition copy launch runtime"

got=$(grep -rln 'getenv' $LIBDIRS ./*.c | tr '\n' ' ')
expect_eq "$got" "core/env.c " "only core/env.c calls getenv"

expect_ok "dglpart help env" "$DGLPART" help env
cp "$OUT" "$TMP/table"
grep -o '^  [A-Z][A-Z0-9_]*=' "$TMP/table" | sed 's/^  //; s/=$//' | sort >"$TMP/names"
expect_eq "$(sort -u "$TMP/names" | wc -l)" "$(wc -l <"$TMP/names")" \
    "each variable is listed once"

# every name the library reads through the accessors is in the table
grep -rhoE 'dp_env_(bool|int|size|str)\("[A-Za-z0-9_]+"' $LIBDIRS ./*.c |
    sed 's/.*("//; s/"$//' | sort -u >"$TMP/read"
expect_eq "$(comm -23 "$TMP/read" "$TMP/names" | tr '\n' ' ')" "" \
    "every variable read is in the table"
# and every DGLPART_ name anywhere in the sources, scripts and docs (not
# header guards, the version macro, prefixes or the unit test's made-up one)
grep -rhoE --exclude=test_env.c 'DGLPART_[A-Z0-9_]+' $LIBDIRS ./*.c include \
    python bench tests docs README.md Makefile 2>/dev/null |
    grep -vE '_H$|_$|^DGLPART_VERSION$' | sort -u >"$TMP/named"
expect_eq "$(comm -23 "$TMP/named" "$TMP/names" | tr '\n' ' ')" "" \
    "every DGLPART_ variable named anywhere is in the table"
expect_eq "$(sed -n '/^For tests only:/,/^$/p' "$TMP/table" |
    grep -c '^  DGLPART_\(FAULT\|TEST_WIDE_IDS\|TEST_ONE_THREAD\)=')" 3 \
    "the variables for tests are marked as such"

mkdir "$TMP/w" && cd "$TMP/w" || exit 1
expect_fail 2 "a malformed boolean is refused" env DGLPART_SPILL=maybe \
    "$DGLPART" partition "$TOP/datasets/cora" --num_parts 2 --output o
expect_eq "$(cat "$ERR")" \
    "dglpart partition: DGLPART_SPILL: expected 1 or 0, got 'maybe'" \
    "in one line naming the variable and what was expected"
expect_missing o "before any work"
expect_fail 2 "an out-of-range number is refused" \
    env DGLPART_RETRY_DELAY_MS=-5 "$DGLPART" download cora
expect_eq "$(cat "$ERR")" \
    "dglpart download: DGLPART_RETRY_DELAY_MS: -5 out of range [0, 60000]" \
    "naming the variable and its range"
expect_fail 2 "a word not in the list is refused" \
    env DGLPART_ZIP_INFLATE=gzip "$DGLPART" --num_parts 2
expect_eq "$(cat "$ERR")" \
    "dglpart: DGLPART_ZIP_INFLATE: expected isal or zlib, got 'gzip'" \
    "naming the words it takes"
expect_ok "an empty value is unset" env DGLPART_SPILL= "$DGLPART" datasets
expect_ok "DGL's variables are DGL's to judge" \
    env OMP_NUM_THREADS=many "$DGLPART" datasets
expect_ok "help env with a malformed setting" env DGLPART_SPILL=maybe \
    "$DGLPART" help env
expect_ok "a command's --help with a malformed setting" \
    env DGLPART_SPILL=maybe "$DGLPART" partition --help
expect_stdout '^usage: dglpart partition' "prints its usage"

expect_ok "dglpart help partition" "$DGLPART" help partition
"$DGLPART" partition --help >"$TMP/help"
cmp_files "$OUT" "$TMP/help" "is dglpart partition --help"
expect_fail 2 "help of no such command" "$DGLPART" help frobnicate
expect_stderr "'frobnicate' is neither a command nor env" "names it"
finish
