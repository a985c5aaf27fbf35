#!/bin/sh
# dglpart download / datasets against Debian's nginx on loopback: the real
# ogbl-ddi files packed as OGB's zip, fetched through --mirror, cached, resumed
# in a later run, verified, and listed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/download-servers.sh"
MK="$TOP/tests/helpers/mkarchive.py"
DDI="$SHARED/datasets/ogbl-ddi"

www="$TMP/www"
mkdir -p "$www/ogb/data/linkproppred" "$www/x"
python3 "$MK" dir "$DDI" ddi "$www/ogb/data/linkproppred/ddi.zip"
python3 "$MK" dir "$DDI" ogbl_ddi "$www/x/ddi.tar.gz"
sha=$(sha256sum "$www/ogb/data/linkproppred/ddi.zip" | cut -d' ' -f1)
size=$(wc -c <"$www/ogb/data/linkproppred/ddi.zip")
start_nginx "$www" || exit 1
reqs() { grep -c "$1" "$NGINX_LOG"; }

# The registry is compiled in: works from any directory.
(cd / && "$DGLPART" datasets --data_dir "$TMP/ds") >"$OUT" 2>"$ERR"
expect_eq "$?" 0 "datasets runs from /"
for n in ogbn-arxiv ogbn-products ogbn-proteins ogbn-papers100M ogbl-ddi reddit cora citeseer; do
    expect_stdout "^$n " "datasets lists $n"
done
expect_stdout '^ogbn-products +~1\.3 GiB +ogb +yes' "products: size, format, stored once"
expect_stdout '^cora .*bundled' "cora is bundled"
expect_stdout '^ogbl-ddi .* -$' "ogbl-ddi not cached yet"
expect_ok "bundled cora needs no network" sh -c "cd / && '$DGLPART' download cora"
expect_stdout '/datasets/cora$' "cora path printed"
[ -f "$(cat "$OUT")/cora.cites" ]; expect_eq $? 0 "cora path holds cora.cites"

# Fetch through the mirror: http://snap.stanford.edu/ogb/... -> nginx/ogb/...
expect_ok "download ogbl-ddi via --mirror" "$DGLPART" download ogbl-ddi \
    --mirror "$NGINX_URL/" --data_dir "$TMP/ds" --no_progress
expect_eq "$(cat "$OUT")" "$TMP/ds/ogbl_ddi" "prints the dataset folder"
expect_stderr "ogbl-ddi: 2\.[0-9] MiB in .* from $NGINX_URL/ogb/data/linkproppred/ddi\.zip" "one summary line"
for f in raw/edge.csv.gz raw/num-node-list.csv.gz raw/num-edge-list.csv.gz RELEASE_v1.txt mapping/README.md; do
    cmp_files "$DDI/$f" "$TMP/ds/ogbl_ddi/$f" "unpacked $f is byte-identical"
done
expect_missing "$TMP/ds/ddi.zip" "archive removed after unpacking"
expect_missing "$TMP/ds/ogbl_ddi.unpack" "no temporary folder left"
grep -q "\"sha256\":[[:space:]]*\"$sha\"" "$TMP/ds/ogbl_ddi/.dglpart-download.json"
expect_eq $? 0 "stamp records the archive's sha256"
expect_eq "$(reqs 'GET /ogb/data/linkproppred/ddi.zip')" 1 "one request so far"

# Cached: a second run sends nothing.
expect_ok "second run" "$DGLPART" download ogbl-ddi --mirror "$NGINX_URL" \
    --data_dir "$TMP/ds"
expect_stderr "cached in $TMP/ds/ogbl_ddi" "second run says cached"
expect_eq "$(reqs 'GET /ogb/data/linkproppred/ddi.zip')" 1 "second run sent no request"
expect_ok "datasets after fetch" "$DGLPART" datasets --data_dir "$TMP/ds"
expect_stdout "^ogbl-ddi .*cached $TMP/ds/ogbl_ddi" "datasets shows it cached"

# Environment variables: DGLPART_DATA_DIR and DGLPART_MIRROR.
expect_ok "env data dir and mirror" env DGLPART_DATA_DIR="$TMP/env" \
    DGLPART_MIRROR="$NGINX_URL" "$DGLPART" download ogbl-ddi
cmp_files "$DDI/raw/edge.csv.gz" "$TMP/env/ogbl_ddi/raw/edge.csv.gz" "env fetch is byte-identical"

# A later run resumes a .part left by an interrupted one (Range -> 206).
mkdir -p "$TMP/res"
head -c 1000000 "$www/ogb/data/linkproppred/ddi.zip" >"$TMP/res/ddi.zip.part"
expect_ok "resume in a later run" "$DGLPART" download ogbl-ddi \
    --mirror "$NGINX_URL" --data_dir "$TMP/res" --sha256 "$sha" --keep_archive
expect_stderr "resumed" "summary says resumed"
grep -q '"GET /ogb/data/linkproppred/ddi.zip HTTP/1.1" 206 '"$((size - 1000000))" "$NGINX_LOG"
expect_eq $? 0 "nginx served the rest with 206"
cmp_files "$www/ogb/data/linkproppred/ddi.zip" "$TMP/res/ddi.zip" "resumed archive is byte-identical"
cmp_files "$DDI/raw/edge.csv.gz" "$TMP/res/ogbl_ddi/raw/edge.csv.gz" "resumed dataset is byte-identical"

# A URL, a tar.gz, a pinned digest; then a wrong digest is refused.
expect_ok "tar.gz by URL" "$DGLPART" download "$NGINX_URL/x/ddi.tar.gz" --data_dir "$TMP/u"
expect_eq "$(cat "$OUT")" "$TMP/u/ddi" "URL dataset folder named after the file"
cmp_files "$DDI/raw/edge.csv.gz" "$TMP/u/ddi/raw/edge.csv.gz" "tar.gz unpacked byte-identical"
expect_fail 1 "wrong --sha256 refused" "$DGLPART" download \
    "$NGINX_URL/ogb/data/linkproppred/ddi.zip" --data_dir "$TMP/bad" \
    --sha256 0000000000000000000000000000000000000000000000000000000000000000
expect_stderr "sha256 is $sha, expected 0{64}; the download was removed" "digest mismatch named"
expect_missing "$TMP/bad/ddi.zip" "no complete file after a bad digest"
expect_missing "$TMP/bad/ddi.zip.part" "bad bytes not kept for resuming"
expect_missing "$TMP/bad/ddi" "no dataset folder after a bad digest"
expect_fail 2 "malformed --sha256 is misuse" "$DGLPART" download ogbl-ddi --sha256 xyz --data_dir "$TMP/bad"

# HTTP errors name the URL and the status; 404 is not retried.
expect_fail 1 "404" "$DGLPART" download "$NGINX_URL/nope/graph.zip" --data_dir "$TMP/e"
expect_stderr "^dglpart download: '$NGINX_URL/nope/graph.zip': HTTP 404$" "404 names URL and status"
expect_eq "$(reqs 'GET /nope/graph.zip')" 1 "404 not retried"
expect_missing "$TMP/e/graph" "nothing left after 404"

# file:// for offline copies.
expect_ok "file:// URL" "$DGLPART" download "file://$www/ogb/data/linkproppred/ddi.zip" \
    --data_dir "$TMP/f" --sha256 "$sha"
cmp_files "$DDI/raw/edge.csv.gz" "$TMP/f/ddi/raw/edge.csv.gz" "file:// dataset byte-identical"
expect_fail 1 "missing file://" "$DGLPART" download "file://$www/none.zip" --data_dir "$TMP/f"
expect_stderr "none\.zip" "missing file named"
finish
