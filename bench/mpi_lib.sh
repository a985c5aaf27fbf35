# shellcheck shell=sh
# Shared by bench/mpi.sh and bench/mpi_convert.sh (sourced, with top
# set): the bench folder $bd, Open MPI's session and shared-memory files
# in it, and wall_rss.
: "${top:?sourced with top set}"
bd=${BENCHDATA:-/work/benchdata}/mpi
mkdir -p "$bd"
export TMPDIR="$bd" OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_btl_vader_backing_directory="$bd"

# wall_rss CMD...: "seconds peak_kib" of the command (its children too:
# under mpirun, the largest rank)
wall_rss() {
    /usr/bin/time -f '%e %M' -o "$bd/time" "$@" >"$bd/out" 2>"$bd/err" ||
        { cat "$bd/err" >&2; exit 1; }
    cat "$bd/time"
}

# rmat_graph S: $bd/rmatS (rmat S x 12, 8 features, papers100M's npz
# layout) and its converted folder $bd/rmatS-ds, made when missing
rmat_graph() {
    [ -f "$bd/rmat$1/raw/data.npz" ] ||
        "$top/build/rel/bench/gengraph" rmat "$1" 12 "$bd/rmat$1" --seed 7 \
            --feat 8 --format npz >/dev/null
    [ -f "$bd/rmat$1-ds/meta.json" ] ||
        "$top/dglpart" convert "$bd/rmat$1" --out "$bd/rmat$1-ds" \
            >/dev/null 2>&1
}
