#!/bin/sh
# Stopping dglpart launch from outside: Ctrl-C (SIGINT) and SIGTERM are
# forwarded to every remote process, which get the grace period and are
# then killed (even those ignoring the signal or in a session of their
# own); SIGKILL of the launcher closes the ssh connections and the remote
# wrappers clean up by themselves. Each time: no process left, ports free.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"
. "$(dirname "$0")/launch_lib.sh"

lt_setup 2 metis2-hops2
at_exit lt_kill_recorded

# start_job EXTRA [GRACE]: a job of 2 servers and 4 trainers that would
# run 300 s, each with a child in its group and one that left for its own
# session; EXTRA are envprobe options.
start_job() {
    lt_launch_bg --num_trainers 2 --num_servers 1 --grace "${2:-0.5}" \
        "$PROBE --dgl-bind --trainer-port $((LT_PORT + 100)) --sleep 300 --children 1 --escape $1"
    if lt_wait_up "$OUT" 6; then pass "job up ($1)"; else fail "job up ($1)"; fi
}

# end_job SIGNAL WANT [SECONDS]: signal the launcher, wait for it (60 s at
# most), check its status.
end_job() {
    kill -s "$1" "$LPID"
    lt_wait_launcher "${3:-60}" "SIG$1: the launcher returned in time"
    expect_eq "$RC" "$2" "launcher exits $2 after SIG$1"
}

# With a grace of 60 s, an end within 30 s shows SIGINT itself reached the
# job.
start_job "" 60
end_job INT 130 30
expect_stderr "got SIGINT, stopping the job" "Ctrl-C is reported"
expect_stderr "^dglpart launch: interrupted by SIGINT; job stopped$" "and the job is stopped"
lt_check_clean "after Ctrl-C"

start_job "--ignore-term"
end_job TERM 143
lt_check_clean "after SIGTERM to processes that ignore it"

start_job "--ignore-term" 60
kill -s INT "$LPID"
# the second Ctrl-C only once the first was taken: two sent back to back
# can merge into one pending signal on a loaded machine
wait_until 60 grep -q "got SIGINT" "$ERR"
end_job INT 130 30
expect_stderr "killing the job" "a second Ctrl-C kills at once"
lt_check_clean "after two Ctrl-C"

start_job ""
end_job HUP 129
lt_check_clean "after SIGHUP"

start_job "--ignore-term"
end_job KILL 137
lt_check_clean "after SIGKILL of the launcher"
finish
