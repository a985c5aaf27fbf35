#!/bin/sh
# The simulated hosts of tests/e2e/hosts.sh: each host's sshd answers on its
# own loopback address with the test's keys, and hosts see different files at
# the same workspace path; host_kill takes one host down without the others.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"

ws="$TMP/ws"
hosts_start 2 "$ws"
rc=$?
if [ "$rc" = 77 ]; then
    echo "# skipped: simulated hosts need root and unshare"
    finish
fi
expect_eq "$rc" 0 "two hosts started"
expect_eq "$(host_ip 0) $(host_ip 1)" "127.0.0.2 127.0.0.3" "loopback addresses"
listen=$(ss -Hltn "( sport = :$HOSTS_PORT )" | awk '{print $4}' | sort | tr '\n' ' ')
expect_eq "$listen" "127.0.0.2:$HOSTS_PORT 127.0.0.3:$HOSTS_PORT " \
    "sshd listens on those addresses only"

expect_ok "write on host 0" host_exec 0 "echo zero >'$ws/f'"
expect_ok "write on host 1" host_exec 1 "echo one >'$ws/f'"
expect_missing "$ws/f" "the test's own view is untouched"
cmp_files "$(host_dir 0)/f" /dev/stdin "host 0's file lands in its folder" <<EOF
zero
EOF
expect_ok "ssh to host 0" host_ssh 0 "cat '$ws/f'"
expect_eq "$(cat "$OUT")" zero "host 0 sees its own file through ssh"
expect_ok "ssh to host 1" host_ssh 1 "cat '$ws/f'; echo \$SSH_CONNECTION"
expect_eq "$(head -n 1 "$OUT")" one "host 1 sees its own file at the same path"
expect_stdout "^127\.0\.0\.[0-9]+ [0-9]+ 127\.0\.0\.3 $HOSTS_PORT\$" \
    "the connection really went to 127.0.0.3"

# Only the test's key gets in, and ssh never prompts.
ssh-keygen -q -t ed25519 -N '' -f "$TMP/otherkey"
# A config without the test's key cannot log in.
grep -v IdentityFile "$HOSTS_CFG" >"$TMP/cfg2"
expect_fail 255 "a foreign key is refused" timeout 20 ssh -F "$TMP/cfg2" \
    -o IdentityFile="$TMP/otherkey" "$(host_ip 0)" true

# Shared memory is each host's own, as on real machines.
tag="dglpart-shm-test-$$"
expect_ok "host 0 writes to /dev/shm" host_ssh 0 "echo zero >/dev/shm/$tag"
expect_ok "host 0 reads it back" host_ssh 0 "cat /dev/shm/$tag"
expect_eq "$(cat "$OUT")" zero "host 0 sees its own shared memory"
expect_fail 1 "host 1 does not see it" host_ssh 1 "test -e /dev/shm/$tag"
expect_missing "/dev/shm/$tag" "nor does the machine the test runs on"

# A long session dies with its host; the other host keeps working. The
# session would last 300 s: ending within 60 s, it ended with the host
# (ssh itself, as host_ssh would stop it after 60 s).
ssh -F "$HOSTS_CFG" "$(host_ip 1)" "echo up; exec sleep 300" >"$TMP/session" 2>&1 &
sshpid=$!
wait_until 60 grep -q '^up$' "$TMP/session"
pids=$(host_pids 1 | wc -l)
[ "$pids" -ge 2 ] && pass "host 1 runs sshd and a session ($pids processes)" ||
    fail "host 1 runs sshd and a session ($pids processes)"
host_kill 1
if wait_exit "$sshpid" 60; then
    pass "killing host 1 ends its session"
else
    fail "killing host 1 ends its session (still running after 60 s)"
fi
expect_fail 255 "host 1 is down" host_ssh 1 true
expect_ok "host 0 is still up" host_ssh 0 true
expect_ok "host_exec works while host 1 is down" host_exec 1 "cat '$ws/f'"
expect_eq "$(cat "$OUT")" one "host 1's files survive"
expect_ok "host 1 restarts" host_start 1
expect_ok "ssh to the restarted host 1" host_ssh 1 "cat '$ws/f'"
expect_eq "$(cat "$OUT")" one "restarted host 1 has its view again"

pid0=$(cat "$HOSTS_DIR/pid.0")
hosts_stop
kill -0 "$pid0" 2>/dev/null && fail "hosts_stop ends sshd" || pass "hosts_stop ends sshd"
expect_missing "$HOSTS_DIR/client_key" "client key removed"
listen=$(ss -Hltn "( sport = :$HOSTS_PORT )" | wc -l)
expect_eq "$listen" 0 "nothing listens any more"
finish
