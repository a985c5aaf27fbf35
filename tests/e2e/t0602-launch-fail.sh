#!/bin/sh
# dglpart launch exits 0 only when every trainer did: a failing trainer, a
# failing server or an unreachable host is reported with its host, role,
# rank and code, the rest of the job is stopped, and nothing is left.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"
. "$(dirname "$0")/launch_lib.sh"

lt_setup 2 metis2-hops2
at_exit lt_kill_recorded
h1=$(host_ip 1)

# ---- trainer 3 fails while the others would run for 300 s
lt_launch_bg --num_trainers 2 --num_servers 1 \
    "$PROBE --record $LT_REC --dgl-bind --trainer-port $((LT_PORT + 100)) --sleep 300 --fail-rank 3 --fail-code 7"
lt_wait_launcher 60 "the other trainers were stopped, not waited for"
expect_eq "$RC" 1 "a failing trainer fails the launch"
expect_stderr "trainer 3 on $h1: exit code 7; stopping the job" "the failure is named at once"
expect_stderr "^dglpart launch: job failed: trainer 3 on $h1: exit code 7$" "and as the error"
expect_eq "$(grep -c 'stopping the job' "$ERR")" 1 "only the first failure is reported"
lt_check_clean "after a failing trainer"

# ---- a server fails while the trainers run
expect_fail 1 "a failing server fails the launch" \
    lt_launch --num_trainers 1 --num_servers 2 \
    "[ \"\$DGL_SERVER_ID\" = 2 ] && exit 5; exec $PROBE --record $LT_REC --dgl-bind --sleep 30"
expect_stderr "job failed: server 2 on $h1: exit code 5" "the failing server is named"
lt_check_clean "after a failing server"

# ---- a command that does not exist
expect_fail 1 "a missing program fails the launch" \
    lt_launch --num_trainers 1 --num_servers 1 "./no-such-trainer --x"
expect_stderr "exit code 127" "its exit code is passed on"
expect_stderr "no-such-trainer" "the shell's message comes back prefixed"

# ---- a host without sshd: ssh fails, the job on host 0 is stopped
awk -v p="$LT_PORT" 'NR == 1 { print $1, p } END { print "127.0.6.99", p }' \
    "$WS/ip_config.txt" >"$WS/ip_bad.txt"
cp "$WS/ip_bad.txt" "$(host_dir 0)/"
expect_fail 1 "an unreachable host fails the launch" \
    "$DGLPART" launch --workspace "$WS" --ip_config ip_bad.txt \
    --part_config data/cora.json --ssh_opts "-F $HOSTS_CFG -o ConnectTimeout=3" \
    --grace 0.5 --num_trainers 1 --num_servers 1 "$PROBE --dgl-bind --sleep 30"
expect_stderr "on 127\.0\.6\.99: ssh failed or the connection was lost before the process started" \
    "the unreachable host is named"
lt_check_clean "after an unreachable host"
finish
