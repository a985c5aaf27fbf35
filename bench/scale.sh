#!/bin/sh
# The whole pipeline at papers100M's size (issue 17): rmat graphs written in
# the layout ogbn-papers100M ships (raw/data.npz with edge_index int64 [2, E],
# node_feat, node_year; raw/node-label.npz; split/time), by bench/gengraph.c,
# deflated as np.savez_compressed writes it (FORMAT=npz: stored, twice the
# disk).
# For each SCALE, `dglpart --dataset DIR --num_parts K --balance_train
# --balance_edges` end to end, then `dglpart verify`; prints wall, peak RSS
# and peak anonymous memory (RssAnon, sampled every second) with its bytes
# per edge, each step's wall and peak RSS (from -v), the disk of input,
# converted cache and output, the peak disk the run took beyond its input
# (sampled every second: cache, scratch files and parts), and the
# wall as a ratio of reading the input once (`cat > /dev/null` of the same
# files, cold cache, same run).
#
#   flock /tmp/dglpart-bench.lock sh bench/scale.sh
#   SCALES="21 23 25 27" EF=12 PARTS=4 FEAT=8 sh bench/scale.sh
#   VERIFY=0 skips the verify, KEEP=1 keeps the run's folder
#   FLAGS="... --no_cache" keeps no converted copy (no verify then)
#   V=-vv times each level too (in $work/run.log, with KEEP=1)
#
# Needs, per billion edges (EF 12, FEAT 8): input 11.6 GB deflated (19.7
# stored), converted cache 12.3 GB, parts 57 GB; with
# FLAGS="--balance_train --balance_edges --halo_edges in
# --graph_formats csc --no_orig_eids" cache 8.3 GB and parts 24.4 GB
# (rmat 27; the scratch files stay below the parts); generation about
# 15 min per billion edges on one core. rmat 27 x 12 (1.61B edges) thus
# needs 72 GB free with those flags, 64 GB with --no_cache as well (run
# 28 GB per billion edges: 45.1 GB beyond the input, measured). The script refuses to generate a
# graph whose input and run cannot fit (at those sizes, 5% over).
# Targets (issue 17): peak RSS <= 20 GiB and wall <= 60 min at rmat 27 x 12.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bd=${BENCHDATA:-/work/benchdata}/scale
scales=${SCALES:-"21 23 25 27"}
ef=${EF:-12}
parts=${PARTS:-4}
feat=${FEAT:-8}
format=${FORMAT:-npzc}
flags=${FLAGS:---balance_train --balance_edges}
mkdir -p "$bd"
make -C "$top" -s -j2 dglpart build/rel/bench/gengraph
gen=$top/build/rel/bench/gengraph

# disk_used DIR PATTERN: bytes in DIR plus the scratch files (unlinked,
# O_TMPFILE) held open by processes whose command line has PATTERN
disk_used() {
    # files and processes come and go while sampled: none of that stops
    # the sampler (set -e)
    used=$(du -sB1 "$1" 2>/dev/null | cut -f1)
    used=${used:-0}
    for pid in $(pgrep -f -- "$2"); do
        for fd in /proc/"$pid"/fd/*; do
            case $(readlink "$fd" 2>/dev/null) in
            *"(deleted)") used=$((used + $(stat -L -c '%b * %B' "$fd" 2>/dev/null || echo 0))) ;;
            esac
        done
    done
    echo "$used"
}

# anon_kib PATTERN: RssAnon summed over the processes whose command line
# has PATTERN
anon_kib() {
    a=0
    for pid in $(pgrep -f -- "$1"); do
        k=$(sed -n 's/^RssAnon:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/"$pid"/status 2>/dev/null || true)
        a=$((a + ${k:-0}))
    done
    echo "$a"
}

measure() {
    # measure LOG CMD...: prints "seconds kib"; the most disk the work
    # folder and its scratch files took while CMD ran goes to LOG.disk,
    # the most anonymous memory (RssAnon: no file pages) to LOG.anon
    log=$1; shift
    echo 0 >"$log.anon"
    ( peak=0 apeak=0
      while :; do
          u=$(disk_used "$work" "$work")
          [ "$u" -gt "$peak" ] && peak=$u && echo "$peak" >"$log.disk"
          a=$(anon_kib "$work")
          [ "$a" -gt "$apeak" ] && apeak=$a && echo "$apeak" >"$log.anon"
          sleep 1
      done ) &
    sampler=$!
    /usr/bin/time -v "$@" 2>"$log" >"$log.out" ||
        { kill "$sampler"; tail -5 "$log" >&2; return 1; }
    kill "$sampler"
    wait "$sampler" 2>/dev/null || true
    # what the run left behind counts too (the last sample may predate it)
    u=$(disk_used "$work" "$work")
    [ "$u" -gt "$(cat "$log.disk" 2>/dev/null || echo 0)" ] && echo "$u" >"$log.disk"
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" |
           awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
    echo "$wall $rss"
}

free_bytes() { df -B1 --output=avail "$1" | tail -n 1; }

printf '%-6s %12s %9s %9s %9s %9s %7s %10s %10s %10s %10s %s\n' graph \
    edges wall_s rss_mib anon_mib anonB/e ratio input_GB cache_GB out_GB \
    peak_GB verify
for s in $scales; do
    name=rmat${s}x$ef${feat:+f$feat}
    [ "$format" = npz ] || name=$name-$format
    data=$bd/$name
    e=$((ef << s))
    n=$((1 << s))
    # bytes an edge (EF 12, FEAT 8) of the input, and of the cache and
    # the parts with the lean flags or without (rmat 26 and 27): refuse up
    # front a graph that cannot fit
    in_b=12 run_b=70
    [ "$format" = npz ] && in_b=20
    case "$flags" in
    *--halo_edges\ in*--graph_formats\ csc*--no_orig_eids*) run_b=33 ;;
    esac
    # --no_cache: the cache's indices.npy and indptr.npy go before the
    # parts are written
    case "$flags" in *--no_cache*) run_b=$((run_b - 5)) ;; esac
    need=$((e * (in_b + run_b) / 20 * 21))
    if [ ! -f "$data/raw/data.npz" ]; then
        avail=$(free_bytes "$bd")
        if [ "$avail" -lt "$need" ]; then
            echo "$name: needs about $((need >> 30)) GiB free in $bd," \
                "has $((avail >> 30)) GiB; skipped" >&2
            continue
        fi
        rm -rf "$data.tmp"
        "$gen" rmat "$s" "$ef" "$data.tmp" --format "$format" --feat "$feat" \
            --seed 7 >/dev/null
        mv "$data.tmp" "$data"
    fi
    work=$bd/$name-run
    rm -rf "$work"
    mkdir -p "$work"
    sync
    echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
    set -- $(measure "$work/read.log" sh -c "cat '$data'/raw/*.npz >/dev/null")
    read_s=$1
    echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
    # shellcheck disable=SC2086
    set -- $(measure "$work/run.log" "$top/dglpart" "${V:--v}" --dataset "$data" \
        --num_parts "$parts" $flags --output "$work/data" \
        --cache "$work/cache") || { echo "$name: dglpart failed" >&2; continue; }
    wall=$1 rss=$2
    peak=$(cat "$work/run.log.disk" 2>/dev/null || echo 0)
    anon=$(cat "$work/run.log.anon" 2>/dev/null || echo 0)
    if [ "${VERIFY:-1}" = 0 ]; then
        verify=skipped
    elif case "$flags" in *--no_cache*) true ;; *) false ;; esac; then
        verify="skipped (--no_cache)"
    else
        if r=$(measure "$work/verify.log" "$top/dglpart" verify \
            "$work/data/$name.json" --dataset "$work/cache/$name-converted")
        then
            set -- $r
            verify="ok ${1}s $(($2 >> 10))MiB anon $(($(cat \
                "$work/verify.log.anon") >> 10))MiB"
        else
            verify=FAILED
        fi
    fi
    printf '%-6s %12d %9.1f %9d %9d %9.2f %7.2f %10.2f %10.2f %10.2f %10.2f %s\n' \
        "$s" "$e" "$wall" "$((rss >> 10))" "$((anon >> 10))" \
        "$(awk -v r="$anon" -v e="$e" 'BEGIN { print r * 1024 / e }')" \
        "$(awk -v w="$wall" -v r="$read_s" 'BEGIN { print w / (r > 0 ? r : 1) }')" \
        "$(du -sb "$data" | awk '{ print $1 / 1e9 }')" \
        "$(du -sb "$work/cache" | awk '{ print $1 / 1e9 }')" \
        "$(du -sb "$work/data" | awk '{ print $1 / 1e9 }')" \
        "$(awk -v p="$peak" 'BEGIN { print p / 1e9 }')" \
        "$verify"
    # the steps -v timed, with the peak RSS reached by each
    sed -n 's/^dglpart: \(.*\): \([0-9.]*\) s, peak RSS \(.*\)$/    \1: \2 s, peak \3/p' \
        "$work/run.log"
    grep -E '^(partitioned|  balance)' "$work/run.log.out" | sed 's/^/    /'
    [ "${KEEP:-0}" = 1 ] || rm -rf "$work"
done
