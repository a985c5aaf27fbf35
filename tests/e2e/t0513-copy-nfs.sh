#!/bin/sh
# --nfs: the workspace is shared storage, so everything (all parts) is
# written once, locally or through one host, and no host gets a copy.
# Also: two parts on one host travel together, over one connection.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"

src="$TMP/src"
ws="$TMP/ws"
cp -r "$SHARED/fixtures/dgl-cora/metis4-train-edges" "$src" &&
    chmod -R u+w "$src"
mkdir -p "$TMP/scripts" && echo 'print(1)' >"$TMP/scripts/train.py"
hosts_start 4 "$ws"
rc=$?
if [ "$rc" = 77 ]; then
    echo "# skipped: simulated hosts need root and unshare"
    finish
fi
expect_eq "$rc" 0 "four hosts started"

copy() {
    timeout 300 "$DGLPART" copy --part_config "$src/cora.json" \
        --ip_config "$HOSTS_IPCONFIG" --rel_data_path data \
        --script_folder "$TMP/scripts" --ssh_opts "-F $HOSTS_CFG" --nfs "$@"
}

expect_ok "--nfs writes locally" copy --workspace "$ws"
expect_eq "$(grep -c ' sent$' "$OUT")" 1 "one writer, not one per host"
expect_stdout '^local \(nfs\) ' "the table names the local writer"
(cd "$ws" && find . | LC_ALL=C sort) >"$TMP/got"
cat >"$TMP/want" <<EOF
.
./data
./data/cora.json
./data/part0
./data/part0/MANIFEST
./data/part0/edge_feat.dgl
./data/part0/graph.dgl
./data/part0/node_feat.dgl
./data/part1
./data/part1/MANIFEST
./data/part1/edge_feat.dgl
./data/part1/graph.dgl
./data/part1/node_feat.dgl
./data/part2
./data/part2/MANIFEST
./data/part2/edge_feat.dgl
./data/part2/graph.dgl
./data/part2/node_feat.dgl
./data/part3
./data/part3/MANIFEST
./data/part3/edge_feat.dgl
./data/part3/graph.dgl
./data/part3/node_feat.dgl
./ip_config.txt
./scripts
./scripts/train.py
EOF
cmp_files "$TMP/got" "$TMP/want" "all parts written once, no temporary left"
expect_ok "the shared copy is a valid partition set" "$DGLPART" verify \
    "$ws/data/cora.json"
found=$(find "$TMP/hosts" -path '*/h[0-9]/*' | wc -l)
expect_eq "$found" 0 "no host got a copy"
expect_ok "unchanged --nfs re-run" copy --workspace "$ws"
expect_stdout '^local \(nfs\) +0 .* unchanged$' "nothing rewritten"

# The writing side needs only sh, tar, mkdir, mv, rm and sha256sum.
mkdir -p "$TMP/bin"
for t in sh tar mkdir mv rm sha256sum; do
    ln -s "$(command -v "$t")" "$TMP/bin/$t"
done
expect_ok "--nfs --verify with only those six tools on PATH" env \
    PATH="$TMP/bin" "$DGLPART" copy --part_config "$src/cora.json" \
    --ip_config "$HOSTS_IPCONFIG" --rel_data_path data \
    --script_folder "$TMP/scripts" --nfs --workspace "$TMP/ws6" --verify
expect_stdout '^local \(nfs\) +[1-9][0-9]* .* sent, verified$' "written and verified"
cmp_files "$TMP/ws6/data/part3/graph.dgl" "$src/part3/graph.dgl" "part 3 intact"
expect_ok "unchanged re-run with only those tools" env PATH="$TMP/bin" \
    "$DGLPART" copy --part_config "$src/cora.json" \
    --ip_config "$HOSTS_IPCONFIG" --rel_data_path data \
    --script_folder "$TMP/scripts" --nfs --workspace "$TMP/ws6"
expect_stdout '^local \(nfs\) +0 .* unchanged$' "the status check needs no cat"

# Through one host: the shared storage seen by host 0.
expect_ok "--nfs through host 0" copy --workspace "$ws" \
    --nfs_host "$(host_ip 0)"
expect_stdout "^$(host_ip 0) \\(nfs\\) +[1-9]" "host 0 wrote"
(cd "$(host_dir 0)" && find . | LC_ALL=C sort) >"$TMP/got0"
cmp_files "$TMP/got0" "$TMP/want" "host 0's storage holds every part"
found=$(find "$(host_dir 1)" "$(host_dir 2)" "$(host_dir 3)" -mindepth 1 | wc -l)
expect_eq "$found" 0 "the other hosts got nothing"
# Two lines naming the same host: one job, both parts, one stream.
printf '%s\n' "$(host_ip 2)" "$(host_ip 2)" "$(host_ip 3)" "$(host_ip 3)" \
    >"$TMP/ip-dup.txt"
expect_ok "two parts per host" timeout 300 "$DGLPART" copy \
    --part_config "$src/cora.json" --ip_config "$TMP/ip-dup.txt" \
    --workspace "$ws/dup" --rel_data_path data --ssh_opts "-F $HOSTS_CFG"
expect_eq "$(grep -c ' sent$' "$OUT")" 2 "one line per distinct host"
ls "$(host_dir 2)/dup/data" | tr '\n' ' ' >"$TMP/got2"
expect_eq "$(cat "$TMP/got2")" "cora.json part0 part1 " "host 2 has parts 0 and 1"
ls "$(host_dir 3)/dup/data" | tr '\n' ' ' >"$TMP/got3"
expect_eq "$(cat "$TMP/got3")" "cora.json part2 part3 " "host 3 has parts 2 and 3"
expect_fail 2 "--nfs_host needs --nfs" "$DGLPART" copy \
    --part_config "$src/cora.json" --ip_config "$HOSTS_IPCONFIG" \
    --workspace "$ws" --rel_data_path data --nfs_host 127.0.0.2
finish
