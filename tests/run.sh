#!/bin/sh
# Run every unit binary, fuzz-corpus replay and e2e script; add up their
# "P passed, F failed" lines and end with the total alone on a line
# (", S skipped" after it when a script skipped for want of root, sshd...).
# TESTS=pattern runs only e2e scripts whose name contains pattern.
BUILD=${BUILD:-build/rel}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
passed=0
failed=0
skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

tally() {
    # $1: label, $2: exit status; reads the output in $log
    # the line may be bare or after a "name: " prefix
    sum='(^|.* )([0-9]+) passed, ([0-9]+) failed$'
    line=$(grep -E "$sum" "$log" | tail -n 1)
    p=$(printf '%s\n' "$line" | sed -E "s/$sum/\\2/")
    f=$(printf '%s\n' "$line" | sed -E "s/$sum/\\3/")
    if [ -z "$line" ]; then
        p=0
        f=1
    fi
    if [ "$2" != 0 ] && [ "$f" = 0 ]; then
        f=1   # a crash or non-zero exit with no failed check still fails
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$f" != 0 ]; then
        echo "FAILED: $1 (exit $2)"
        # every failed check first (a long log would hide them), then the end
        grep -E '^(not ok|FAIL)' "$log" | sed 's/^/    /'
        echo "    ---- last lines:"
        sed 's/^/    /' "$log" | tail -n 25
    elif reason=$(grep -m 1 '^# skipped' "$log"); then
        skipped=$((skipped + 1))
        echo "skipped: $1 ($p checks;${reason#\# skipped})"
    else
        echo "ok: $1 ($p)"
    fi
}

if [ -z "$TESTS" ]; then
    for t in "$BUILD"/tests/test_*; do
        [ -x "$t" ] || continue
        "$t" >"$log" 2>&1
        tally "unit $(basename "$t")" $?
    done
    for f in "$BUILD"/fuzz/fuzz_*; do
        [ -x "$f" ] || continue
        name=$(basename "$f")
        "$f" tests/fuzz/corpus/"${name#fuzz_}" >"$log" 2>&1
        tally "fuzz replay $name" $?
    done
fi
for t in tests/e2e/t[0-9]*.sh; do
    [ -f "$t" ] || continue
    case "$t" in *"$TESTS"*) ;; *) continue ;; esac
    start=$(date +%s)
    # a bound against a hang, not a time limit: on a busy machine the
    # heaviest scripts take several times their usual few minutes
    BUILD="$BUILD" timeout 3600 sh "$t" >"$log" 2>&1
    rc=$?
    tally "$(basename "$t") $(($(date +%s) - start))s" $rc
done
if [ "$skipped" != 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
