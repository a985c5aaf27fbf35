# Simulated hosts for the copy and launch tests (sourced after lib.sh).
# Each host is a Debian sshd listening on its own loopback address
# (host 0 on 127.0.0.2, host 1 on 127.0.0.3, ...; all of 127/8 is loopback)
# and running in its own mount namespace, where a per-host folder is
# bind-mounted over the workspace path: every host sees its own files at the
# same path, and its own tmpfs at /dev/shm. Keys are made by the test; only 127.0.0.0/8 is ever used.
#
#   hosts_start N WS   start hosts 0..N-1 with their own view of folder WS
#                      (created if missing; must not be under a host folder)
#   host_ip I          host I's address
#   host_dir I         the folder host I sees as WS (in the test's view)
#   host_exec I CMD    run sh -c CMD with host I's view of the files
#   host_ssh I CMD     run CMD on host I through ssh (like copy/launch do)
#   host_kill I        kill -9 every process of host I (sshd and its sessions)
#   host_start I       (re)start host I after host_kill
#   host_start_tmpfs I SIZE  restart host I with a SIZE tmpfs (e.g. 1m) as
#                      its workspace instead of its folder: a full disk
#   hosts_stop         stop everything (registered with at_exit)
#
# After hosts_start: HOSTS_N, HOSTS_PORT (sshd port on every address),
# HOSTS_CFG (client config: `ssh -F "$HOSTS_CFG" IP` or dglpart's
# --ssh_opts "-F $HOSTS_CFG"), HOSTS_IPCONFIG (an ip_config.txt listing the
# hosts), HOSTS_USER, HOSTS_WS. Needs root (mount namespaces); hosts_start
# returns 77 otherwise, so a test can skip.
# Addresses are $HOSTS_NET.(I+2); set HOSTS_NET (e.g. 127.0.9) before
# hosts_start to keep clear of another test's servers.

HOSTS_NET=${HOSTS_NET:-127.0.0}
HOSTS_N=0
HOSTS_DIR="$TMP/hosts"
HOSTS_SSHD=${HOSTS_SSHD:-/usr/sbin/sshd}
HOSTS_OWN_NS=$(readlink /proc/self/ns/mnt)

host_ip() { echo "$HOSTS_NET.$(($1 + 2))"; }
host_dir() { echo "$HOSTS_DIR/h$1"; }

# A random port, with the 102 above it, that no socket uses. It is drawn
# below the kernel's ephemeral range: a port from that range can be taken
# at any moment by an outgoing connection (ssh, gloo, another test), and a
# server binding the wildcard address then fails with "address in use".
hosts_pick_port() {
    _hp_lo=10000
    _hp_hi=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
    _hp_hi=$((${_hp_hi:-32768} - 103))
    if [ "$_hp_hi" -le "$_hp_lo" ]; then
        # an ephemeral range that starts low: draw above it instead
        _hp_lo=$(($(cut -f2 /proc/sys/net/ipv4/ip_local_port_range) + 1))
        _hp_hi=65432
    fi
    for _hp_try in 1 2 3 4 5 6 7 8 9 10; do
        _hp=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
        _hp=$((_hp_lo + _hp % (_hp_hi - _hp_lo)))
        if ! ss -Hatn "( sport >= :$_hp and sport <= :$((_hp + 102)) )"             2>/dev/null | grep -q .; then
            echo "$_hp"
            return 0
        fi
    done
    return 1
}

hosts_write_sshd_config() {
    _i=$1
    cat >"$HOSTS_DIR/sshd_config.$_i" <<EOF
ListenAddress $(host_ip "$_i"):$HOSTS_PORT
HostKey $HOSTS_DIR/hostkey.$_i
PidFile none
AuthorizedKeysFile $HOSTS_DIR/authorized_keys
AllowUsers $HOSTS_USER
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
X11Forwarding no
AllowTcpForwarding no
PermitTunnel no
PrintMotd no
MaxStartups 64
Subsystem sftp internal-sftp
MaxSessions 64
LogLevel ERROR
EOF
}

# Start host I's sshd in a fresh mount namespace; waits until it answers.
host_start() {
    _i=$1
    # Never two sshds for one host: stop what runs first.
    host_kill "$_i"
    _ip=$(host_ip "$_i")
    [ -d "$(host_dir "$_i")" ] || mkdir -p "$(host_dir "$_i")"
    if [ -n "${2:-}" ]; then
        _mnt="mount -t tmpfs -o size=$2 dglpart-test \"\$2\""
    else
        _mnt='mount --bind "$1" "$2"'
    fi
    # Sessions get an empty ~/.bashrc: the machine's may run slow tools
    # (pyenv rehash takes a lock that a killed host would leave behind).
    # Each host has its own /dev/shm, as machines do: what one host puts in
    # shared memory no other host sees.
    unshare --mount --propagation private sh -c \
        "$_mnt"' && mount -t tmpfs -o size=512m,mode=1777 dglpart-shm /dev/shm &&
        { [ ! -f "$5" ] || mount --bind /dev/null "$5"; } &&
        cd / && exec "$3" -D -e -f "$4"' sh \
        "$(host_dir "$_i")" "$HOSTS_WS" "$HOSTS_SSHD" \
        "$HOSTS_DIR/sshd_config.$_i" "$HOSTS_HOME/.bashrc" </dev/null \
        >>"$HOSTS_DIR/sshd.$_i.log" 2>&1 &
    echo $! >"$HOSTS_DIR/pid.$_i"
    # Up to 60 s for the listener (the machine may be busy); an sshd that
    # exits has failed to bind.
    _end=$(($(date +%s) + 60))
    while [ "$(date +%s)" -lt "$_end" ]; do
        kill -0 "$(cat "$HOSTS_DIR/pid.$_i")" 2>/dev/null || return 1
        # The namespace of the sshd itself, to find its sessions later;
        # only once unshare has left ours (it starts in it).
        _ns=$(readlink "/proc/$(cat "$HOSTS_DIR/pid.$_i")/ns/mnt" 2>/dev/null)
        if [ -n "$_ns" ] && [ "$_ns" != "$HOSTS_OWN_NS" ] &&
            ss -Hltn "( sport = :$HOSTS_PORT )" 2>/dev/null |
            grep -q "$_ip:$HOSTS_PORT "; then
            echo "$_ns" >"$HOSTS_DIR/ns.$_i"
            return 0
        fi
        sleep 0.1
    done
    return 1
}

hosts_start() {
    _n=$1
    HOSTS_WS=$2
    [ "$(id -u)" = 0 ] || return 77
    command -v unshare >/dev/null && [ -x "$HOSTS_SSHD" ] || return 77
    mkdir -p "$HOSTS_DIR" "$HOSTS_WS" || return 1
    HOSTS_WS=$(cd "$HOSTS_WS" && pwd -P)
    HOSTS_USER=$(id -un)
    HOSTS_HOME=$(getent passwd "$HOSTS_USER" | cut -d: -f6)
    HOSTS_CFG="$HOSTS_DIR/ssh_config"
    HOSTS_IPCONFIG="$HOSTS_DIR/ip_config.txt"
    at_exit hosts_stop
    # sshd insists on its privilege separation folder.
    [ -d /run/sshd ] || mkdir -p -m 755 /run/sshd
    rm -f "$HOSTS_DIR/client_key" "$HOSTS_DIR/client_key.pub"
    timeout 20 ssh-keygen -q -t ed25519 -N '' -C dglpart-test \
        -f "$HOSTS_DIR/client_key" || return 1
    cp "$HOSTS_DIR/client_key.pub" "$HOSTS_DIR/authorized_keys"
    : >"$HOSTS_DIR/known_hosts"
    : >"$HOSTS_IPCONFIG"
    _i=0
    while [ "$_i" -lt "$_n" ]; do
        rm -f "$HOSTS_DIR/hostkey.$_i" "$HOSTS_DIR/hostkey.$_i.pub"
        timeout 20 ssh-keygen -q -t ed25519 -N '' -C "host$_i" \
            -f "$HOSTS_DIR/hostkey.$_i" || return 1
        host_ip "$_i" >>"$HOSTS_IPCONFIG"
        _i=$((_i + 1))
    done
    HOSTS_N=$_n
    for _attempt in 1 2 3 4 5; do
        HOSTS_PORT=$(hosts_pick_port) || return 1
        : >"$HOSTS_DIR/known_hosts"
        _i=0
        _ok=1
        while [ "$_i" -lt "$_n" ]; do
            hosts_write_sshd_config "$_i"
            printf '[%s]:%s %s\n' "$(host_ip "$_i")" "$HOSTS_PORT" \
                "$(cut -d' ' -f1-2 "$HOSTS_DIR/hostkey.$_i.pub")" \
                >>"$HOSTS_DIR/known_hosts"
            host_start "$_i" || { _ok=0; break; }
            _i=$((_i + 1))
        done
        [ "$_ok" = 1 ] && break
        # Lost a race for the port: stop what started and pick another.
        _j=0
        while [ "$_j" -le "$_i" ]; do
            host_kill "$_j"
            _j=$((_j + 1))
        done
    done
    [ "$_ok" = 1 ] || return 1
    cat >"$HOSTS_CFG" <<EOF
Host $HOSTS_NET.*
    Port $HOSTS_PORT
    User $HOSTS_USER
    IdentityFile $HOSTS_DIR/client_key
    IdentitiesOnly yes
    UserKnownHostsFile $HOSTS_DIR/known_hosts
    GlobalKnownHostsFile /dev/null
    StrictHostKeyChecking yes
    BatchMode yes
    ConnectTimeout 5
    LogLevel ERROR
EOF
    return 0
}

host_start_tmpfs() {
    host_kill "$1"
    host_start "$1" "$2"
}

# Pids of every process in host I's mount namespace.
host_pids() {
    [ -s "$HOSTS_DIR/ns.$1" ] || return 0
    _ns=$(cat "$HOSTS_DIR/ns.$1")
    # Guard: the test's own namespace holds every other process.
    [ -n "$_ns" ] && [ -n "$HOSTS_OWN_NS" ] && [ "$_ns" != "$HOSTS_OWN_NS" ] ||
        return 0
    # One ls for all processes: "... /proc/PID/ns/mnt -> mnt:[N]".
    ls -l /proc/[0-9]*/ns/mnt 2>/dev/null | awk -v ns="$_ns" \
        '$NF == ns { split($(NF - 2), a, "/"); print a[3] }'
    return 0
}

# A host dies as a machine does: its sshd processes first, so its
# connections drop before its jobs die (a job killed first could still
# report its death through a live session). Then every process left,
# again until none is (a process may fork between listing and killing),
# for up to 30 s.
host_kill() {
    [ -f "$HOSTS_DIR/pid.$1" ] || return 0
    _pids="$(cat "$HOSTS_DIR/pid.$1") $(host_pids "$1")"
    _sshd=""
    for _p in $_pids; do
        [ "$(cat "/proc/$_p/comm" 2>/dev/null)" = sshd ] && _sshd="$_sshd $_p"
    done
    # shellcheck disable=SC2086
    kill -9 $_sshd 2>/dev/null
    _end=$(($(date +%s) + 30))
    while :; do
        # shellcheck disable=SC2086
        kill -9 $_pids 2>/dev/null
        _alive=""
        for _p in $_pids; do
            ended "$_p" || _alive="$_alive $_p"
        done
        _pids="$_alive $(host_pids "$1")"
        [ -z "$(echo $_pids)" ] || [ "$(date +%s)" -ge "$_end" ] && break
        sleep 0.1
    done
    rm -f "$HOSTS_DIR/pid.$1" "$HOSTS_DIR/ns.$1"
    return 0
}

host_exec() {
    _i=$1
    shift
    _pid=$(cat "$HOSTS_DIR/pid.$_i" 2>/dev/null)
    if [ -n "$_pid" ] && kill -0 "$_pid" 2>/dev/null; then
        timeout 60 nsenter -t "$_pid" -m -- sh -c "cd / && $*"
    else
        # Host is down: the same view in a short-lived namespace.
        timeout 60 unshare --mount --propagation private sh -c \
            'mount --bind "$1" "$2" && cd / && sh -c "$3"' sh \
            "$(host_dir "$_i")" "$HOSTS_WS" "$*"
    fi
}

host_ssh() {
    _i=$1
    shift
    timeout 60 ssh -F "$HOSTS_CFG" "$(host_ip "$_i")" "$@"
}

hosts_stop() {
    _i=0
    while [ "$_i" -lt "$HOSTS_N" ]; do
        host_kill "$_i"
        _i=$((_i + 1))
    done
    rm -f "$HOSTS_DIR"/client_key* "$HOSTS_DIR"/hostkey.* \
        "$HOSTS_DIR/authorized_keys"
    HOSTS_N=0
}
