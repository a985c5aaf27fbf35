# bench/rt_sets.sh, sourced by the runtime benchmarks: their input, rmat 20
# x 16 (bench/gengraph) with 32 float32 features, cut by bench/rt_mkparts
# into one part ($BD/rmat20-rt1) and two ($BD/rmat20-rt2), each made once.
#   rt_sets TOP BD   TOP: the source tree (build/rel/bench/ under it)

rt_sets() {
    for _set in rmat20-rt1:1 rmat20-rt2:2; do
        _d=${_set%:*}
        _n=${_set#*:}
        [ -f "$2/$_d/rmat20.json" ] && continue
        if [ ! -f "$2/rmat20/raw/edge.csv.gz" ]; then
            echo "making $2/rmat20 (once)" >&2
            "$1/build/rel/bench/gengraph" rmat 20 16 "$2/rmat20" --seed 1 >&2 || return 1
        fi
        echo "making $2/$_d (once)" >&2
        rm -rf "$2/$_d.tmp"
        "$1/build/rel/bench/rt_mkparts" "$2/rmat20" "$2/$_d.tmp" "$_n" 32 rmat20 >&2 &&
            mv "$2/$_d.tmp" "$2/$_d" || return 1
    done
}
