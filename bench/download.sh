#!/bin/sh
# Time to fetch a 500 MB file over loopback from a local nginx: dglpart
# download vs the curl command-line tool (best of 3 each, page cache warm),
# plus dglpart with --sha256 (a digest check) vs curl + sha256sum.
# usage: flock /tmp/dglpart-bench.lock sh bench/download.sh
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DGLPART="$TOP/dglpart"
DATA=${BENCHDATA:-/work/benchdata}/download
MB=${MB:-500}
ROUNDS=${ROUNDS:-3}
[ -x "$DGLPART" ] || { echo "build dglpart first (make)" >&2; exit 1; }
if ! command -v curl >/dev/null; then
    SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get install -y -qq curl >/dev/null
fi
command -v nginx >/dev/null || { echo "needs nginx (make deps)" >&2; exit 1; }
mkdir -p "$DATA/www"
src="$DATA/www/blob-${MB}M.bin"
if [ ! -f "$src" ]; then
    echo "generating $src" >&2
    head -c "${MB}M" /dev/urandom >"$src.tmp" && mv "$src.tmp" "$src"
fi
sha=$(sha256sum "$src" | cut -d' ' -f1)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dglpart-bench.XXXXXX")
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$TMP/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $TMP/nginx.pid;
error_log $TMP/error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $TMP/body;
    proxy_temp_path $TMP/proxy;
    fastcgi_temp_path $TMP/fastcgi;
    uwsgi_temp_path $TMP/uwsgi;
    scgi_temp_path $TMP/scgi;
    sendfile on;
    server { listen 127.0.0.1:$port; root $DATA/www; location / { } }
}
CONF
timeout 900 nginx -p "$TMP" -e "$TMP/error.log" -c "$TMP/nginx.conf" &
npid=$!
trap 'kill $npid 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.5
url="http://127.0.0.1:$port/blob-${MB}M.bin"
cat "$src" >/dev/null   # warm the page cache

# best WALL-seconds and its peak RSS (KiB) over $ROUNDS runs of "$@"
best() {
    b=""; rss=""
    for i in $(seq "$ROUNDS"); do
        rm -rf "$TMP/out"; mkdir -p "$TMP/out"
        /usr/bin/time -f '%e %M' -o "$TMP/time" "$@" >/dev/null 2>"$TMP/stderr" || {
            cat "$TMP/stderr" >&2; exit 1; }
        read -r t m <"$TMP/time"
        if [ -z "$b" ] || awk "BEGIN { exit !($t < $b) }"; then b=$t; rss=$m; fi
    done
    echo "$b $rss"
}
set -- $(best curl -sS -o "$TMP/out/blob.bin" "$url"); c=$1 crss=$2
set -- $(best "$DGLPART" download --no_progress --data_dir "$TMP/out" "$url"); d=$1 drss=$2
cmp "$src" "$TMP/out/blob-${MB}M.bin/blob-${MB}M.bin"
set -- $(best sh -c "curl -sS -o '$TMP/out/blob.bin' '$url' && sha256sum '$TMP/out/blob.bin'"); cs=$1
set -- $(best "$DGLPART" download --no_progress --data_dir "$TMP/out" --sha256 "$sha" "$url"); ds=$1 dsrss=$2
printf '%-34s %8s %8s\n' "fetch ${MB} MiB over loopback" "seconds" "peakRSS"
printf '%-34s %8s %7sM\n' "curl -o" "$c" "$((crss / 1024))"
printf '%-34s %8s %7sM\n' "dglpart download" "$d" "$((drss / 1024))"
printf '%-34s %8s\n' "curl -o && sha256sum" "$cs"
printf '%-34s %8s %7sM\n' "dglpart download --sha256" "$ds" "$((dsrss / 1024))"
echo "ratio dglpart/curl: $(awk "BEGIN { printf \"%.3f\", $d / $c }")  (target <= 1.1)"
echo "ratio with digest:  $(awk "BEGIN { printf \"%.3f\", $ds / $cs }")"
