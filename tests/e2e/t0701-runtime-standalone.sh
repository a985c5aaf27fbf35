#!/bin/sh
# dglpart sample standalone on DGL's own cora partitions: checksums are
# reproducible, depend on the seed, add up over trainers, and misuse fails.
. "$(dirname "$0")/lib.sh"

F=$SHARED/fixtures/dgl-cora

expect_ok "sample one-part" "$DGLPART" sample --part_config "$F/one-part/cora.json" --standalone --seed 3
expect_stdout '^checksum [0-9a-f]{16}$' "checksum line on stdout"
expect_stderr 'epoch 0: 1 batches, 140 seeds, [0-9]+ sampled edges.*edges/s' "throughput on stderr"
a=$(cat "$OUT")
expect_ok "again, same seed" "$DGLPART" sample --part_config "$F/one-part/cora.json" --standalone --seed 3
expect_eq "$(cat "$OUT")" "$a" "same seed, same checksum"
expect_ok "DGL_DIST_MODE=standalone" env DGL_DIST_MODE=standalone "$DGLPART" sample --part_config "$F/one-part/cora.json" --seed 3
expect_eq "$(cat "$OUT")" "$a" "environment selects standalone"
expect_ok "other seed" "$DGLPART" sample --part_config "$F/one-part/cora.json" --standalone --seed 4
[ "$(cat "$OUT")" != "$a" ] && pass "other seed, other checksum" || fail "other seed, other checksum"

# 4 parts in one process, 3 epochs, 3 layers, full last layer
expect_ok "sample metis4 standalone" "$DGLPART" sample --part_config "$F/metis4-train-edges/cora.json" --standalone --fanouts 5,-1,3 --batch_size 20 --epochs 3 --seed 9
expect_stderr 'epoch 2: 7 batches, 140 seeds' "3 epochs of 7 batches"
expect_ok "metis2-hops2 standalone" "$DGLPART" sample --part_config "$F/metis2-hops2/cora.json" --standalone --seed 1
h2=$(cat "$OUT")
expect_stdout '^checksum [0-9a-f]{16}$' "hops-2 parts: a checksum"
expect_stderr 'epoch 0: [0-9]+ batches, 140 seeds, [1-9][0-9]* sampled edges' \
    "hops-2 parts: every train node seeded, edges sampled"
expect_ok "metis2-hops2 again" "$DGLPART" sample --part_config "$F/metis2-hops2/cora.json" --standalone --seed 1
expect_eq "$(cat "$OUT")" "$h2" "hops-2 parts: the same samples run after run"

# trainers split the train nodes: 70 + 70
expect_ok "rank 0 of 2" env RANK=0 WORLD_SIZE=2 "$DGLPART" sample --part_config "$F/metis4-train-edges/cora.json" --standalone --seed 9
expect_stderr 'trainer 0 of 2: 70 of 140 train nodes' "rank 0 gets half"

# misuse and failures
expect_fail 2 "fanout 0 is misuse" "$DGLPART" sample --part_config "$F/one-part/cora.json" --standalone --fanouts 5,0
expect_fail 2 "bad batch size" "$DGLPART" sample --part_config "$F/one-part/cora.json" --standalone --batch_size x
expect_fail 2 "no config" env -u DGL_CONF_PATH "$DGLPART" sample --standalone
expect_fail 2 "rank beyond world size" env RANK=2 WORLD_SIZE=2 "$DGLPART" sample --part_config "$F/one-part/cora.json" --standalone
expect_fail 1 "missing config file" "$DGLPART" sample --part_config "$TMP/nope.json" --standalone
expect_fail 1 "unknown feature" "$DGLPART" sample --part_config "$F/one-part/cora.json" --standalone --feat nosuch
expect_stderr "no node feature 'nosuch'" "missing feature named"

# a truncated part file is an error, not a crash
mkdir -p "$TMP/cut/part0"
cp "$F/one-part/cora.json" "$TMP/cut/"
cp "$F/one-part/part0/node_feat.dgl" "$F/one-part/part0/edge_feat.dgl" "$TMP/cut/part0/"
head -c 100000 "$F/one-part/part0/graph.dgl" >"$TMP/cut/part0/graph.dgl"
expect_fail 1 "truncated graph.dgl" "$DGLPART" sample --part_config "$TMP/cut/cora.json" --standalone
expect_stderr 'graph.dgl' "error names the file"
finish
