#!/bin/sh
# dglpart download against a fault-injecting server: drops at many offsets,
# 500/503, stalls, a server ignoring Range, wrong bytes; and proxies.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/download-servers.sh"

www="$TMP/www"
mkdir -p "$www"
src="$www/edge.csv.gz"
cp "$SHARED/datasets/ogbl-ddi/raw/edge.csv.gz" "$src"
sha=$(sha256sum "$src" | cut -d' ' -f1)
size=$(wc -c <"$src")
start_fault "$www" || exit 1
n=0
dl() { n=$((n + 1)); run "$DGLPART" download --data_dir "$TMP/d$n" --no_progress "$@"; }
got() { printf '%s\n' "$TMP/d$n/edge.csv.gz/edge.csv.gz"; }
count() { grep -c -- "$1" "$FAULT_LOG"; }  # logged before each answer

# Drops at many offsets: each connection sends N bytes, then hangs up.
for drop in 1048576 700001 333333 65536; do
    dl "$FAULT_URL/edge.csv.gz?drop=$drop" --sha256 "$sha" --retries 1
    expect_eq "$RC" 0 "drop every $drop bytes: completes"
    cmp_files "$src" "$(got)" "drop every $drop bytes: byte-identical"
done
expect_eq "$(count 'drop=65536 range=bytes=65536- ')" 1 "resumed from byte 65536"
expect_eq "$(count 'drop=65536 ')" $(((size + 65535) / 65536)) "one request per dropped chunk"

# In-run resumes send If-Range with the first answer's ETag: honoured while
# it matches, and a file that changed meanwhile is fetched whole again.
expect_eq "$(grep -c 'drop=65536 range=bytes=65536- if-range="' "$FAULT_LOG")" 1 "resume sent If-Range with the ETag"
dl "$FAULT_URL/edge.csv.gz?changed=1&drop=300000&times=1" --sha256 "$sha" --retries 1
expect_eq "$RC" 0 "file changed between attempts: completes"
cmp_files "$src" "$(got)" "changed file fetched whole: byte-identical"
expect_eq "$(count 'changed=1&drop=300000&times=1 range=bytes=300000- if-range="')" 1 "resume asked If-Range"
expect_eq "$(count 'changed=1')" 2 "one dropped attempt, one whole body"

# Drops at odd offsets, resumed by later runs (--retries 0 fails each time).
dl "$FAULT_URL/edge.csv.gz?drop=12345" --retries 0
expect_eq "$RC" 1 "no retries: the drop fails the run"
expect_stderr "transfer closed|Connection|partial|bytes remaining" "drop reported"
d=$TMP/d$n
expect_eq "$(wc -c <"$d/edge.csv.gz.download.part")" 12345 "part file kept 12345 bytes"
expect_missing "$d/edge.csv.gz" "no dataset folder after a drop"
expect_missing "$d/edge.csv.gz.download" "no complete file after a drop"
for i in 1 2 3; do
    run "$DGLPART" download --data_dir "$d" --retries 0 "$FAULT_URL/edge.csv.gz?drop=500000"
done
expect_eq "$(wc -c <"$d/edge.csv.gz.download.part")" 1512345 "three later runs added 3 x 500000"
run "$DGLPART" download --data_dir "$d" --sha256 "$sha" "$FAULT_URL/edge.csv.gz"
expect_eq "$RC" 0 "a later run finishes the file"
cmp_files "$src" "$d/edge.csv.gz/edge.csv.gz" "resumed across runs: byte-identical"
expect_eq "$(count 'edge.csv.gz range=bytes=1512345- ')" 1 "final run asked for the rest"

# Killed after the rename but before the folder was made: the finished
# download is used as it is, with no request.
mkdir -p "$TMP/done" && cp "$src" "$TMP/done/edge.csv.gz.download"
run "$DGLPART" download --data_dir "$TMP/done" "$FAULT_URL/edge.csv.gz?finished=1"
expect_eq "$RC" 0 "finished download reused"
cmp_files "$src" "$TMP/done/edge.csv.gz/edge.csv.gz" "reused download byte-identical"
expect_eq "$(count 'finished=1')" 0 "no request for a finished download"

# A server that ignores Range: the part file restarts cleanly.
head -c 777777 "$src" >"$TMP/d_norange.part"
mkdir -p "$TMP/nr" && mv "$TMP/d_norange.part" "$TMP/nr/edge.csv.gz.download.part"
run "$DGLPART" download --data_dir "$TMP/nr" --sha256 "$sha" "$FAULT_URL/edge.csv.gz?norange=1"
expect_eq "$RC" 0 "server ignoring Range: completes"
cmp_files "$src" "$TMP/nr/edge.csv.gz/edge.csv.gz" "server ignoring Range: byte-identical"
expect_eq "$(count 'norange=1 range=bytes=777777- ')" 1 "it did ask for a range"
# Also when the part holds garbage: the 200 body replaces it.
mkdir -p "$TMP/nr2" && head -c 5000 /dev/urandom >"$TMP/nr2/edge.csv.gz.download.part"
run "$DGLPART" download --data_dir "$TMP/nr2" --sha256 "$sha" "$FAULT_URL/edge.csv.gz?norange=2"
cmp_files "$src" "$TMP/nr2/edge.csv.gz/edge.csv.gz" "garbage part replaced by a full 200 body"

# Ignoring Range and dropping every time: no progress, so it gives up.
dl "$FAULT_URL/edge.csv.gz?norange=1&drop=100000" --retries 2
expect_eq "$RC" 1 "restart-and-drop forever gives up"
expect_stderr "gave up after 2 retries" "gave up after the retries"
expect_eq "$(count 'norange=1&drop=100000')" 3 "three attempts, not an endless loop"

# 503 twice then success; 500 forever gives up after the retries.
dl "$FAULT_URL/edge.csv.gz?status=503&fail=2" --retries 3
expect_eq "$RC" 0 "503 twice, then served"
cmp_files "$src" "$(got)" "after 503s: byte-identical"
expect_eq "$(count 'status=503&fail=2')" 3 "two 503s, one success"
dl "$FAULT_URL/edge.csv.gz?status=500" --retries 2
expect_eq "$RC" 1 "500 forever fails"
expect_stderr "'$FAULT_URL/edge\.csv\.gz\?status=500': HTTP 500 \(gave up after 2 retries\)" "500 names URL, status, retries"
expect_eq "$(count 'status=500')" 3 "first try plus two retries"
dl "$FAULT_URL/edge.csv.gz?status=403" --retries 3
expect_stderr "HTTP 403" "403 named"
expect_eq "$(count 'status=403')" 1 "403 not retried"

# Wrong bytes: the digest check refuses them and keeps nothing.
dl "$FAULT_URL/edge.csv.gz?corrupt=1" --sha256 "$sha"
expect_eq "$RC" 1 "corrupted body refused"
expect_stderr "sha256 is [0-9a-f]{64}, expected $sha" "digest mismatch reported"
expect_missing "$TMP/d$n/edge.csv.gz.download" "no complete file after wrong bytes"
expect_missing "$TMP/d$n/edge.csv.gz" "no dataset folder after wrong bytes"
expect_missing "$TMP/d$n/edge.csv.gz.download.part" "wrong bytes not kept"

# A stalled server hits --timeout.
t0=$(date +%s)
dl "$FAULT_URL/edge.csv.gz?stall=60" --timeout 2 --retries 0
t1=$(date +%s)
expect_eq "$RC" 1 "stalled transfer fails"
expect_stderr "timed out \(no data for 2 s\)" "stall reported as a timeout"
# the server stalls 60 s: ending well before, the client gave up itself
[ $((t1 - t0)) -lt 40 ]; expect_eq $? 0 "stall detected within 40 s ($((t1 - t0)) s)"
expect_eq "$(wc -c <"$TMP/d$n/edge.csv.gz.download.part")" 1000 "bytes before the stall kept for resuming"

# Connection refused is a clear error.
dl "http://127.0.0.1:$(free_port)/edge.csv.gz" --retries 1
expect_eq "$RC" 1 "connection refused fails"
expect_stderr "Failed to connect|Couldn't connect|Connection refused" "refusal reported"

# libcurl's proxy variables are honoured (the fault server acts as proxy).
run env http_proxy="$FAULT_URL" no_proxy= NO_PROXY= "$DGLPART" download \
    --data_dir "$TMP/px" --sha256 "$sha" "http://dataset.invalid/edge.csv.gz"
expect_eq "$RC" 0 "download through http_proxy"
expect_eq "$(count 'GET http://dataset.invalid/edge.csv.gz')" 1 "request went to the proxy"
cmp_files "$src" "$TMP/px/edge.csv.gz/edge.csv.gz" "proxied download byte-identical"
finish
