# Shared by the t06xx launch tests (sourced after lib.sh and hosts.sh):
# a workspace on the simulated hosts with an ip_config and a partition
# config, a launcher call with the test hosts' ssh settings, and checks
# that no process of a job is left on any host and every port is free.
#
#   lt_setup N FIXTURE   start N hosts; FIXTURE is a folder of
#                        $SHARED/fixtures/dgl-cora (its cora.json)
#   lt_launch ARGS...    dglpart launch with --workspace, --ip_config,
#                        --part_config, --ssh_opts and --grace 0.5
#   lt_launch_bg ARGS... the same in the background: $LPID, $OUT, $ERR
#   lt_wait_launcher SECONDS DESC   it ended within SECONDS; status in $RC
#   lt_wait_up FILE N    wait (60 s max) until FILE has N "up" lines
#   lt_check_clean DESC [WAIT]   no job process on any host (only sshd's
#                        listener left, zombies aside) within WAIT s (30),
#                        and every server and trainer port can be bound
# Bounds are generous: the tests must pass on a busy machine, and a
# check that passes returns as soon as it can.
# After lt_setup: WS, LT_PORT (server port base; trainers use +100..),
# LT_REC (envprobe records), PROBE (the envprobe path).

HOSTS_NET=127.0.6
PROBE="$HELPERS/envprobe"

lt_setup() {
    # The launcher's ssh control sockets go under $TMP too: a launcher
    # killed with -9 cannot remove its folder.
    TMPDIR="$TMP"
    export TMPDIR
    WS="$TMP/ws"
    LT_REC="$TMP/rec"
    mkdir -p "$LT_REC"
    hosts_start "$1" "$WS"
    _rc=$?
    if [ "$_rc" = 77 ]; then
        echo "# skipped: simulated hosts need root and unshare"
        finish
    fi
    [ "$_rc" = 0 ] || { fail "hosts started (rc $_rc)"; finish; }
    LT_PORT=$(hosts_pick_port)
    mkdir -p "$WS/data"
    awk -v p="$LT_PORT" '{ print $1, p }' "$HOSTS_IPCONFIG" >"$WS/ip_config.txt"
    cp "$SHARED/fixtures/dgl-cora/$2/cora.json" "$WS/data/cora.json"
    _i=0
    while [ "$_i" -lt "$1" ]; do
        mkdir -p "$(host_dir "$_i")/data"
        cp "$WS/ip_config.txt" "$(host_dir "$_i")/"
        cp "$WS/data/cora.json" "$(host_dir "$_i")/data/"
        _i=$((_i + 1))
    done
}

# Kill the probes recorded in $LT_REC that still run (by pid, after
# checking the pid is still a probe): a failed test leaves nothing behind.
lt_kill_recorded() {
    for _f in "$LT_REC"/*.txt; do
        [ -f "$_f" ] || continue
        _p=$(sed -n 's/^pid //p' "$_f")
        case "$(cat "/proc/$_p/cmdline" 2>/dev/null | tr '\0' ' ')" in
        "$PROBE"*) kill -9 "$_p" 2>/dev/null ;;
        esac
    done
    return 0
}

lt_launch() {
    $DGLPART launch --workspace "$WS" --ip_config ip_config.txt \
        --part_config data/cora.json --ssh_opts "-F $HOSTS_CFG" \
        --grace 0.5 "$@"
}

# lt_launch_bg ARGS...: the same in the background, $LPID its pid (the
# launcher itself, so signals reach it), output in $OUT and $ERR.
lt_launch_bg() {
    (exec $DGLPART launch --workspace "$WS" --ip_config ip_config.txt \
        --part_config data/cora.json --ssh_opts "-F $HOSTS_CFG" \
        --grace 0.5 "$@") >"$OUT" 2>"$ERR" &
    LPID=$!
}

# lt_wait_launcher SECONDS DESC: wait for the launcher started by
# lt_launch_bg to end, its status in $RC; DESC passes when it ended within
# SECONDS (else it is killed). Jobs that must be stopped run 300 s.
lt_wait_launcher() {
    if wait_exit "$LPID" "$1"; then
        pass "$2"
    else
        fail "$2 (still running after $1 s)"
    fi
}

lt_is_up() {
    _c=$(cat "$1" 2>/dev/null | grep -c ' up$')
    [ "${_c:-0}" -ge "$2" ]
}

lt_wait_up() { wait_until 60 lt_is_up "$1" "$2"; }

# Live processes of host I other than its sshd listener.
lt_leftovers() {
    _lis=$(cat "$HOSTS_DIR/pid.$1" 2>/dev/null)
    for _p in $(host_pids "$1"); do
        [ "$_p" = "$_lis" ] && continue
        _st=$(ps -o stat= -p "$_p" 2>/dev/null)
        case "$_st" in Z*|"") continue ;; esac
        ps -o pid=,stat=,args= -p "$_p" 2>/dev/null
    done
}

lt_check_clean() {
    _wait=${2:-30}
    _t=0
    while :; do
        _left=""
        _i=0
        while [ "$_i" -lt "$HOSTS_N" ]; do
            [ -f "$HOSTS_DIR/pid.$_i" ] && _left="$_left$(lt_leftovers "$_i")"
            _i=$((_i + 1))
        done
        [ -z "$_left" ] && break
        [ "$_t" -ge $((_wait * 10)) ] && break
        sleep 0.1
        _t=$((_t + 1))
    done
    if [ -z "$_left" ]; then
        pass "$1: no process left on any host"
    else
        fail "$1: processes left"
        printf '%s\n' "$_left" | sed 's/^/#   /' | head -n 20
    fi
    # Every port a server or trainer held binds again.
    _ports=""
    _i=0
    while [ "$_i" -lt "$HOSTS_N" ]; do
        _ip=$(host_ip "$_i")
        for _o in 0 1 2 100 101 102; do
            _ports="$_ports $_ip:$((LT_PORT + _o))"
        done
        _i=$((_i + 1))
    done
    # a socket outlives its process by a moment on a busy machine: wait for
    # the ports as for the processes, with the same bound
    _t=0
    while :; do
        # shellcheck disable=SC2086
        _busy=$("$PROBE" --check-free $_ports)
        _rc=$?
        [ "$_rc" = 0 ] || [ "$_t" -ge $((_wait * 10)) ] && break
        sleep 0.1
        _t=$((_t + 1))
    done
    if [ "$_rc" = 0 ]; then
        pass "$1: every port is free"
    else
        fail "$1: ports still bound: $(echo $_busy)"
    fi
}
