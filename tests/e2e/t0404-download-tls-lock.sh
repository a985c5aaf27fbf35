#!/bin/sh
# TLS verification stays on (a self-signed nginx is refused), and two runs
# fetching the same dataset share one download through the lock.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/download-servers.sh"

www="$TMP/www"
mkdir -p "$www"
cp "$SHARED/datasets/ogbl-ddi/raw/edge.csv.gz" "$www/edge.csv.gz"

# nginx with a throwaway self-signed certificate for 127.0.0.1.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$TMP/key.pem" -out "$TMP/cert.pem" -days 1 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1
expect_eq $? 0 "made a self-signed certificate"
port=$(free_port)
mkdir -p "$TMP/ngx"
cat >"$TMP/ngx/nginx.conf" <<CONF
daemon off;
master_process off;
pid $TMP/ngx/nginx.pid;
error_log $TMP/ngx/error.log;
events { worker_connections 16; }
http {
    access_log $TMP/ngx/access.log;
    client_body_temp_path $TMP/ngx/body;
    proxy_temp_path $TMP/ngx/proxy;
    fastcgi_temp_path $TMP/ngx/fastcgi;
    uwsgi_temp_path $TMP/ngx/uwsgi;
    scgi_temp_path $TMP/ngx/scgi;
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $TMP/cert.pem;
        ssl_certificate_key $TMP/key.pem;
        root $www;
    }
}
CONF
timeout 60 nginx -p "$TMP/ngx" -e "$TMP/ngx/error.log" -c "$TMP/ngx/nginx.conf" &
at_exit "kill $! 2>/dev/null"
wait_for python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)"
expect_eq $? 0 "TLS nginx started"
expect_fail 1 "self-signed certificate refused" "$DGLPART" download \
    --data_dir "$TMP/tls" "https://127.0.0.1:$port/edge.csv.gz"
expect_stderr "https://127\.0\.0\.1:$port/edge\.csv\.gz'.*(certificate|SSL)" "TLS error names URL and cause"
expect_missing "$TMP/tls/edge.csv.gz" "nothing fetched over unverified TLS"
if [ ! -f "$TMP/ngx/access.log" ]; then
    fail "nginx wrote no access log: the check below would prove nothing"
elif grep -q 'GET /edge.csv.gz' "$TMP/ngx/access.log"; then
    fail "no request sent over the unverified connection"
else
    pass "no request sent over the unverified connection"
fi

# Two runs at once: the second waits for the first, then reuses its work.
start_fault "$www" || exit 1
url="$FAULT_URL/edge.csv.gz?stall=10&stall_at=200000&times=1"
"$DGLPART" download --data_dir "$TMP/both" --retries 3 "$url" \
    >"$TMP/a.out" 2>"$TMP/a.err" &
apid=$!
wait_for grep -q "stall=10" "$FAULT_LOG"
"$DGLPART" download --data_dir "$TMP/both" --retries 3 "$url" \
    >"$TMP/b.out" 2>"$TMP/b.err"
brc=$?
wait $apid
expect_eq "$?.$brc" "0.0" "both runs succeed"
grep -q "waiting for another dglpart fetching 'edge.csv.gz'" "$TMP/b.err"
expect_eq $? 0 "second run waited for the lock"
grep -q "cached in" "$TMP/b.err"
expect_eq $? 0 "second run reused the first one's download"
cmp_files "$www/edge.csv.gz" "$TMP/both/edge.csv.gz/edge.csv.gz" "shared download byte-identical"
expect_eq "$(cat "$TMP/a.out")" "$(cat "$TMP/b.out")" "both print the same path"
finish
