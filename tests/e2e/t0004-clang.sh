#!/bin/sh
# The library, the binary and the unit tests also build with clang under
# -Werror (its warnings differ from gcc's), into this test's own folder.
. "$(dirname "$0")/lib.sh"

command -v clang >/dev/null || { echo "# skipped: no clang"; finish; }
units=$(cd "$TOP" && ls tests/unit/test_*.c | sed "s|tests/unit/|$TMP/clang/tests/|; s|\.c\$||")
expect_ok "make CC=clang" make -s -C "$TOP" -j2 CC=clang BUILD="$TMP/clang" \
    "$TMP/clang/dglpart" $units
expect_ok "the clang binary runs" "$TMP/clang/dglpart" --version
expect_stdout '^dglpart [0-9]' "and prints its version"
expect_ok "a clang unit test passes" "$TMP/clang/tests/test_core"
finish
