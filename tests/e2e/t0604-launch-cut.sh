#!/bin/sh
# The connection to a host is cut (its sshd session processes are killed)
# or the host dies (every process of it killed): the launcher reports the
# lost host and stops the job on the others, the wrappers on the cut host
# kill their jobs when their stdin closes, and nothing is left anywhere.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"
. "$(dirname "$0")/launch_lib.sh"

lt_setup 2 metis2-hops2
at_exit lt_kill_recorded
h1=$(host_ip 1)

# A job that would run 300 s: a launcher that ends within 60 s noticed.
start_job() {
    lt_launch_bg --num_trainers 2 --num_servers 1 \
        "$PROBE --dgl-bind --trainer-port $((LT_PORT + 100)) --sleep 300 --children 1 --escape --ignore-term"
    if lt_wait_up "$OUT" 6; then pass "job up"; else fail "job up"; fi
}

# ---- ssh connection cut: kill host 1's sshd session processes
start_job
lis=$(cat "$HOSTS_DIR/pid.1")
sessions=$(for p in $(host_pids 1); do
    [ "$p" != "$lis" ] && [ "$(cat /proc/$p/comm 2>/dev/null)" = sshd ] && echo "$p"
done)
[ -n "$sessions" ] && pass "host 1 has ssh sessions" || fail "host 1 has ssh sessions"
# shellcheck disable=SC2086
kill -9 $sessions
lt_wait_launcher 60 "the launcher noticed at once"
expect_eq "$RC" 1 "a cut connection fails the launch"
expect_stderr "on $h1: ssh failed or the connection was lost; stopping the job" \
    "the lost host is named"
lt_check_clean "after the ssh connection was cut"

# ---- host 1 dies
start_job
host_kill 1
lt_wait_launcher 60 "the launcher noticed at once"
expect_eq "$RC" 1 "a dead host fails the launch"
expect_stderr "on $h1: ssh failed or the connection was lost" "the dead host is named"
lt_check_clean "after host 1 died"
finish
