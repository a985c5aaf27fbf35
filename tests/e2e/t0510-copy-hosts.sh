#!/bin/sh
# dglpart copy to four simulated hosts (tests/e2e/hosts.sh): each host sees
# exactly ip_config.txt, the relocated config, its own part and the scripts;
# the parts from all hosts verify against any host's config; a re-run sends
# nothing; a changed part is sent to its host only. Also dglpart pack.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"

FIX="$SHARED/fixtures/dgl-cora/metis4-train-edges"
src="$TMP/src"
ws="$TMP/ws"
cp -r "$FIX" "$src" && chmod -R u+w "$src"
mkdir -p "$TMP/scripts/sub"
echo 'print("train")' >"$TMP/scripts/train.py"
echo 'x = 1' >"$TMP/scripts/sub/util.py"

# ---- pack (no hosts needed) ----
expect_ok "pack part 2" "$DGLPART" pack --part_config "$src/cora.json" \
    --part 2 --output "$TMP/p2.tar"
tar -tf "$TMP/p2.tar" | sort >"$TMP/list"
printf '%s\n' part2/ part2/MANIFEST part2/edge_feat.dgl part2/graph.dgl \
    part2/node_feat.dgl >"$TMP/want"
cmp_files "$TMP/list" "$TMP/want" "pack's tar holds part2/ and its MANIFEST"
mkdir "$TMP/unpacked" && tar -xf "$TMP/p2.tar" -C "$TMP/unpacked"
cmp_files "$TMP/unpacked/part2/MANIFEST" "$src/part2/MANIFEST" \
    "pack writes the MANIFEST next to the part"
for f in node_feat.dgl edge_feat.dgl graph.dgl; do
    cmp_files "$TMP/unpacked/part2/$f" "$src/part2/$f" "tar carries $f intact"
    line=$(grep " $f\$" "$src/part2/MANIFEST")
    want="$(sha256sum <"$src/part2/$f" | cut -c1-64) $(wc -c <"$src/part2/$f") $f"
    expect_eq "$line" "$want" "MANIFEST has sha256 and size of $f"
done
expect_ok "pack --manifest" "$DGLPART" pack --part_config "$src/cora.json" \
    --part 2 --manifest
cmp_files "$OUT" "$src/part2/MANIFEST" "--manifest prints the same MANIFEST"
expect_fail 1 "pack of a part that does not exist" "$DGLPART" pack \
    --part_config "$src/cora.json" --part 4 --manifest
expect_stderr "part 4 out of range \[0, 4\)" "range named"
expect_fail 2 "pack without --part is misuse" "$DGLPART" pack \
    --part_config "$src/cora.json"
# A read-only copy of the parts (never ../shared itself, which a checkout
# may leave writable): pack prints the MANIFEST and writes nothing there.
ro="$TMP/ro"
cp -r "$FIX" "$ro" && chmod -R a-w "$ro"
at_exit 'chmod -R u+w "$TMP/ro" 2>/dev/null'
expect_ok "pack from a read-only folder" "$DGLPART" pack \
    --part_config "$ro/cora.json" --part 0 --manifest
expect_stdout ' graph.dgl$' "the MANIFEST is printed"
expect_missing "$ro/part0/MANIFEST" "no MANIFEST written into read-only parts"

# ---- copy to four hosts ----
hosts_start 4 "$ws"
rc=$?
if [ "$rc" = 77 ]; then
    echo "# skipped the ssh part: simulated hosts need root and unshare"
    finish
fi
expect_eq "$rc" 0 "four hosts started"

copy() {
    timeout 300 "$DGLPART" copy --part_config "$src/cora.json" \
        --ip_config "$HOSTS_IPCONFIG" --workspace "$ws" --rel_data_path data \
        --script_folder "$TMP/scripts" --ssh_opts "-F $HOSTS_CFG" "$@"
}

expect_ok "dry run" copy --dry_run
expect_stdout "^127\.0\.0\.4: .* to $ws\$" "dry run names each host"
expect_stdout "^  $ws/data/part2: node_feat.dgl edge_feat.dgl graph.dgl\$" \
    "dry run lists the part's files"
found=$(find "$TMP/hosts" -path '*/h[0-9]/*' | wc -l)
expect_eq "$found" 0 "a dry run sends nothing"

expect_ok "copy to four hosts" copy
expect_stdout '^host +bytes +seconds +status$' "summary table header"
n=$(grep -c ' sent$' "$OUT")
expect_eq "$n" 4 "four hosts sent"
for i in 0 1 2 3; do
    host_exec "$i" "cd '$ws' && find . | LC_ALL=C sort" >"$TMP/got.$i"
    cat >"$TMP/want.$i" <<EOF
.
./data
./data/cora.json
./data/part$i
./data/part$i/MANIFEST
./data/part$i/edge_feat.dgl
./data/part$i/graph.dgl
./data/part$i/node_feat.dgl
./ip_config.txt
./scripts
./scripts/sub
./scripts/sub/util.py
./scripts/train.py
EOF
    cmp_files "$TMP/got.$i" "$TMP/want.$i" "host $i has exactly its part"
    host_exec "$i" "cd '$ws/data/part$i' && sha256sum node_feat.dgl edge_feat.dgl graph.dgl" \
        >"$TMP/sum.$i"
    (cd "$src/part$i" && sha256sum node_feat.dgl edge_feat.dgl graph.dgl) \
        >"$TMP/wsum.$i"
    cmp_files "$TMP/sum.$i" "$TMP/wsum.$i" "host $i's part files are intact"
    cmp_files "$(host_dir "$i")/ip_config.txt" "$HOSTS_IPCONFIG" \
        "host $i has ip_config.txt"
    cmp_files "$(host_dir "$i")/scripts/sub/util.py" "$TMP/scripts/sub/util.py" \
        "host $i has the script folder"
    cmp_files "$(host_dir "$i")/data/cora.json" "$(host_dir 0)/data/cora.json" \
        "host $i has the same config"
done
expect_missing "$ws/data" "nothing lands in the test's own view"
# The config's paths are right relative to it, from the host's view.
expect_ok "host 2 resolves its paths" host_exec 2 \
    "cd '$ws/data' && for f in \$(sed -n 's/.*\"\\(part2\\/[a-z_]*\\.dgl\\)\".*/\\1/p' cora.json); do test -f \"\$f\" || exit 1; echo \$f; done"
expect_eq "$(wc -l <"$OUT")" 3 "host 2's config names its three files"
# Any host's config with the parts gathered from all hosts is a valid set.
mkdir -p "$TMP/gather"
cp "$(host_dir 3)/data/cora.json" "$TMP/gather/"
for i in 0 1 2 3; do cp -r "$(host_dir "$i")/data/part$i" "$TMP/gather/"; done
expect_ok "dglpart verify accepts host 3's config with the shipped parts" \
    "$DGLPART" verify "$TMP/gather/cora.json"
expect_ok "host 1 config resolves with dglpart verify too" sh -c \
    "cp '$(host_dir 1)/data/cora.json' '$TMP/gather/cora.json' && '$DGLPART' verify '$TMP/gather/cora.json'"

# ---- re-runs ----
expect_ok "unchanged re-run" copy
n=$(awk 'NR > 1 && $2 == 0 && / unchanged$/' "$OUT" | wc -l)
expect_eq "$n" 4 "a second run transfers 0 bytes to every host"
expect_stderr "nothing changed on 4 hosts, nothing sent" "and says so"
expect_ok "unchanged re-run with --verify" copy --verify
n=$(grep -c 'unchanged, verified$' "$OUT")
expect_eq "$n" 4 "--verify hashes the remote files and finds them intact"

# A part changed locally goes to its host only.
printf 'x' >>"$src/part1/edge_feat.dgl"
expect_ok "re-run after changing part 1" copy
expect_stdout '^127\.0\.0\.3 +[1-9][0-9]* .* sent$' "host 1 gets its new part"
n=$(grep -c ' unchanged$' "$OUT")
expect_eq "$n" 3 "the other hosts send nothing"
cmp_files "$(host_dir 1)/data/part1/edge_feat.dgl" "$src/part1/edge_feat.dgl" \
    "host 1 has the new file"
expect_missing "$(host_dir 1)/.dglpart-copy-part1" "no temporary folder left"

# Progress per host when stderr is a terminal (forced here).
printf 'x' >>"$src/part3/edge_feat.dgl"
expect_ok "re-run with progress, one host at a time" env DGLPART_PROGRESS=1 \
    timeout 300 "$DGLPART" copy --part_config "$src/cora.json" \
    --ip_config "$HOSTS_IPCONFIG" --workspace "$ws" --rel_data_path data \
    --script_folder "$TMP/scripts" --ssh_opts "-F $HOSTS_CFG" --parallel 1
expect_stderr "127\.0\.0\.5 +sent" "progress shows each host's state"
expect_stderr "127\.0\.0\.2 +unchanged" "including unchanged hosts"
expect_stdout '^127\.0\.0\.5 +[1-9][0-9]* .* sent$' "--parallel 1 still does every host"

# --ssh_port and --ssh_username are honoured (copy_files.py ignores them).
grep -v -e '^ *Port ' -e '^ *User ' "$HOSTS_CFG" >"$TMP/noport"
printf 'x' >>"$src/part0/edge_feat.dgl"
expect_ok "port and user from the command line" timeout 300 "$DGLPART" copy \
    --part_config "$src/cora.json" --ip_config "$HOSTS_IPCONFIG" \
    --workspace "$ws" --rel_data_path data --script_folder "$TMP/scripts" \
    --ssh_opts "-F $TMP/noport" --ssh_port "$HOSTS_PORT" \
    --ssh_username "$HOSTS_USER"
expect_stdout '^127\.0\.0\.2 +[1-9][0-9]* .* sent$' "host 0 reached through --ssh_port"
expect_fail 1 "without the port nothing connects" timeout 300 "$DGLPART" copy \
    --part_config "$src/cora.json" --ip_config "$HOSTS_IPCONFIG" \
    --workspace "$ws" --rel_data_path data --ssh_opts "-F $TMP/noport"
expect_stderr "4 of 4 hosts failed: 127\.0\.0\.2 \(.*port 22" "ssh's reason shown"

# A file deleted on a host is noticed without --verify.
rm "$(host_dir 1)/data/part1/node_feat.dgl"
expect_ok "re-run after a file vanished on host 1" copy
expect_stdout '^127\.0\.0\.3 +[1-9][0-9]* .* sent$' "host 1 resent"
cmp_files "$(host_dir 1)/data/part1/node_feat.dgl" "$src/part1/node_feat.dgl" \
    "host 1's file is back"

# An empty script folder still arrives.
mkdir "$TMP/empty"
expect_ok "copy an empty script folder" copy --script_folder "$TMP/empty"
expect_ok "host 2 has it" test -d "$(host_dir 2)/empty"
expect_ok "and the re-run leaves it" copy --script_folder "$TMP/empty"
expect_eq "$(grep -c ' unchanged$' "$OUT")" 4 "nothing sent for it twice"

# Corruption on a host is found by --verify and repaired.
printf 'y' >>"$(host_dir 2)/data/part2/graph.dgl"
expect_ok "verify finds and fixes a corrupted remote file" copy --verify
expect_stdout '^127\.0\.0\.4 +[1-9][0-9]* .* sent, verified$' "host 2 resent"
cmp_files "$(host_dir 2)/data/part2/graph.dgl" "$src/part2/graph.dgl" \
    "host 2's file repaired"

# ---- misuse ----
head -n 3 "$HOSTS_IPCONFIG" >"$TMP/ip3.txt"
expect_fail 1 "three hosts for four parts" "$DGLPART" copy \
    --part_config "$src/cora.json" --ip_config "$TMP/ip3.txt" \
    --workspace "$ws" --rel_data_path data
expect_stderr "lists 3 hosts but .* has 4 parts" "count mismatch explained"
expect_fail 1 "rel_data_path with .." "$DGLPART" copy \
    --part_config "$src/cora.json" --ip_config "$HOSTS_IPCONFIG" \
    --workspace "$ws" --rel_data_path ../x
expect_stderr "relative path without '\.\.'" "'..' refused"
expect_fail 2 "missing --workspace is misuse" "$DGLPART" copy \
    --part_config "$src/cora.json" --ip_config "$HOSTS_IPCONFIG" \
    --rel_data_path data
finish
