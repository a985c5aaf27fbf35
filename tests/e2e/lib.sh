# Shared helpers for the end-to-end scripts (sourced, POSIX sh).
# Each check counts once; `finish` prints the script's tally.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=$(cd "$TOP/../shared" 2>/dev/null && pwd || echo "$TOP/../shared")
DGLPART="$TOP/dglpart"
BUILD=${BUILD:-build/rel}
HELPERS="$TOP/$BUILD/helpers"
T_PASSED=0
T_FAILED=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dglpart-e2e.XXXXXX")
OUT="$TMP/out"
# The runtime's shared copies of parts go in the test's folder, not in this
# machine's /dev/shm (simulated hosts have their own /dev/shm).
DGLPART_SHM_DIR="$TMP/shm"
export DGLPART_SHM_DIR
mkdir -p "$DGLPART_SHM_DIR"
ERR="$TMP/err"
# Scripts add their own cleanup to this with at_exit.
T_CLEANUP=""
at_exit() { T_CLEANUP="$1; $T_CLEANUP"; }
trap 'eval "$T_CLEANUP"; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

pass() { T_PASSED=$((T_PASSED + 1)); echo "ok - $1"; }
fail() {
    T_FAILED=$((T_FAILED + 1))
    echo "not ok - $1"
    [ -s "$ERR" ] && sed 's/^/#   stderr: /' "$ERR" | head -n 10
    return 0
}

# run CMD...: runs with stdout in $OUT, stderr in $ERR, status in $RC
run() { "$@" >"$OUT" 2>"$ERR"; RC=$?; }

# mpirun_hw CMD...: CMD (an mpirun), once more when it died inside
# Debian's libhwloc, in Open MPI's own topology discovery before any rank
# ran (a stack overflow seen about once in ten starts over the simulated
# hosts); a failure of ours is never run again. Retries are counted in
# $TMP/hwloc-retries.
mpirun_hw() {
    "$@" 2>"$TMP/mpirun_hw.err"
    _rc=$?
    if [ "$_rc" != 0 ] && grep -q 'Process received signal' "$TMP/mpirun_hw.err" &&
        grep -q 'libhwloc[.]so.*hwloc_' "$TMP/mpirun_hw.err"; then
        echo x >>"$TMP/hwloc-retries"
        "$@"
        return
    fi
    cat "$TMP/mpirun_hw.err" >&2
    return "$_rc"
}

# expect_ok DESC CMD...
expect_ok() {
    d=$1; shift
    run "$@"
    if [ "$RC" = 0 ]; then pass "$d"; else fail "$d (exit $RC)"; fi
}

# expect_fail CODE DESC CMD...
expect_fail() {
    code=$1; d=$2; shift 2
    run "$@"
    if [ "$RC" = "$code" ]; then pass "$d"; else fail "$d (exit $RC, wanted $code)"; fi
}

# expect_stderr REGEX DESC: checks the stderr of the last run
expect_stderr() {
    if grep -Eq -- "$1" "$ERR"; then pass "$2"
    else fail "$2 (stderr lacks /$1/)"; fi
}

# expect_stdout REGEX DESC: checks the stdout of the last run
expect_stdout() {
    if grep -Eq -- "$1" "$OUT"; then pass "$2"
    else fail "$2 (stdout lacks /$1/)"; head -n 5 "$OUT" | sed 's/^/#   stdout: /'; fi
}

# expect_eq GOT WANT DESC
expect_eq() {
    if [ "$1" = "$2" ]; then pass "$3"; else fail "$3 (got '$1', want '$2')"; fi
}

# cmp_files A B DESC
cmp_files() {
    if cmp -s "$1" "$2"; then pass "$3"; else fail "$3 ($1 and $2 differ)"; fi
}

# expect_missing PATH DESC: nothing was left behind
expect_missing() {
    if [ -e "$1" ]; then fail "$2 ($1 exists)"; else pass "$2"; fi
}

# Waiting for events on a machine that may be busy (make -j, other test
# runs): poll for the event itself, with bounds far above its usual time.
#
# wait_until SECONDS CMD...: run CMD every 0.1 s until it succeeds (then
# 0) or SECONDS have passed (then 1)
wait_until() {
    _wu_end=$(($(date +%s) + $1))
    shift
    until "$@"; do
        [ "$(date +%s)" -ge "$_wu_end" ] && return 1
        sleep 0.1
    done
    return 0
}

# has_line FILE REGEX: FILE exists and has a line matching REGEX
has_line() { grep -Eq -- "$2" "$1" 2>/dev/null; }

# wait_line FILE REGEX [SECONDS]: until FILE has a line matching REGEX, at
# most SECONDS (60)
wait_line() { wait_until "${3:-60}" has_line "$1" "$2"; }

# ended PID: the process is gone or a zombie (waiting for `wait`)
ended() {
    _st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
    [ -z "$_st" ] || [ "$_st" = Z ]
}

# wait_exit PID SECONDS: wait for the background child PID to end, at most
# SECONDS; its status in $RC, or RC=timeout and PID killed when it did not
wait_exit() {
    if wait_until "$2" ended "$1"; then
        wait "$1"
        RC=$?
        return 0
    fi
    kill -9 "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    RC=timeout
    return 1
}

# mpi_setup: skip the rest without mpirun; Open MPI's session folder and
# shared-memory files in the test's folder, no single-copy (CMA)
# transport, whose ptrace check warns in containers. ASan: Open MPI leaks
# on purpose at MPI_Finalize (and unloads the plugins that allocated, so
# only the slow unwinder reaches libmpi in their stacks); those leaks
# alone are suppressed. Our own allocations have no MPI frame.
mpi_setup() {
    if ! command -v mpirun >/dev/null; then
        echo "# skipped: no mpirun (Debian package openmpi-bin)"
        finish
    fi
    export TMPDIR="$TMP"
    export OMPI_MCA_btl_vader_backing_directory="$TMP"
    export OMPI_MCA_btl_vader_single_copy_mechanism=none
    case "$BUILD" in
    *san*)
        export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
        export LSAN_OPTIONS="suppressions=$TOP/tests/e2e/mpi-lsan.supp:print_suppressions=0"
        ;;
    esac
}

finish() {
    echo "$(basename "$0"): $T_PASSED passed, $T_FAILED failed"
    [ "$T_FAILED" = 0 ]
    exit $?
}
