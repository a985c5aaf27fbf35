#!/bin/sh
# dglpart run --no_cache: the dataset is converted into a scratch folder
# under --cache whose edge files go once the parts are past them and which
# is gone when the run ends, success or not; the multilevel path makes its
# symmetrised graph again for the last refinement rather than keep it
# beside the levels. The parts are those of a cached run; a valid cached
# copy is used, not removed; scratch folders of runs no longer alive are
# cleared.
. "$(dirname "$0")/lib.sh"

cd "$TMP" || exit 1
cp -r "$TOP/datasets/citeseer" cite
scratch_left() { find "$1" -maxdepth 1 -name 'cite-converted.scratch-*' | wc -l; }

for flags in "--balance_train --balance_edges" \
    "--balance_train --halo_edges in --graph_formats csc --no_orig_eids"; do
    rm -rf c1 c2 o1 o2
    # shellcheck disable=SC2086
    expect_ok "cached: $flags" "$DGLPART" --num_parts 4 --dataset cite \
        --cache c1 --output o1 $flags
    # shellcheck disable=SC2086
    expect_ok "--no_cache: $flags" "$DGLPART" -v --num_parts 4 \
        --dataset cite --cache c2 --output o2 --no_cache $flags
    expect_stderr "into 'c2/cite-converted.scratch-[0-9]*' \(removed when done\)" \
        "--no_cache: converts into a scratch folder"
    case $flags in
    *--no_orig_eids*) files="indices.npy, eids.npy and indptr.npy" ;;
    *) files="indices.npy" ;;
    esac
    expect_stderr "scratch dataset: $files removed" \
        "--no_cache: $files removed before the parts"
    expect_eq "$(sed -n 's/^dglpart: \(scratch dataset\|part 0\).*/\1/p' \
        "$ERR" | tr '\n' ,)" "scratch dataset,part 0," \
        "--no_cache: the edge files go before part 0 is written"
    expect_eq "$(cd o1 && find . -type f | sort | xargs sha256sum)" \
        "$(cd o2 && find . -type f | sort | xargs sha256sum)" \
        "--no_cache: the parts of a cached run ($flags)"
    expect_eq "$(ls c2)" "" "--no_cache: nothing left in the cache folder"
done
expect_ok "verify a --no_cache run" "$DGLPART" verify o2/cite.json \
    --dataset c1/cite-converted

# the multilevel path with levels: the symmetrised graph goes once the
# first level is built and is made again for the last refinement from a
# compressed copy (or, where none can be made, by symmetrising again), in
# memory and (a tight --mem_limit) in scratch files; the parts stay those
# of a cached run
plan_mib() {
    sed -n 's/.*plan: memory about \([0-9.]*\) MiB .*/\1/p' "$ERR" |
        awk '{ printf "%d", $1 * 1.5 + 1 }'
}
# finest_steps [PREFIX]: the finest level's steps logged after PREFIX
# (dglpart by default), in order
finest_steps() {
    sed -n "s/^${1:-dglpart}: \\(finest level [a-z]*\\|symmetrise again\\|level 0 refined\\|level 1 refined\\).*/\\1/p" \
        "$ERR" | tr '\n' ,
}
same_parts() {
    expect_eq "$(cd o1 && find . -type f | sort | xargs sha256sum)" \
        "$(cd "$1" && find . -type f | sort | xargs sha256sum)" "$2"
}
rm -rf c1 c2 o1 o2
export DGLPART_ML_NODES_PER_PART=20
expect_ok "multilevel, cached" "$DGLPART" -vv --num_parts 4 --dataset cite \
    --cache c1 --output o1 --metis_mode multilevel --balance_train
expect_stderr "^dglpart: level 2: " "multilevel: coarse levels built"
lim=$(plan_mib)
# no_cache_run COPY: a --no_cache run into o2, the finest level's copy
# where DGLPART_TEST_FINE_COPY=COPY puts it
no_cache_run() {
    rm -rf o2
    DGLPART_TEST_FINE_COPY=$1 expect_ok "multilevel, --no_cache, copy: $1" \
        "$DGLPART" -vv --num_parts 4 --dataset cite --cache c2 --output o2 \
        --metis_mode multilevel --balance_train --no_cache
}
no_cache_run file
expect_eq "$(finest_steps)" \
    "finest level compressed,level 1 refined,finest level kept,level 0 refined," \
    "--no_cache: the graph is compressed, and refined as it is"
expect_stderr "finest level compressed to a scratch file: [0-9]* bytes" \
    "--no_cache: the copy is in a scratch file"
expect_stderr "finest level kept compressed for its refinement, its pages kept while the process is under [0-9.]+ MiB$" \
    "--no_cache: the copy's pages kept below the run's peak"
same_parts o2 "--no_cache, multilevel: the parts of a cached run"
no_cache_run decode
expect_eq "$(finest_steps)" \
    "finest level compressed,level 1 refined,finest level decoded,level 0 refined," \
    "--no_cache: the copy decoded before the finest level's refinement"
same_parts o2 "--no_cache, the copy decoded: the parts of a cached run"
# FM without its gain table reads plain rows: the copy is decoded
DGLPART_TEST_FM_CACHE_MAX=0 no_cache_run file
expect_eq "$(finest_steps)" \
    "finest level compressed,level 1 refined,finest level decoded,level 0 refined," \
    "--no_cache, FM without its table: the copy decoded"
rm -rf o6
DGLPART_TEST_FM_CACHE_MAX=0 expect_ok "multilevel, cached, FM without its table" \
    "$DGLPART" --num_parts 4 --dataset cite --cache c1 --output o6 \
    --metis_mode multilevel --balance_train
expect_eq "$(cd o6 && find . -type f | sort | xargs sha256sum)" \
    "$(cd o2 && find . -type f | sort | xargs sha256sum)" \
    "--no_cache, FM without its table: the parts of a cached run"
rm -rf o6
no_cache_run memory
expect_stderr "finest level compressed in memory: [0-9]* bytes" \
    "--no_cache: the copy in memory where no scratch file can be made"
same_parts o2 "--no_cache, copy in memory: the parts of a cached run"
no_cache_run none
expect_eq "$(finest_steps)" "level 1 refined,symmetrise again,level 0 refined," \
    "--no_cache without a copy: the graph is symmetrised again"
same_parts o2 "--no_cache, symmetrised again: the parts of a cached run"
# DGLPART_TEST_LEAN_DISK: `dglpart partition` takes that path on a
# converted dataset, which stays; the parts are those of a plain run
rm -rf o6 o7
expect_ok "partition, multilevel" "$DGLPART" partition c1/cite-converted \
    --num_parts 4 --output o6 --metis_mode multilevel --balance_train
DGLPART_TEST_LEAN_DISK=1 expect_ok "partition, the lean path" "$DGLPART" -vv \
    partition c1/cite-converted --num_parts 4 --output o7 \
    --metis_mode multilevel --balance_train
expect_eq "$(finest_steps 'dglpart partition')" \
    "finest level compressed,level 1 refined,finest level kept,level 0 refined," \
    "DGLPART_TEST_LEAN_DISK: the graph is compressed, and refined as it is"
expect_eq "$(cd o6 && find . -type f | sort | xargs sha256sum)" \
    "$(cd o7 && find . -type f | sort | xargs sha256sum)" \
    "DGLPART_TEST_LEAN_DISK: the parts of a plain run"
expect_eq "$(ls c1/cite-converted/indices.npy)" "c1/cite-converted/indices.npy" \
    "DGLPART_TEST_LEAN_DISK: the dataset stays"
rm -rf o6 o7
expect_ok "multilevel, --no_cache, --mem_limit ${lim}M" "$DGLPART" -v \
    --num_parts 4 --dataset cite --cache c2 --output o3 --no_cache \
    --metis_mode multilevel --balance_train --mem_limit "${lim}M"
expect_stderr "every graph in a scratch file" "--mem_limit: graphs in files"
expect_stderr "finest level kept compressed for its refinement" \
    "--mem_limit: the graph is refined on its copy"
same_parts o3 "--no_cache, graphs in files: the parts of a cached run"
unset DGLPART_ML_NODES_PER_PART
rm -rf o3

# a valid cached copy is used and kept
expect_ok "--no_cache with a cache" "$DGLPART" --num_parts 4 --dataset cite \
    --cache c1 --output o3 --no_cache --balance_train --halo_edges in \
    --graph_formats csc --no_orig_eids
expect_stderr "using the converted dataset in 'c1/cite-converted'" \
    "--no_cache: a valid cached copy is used"
expect_ok "--no_cache: the cached copy is kept" \
    test -f c1/cite-converted/indices.npy
expect_ok "the same from the cache" "$DGLPART" --num_parts 4 --dataset cite \
    --cache c1 --output o5 --balance_train --halo_edges in \
    --graph_formats csc --no_orig_eids
cmp_files o5/part3/graph.dgl o3/part3/graph.dgl "--no_cache: same parts"

# scratch folders of dead runs go; a failed run leaves none
dead=$(sh -c 'echo $$')
mkdir -p c4/cite-converted.scratch-$dead c4/cite-converted.scratch-$dead.tmp \
    c4/cite-converted.scratch-$$ c4/other.scratch-$dead
expect_fail 1 "--no_cache: a run that fails" "$DGLPART" --num_parts 100000 \
    --dataset cite --cache c4 --output o4 --no_cache
expect_stderr "more parts than the 3312 nodes" "--no_cache: the failure named"
expect_eq "$(ls c4 | tr '\n' ' ')" "cite-converted.scratch-$$ other.scratch-$dead " \
    "--no_cache: the dead runs' scratch and the failed run's gone, a live one kept"
finish
