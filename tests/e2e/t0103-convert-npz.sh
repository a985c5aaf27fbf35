#!/bin/sh
# dglpart convert on .npz archives (zips of .npy arrays, streamed): the
# layouts of DGL's Reddit (scipy COO graph + reddit_data.npz with
# node_types) and OGB papers100M (raw/data.npz with edge_index [2, E],
# raw/node-label.npz with NaN for unlabelled), built here from DGL's Cora
# arrays, must give the same dataset as the plain .npy folder.
. "$(dirname "$0")/lib.sh"
CHK="$HELPERS/dscheck"
IN="$SHARED/fixtures/dgl-cora/input"

expect_ok "reference from the npy folder" "$DGLPART" convert "$IN" --out "$TMP/ref"

# src/dst/feat/label/masks in one .npz.
mkdir -p "$TMP/a"
cp "$IN"/*.npy "$TMP/a/"
(cd "$TMP/a" && zip -q -0 ../plain.npz *.npy)
expect_ok "plain npz" "$DGLPART" convert "$TMP/plain.npz" --out "$TMP/plain"
for f in indptr indices eids feat label train_mask val_mask test_mask; do
    cmp_files "$TMP/plain/$f.npy" "$TMP/ref/$f.npy" "plain npz: $f.npy"
done

# Reddit: graph as scipy COO (row, col, data, shape, format), node data
# with node_types 1/2/3 and float64 features, in a folder of two .npz.
mkdir -p "$TMP/reddit/g" "$TMP/reddit/d"
cp "$IN/src.npy" "$TMP/reddit/g/row.npy"
cp "$IN/dst.npy" "$TMP/reddit/g/col.npy"
cp "$IN/src.npy" "$TMP/reddit/g/data.npy"
# scipy also stores the format as a string array: skipped unread.
printf '\223NUMPY\001\000junk' >"$TMP/reddit/g/format.npy"
"$CHK" ints "$TMP/reddit/g/shape.npy" 2708 2708
"$CHK" f64 "$IN/feat.npy" "$TMP/reddit/d/feature.npy"
cp "$IN/label.npy" "$TMP/reddit/d/label.npy"
"$CHK" types "$IN/train_mask.npy" "$IN/val_mask.npy" "$IN/test_mask.npy" \
    "$TMP/reddit/d/node_types.npy"
mkdir -p "$TMP/rin"
(cd "$TMP/reddit/g" && zip -q ../../rin/reddit_self_loop_graph.npz *.npy)
(cd "$TMP/reddit/d" && zip -q ../../rin/reddit_data.npz *.npy)
expect_ok "reddit-style folder of npz" "$DGLPART" convert "$TMP/rin" --out "$TMP/rd"
for f in indptr indices eids feat label train_mask val_mask test_mask; do
    cmp_files "$TMP/rd/$f.npy" "$TMP/ref/$f.npy" "reddit layout: $f.npy"
done
expect_ok "reddit --undirected" "$DGLPART" convert "$TMP/rin" --undirected --out "$TMP/rdu"
run "$CHK" open "$TMP/rdu"
expect_stdout "nodes 2708 edges 10858 feat 1433 classes 7" "reddit --undirected doubles"

# papers100M: OGB folder with raw/data.npz and raw/node-label.npz.
mkdir -p "$TMP/p/d" "$TMP/p/l" "$TMP/pin/raw" "$TMP/pin/split/time"
"$CHK" stack "$IN/src.npy" "$IN/dst.npy" "$TMP/p/d/edge_index.npy"
cp "$IN/feat.npy" "$TMP/p/d/node_feat.npy"
"$CHK" flabel "$IN/label.npy" "$TMP/p/l/node_label.npy"
(cd "$TMP/p/d" && zip -q ../../pin/raw/data.npz *.npy)
(cd "$TMP/p/l" && zip -q ../../pin/raw/node-label.npz *.npy)
seq 0 2 99 | gzip >"$TMP/pin/split/time/train.csv.gz"
seq 1 2 99 | gzip >"$TMP/pin/split/time/valid.csv.gz"
seq 100 199 | gzip >"$TMP/pin/split/time/test.csv.gz"
expect_ok "papers100M layout" "$DGLPART" convert "$TMP/pin" --out "$TMP/pp"
run "$CHK" open "$TMP/pp"
expect_stdout "nodes 2708 edges 5429 feat 1433 classes 7 ncon 0 ew 0 splits 111" \
    "papers100M layout: counts and splits"
for f in indptr indices eids feat; do
    cmp_files "$TMP/pp/$f.npy" "$TMP/ref/$f.npy" "papers100M layout: $f.npy"
done
# Edges in scratch files from the start: each block of ids written leaves
# the resident set, its degrees counted on a thread beside the read, and
# the arrays are the same.
expect_ok "papers100M layout, edges spilled" env DGLPART_EDGE_SPILL=0 \
    "$DGLPART" -v convert "$TMP/pin" --out "$TMP/pps"
expect_stderr "csc: degrees counted in the read" "spilled: degrees from the read"
for f in indptr indices eids; do
    cmp_files "$TMP/pps/$f.npy" "$TMP/pp/$f.npy" "spilled edge_index: $f.npy"
done
# ... in chunks of 100 ids (the node count comes after the edges here, so
# the degrees grow with the ids, the queue drained first), and undirected
expect_ok "spilled, chunks of 100" env DGLPART_EDGE_SPILL=0 \
    DGLPART_TEST_NPZ_CHUNK=100 "$DGLPART" -v convert "$TMP/pin" --out "$TMP/pps100"
expect_stderr "csc: degrees counted in the read" "chunks of 100: degrees from the read"
for f in indptr indices eids; do
    cmp_files "$TMP/pps100/$f.npy" "$TMP/pp/$f.npy" "chunks of 100: $f.npy"
done
expect_fail 2 "DGLPART_TEST_NPZ_CHUNK=1 refused" env DGLPART_TEST_NPZ_CHUNK=1 \
    "$DGLPART" convert "$TMP/pin" --out "$TMP/pps1"
expect_stderr "DGLPART_TEST_NPZ_CHUNK" "DGLPART_TEST_NPZ_CHUNK=1: named"
# Degrees are counted as the ids stream in; undirected, both columns are.
expect_ok "npy folder --undirected" "$DGLPART" convert "$IN" --undirected \
    --out "$TMP/refu"
expect_ok "papers100M layout --undirected" "$DGLPART" convert "$TMP/pin" \
    --undirected --out "$TMP/ppu"
for f in indptr indices eids; do
    cmp_files "$TMP/ppu/$f.npy" "$TMP/refu/$f.npy" "edge_index --undirected: $f.npy"
done
expect_ok "papers100M layout --undirected, spilled" env DGLPART_EDGE_SPILL=0 \
    DGLPART_TEST_NPZ_CHUNK=100 "$DGLPART" -v convert "$TMP/pin" --undirected \
    --out "$TMP/ppus"
expect_stderr "csc: degrees counted in the read" "undirected, spilled: degrees from the read"
for f in indptr indices eids; do
    cmp_files "$TMP/ppus/$f.npy" "$TMP/refu/$f.npy" "undirected, spilled: $f.npy"
done
# A destination column given twice (dst, then col): the second one's ids
# are the edges, and the degrees counted from the first are not used.
mkdir -p "$TMP/twice" "$TMP/once"
cp "$IN/src.npy" "$IN/dst.npy" "$TMP/twice/"
cp "$IN/src.npy" "$TMP/twice/col.npy"
cp "$IN/src.npy" "$TMP/once/src.npy"
cp "$IN/src.npy" "$TMP/once/dst.npy"
(cd "$TMP/twice" && zip -q -0 ../twice.npz src.npy dst.npy col.npy)
(cd "$TMP/once" && zip -q -0 ../once.npz src.npy dst.npy)
expect_ok "a column twice" "$DGLPART" convert "$TMP/twice.npz" --num_nodes 2708 \
    --out "$TMP/tw"
expect_ok "the column once" "$DGLPART" convert "$TMP/once.npz" --num_nodes 2708 \
    --out "$TMP/on"
for f in indptr indices eids; do
    cmp_files "$TMP/tw/$f.npy" "$TMP/on/$f.npy" "a column twice: $f.npy"
done
# Label 0 is NaN (unlabelled, -1); label 1 is Cora's label of node 1.
expect_eq "$(od -An -t d8 -j 128 -N 16 "$TMP/pp/label.npy" | tr -s ' ')" \
    " -1 $(od -An -t d8 -j 136 -N 8 "$TMP/ref/label.npy" | tr -d ' ')" \
    "NaN labels become -1"
expect_eq "$(od -An -t u1 -j 128 -N 4 "$TMP/pp/train_mask.npy" | tr -s ' ')" \
    " 1 0 1 0" "OGB split read as a mask"

# Deflated entries are inflated by ISA-L straight from the zip, their CRC
# checked against the local header's or, when the zip was written to a
# pipe, the data descriptor's after the data; libarchive's zlib path
# (DGLPART_ZIP_INFLATE=zlib) must give the same dataset.
(cd "$TMP/p/d" && zip -q - *.npy) | cat >"$TMP/pipe.npz"
expect_eq "$(od -An -t u1 -j 6 -N 1 "$TMP/pipe.npz" | tr -d ' ')" 8 \
    "zip to a pipe: the entries have data descriptors"
mkdir -p "$TMP/pdesc/raw"
cp -r "$TMP/pin/split" "$TMP/pdesc/"
cp "$TMP/pipe.npz" "$TMP/pdesc/raw/data.npz"
cp "$TMP/pin/raw/node-label.npz" "$TMP/pdesc/raw/"
expect_ok "npz with data descriptors" "$DGLPART" convert "$TMP/pdesc" --out "$TMP/pd"
expect_ok "papers100M layout through zlib" \
    env DGLPART_ZIP_INFLATE=zlib "$DGLPART" convert "$TMP/pin" --out "$TMP/ppz"
for f in indptr indices eids feat label train_mask meta.json; do
    case $f in *.json) ;; *) f=$f.npy ;; esac
    cmp_files "$TMP/pp/$f" "$TMP/ppz/$f" "ISA-L and zlib agree: $f"
    [ "$f" = meta.json ] || cmp_files "$TMP/pd/$f" "$TMP/pp/$f" "data descriptors: $f"
done
# A wrong CRC (the same wrong value wherever the zip records it, so only
# the data can tell) and damaged deflate data, with and without
# descriptors.
python3 - "$TMP/pin/raw/data.npz" "$TMP/pipe.npz" "$TMP" <<'PY'
import struct, sys, zipfile
for src, tag in ((sys.argv[1], "hdr"), (sys.argv[2], "desc")):
    b = bytearray(open(src, "rb").read())
    info = zipfile.ZipFile(src).getinfo("edge_index.npy")
    crc = struct.pack("<I", info.CRC)
    # the local header's (0 with a descriptor) or the descriptor's, and
    # the central directory's
    assert b.count(crc) == 2, b.count(crc)
    open("%s/crc-%s.npz" % (sys.argv[3], tag), "wb").write(
        bytes(b).replace(crc, struct.pack("<I", info.CRC ^ 1)))
    at = info.header_offset + 30 + len(info.filename) + 200
    b[at:at + 64] = b"\xff" * 64
    open("%s/bits-%s.npz" % (sys.argv[3], tag), "wb").write(b)
PY
for tag in hdr desc; do
    expect_fail 1 "wrong CRC ($tag)" "$DGLPART" convert "$TMP/crc-$tag.npz" --out "$TMP/x"
    expect_stderr "^dglpart convert: '[^']*crc-$tag.npz:edge_index.npy': CRC mismatch: the data gives [0-9a-f]{8}, the zip says [0-9a-f]{8}$" \
        "wrong CRC ($tag): names the entry and both values"
    expect_missing "$TMP/x" "wrong CRC ($tag): no output"
    expect_fail 1 "damaged deflate data ($tag)" "$DGLPART" convert "$TMP/bits-$tag.npz" --out "$TMP/x"
    expect_stderr "^dglpart convert: '[^']*bits-$tag.npz:edge_index.npy'( at byte offset [0-9]+: bad deflate data|: CRC mismatch)" \
        "damaged deflate data ($tag): names the entry"
    expect_eq "$(wc -l <"$ERR")" 1 "damaged deflate data ($tag): one line"
done
expect_fail 1 "wrong CRC through zlib" \
    env DGLPART_ZIP_INFLATE=zlib "$DGLPART" convert "$TMP/crc-hdr.npz" --out "$TMP/x"
expect_stderr "crc-hdr.npz" "zlib: names the file"

# Bad npz: edge arrays of different lengths, wrong dtype, symlink entry.
mkdir -p "$TMP/b1"
cp "$IN/src.npy" "$TMP/b1/src.npy"
cp "$IN/label.npy" "$TMP/b1/dst.npy"
(cd "$TMP/b1" && zip -q ../bad1.npz src.npy dst.npy)
expect_fail 1 "npz edge arrays disagree" "$DGLPART" convert "$TMP/bad1.npz" --out "$TMP/x"
expect_stderr "bad1.npz:dst.npy': 2708 edge ends, but '.*src.npy' has 5429" "names both arrays"
expect_missing "$TMP/x" "no output"
cp "$IN/feat.npy" "$TMP/b1/dst.npy"
(cd "$TMP/b1" && rm -f ../bad2.npz && zip -q ../bad2.npz src.npy dst.npy)
expect_fail 1 "npz wrong dtype" "$DGLPART" convert "$TMP/bad2.npz" --out "$TMP/x"
expect_stderr "bad2.npz:dst.npy': expected integer node ids \[E\], found float32 \[2708, 1433\]" \
    "names the expected dtype and shape"
head -c 30000 "$TMP/plain.npz" >"$TMP/cut.npz"
expect_fail 1 "truncated npz" "$DGLPART" convert "$TMP/cut.npz" --out "$TMP/x"
expect_stderr "^dglpart convert: '[^']*cut.npz': truncated or damaged zip: expected its central directory at the end" \
    "names the file and what is missing"
expect_eq "$(wc -l <"$ERR")" 1 "truncated npz: one line"
expect_missing "$TMP/x" "no output"

# Inconsistent npz: edge_index's header against the entry's size, both
# ways (5000 edges of data under a [2, 5429] header, and the reverse),
# and no edge arrays at all.
python3 - "$TMP/p/d" "$TMP" <<'PY'
import struct, sys, zipfile
ei = open(sys.argv[1] + "/edge_index.npy", "rb").read()
off = 10 + struct.unpack("<H", ei[8:10])[0]
with zipfile.ZipFile(sys.argv[2] + "/short.npz", "w") as z:
    z.writestr("edge_index.npy", ei[:off + 2 * 5000 * 8])
with zipfile.ZipFile(sys.argv[2] + "/long.npz", "w") as z:
    z.writestr("edge_index.npy",
               ei[:off].replace(b"(2, 5429)", b"(2, 5000)") + ei[off:])
with zipfile.ZipFile(sys.argv[2] + "/noedges.npz", "w") as z:
    z.write(sys.argv[1] + "/node_feat.npy", "node_feat.npy")
PY
expect_fail 1 "npz shorter than its header" "$DGLPART" convert "$TMP/short.npz" --out "$TMP/x"
expect_stderr "^dglpart convert: '[^']*short.npz:edge_index.npy': its header promises int64 \[2, 5429\] \(86992 bytes with the header\), the entry holds 80128 bytes$" \
    "short: names the entry, the shape and both sizes"
expect_eq "$(wc -l <"$ERR")" 1 "short: one line"
expect_fail 1 "npz longer than its header" "$DGLPART" convert "$TMP/long.npz" --out "$TMP/x"
expect_stderr "long.npz:edge_index.npy': its header promises int64 \[2, 5000\] \(80128 bytes with the header\), the entry holds 86992 bytes$" \
    "long: extra data is refused, not ignored"
expect_fail 1 "npz without edges" "$DGLPART" convert "$TMP/noedges.npz" --out "$TMP/x"
expect_stderr "^dglpart convert: '[^']*noedges.npz': no edges: expected row and col, src and dst, or edge_index arrays$" \
    "no edges: names the file and the arrays expected"
expect_missing "$TMP/x" "no output"

# zip64: a 4.1 GiB entry first (a hole in a sparse file, skipped by the
# reader), then edge_index and node_feat past 4 GiB with zip64 sizes and
# offsets; the input's sha256 reads the hole as zeros without reading it.
python3 "$TOP/tests/helpers/mkzip64.py" "$TMP/z64.npz" 4.1 \
    edge_index.npy="$TMP/p/d/edge_index.npy" node_feat.npy="$TMP/p/d/node_feat.npy"
size=$(stat -c %s "$TMP/z64.npz")
expect_eq "$((size > 4 << 30))" 1 "zip64 npz: over 4 GiB long"
expect_eq "$(($(stat -c %b "$TMP/z64.npz") * $(stat -c %B "$TMP/z64.npz") < 64 << 20))" 1 \
    "zip64 npz: under 64 MiB on disk (sparse)"
expect_ok "zip64 npz" "$DGLPART" convert "$TMP/z64.npz" --out "$TMP/z64"
for f in indptr indices eids feat; do
    cmp_files "$TMP/z64/$f.npy" "$TMP/ref/$f.npy" "zip64 npz: $f.npy"
done
expect_eq "$(grep -c "\"size\":[[:space:]]*$size," "$TMP/z64/meta.json")" 1 \
    "zip64 npz: its size recorded with its sha256"
# the whole-run plan reads those arrays' headers past 4 GiB (zip64
# offsets) before converting anything, and refuses a budget far too small
shape() {
    python3 -c 'import ast, sys
f = open(sys.argv[1], "rb"); f.read(8)
h = f.read(int.from_bytes(f.read(2), "little")).decode()
print(ast.literal_eval(h)["shape"][int(sys.argv[2])])' "$@"
}
n=$(shape "$TMP/p/d/node_feat.npy" 0)
e=$(shape "$TMP/p/d/edge_index.npy" 1)
expect_fail 1 "zip64 npz, a budget far too small, before converting" \
    "$DGLPART" --dataset "$TMP/z64.npz" --num_parts 2 --cache "$TMP/zc" \
    --output "$TMP/zo" --mem_limit 1M
expect_stderr "^dglpart: not enough memory to convert and partition 'z64' \($n nodes, $e edges, from the arrays' headers\)" \
    "zip64 npz: exact counts from headers past 4 GiB"
expect_missing "$TMP/zc" "zip64 npz refused: no cache folder"
rm -f "$TMP/z64.npz"
finish
