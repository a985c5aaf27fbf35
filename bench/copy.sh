#!/bin/sh
# bench/copy.sh [CONFIG]: ship 4 parts of rmat21 to 4 simulated hosts
# (tests/e2e/hosts.sh, needs root) and print
#   - total wall time with --parallel 4 next to the largest host's transfer
#     alone (target ratio <= 1.2),
#   - an unchanged re-run (target <= 1 s),
#   - DGL's way as the reference: one scp after another (copy_files.py),
#   - peak RSS of dglpart copy.
# CONFIG defaults to the first rmat21 4-part config found in /work/benchdata.
# Runs under flock /tmp/dglpart-bench.lock. Run `make` first.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
DGLPART="$TOP/dglpart"
BENCH=${BENCHDATA:-/work/benchdata}/copy-bench

if [ "${DGLPART_BENCH_LOCKED:-}" != 1 ]; then
    DGLPART_BENCH_LOCKED=1 exec flock /tmp/dglpart-bench.lock sh "$0" "$@"
fi

cfg=${1:-}
if [ -z "$cfg" ]; then
    for c in /work/benchdata/partition-bench/data/*.json \
             /work/benchdata/rmat21/*/rmat21.json; do
        [ -f "$c" ] && grep -q '"num_parts": 4' "$c" && { cfg=$c; break; }
    done
fi
[ -n "$cfg" ] && [ -f "$cfg" ] || {
    echo "bench/copy.sh: no 4-part rmat21 config found; pass one" >&2
    exit 1
}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/dglpart-bench-copy.XXXXXX")
T_CLEANUP=""
at_exit() { T_CLEANUP="$1; $T_CLEANUP"; }
trap 'eval "$T_CLEANUP"; rm -rf "$TMP" "$BENCH"' EXIT
trap 'exit 130' INT TERM
. "$TOP/tests/e2e/hosts.sh"

# Our own links to the parts, so the MANIFEST cache lands in our folder,
# not in whoever made the partitions.
src="$BENCH/src"
rm -rf "$BENCH" && mkdir -p "$src" || exit 1
cp "$cfg" "$src/" && name=$(basename "$cfg")
dir=$(dirname "$cfg")
for i in 0 1 2 3; do
    cp -al "$dir/part$i" "$src/" 2>/dev/null || cp -a "$dir/part$i" "$src/"
    rm -f "$src/part$i/MANIFEST"
done
echo "input: $cfg ($(du -shL "$src" | cut -f1))"
for i in 0 1 2 3; do
    echo "  part$i: $(du -sbL "$src/part$i" | cut -f1) bytes"
done

ws="$TMP/ws"
hosts_start 4 "$ws" || { echo "cannot start the hosts" >&2; exit 1; }

now() { date +%s.%N; }
# CPU seconds the whole machine has spent (sender, sshd and tar alike)
cpu() { awk '/^cpu / { printf "%.2f", ($2 + $3 + $4 + $7 + $8) / 100 }' /proc/stat; }
el() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# COPY_SSH_OPTS adds ssh options, e.g. "-c aes128-gcm@openssh.com".
SSHO="-F $HOSTS_CFG ${COPY_SSH_OPTS:-}"
copy() {
    "$DGLPART" copy --part_config "$src/$name" --ip_config "$HOSTS_IPCONFIG" \
        --workspace "$ws" --rel_data_path data --ssh_opts "$SSHO" "$@"
}

# Hashing once (the MANIFEST cache), reported on its own.
t0=$(now)
for i in 0 1 2 3; do
    "$DGLPART" pack --part_config "$src/$name" --part "$i" --manifest >/dev/null
done
t1=$(now)
echo "hash 4 parts (MANIFEST cache): $(el "$t0" "$t1") s"

t0=$(now) c0=$(cpu)
/usr/bin/time -v -o "$TMP/rss" "$DGLPART" copy --part_config "$src/$name" --ip_config "$HOSTS_IPCONFIG" \
    --workspace "$ws" --rel_data_path data --ssh_opts "$SSHO" \
    --parallel 4 >"$TMP/all.out" 2>&1
rc=$?
t1=$(now) c1=$(cpu)
all=$(el "$t0" "$t1") allcpu=$(el "$c0" "$c1")
rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$TMP/rss")
cat "$TMP/all.out"
[ "$rc" = 0 ] || { echo "copy failed" >&2; exit 1; }

# The largest part alone: remove it from its host and copy again.
big=0
bigsz=0
for i in 0 1 2 3; do
    sz=$(du -sbL "$src/part$i" | cut -f1)
    [ "$sz" -gt "$bigsz" ] && { big=$i; bigsz=$sz; }
done
rm -rf "$(host_dir "$big")/data/part$big"
t0=$(now) c0=$(cpu)
copy >"$TMP/one.out" 2>&1 || { cat "$TMP/one.out"; exit 1; }
t1=$(now) c1=$(cpu)
one=$(el "$t0" "$t1") onecpu=$(el "$c0" "$c1")
grep -E "^$(host_ip "$big") " "$TMP/one.out"

t0=$(now)
copy >"$TMP/re.out" 2>&1
t1=$(now)
re=$(el "$t0" "$t1")
grep -q 'nothing sent' "$TMP/re.out" || { cat "$TMP/re.out"; exit 1; }

# Reference: DGL's copy_files.py, one scp after another (the part folders).
rm -rf "$TMP/hosts"/h[0-9]/*
t0=$(now)
for i in 0 1 2 3; do
    ssh -F "$HOSTS_CFG" "$(host_ip "$i")" "mkdir -p '$ws/data'" &&
        scp -q -r -F "$HOSTS_CFG" "$src/part$i" "$(host_ip "$i"):$ws/data/" ||
        { echo "scp failed" >&2; exit 1; }
done
t1=$(now)
scp=$(el "$t0" "$t1")

echo
printf 'copy --parallel 4, 4 hosts:      %8s s\n' "$all"
printf 'largest host (part%d) alone:      %8s s\n' "$big" "$one"
printf 'ratio all / largest alone:       %8s   (target <= 1.2)\n' \
    "$(ratio "$all" "$one")"
# All hosts share this machine's cores: what the four transfers cost in CPU
# bounds their wall time here, whatever the overlap.
printf 'machine CPU, all / largest alone: %7s s / %s s = %s; all on %s cores >= %s s\n' \
    "$allcpu" "$onecpu" "$(ratio "$allcpu" "$onecpu")" "$(nproc)" \
    "$(awk -v c="$allcpu" -v n="$(nproc)" 'BEGIN { printf "%.2f", c / n }')"
printf 'unchanged re-run:                %8s s (target <= 1)\n' "$re"
printf 'sequential scp (copy_files.py):  %8s s, ratio copy / scp %s\n' "$scp" \
    "$(ratio "$all" "$scp")"
printf 'peak RSS of dglpart copy:        %8s KiB\n' "$rss"
echo "ssh options: $SSHO"
echo "machine: $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
