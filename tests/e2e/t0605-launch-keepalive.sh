#!/bin/sh
# Kept-alive servers (--keep_alive --server_name): the servers outlive the
# first launch, a later launch with the name attaches its trainers to them
# with the next DGL_GROUP_ID, --stop ends them; a killed keeper takes its
# servers with it. Nothing is left behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"
. "$(dirname "$0")/launch_lib.sh"

lt_setup 2 metis2-hops2
at_exit lt_kill_recorded
state="$TMP/state"
at_exit "$DGLPART launch --stop grp --state_dir $state >/dev/null 2>&1"
# trainers wait for both servers' records, as DGL's wait for the servers
cmd="$PROBE --record $LT_REC --dgl-bind --await 2 --sleep 0.2"
server_ports="$(host_ip 0):$LT_PORT $(host_ip 1):$LT_PORT"

expect_ok "first launch starts kept-alive servers" \
    lt_launch --keep_alive --server_name grp --state_dir "$state" \
    --num_trainers 1 --num_servers 1 "$cmd"
expect_stderr "servers 'grp' stay up \(log: $state/grp\.log\)" "says where the servers log"
expect_eq "$(grep -h '^env DGL_KEEP_ALIVE=' "$LT_REC"/server-*.txt | sort -u)" \
    "env DGL_KEEP_ALIVE=1" "servers get DGL_KEEP_ALIVE=1"
expect_eq "$(grep -h '^env DGL_GROUP_ID=' "$LT_REC"/trainer-*.txt | sort -u)" \
    "env DGL_GROUP_ID=0" "first trainers are group 0"
# the probe exits 1 when a port is taken (2 is its misuse) and names each
# shellcheck disable=SC2086
expect_fail 1 "servers still listen after the launch" \
    "$PROBE" --check-free $server_ports
expect_eq "$(sort "$OUT" | tr '\n' ' ')" \
    "$(for p in $server_ports; do echo "busy $p"; done | sort | tr '\n' ' ')" \
    "both server ports are taken"
expect_ok "state file written" test -f "$state/grp.state"

rm -f "$LT_REC"/trainer-*
expect_ok "second launch attaches to them" \
    lt_launch --server_name grp --state_dir "$state" \
    --num_trainers 2 --num_servers 1 "$cmd"
expect_stderr "using the servers of 'grp' \(group 1\)" "second launch uses group 1"
expect_eq "$(grep -h '^env DGL_GROUP_ID=' "$LT_REC"/trainer-*.txt | sort -u)" \
    "env DGL_GROUP_ID=1" "its trainers are group 1"
expect_eq "$(ls "$LT_REC"/trainer-* | wc -l)" 4 "its 4 trainers ran"
expect_eq "$(ls "$LT_REC"/server-* | wc -l)" 2 "no new servers were started"

rm -f "$LT_REC"/trainer-*
expect_ok "third launch, --keep_alive again" \
    lt_launch --keep_alive --server_name grp --state_dir "$state" \
    --num_trainers 1 --num_servers 1 "$cmd"
expect_eq "$(grep -h '^env DGL_GROUP_ID=' "$LT_REC"/trainer-*.txt | sort -u)" \
    "env DGL_GROUP_ID=2" "third trainers are group 2"
expect_fail 1 "a launch with other settings is refused" \
    lt_launch --server_name grp --state_dir "$state" \
    --num_trainers 1 --num_servers 2 "$cmd"
expect_stderr "servers 'grp' run on .* with --num_servers 1" "the mismatch is explained"

expect_ok "--stop stops them" "$DGLPART" launch --stop grp --state_dir "$state"
expect_stderr "stopped servers 'grp'" "--stop says so"
expect_missing "$state/grp.state" "state removed"
lt_check_clean "after --stop"
expect_fail 1 "--stop of a stopped group fails" \
    "$DGLPART" launch --stop grp --state_dir "$state"
expect_stderr "no servers named 'grp' are running" "and says why"

# ---- the keeper is killed: its servers go with it, the name is free again
rm -f "$LT_REC"/*
expect_ok "servers kept alive again" \
    lt_launch --keep_alive --server_name grp --state_dir "$state" \
    --num_trainers 1 --num_servers 1 "$cmd"
keeper=$(sed -n 's/^pid //p' "$state/grp.state")
kill -9 "$keeper"
lt_check_clean "after the keeper was killed"
rm -f "$LT_REC"/*
expect_ok "the name can be used again" \
    lt_launch --keep_alive --server_name grp --state_dir "$state" \
    --num_trainers 1 --num_servers 1 "$cmd"
expect_eq "$(grep -h '^env DGL_GROUP_ID=' "$LT_REC"/trainer-*.txt | sort -u)" \
    "env DGL_GROUP_ID=0" "fresh servers start at group 0"
expect_eq "$(ls "$LT_REC"/server-* | wc -l)" 2 "fresh servers were started"
expect_ok "--stop again" "$DGLPART" launch --stop grp --state_dir "$state"
lt_check_clean "after the second --stop"
finish
