# Loopback servers for the t04xx download tests (sourced after lib.sh).
# start_nginx ROOT  -> $NGINX_URL, access log $NGINX_LOG (Debian's nginx)
# start_fault ROOT  -> $FAULT_URL, request log $FAULT_LOG (faultserver.py)
# Both are killed at exit and die on their own after a bounded time.

# Keep loopback requests off any proxy the environment names.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
export no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost
export DGLPART_RETRY_DELAY_MS=${DGLPART_RETRY_DELAY_MS:-20}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for CMD...: retry for up to 60 s (the machine may be busy)
wait_for() { wait_until 60 quietly "$@"; }
quietly() { "$@" >/dev/null 2>&1; }

start_nginx() {
    nx="$TMP/nginx"
    mkdir -p "$nx/tmp"
    NGINX_LOG="$nx/access.log"
    tries=0
    while [ $tries -lt 5 ]; do
        port=$(free_port)
        cat >"$nx/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $nx/nginx.pid;
error_log $nx/error.log;
events { worker_connections 64; }
http {
    access_log $nx/access.log;
    client_body_temp_path $nx/tmp/body;
    proxy_temp_path $nx/tmp/proxy;
    fastcgi_temp_path $nx/tmp/fastcgi;
    uwsgi_temp_path $nx/tmp/uwsgi;
    scgi_temp_path $nx/tmp/scgi;
    sendfile on;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$port;
        root $1;
        location / { }
    }
}
CONF
        timeout 300 nginx -p "$nx" -e "$nx/error.log" -c "$nx/nginx.conf" &
        NGINX_PID=$!
        at_exit "kill $NGINX_PID 2>/dev/null"
        if wait_for python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" \
            && kill -0 $NGINX_PID 2>/dev/null; then
            NGINX_URL="http://127.0.0.1:$port"
            return 0
        fi
        kill $NGINX_PID 2>/dev/null
        tries=$((tries + 1))
    done
    echo "nginx did not start:" >&2
    cat "$nx/error.log" >&2
    return 1
}

start_fault() {
    FAULT_LOG="$TMP/fault.log"
    : >"$FAULT_LOG"
    timeout 120 python3 "$TOP/tests/helpers/faultserver.py" "$1" \
        "$TMP/fault.port" "$FAULT_LOG" 110 &
    FAULT_PID=$!
    at_exit "kill $FAULT_PID 2>/dev/null"
    wait_for test -s "$TMP/fault.port" || { echo "faultserver did not start" >&2; return 1; }
    FAULT_URL="http://127.0.0.1:$(cat "$TMP/fault.port")"
}

# log_count FILE REGEX WANT: the number of lines of FILE matching REGEX, once
# it reaches WANT (servers may log just after the client is done) or after
# 60 s; a short settle afterwards catches lines that would go past WANT.
log_count() {
    wait_until 60 log_has "$@"
    sleep 0.2
    grep -Ec -- "$2" "$1"
}
log_has() { [ "$(grep -Ec -- "$2" "$1")" -ge "$3" ]; }
