"""Check the trainer ids of a partition set made with
--num_trainers_per_machine T: every inner node's lies among its part's T
trainers, and every inner edge's is its destination's.

    trainer_ids.py CONFIG.json T

Exits 1 naming the part and the count of rows that differ."""
import json
import os
import sys

import numpy as np

from dglpart.dglfile import load_graph, load_tensors


def main(config, T):
    cfg = json.load(open(config))
    base = os.path.dirname(config)
    emap = cfg["edge_map"]
    emap = emap["_N:_E:_N"] if isinstance(emap, dict) else emap
    bad = 0
    for p in range(cfg["num_parts"]):
        d = os.path.join(base, "part%d" % p)
        g = load_graph(os.path.join(d, "graph.dgl"))
        ntr = load_tensors(os.path.join(d, "node_feat.dgl"))["_N/trainer_id"]
        etr = load_tensors(os.path.join(d, "edge_feat.dgl"))[
            "_N:_E:_N/trainer_id"]
        inner = g["edata"]["inner_edge"].astype(bool)
        # an inner edge's row is its shuffled id less the part's first
        rows = g["edata"]["_ID"][inner] - emap[p][0]
        dst = g["coo"][1][inner]
        n = int((etr[rows] != ntr[dst]).sum()) + int((ntr // T != p).sum())
        if n:
            print("part %d: %d trainer ids differ" % (p, n))
        bad += n
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
