#!/bin/sh
# core/comm.c under mpirun on this machine (shared memory): every collective
# checked on every rank with 1, 2 and 3 ranks, messages whole and cut into
# 1000-byte pieces; a rank killed with kill -9 stops the job within seconds,
# named with its host; a dglpart that mpirun did not start never maps libmpi.
. "$(dirname "$0")/lib.sh"

CHECK="$HELPERS/commcheck"

# Nothing of MPI at link time: not in the binary, not in comm.o (Open MPI's
# handles are objects in libmpi; a use of mpi.h's macros would show here).
libs=$(LD_TRACE_LOADED_OBJECTS=1 "$DGLPART" 2>&1)
case "$libs" in
*libmetis*) case "$libs" in
    *libmpi*) fail "dglpart links libmpi" ;;
    *) pass "dglpart does not link libmpi" ;;
    esac ;;
*) fail "no library list from the loader: $libs" ;;
esac
nm -u "$TOP/$BUILD/core/comm.o" >"$TMP/undef"
grep -q dp_dynlib_load_global "$TMP/undef" &&
    ! grep -Eq ' (P?MPI_|ompi_|opal_)' "$TMP/undef" &&
    pass "comm.o takes no symbol from libmpi at link time" ||
    fail "comm.o's undefined symbols: $(tr '\n' ' ' <"$TMP/undef")"

# Loaded at run time only by dp_comm_init: --version, even with mpirun's
# environment, loads no libmpi (the loader's own list of every file it maps).
OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 LD_DEBUG=files \
    "$DGLPART" --version >/dev/null 2>"$TMP/ld"
if ! grep -q 'file=libmetis' "$TMP/ld"; then
    fail "no file list from LD_DEBUG: $(head -n 3 "$TMP/ld")"
elif grep -q 'libmpi' "$TMP/ld"; then
    fail "dglpart --version maps libmpi"
else
    pass "dglpart --version maps no libmpi"
fi
expect_ok "outside mpirun: not launched, libmpi not mapped" \
    "$CHECK" --not-launched
expect_stdout '^commcheck: 2 passed, 0 failed' "the two checks ran"

mpi_setup
unset DGLPART_TEST_COMM_PIECE
MPIRUN="mpirun --allow-run-as-root --oversubscribe"

for piece in "" 1000; do
    for np in 1 2 3; do
        d="-np $np${piece:+, pieces of $piece bytes}"
        expect_ok "$d: every collective" mpirun_hw \
            env ${piece:+DGLPART_TEST_COMM_PIECE=$piece} \
            timeout 120 $MPIRUN -np "$np" "$CHECK"
        expect_stdout "^commcheck: $np ranks" "$d: $np ranks"
        expect_stdout '^commcheck: [1-9][0-9]* passed, 0 failed$' "$d: all passed"
        if [ -s "$ERR" ]; then fail "$d: stderr is empty"; else pass "$d: stderr is empty"; fi
    done
done

# A malformed setting is one line naming it, and the job fails.
expect_fail 1 "a malformed piece size fails" env DGLPART_TEST_COMM_PIECE=1k2 \
    timeout 60 $MPIRUN -np 2 "$CHECK"
expect_stderr "^commcheck: DGLPART_TEST_COMM_PIECE: expected a size" \
    "and names the setting"

# alive PID...: the pids still running (a zombie waiting for its reaper is
# gone already)
alive() {
    for p in "$@"; do
        s=$(ps -o stat= -p "$p" 2>/dev/null) || continue
        case "$s" in Z*) ;; *) echo "$p" ;; esac
    done
}

# job MODE: run the three ranks until rank 1 dies (--die-rank) or aborts,
# bounded; then the seconds mpirun took and whether any rank lives on
job() {
    rm -rf "$TMP/pids" && mkdir "$TMP/pids"
    run timeout 60 $MPIRUN -np 3 "$CHECK" "$1" 1 --pid-dir "$TMP/pids"
    end=$(date +%s%3N)
    [ -f "$TMP/pids/killed.1" ] &&
        echo "# $1: mpirun exited $RC $((end - $(cat "$TMP/pids/killed.1"))) ms after the kill"
    sed 's/^/#   /' "$ERR"
    left=$(alive $(cat "$TMP/pids"/rank.* 2>/dev/null))
    [ "$(ls "$TMP/pids"/rank.* | wc -l)" = 3 ] && [ -z "$left" ] &&
        pass "$1: the three ranks started and none is left" ||
        fail "$1: ranks left running: $left"
}

job --die-rank
[ "$RC" != 0 ] && [ "$RC" != 124 ] && pass "kill -9 of rank 1: mpirun fails" ||
    fail "kill -9 of rank 1: mpirun exited $RC (124: timed out)"
expect_stderr 'rank 1 .* on node [^ ]+ exited on signal 9' \
    "kill -9: names the rank, its host and the signal"

# (Open MPI 4.1 loses its own "MPI_ABORT was invoked on rank 1" notice at
# times, a race in its show_help: only the code is checked)
job --abort-rank
expect_eq "$RC" 7 "dp_comm_abort(c, 7) on rank 1: mpirun exits 7"
finish
