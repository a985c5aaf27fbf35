#!/bin/sh
# The Python package: partition_arrays and partition_graph on Cora and its
# typed form, checked against the input and DGL's own partitions
# (tests/python/test_dglpart.py); Ctrl-C while the library runs; the
# package installed by pip into a fresh venv and by make install, then
# imported with no dglpart binary anywhere on PATH.
. "$(dirname "$0")/lib.sh"

# Debian's python3 is the one with python3-numpy
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
LIB="$TOP/build/pic/libdglpart.so"
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "# skipped: no numpy for $PY (Debian package python3-numpy)"
    finish
fi
expect_ok "the shared library is built" test -f "$LIB"

# the tests' own tally joins this script's
run env PYTHONPATH="$TOP/python:$TOP/tests/python" DGLPART_LIBRARY="$LIB" \
    "$PY" "$TOP/tests/python/test_dglpart.py" "$SHARED/fixtures" "$HELPERS" \
    "$TMP"
sed -n 's/^\(not \)\{0,1\}ok - /&/p' "$OUT" | sed 's/^/  /'
p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$OUT")
f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$OUT")
if [ -n "$p" ] && [ "$RC" = 0 ]; then
    T_PASSED=$((T_PASSED + p))
else
    T_FAILED=$((T_FAILED + ${f:-0}))
    fail "test_dglpart.py (exit $RC)"
    tail -n 30 "$OUT" "$ERR" | sed 's/^/#   /'
fi

# Ctrl-C: the library stops at its next step, nothing is left at out_path
env PYTHONPATH="$TOP/python" DGLPART_LIBRARY="$LIB" "$PY" \
    "$TOP/tests/python/interrupt_child.py" "$TMP/intr" >"$TMP/intr.log" \
    2>&1 &
pid=$!
i=0
until grep -q '^calling' "$TMP/intr.log" 2>/dev/null || [ $i -ge 600 ]; do
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
    i=$((i + 1))
done
kill -INT $pid 2>/dev/null
wait $pid
expect_eq "$?" 130 "Ctrl-C: the call raised KeyboardInterrupt"
grep -q '^interrupted' "$TMP/intr.log" && pass "Ctrl-C: caught as such" ||
    fail "Ctrl-C: caught as such ($(tail -n 3 "$TMP/intr.log"))"
expect_missing "$TMP/intr" "Ctrl-C: no out_path"
expect_missing "$TMP/intr.tmp" "Ctrl-C: no half-written out_path.tmp"

# pip into a fresh venv over Debian's python3, offline, from a copy of the
# sources (the build writes beside them)
mkdir -p "$TMP/src"
(cd "$TOP" && tar cf - --exclude=./build --exclude=./dglpart \
    --exclude=./python/build --exclude='*.egg-info' --exclude=./.git \
    --exclude=./data --exclude=./dataset .) | (cd "$TMP/src" && tar xf -)
if "$PY" -m venv --help >/dev/null 2>&1 && "$PY" -m pip --version \
    >/dev/null 2>&1; then
    expect_ok "venv --system-site-packages" "$PY" -m venv \
        --system-site-packages "$TMP/venv"
    expect_ok "pip install --no-index --no-build-isolation ./python" \
        "$TMP/venv/bin/pip" install --no-index --no-build-isolation \
        "$TMP/src/python"
    cat >"$TMP/use.py" <<'EOF'
import os, shutil, sys
import numpy as np
import dglpart
assert shutil.which("dglpart") is None, "a dglpart binary is on PATH"
assert "DGLPART_LIBRARY" not in os.environ
src = np.array([0, 1, 2, 3, 4, 5]); dst = np.array([1, 2, 3, 4, 5, 0])
nids, eids = dglpart.partition_arrays(
    src, dst, 6, {"x": np.arange(6.0)}, graph_name="ring", num_parts=2,
    out_path=sys.argv[1], return_mapping=True)
x = np.concatenate([dglpart.load_tensors(
    os.path.join(sys.argv[1], "part%d/node_feat.dgl" % p))["_N/x"]
    for p in range(2)])
assert np.array_equal(x, nids.astype(float)), (x, nids)
print("imported from", os.path.dirname(dglpart.__file__))
EOF
    (cd "$TMP" && run env -u DGLPART_LIBRARY PATH=/usr/bin:/bin \
        "$TMP/venv/bin/python" "$TMP/use.py" "$TMP/ring")
    if [ "$RC" = 0 ]; then pass "the venv imports dglpart and partitions"
    else fail "the venv imports dglpart and partitions (exit $RC)"; fi
    expect_stdout "imported from $TMP/venv/" "it is the venv's copy"
else
    echo "# skipped: no venv or pip for $PY (python3-venv, python3-pip)"
fi

# make install for Debian's python3, into a staging root
expect_ok "make install-python DESTDIR" make -C "$TMP/src" -s install-python \
    DESTDIR="$TMP/root" PREFIX=/usr/local
site=$(cd "$TMP/root" && find . -path '*/dist-packages/dglpart' -type d |
    head -n 1)
expect_ok "installed: the package and its library" test -f \
    "$TMP/root/$site/libdglpart.so"
(cd "$TMP" && run env -u DGLPART_LIBRARY PATH=/usr/bin:/bin \
    PYTHONPATH="$TMP/root/${site%/dglpart}" "$PY" "$TMP/use.py" \
    "$TMP/ring2")
if [ "$RC" = 0 ]; then pass "the installed package imports and partitions"
else fail "the installed package imports and partitions (exit $RC)"; fi
expect_stdout "imported from $TMP/root/" "it is the installed copy"

finish
