#!/bin/sh
# Hostile workspace, data path and script folder names reach the remote
# shell quoted: files land at the literal paths and nothing is executed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"

src="$TMP/src"
ws="$TMP/ws"
P="$TMP/pwned"
cp -r "$SHARED/fixtures/dgl-cora/metis4-train-edges" "$src" &&
    chmod -R u+w "$src"
hosts_start 4 "$ws"
rc=$?
if [ "$rc" = 77 ]; then
    echo "# skipped: simulated hosts need root and unshare"
    finish
fi
expect_eq "$rc" 0 "four hosts started"

bad_ws="$ws/a b;touch $P.1;'\"\$(touch $P.2)\`touch $P.3\`
x"
bad_rel="-d \$(touch $P.4);'x'"
bad_scripts="$TMP/s;touch $P.5 \$(touch $P.6)'\"\`touch $P.7\`"
mkdir -p "$bad_scripts/it's \$(x)"
echo 'print(1)' >"$bad_scripts/it's \$(x)/train;rm -rf \$HOME.py"

copy() {
    timeout 300 "$DGLPART" copy --part_config "$src/cora.json" \
        --ip_config "$HOSTS_IPCONFIG" --workspace "$bad_ws" \
        --rel_data_path "$bad_rel" --script_folder "$bad_scripts" \
        --ssh_opts "-F $HOSTS_CFG" "$@"
}

expect_ok "copy with hostile names" copy
n=$(grep -c ' sent$' "$OUT")
expect_eq "$n" 4 "every host sent"
for i in 0 3; do
    h=$(host_dir "$i")
    hw="$h/${bad_ws#"$ws/"}"
    cmp_files "$hw/$bad_rel/part$i/graph.dgl" "$src/part$i/graph.dgl" \
        "host $i has its part under the literal names"
    expect_ok "host $i has the config" test -f "$hw/$bad_rel/cora.json"
    sname=$(basename "$bad_scripts")
    cmp_files "$hw/$sname/it's \$(x)/train;rm -rf \$HOME.py" \
        "$bad_scripts/it's \$(x)/train;rm -rf \$HOME.py" \
        "host $i has the hostile script folder"
done
for k in 1 2 3 4 5 6 7; do
    expect_missing "$P.$k" "injection $k did not run"
done
found=$(find "$TMP/hosts" -name 'pwned.[0-9]' | wc -l)
expect_eq "$found" 0 "no injected file on any host either"
expect_ok "unchanged re-run with the same names" copy --verify
n=$(grep -c ' unchanged, verified$' "$OUT")
expect_eq "$n" 4 "the status check quotes the names too"
for k in 1 2 3 4 5 6 7; do
    expect_missing "$P.$k" "injection $k did not run on the re-run"
done
finish
