#!/bin/sh
# Every command prints its usage on --help (stdout, exit 0); bad commands and
# no arguments are misuse (exit 2).
. "$(dirname "$0")/lib.sh"

expect_ok "dglpart --help" "$DGLPART" --help
expect_stdout '^usage: dglpart' "top-level usage on stdout"
cmds=$(sed -n '/^commands:/,/^$/p' "$OUT" | awk 'NF && !/commands:/ {print $1}')
[ -n "$cmds" ] && pass "usage lists commands" || fail "usage lists commands"
for c in $cmds; do
    expect_ok "dglpart $c --help" "$DGLPART" "$c" --help
    expect_stdout "^usage: dglpart $c" "dglpart $c --help prints its usage"
    # every command ends through dp_cmd_done, which checks stdout
    if [ -w /dev/full ]; then
        expect_fail 1 "dglpart $c --help >/dev/full" \
            sh -c '"$0" "$1" --help >/dev/full' "$DGLPART" "$c"
        expect_stderr "^dglpart $c: cannot write to stdout" \
            "dglpart $c: a failed write to stdout is reported"
    fi
done
expect_fail 2 "no arguments is misuse" "$DGLPART"
expect_stderr '^usage: dglpart' "usage on stderr when misused"
expect_fail 2 "unknown command is misuse" "$DGLPART" frobnicate
expect_stderr "'frobnicate' is not a command" "unknown command named"
expect_ok "--version" "$DGLPART" --version
expect_stdout '^dglpart [0-9]' "version printed"
# -v and -vv (or -v -v) before the command set how much goes to stderr
expect_ok "-vv before a command" "$DGLPART" -vv datasets
expect_ok "-v -v before a command" "$DGLPART" -v -v datasets
expect_fail 2 "-vx is no verbosity flag" "$DGLPART" -vx datasets
expect_stderr "^dglpart: bad option '-v'" "the letter is named"
# libcurl and libarchive are loaded by the commands that use them, so the
# others (partition, serve, sample) start without them
libs=$(LD_TRACE_LOADED_OBJECTS=1 "$DGLPART" 2>&1)
case "$libs" in
*libmetis*) case "$libs" in
    *libcurl* | *libarchive*) fail "dglpart links libcurl or libarchive" ;;
    *) pass "dglpart links neither libcurl nor libarchive" ;;
    esac ;;
*) fail "no library list from the loader: $libs" ;;
esac
finish
