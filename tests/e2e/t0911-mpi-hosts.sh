#!/bin/sh
# dglpart under mpirun on two simulated hosts, each an sshd on its own
# address with its own disk at the workspace path: Open MPI starts the
# ranks over ssh, TCP on loopback carries the collectives, and each host
# ends with exactly its parts (p % 2 == its rank) and the config, byte for
# byte those of one process; an output one host cannot write is refused
# before any work, naming the host and the path; no copy step is needed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"

if ! command -v mpirun >/dev/null; then
    echo "# skipped: no mpirun (Debian package openmpi-bin)"
    finish
fi
ws="$TMP/ws"
hosts_start 2 "$ws"
rc=$?
if [ "$rc" = 77 ]; then
    echo "# skipped: simulated hosts need root and unshare"
    finish
fi
expect_eq "$rc" 0 "two hosts started"
export TMPDIR="$TMP"
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# ASan: Open MPI's own leaks at MPI_Finalize are suppressed, as in t0900;
# ssh does not carry the environment, mpirun -x does
SANENV=
case "$BUILD" in
*san*)
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
    export LSAN_OPTIONS="suppressions=$TOP/tests/e2e/mpi-lsan.supp:print_suppressions=0"
    SANENV="-x ASAN_OPTIONS -x LSAN_OPTIONS"
    ;;
esac
# ssh to the hosts' sshd (its port and keys), TCP on loopback only; Open
# MPI's session folders on each host's own disk (ssh does not carry TMPDIR:
# both hosts' daemons would make the machine's /tmp/ompi.HOST.0 at once)
MPIRUN="mpirun_hw timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2
    --host $(host_ip 0),$(host_ip 1) --mca plm_rsh_agent ssh
    --mca btl tcp,self --mca btl_tcp_if_include lo
    --mca oob_tcp_if_include lo --mca orte_tmpdir_base $ws/.ompi
    --wdir $ws $SANENV"

FIX="$SHARED/fixtures/dgl-cora"
expect_ok "convert Cora (shared storage)" "$DGLPART" convert "$FIX/input" \
    --out "$TMP/cora" --name cora
expect_ok "DGL's assignment" "$HELPERS/partcmp" assign \
    "$FIX/metis4-train-edges" "$TMP/assign.txt"
expect_ok "one process" "$DGLPART" partition "$TMP/cora" --num_parts 4 \
    --part_assign "$TMP/assign.txt" --output "$TMP/one"
# shellcheck disable=SC2086
expect_ok "two hosts, DGL's assignment" $MPIRUN \
    --mca plm_rsh_args "-p $HOSTS_PORT -F $HOSTS_CFG" "$DGLPART" partition \
    "$TMP/cora" --num_parts 4 --part_assign "$TMP/assign.txt" --output data
for h in 0 1; do
    d="$(host_dir $h)/data"
    want="cora.json partition-stats.json"
    for p in 0 1 2 3; do
        [ $((p % 2)) = $h ] && want="$want part$p"
    done
    got=$(cd "$d" 2>/dev/null && ls | tr '\n' ' ' | sed 's/ $//')
    expect_eq "$got" "$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" \
        "host $h has exactly its parts and the config"
    ok=1
    for f in $(cd "$d" 2>/dev/null && find . -type f ! -name partition-stats.json); do
        cmp -s "$TMP/one/$f" "$d/$f" || { ok=0; echo "# differs: host $h $f"; }
    done
    [ $ok = 1 ] && pass "host $h: the files of one process" ||
        fail "host $h: the files of one process"
done
[ -e "$ws/data" ] && fail "nothing in the test's own view of the workspace" ||
    pass "nothing in the test's own view of the workspace"

# the METIS path over the two hosts: each host's parts verify against one
# process's view (the two folders merged)
# shellcheck disable=SC2086
expect_ok "two hosts, METIS" $MPIRUN \
    --mca plm_rsh_args "-p $HOSTS_PORT -F $HOSTS_CFG" "$DGLPART" partition \
    "$TMP/cora" --num_parts 4 --balance_train --output metis
mkdir -p "$TMP/merged"
cp -r "$(host_dir 0)/metis/." "$TMP/merged/"
cp -r "$(host_dir 1)/metis/part1" "$(host_dir 1)/metis/part3" "$TMP/merged/"
expect_ok "the two hosts' parts verify together" "$DGLPART" verify \
    "$TMP/merged/cora.json" --dataset "$TMP/cora"
cmp_files "$(host_dir 0)/metis/cora.json" "$(host_dir 1)/metis/cora.json" \
    "both hosts have the same config"

# host 1 cannot write its output: refused before any work, by host and path
mkdir -p "$(host_dir 1)/ro"
chmod a-w "$(host_dir 1)/ro"
# root writes anywhere: make the folder a file instead
rmdir "$(host_dir 1)/ro"
echo x >"$(host_dir 1)/ro"
# shellcheck disable=SC2086
expect_fail 1 "an output host 1 cannot write" $MPIRUN \
    --mca plm_rsh_args "-p $HOSTS_PORT -F $HOSTS_CFG" "$DGLPART" partition \
    "$TMP/cora" --num_parts 4 --output ro/data
expect_stderr "rank 1 on [^ ]+: .*'ro'" "names the rank, its host and the path"
expect_missing "$(host_dir 0)/ro/data" "nothing on host 0"
finish
