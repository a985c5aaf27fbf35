#!/bin/sh
# Common mistakes (an unknown or misspelt flag, a flag missing its value, a
# missing argument) give exit 2 and first a one-line message naming the
# mistake, then the usage.
. "$(dirname "$0")/lib.sh"

first_line() {
    line=$(head -n 1 "$ERR")
    case "$line" in
        "$1") pass "$2: '$line'" ;;
        *) fail "$2: first stderr line '$line', expected '$1'" ;;
    esac
}

# every command of the top-level usage, so a new one cannot escape this
"$DGLPART" --help >"$TMP/help"
cmds=$(sed -n '/^commands:/,/^$/p' "$TMP/help" | awk 'NF && !/commands:/ {print $1}')
[ "$(echo $cmds | wc -w)" -ge 11 ] && pass "commands listed by --help" ||
    fail "commands listed by --help: $cmds"
for c in $cmds; do
    expect_fail 2 "$c: unknown flag" "$DGLPART" "$c" --bogus
    first_line "dglpart $c: bad option '--bogus'" "$c names the flag"
    expect_stderr "^usage: dglpart $c" "$c usage follows"
done
# a bad number: the message names it, and the usage follows, everywhere
for a in "serve --num_servers x" "sample --epochs x" "verify c.json --max_lines x" \
    "pack --part x" "convert in --out o --num_nodes x" "partition d --num_parts x"; do
    c=${a%% *}
    # shellcheck disable=SC2086
    expect_fail 2 "$c: bad number" "$DGLPART" $a
    expect_stderr "^dglpart $c: --[a-z_]+: expected an integer, got 'x'" \
        "$c: the bad number named"
    expect_stderr "^usage: dglpart $c" "$c: usage after a bad number"
done
expect_fail 2 "flag without its value" "$DGLPART" partition --num_parts
first_line "dglpart partition: '--num_parts' needs a value" "missing value"
expect_fail 2 "no-value flag given one" "$DGLPART" partition d --overwrite=1
first_line "dglpart partition: '--overwrite=1' takes no value" "extra value"
expect_fail 2 "download without NAME" "$DGLPART" download
first_line "dglpart download: expected one NAME or URL" "download: missing NAME"
expect_fail 2 "download: bad --retries" "$DGLPART" download x --retries z
first_line "dglpart download: --retries: expected an integer, got 'z'" \
    "download: bad number named"
expect_fail 2 "verify without CONFIG" "$DGLPART" verify
first_line "dglpart verify: expected one CONFIG.json" "verify: missing CONFIG"
expect_fail 2 "pack without --part" "$DGLPART" pack --part_config x.json
first_line "dglpart pack: --part_config and --part are required" "pack: missing"
expect_fail 2 "copy without options" "$DGLPART" copy
first_line "dglpart copy: --part_config, --ip_config, --workspace and --rel_data_path are required" "copy: missing"
expect_fail 2 "pipeline: misspelt flag" "$DGLPART" --num-parts 4
first_line "dglpart: bad option '--num-parts'" "pipeline names the flag"
expect_fail 2 "pipeline: bad number" "$DGLPART" --num_parts 0
first_line "dglpart: --num_parts: 0 out of range [1, 1048576]" "pipeline: range"
expect_fail 1 "pipeline: missing dataset folder" "$DGLPART" --num_parts 2 \
    --dataset "$TMP/nope" --cache "$TMP/c" --output "$TMP/d"
first_line "dglpart: dataset '$TMP/nope' not found" "pipeline: dataset named"
finish
