#!/bin/sh
# A graph server that hostile or careless clients cannot exhaust: big
# gathers never read stay within the reply budget, a client reading a byte
# now and then is dropped, 1100 idle connections do not lock a real client
# out, a low descriptor limit does not make it spin, and goodbyes count once
# per trainer id that said hello.
. "$(dirname "$0")/lib.sh"

F=$SHARED/fixtures/dgl-cora/one-part
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
spid=""
at_exit '[ -n "$spid" ] && kill -9 $spid 2>/dev/null'

# start_server NAME ARGS...: dglpart serve on a fresh port, pid in $spid
start_server() {
    name=$1; shift
    port=$(free_port)
    echo "127.0.0.1 $port" >"$TMP/ip.txt"
    "$DGLPART" -v serve --part_config "$F/cora.json" --ip_config "$TMP/ip.txt" \
        "$@" 2>"$TMP/$name.err" &
    spid=$!
    python3 - "$port" <<'EOF' || fail "$name: server never listened"
import socket, sys, time
for _ in range(1200):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit(1)
EOF
}
stop_server() { kill -9 "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; spid=""; }
rss_kb() { sed -n 's/^VmRSS:[^0-9]*\([0-9]*\).*/\1/p' "/proc/$1/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

cat >"$TMP/client.py" <<'EOF'
import socket, struct, sys, time
MAGIC, VER = 0x54525044, 2
HELLO, SAMPLE, GATHER, DEGREE, BYE = 1, 2, 3, 4, 5

def conn(port, timeout=10):
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)

def frame(t, rid, payload):
    return struct.pack("<IHHQQ", MAGIC, VER, t, rid, len(payload)) + payload

def ids(v):
    return struct.pack("<Q", len(v)) + b"".join(struct.pack("<q", x) for x in v)

def recv_exact(s, n):
    b = bytearray()
    while len(b) < n:
        c = s.recv(min(n - len(b), 1 << 20))
        if not c:
            return None
        b += c
    return bytes(b)

def reply(s):
    h = recv_exact(s, 24)
    if h is None:
        return None
    magic, ver, t, rid, n = struct.unpack("<IHHQQ", h)
    return t, rid, recv_exact(s, n)

def degree_ok(port):
    s = conn(port)
    s.sendall(frame(DEGREE, 5, ids([7])))
    r = reply(s)
    s.close()
    return r is not None and r[0] == DEGREE

def gather_all(n):
    # n copies of node 0's 1433 floats: 5.7 KB a row
    return frame(GATHER, 1, struct.pack("<BH", 0, 4) + b"feat" + ids([0] * n))
EOF

# 1. Eight clients each ask for a 1 GiB gather (187,324 copies of node 0)
# and never read: the server produces replies only as sockets drain, so
# its memory stays near the budget, and a real client is still served.
start_server budget --num_clients 1 --stall_timeout 30
rss0=$(rss_kb "$spid")
python3 - "$port" "$TMP/client.py" <<'EOF' >"$TMP/budget.out" 2>&1 &
import sys, time
exec(open(sys.argv[2]).read())
port = int(sys.argv[1])
held = []
for k in range(8):
    s = conn(port)
    s.sendall(gather_all(187324))
    held.append(s)
print("8 gathers sent", flush=True)
time.sleep(4)
print("real client served:", degree_ok(port))
sys.stdout.flush()
time.sleep(3)
EOF
hpid=$!
# the server's memory is sampled for 3 s once the gathers are in
wait_until 60 grep -q "8 gathers sent" "$TMP/budget.out"
peak=0
for i in 1 2 3 4 5 6; do
    r=$(rss_kb "$spid"); [ "${r:-0}" -gt "$peak" ] && peak=$r
    sleep 0.5
done
wait "$hpid"
grow=$(((peak - rss0) / 1024))
[ "$grow" -lt 320 ] && pass "8 unread 1 GiB gathers: server grew $grow MiB (budget 256)" ||
    fail "8 unread 1 GiB gathers: server grew $grow MiB (budget 256)"
grep -q "real client served: True" "$TMP/budget.out" &&
    pass "a real client is served meanwhile" || fail "a real client is served meanwhile"
kill -0 "$spid" 2>/dev/null && pass "server alive" || fail "server alive"
stop_server

# 2. A client that reads 8 KiB every 0.25 s of a 1 GiB reply moves bytes,
# so it never stalls, but drains under 64 KiB/s: dropped after a window.
start_server slow --num_clients 1 --stall_timeout 2
python3 - "$port" "$TMP/client.py" "$TMP/slow.err" <<'EOF' >"$TMP/slow.out" 2>&1
import sys, time
exec(open(sys.argv[2]).read())
port = int(sys.argv[1])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
s.settimeout(10)
s.connect(("127.0.0.1", port))
s.sendall(gather_all(187324))
t0 = time.time()
named = False
while time.time() - t0 < 20 and not named:
    try:
        s.recv(8192)
    except OSError:
        pass
    time.sleep(0.25)
    named = "reading its replies at under" in open(sys.argv[3]).read()
print("dropped after %.1f s: %s" % (time.time() - t0, named))
EOF
grep -q "dropped after .* s: True" "$TMP/slow.out" &&
    pass "slow reader dropped ($(cat "$TMP/slow.out"))" ||
    fail "slow reader dropped ($(cat "$TMP/slow.out"))"
grep -q "dropping a client reading its replies at under 65536 bytes/s" "$TMP/slow.err" &&
    pass "the slow reader is named in the log" || fail "the slow reader is named in the log"
grep -q "stalled mid-reply" "$TMP/slow.err" &&
    fail "the slow reader was not taken for a stalled one" ||
    pass "the slow reader was not taken for a stalled one"
stop_server

# 3. 1100 idle connections fill the table (1024 at most): the ones idle
# longest make room, so a real client still gets in.
start_server idle --num_clients 1
python3 - "$port" "$TMP/client.py" <<'EOF' >"$TMP/idle.out" 2>&1
import resource, sys, time
exec(open(sys.argv[2]).read())
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
port = int(sys.argv[1])
idle = []
for k in range(1100):
    idle.append(conn(port))
time.sleep(1)
t0 = time.time()
ok = degree_ok(port)
print("real client after 1100 idle: %s in %.2f s" % (ok, time.time() - t0))
EOF
grep -q "real client after 1100 idle: True" "$TMP/idle.out" &&
    pass "$(cat "$TMP/idle.out")" || fail "$(cat "$TMP/idle.out")"
stop_server

# 4. Under ulimit -n 64, 200 connections held open: no busy loop (CPU time
# over 3 s well under a second) and a real client still gets in.
port=$(free_port)
echo "127.0.0.1 $port" >"$TMP/ip.txt"
(ulimit -n 64; exec "$DGLPART" serve --part_config "$F/cora.json" \
    --ip_config "$TMP/ip.txt" --num_clients 1 2>"$TMP/fds.err") &
spid=$!
python3 - "$port" "$TMP/client.py" "$spid" <<'EOF' >"$TMP/fds.out" 2>&1
import sys, time
exec(open(sys.argv[2]).read())
port, pid = int(sys.argv[1]), sys.argv[3]
def ticks():
    f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])
for _ in range(1200):
    try:
        conn(port).close(); break
    except OSError:
        time.sleep(0.05)
held = []
for k in range(200):
    try:
        held.append(conn(port, timeout=2))
    except OSError:
        pass
t0 = ticks()
time.sleep(3)
used = (ticks() - t0) / 100.0
print("cpu %.2f s over 3 s; real client: %s" % (used, degree_ok(port)))
EOF
cpu=$(sed -n 's/^cpu \([0-9.]*\) s.*/\1/p' "$TMP/fds.out")
awk -v c="${cpu:-9}" 'BEGIN{exit !(c < 0.6)}' &&
    pass "ulimit -n 64: $(cat "$TMP/fds.out")" || fail "ulimit -n 64: $(cat "$TMP/fds.out")"
grep -q "real client: True" "$TMP/fds.out" && pass "ulimit -n 64: a real client gets in" ||
    fail "ulimit -n 64: a real client gets in"
stop_server

# 5. Goodbyes: without a hello, from a repeated id, or from an id past
# num_clients, they do not count; ids 0 and 1 end a server for 2 clients.
start_server bye --num_clients 2
python3 - "$port" "$TMP/client.py" <<'EOF' >"$TMP/bye.out" 2>&1
import sys, time
exec(open(sys.argv[2]).read())
port = int(sys.argv[1])
def bye(hello_id=None):
    s = conn(port)
    if hello_id is not None:
        s.sendall(frame(HELLO, 1, struct.pack("<II", VER, hello_id)))
        r = reply(s)
        assert r and r[0] == HELLO, r
    s.sendall(frame(BYE, 2, b""))
    r = reply(s)
    s.close()
    return r is not None and r[0] == BYE
good = all(bye() for _ in range(100))
good = good and all(bye(0) for _ in range(3)) and bye(7) and bye(0xffffffff)
print("stray goodbyes answered:", good)
print("served after them:", degree_ok(port))
EOF
grep -q "stray goodbyes answered: True" "$TMP/bye.out" && pass "105 stray goodbyes answered" ||
    fail "105 stray goodbyes answered ($(cat "$TMP/bye.out"))"
# a request answered after the goodbyes: the server did not take them as
# the end
grep -q "served after them: True" "$TMP/bye.out" &&
    pass "server still up after stray goodbyes" ||
    fail "server still up after stray goodbyes ($(cat "$TMP/bye.out"))"
python3 - "$port" "$TMP/client.py" <<'EOF'
import sys
exec(open(sys.argv[2]).read())
s = conn(int(sys.argv[1]))
s.sendall(frame(HELLO, 1, struct.pack("<II", VER, 1)) + frame(BYE, 2, b""))
reply(s); reply(s)
EOF
wait_exit "$spid" 60
expect_eq "$RC" 0 "trainer ids 0 and 1 end the server (exit 0)"
spid=""
expect_eq "$(grep -c 'goodbye from a trainer' "$TMP/bye.err")" 2 "two goodbyes counted"
grep -q "goodbye from a client that never said hello" "$TMP/bye.err" &&
    pass "a goodbye without hello is named" || fail "a goodbye without hello is named"
expect_fail 2 "bad --out_budget" "$DGLPART" serve --part_config "$F/cora.json" \
    --ip_config "$TMP/ip.txt" --out_budget 0
finish
