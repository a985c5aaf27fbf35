#!/bin/sh
# dglpart launch without hosts: option checks (misuse exits 2), config
# errors (exit 1 naming the file), and --standalone, which runs the
# command here once with DGL_DIST_MODE=standalone on a 1-part set.
. "$(dirname "$0")/lib.sh"

PROBE="$HELPERS/envprobe"
ws="$TMP/ws"
mkdir -p "$ws/data1" "$ws/data4" "$TMP/rec"
cp "$SHARED/fixtures/dgl-cora/one-part/cora.json" "$ws/data1/"
cp "$SHARED/fixtures/dgl-cora/metis4-train-edges/cora.json" "$ws/data4/"
printf '127.0.5.2\n127.0.5.3 30060\n# a comment\n\n' >"$ws/ip2.txt"
L="launch --workspace $ws --ip_config ip2.txt --num_trainers 1 --num_servers 1"

expect_ok "--help" "$DGLPART" launch --help
expect_stdout "^usage: dglpart launch" "usage on stdout"
expect_stdout "--keep_alive" "usage lists --keep_alive"
expect_fail 2 "no command" "$DGLPART" $L --part_config data4/cora.json
expect_stderr "missing the COMMAND" "missing command named"
expect_fail 2 "unquoted command" "$DGLPART" $L --part_config data4/cora.json python3 train.py
expect_stderr "one quoted argument" "asks for one quoted command"
expect_fail 2 "no workspace" "$DGLPART" launch --ip_config x --part_config y \
    --num_trainers 1 --num_servers 1 "true"
expect_fail 2 "no --num_servers" "$DGLPART" launch --workspace "$ws" \
    --ip_config ip2.txt --part_config data4/cora.json --num_trainers 1 "true"
expect_fail 2 "zero trainers" "$DGLPART" $L --num_trainers 0 --part_config data4/cora.json "true"
expect_stderr "num_trainers" "bad number named"
expect_fail 2 "bad graph format" "$DGLPART" $L --graph_format csx --part_config data4/cora.json "true"
expect_stderr "graph_format 'csx'" "bad format named"
expect_fail 2 "bad extra env" "$DGLPART" $L --extra_envs "1X=2" --part_config data4/cora.json "true"
expect_stderr "'1X=2' is not NAME=VALUE" "bad extra env named"
expect_fail 2 "--keep_alive without --server_name" "$DGLPART" $L --keep_alive \
    --part_config data4/cora.json "true"
expect_fail 2 "bad --grace" "$DGLPART" $L --grace -1 --part_config data4/cora.json "true"

expect_fail 1 "parts and hosts differ" "$DGLPART" $L --part_config data4/cora.json "true"
expect_stderr "'$ws/data4/cora.json' has 4 parts but '$ws/ip2.txt' lists 2 hosts" \
    "the mismatch names both files"
expect_fail 1 "missing ip_config" "$DGLPART" launch --workspace "$ws" --ip_config nope.txt \
    --part_config data4/cora.json --num_trainers 1 --num_servers 1 "true"
expect_stderr "nope.txt" "missing file named"
printf '127.0.5.2 1 2\n' >"$ws/ip_bad.txt"
expect_fail 1 "bad ip_config line" "$DGLPART" launch --workspace "$ws" --ip_config ip_bad.txt \
    --part_config data4/cora.json --num_trainers 1 --num_servers 1 "true"
expect_stderr "ip_bad.txt' line 1" "bad line named"
printf '{"num_parts": "two"}' >"$ws/bad.json"
expect_fail 1 "config without num_parts" "$DGLPART" $L --part_config bad.json "true"
expect_stderr "bad.json': " "bad config named"
expect_fail 1 "--stop of an unknown group" "$DGLPART" launch --stop nothing \
    --state_dir "$TMP/state"
expect_stderr "no servers named 'nothing' are running" "unknown group named"
expect_fail 1 "--stop with a bad name" "$DGLPART" launch --stop "../x" --state_dir "$TMP/state"

# ---- standalone
expect_fail 1 "standalone needs a 1-part set" "$DGLPART" launch --standalone \
    --workspace "$ws" --part_config data4/cora.json "true"
expect_stderr "has 4 parts; standalone mode needs a 1-part set" "and says so"
expect_ok "standalone run" "$DGLPART" launch --standalone --workspace "$ws" \
    --part_config data1/cora.json --num_omp_threads 3 --extra_envs "GREETING=hello \$HOME" \
    --log_dir "$TMP/slogs" "$PROBE --record $TMP/rec --sleep 0.1 extra-arg"
f=$(ls "$TMP/rec"/none-x-*.txt)
expect_eq "$(grep -E '^env (DGL_|OMP_)' "$f" | tr '\n' ' ')" \
    "env DGL_CONF_PATH=data1/cora.json env DGL_DIST_MODE=standalone env OMP_NUM_THREADS=3 " \
    "standalone environment"
expect_eq "$(sed -n 's/^cwd //p' "$f")" "$(cd "$ws" && pwd -P)" "runs in the workspace"
expect_eq "$(sed -n 's/^env GREETING=//p' "$f")" "hello $HOME" "extra env expanded"
expect_eq "$(sed -n 's/^arg 5 //p' "$f")" "extra-arg" "arguments passed on"
expect_stdout "^\[local:trainer:0\] envprobe none x up$" "output prefixed"
expect_eq "$(cat "$TMP/slogs/local-trainer-0.log" | sort | tr '\n' '|')" \
    "envprobe none x on stderr|envprobe none x up|" "standalone log"
expect_fail 1 "standalone failure" "$DGLPART" launch --standalone --workspace "$ws" \
    --part_config data1/cora.json "echo partial; exit 4"
expect_stderr "trainer 0 on local: exit code 4" "failure code reported"
expect_fail 1 "standalone in a missing workspace" "$DGLPART" launch --standalone \
    --workspace "$TMP/nope" --part_config "$ws/data1/cora.json" "true"
expect_stderr "cannot enter the workspace" "missing workspace reported"
finish
