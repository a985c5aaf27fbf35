#!/bin/sh
# Converting under mpirun (issue 37): rmat SCALE x 12 as DGL's chunked
# format (16 chunks a type, 8 features, labels and masks), as a plain edge
# list, gzipped, as papers100M's layout (raw/data.npz) and as OGB's csv
# folder (8 features, labels, a split),
# converted by one process (dglpart convert, the reference) and by P = 2
# and 4 ranks together (mpirun -np P dglpart convert) into one folder; the
# chunked input once more with --copy_data (the features copied into the
# folder rather than read in place). The gzipped list and the OGB folder's
# edges are inflated whole by every rank, each parsing its blocks of lines
# (rank 0 reads the OGB node files). Prints wall and the largest process's
# peak RSS of each, as ratios to one process's, and checks the ranks'
# folder is one process's byte for byte. With P ranks on 2 cores the wall
# cannot fall much below one process's here; the memory a rank needs can.
#
#   flock /tmp/dglpart-bench.lock sh bench/mpi_convert.sh
#   (SCALES, RANKS; INPUTS: some of "chunked edgelist gz npz ogb")
#
# Needs at scale 23 (100M edges): the converted npz graph of bench/mpi.sh
# (made when missing), an edge list of 1.5 GB (and gzipped, 0.8 GB), a
# chunked copy of 2.2 GB, the OGB folder of 1.1 GB, two converted folders
# of 1.2 GB at a time; about 15 minutes.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
scales=${SCALES:-23}
ranks=${RANKS:-"2 4"}
inputs=${INPUTS:-"chunked edgelist gz npz ogb"}
# shellcheck source=bench/mpi_lib.sh
. "$top/bench/mpi_lib.sh"
make -C "$top" -s -j2 dglpart build/rel/bench/gengraph build/rel/helpers/mkchunked

same() {
    for f in $(cd "$1" && find . -type f | sort); do
        cmp -s "$1/$f" "$2/$f" || { echo "differs: $f"; return 1; }
    done
}

# one_input NAME PATH: one process, then each P, into $bd/cv-*
one_input() {
    rm -rf "$bd/cv-one"
    r=$(wall_rss "$top/dglpart" convert "$2" --out "$bd/cv-one")
    one_s=${r% *} one_k=${r#* }
    echo "  $1: one process $one_s s, peak RSS $((one_k / 1024)) MiB," \
        "folder $(du -sm "$bd/cv-one" | cut -f1) MiB"
    if [ -f "$2/metadata.json" ]; then
        # the features copied into the folder, as before they were kept
        rm -rf "$bd/cv-copy"
        r=$(wall_rss "$top/dglpart" convert "$2" --copy_data --out "$bd/cv-copy")
        echo "    --copy_data: ${r% *} s, peak RSS $((${r#* } / 1024)) MiB," \
            "folder $(du -sm "$bd/cv-copy" | cut -f1) MiB"
        rm -rf "$bd/cv-copy"
    fi
    for p in $ranks; do
        rm -rf "$bd/cv-p"
        r=$(wall_rss mpirun --allow-run-as-root --oversubscribe -np "$p" \
            "$top/dglpart" convert "$2" --out "$bd/cv-p")
        same "$bd/cv-one" "$bd/cv-p" || exit 1
        awk -v p="$p" -v s="${r% *}" -v k="${r#* }" -v s1="$one_s" \
            -v k1="$one_k" 'BEGIN {
            printf "    %d ranks: %.1f s (%.2fx), largest process %d MiB " \
                "(%.2fx), the same folder\n", p, s, s / s1, k / 1024, k / k1 }'
    done
    rm -rf "$bd/cv-one" "$bd/cv-p"
}

for s in $scales; do
    g="$bd/rmat$s"
    rmat_graph "$s"
    echo "rmat $s x 12, converted:"
    case " $inputs " in *" chunked "*)
        [ -f "$g-chunked/metadata.json" ] ||
            "$top/build/rel/helpers/mkchunked" "$g-ds" "$g-chunked" 16
        one_input "chunked (16 chunks, 8 features)" "$g-chunked" ;;
    esac
    case " $inputs " in *" edgelist "* | *" gz "*)
        [ -f "$g-el/edges.txt" ] ||
            "$top/build/rel/bench/gengraph" rmat "$s" 12 "$g-el" --seed 7 \
                --format edgelist >/dev/null ;;
    esac
    case " $inputs " in *" edgelist "*)
        one_input "edge list ($(du -h "$g-el/edges.txt" | cut -f1))" \
            "$g-el/edges.txt" ;;
    esac
    case " $inputs " in *" gz "*)
        [ -f "$g-el/edges.txt.gz" ] ||
            gzip -1 -c "$g-el/edges.txt" >"$g-el/edges.txt.gz"
        one_input "gzipped edge list ($(du -h "$g-el/edges.txt.gz" | cut -f1))" \
            "$g-el/edges.txt.gz" ;;
    esac
    case " $inputs " in *" npz "*)
        one_input "papers100M's layout ($(du -sh "$g" | cut -f1), data.npz)" \
            "$g" ;;
    esac
    case " $inputs " in *" ogb "*)
        [ -f "$g-ogb/raw/edge.csv.gz" ] ||
            "$top/build/rel/bench/gengraph" rmat "$s" 12 "$g-ogb" --seed 7 \
                --feat 8 >/dev/null
        one_input "OGB folder ($(du -sh "$g-ogb" | cut -f1), 8 features)" \
            "$g-ogb" ;;
    esac
done
