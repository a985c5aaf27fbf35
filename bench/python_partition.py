"""One side of bench/python.sh: load an rmat graph (gengraph's npz layout)
into memory as a dgl.graph (or plain arrays without DGL), then partition
it with DGL's partition_graph or dglpart's, and print
"<who> <seconds of the call> <peak RSS KiB of the process>".

usage: python_partition.py dgl|dglpart|arrays DATA_DIR OUT PARTS"""

import os
import resource
import sys
import time

import numpy as np

who, data, out, parts = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
z = np.load(os.path.join(data, "raw", "data.npz"))
src, dst = z["edge_index"]
feat = z["node_feat"]
n = feat.shape[0]
train = np.zeros(n, bool)
with open(os.path.join(data, "split", "time", "train.csv")) as f:
    train[np.loadtxt(f, dtype=np.int64, ndmin=1)] = True

if who == "arrays":
    import dglpart
    t = time.time()
    dglpart.partition_arrays(src, dst, n, {"feat": feat, "train_mask": train},
                             graph_name="rmat", num_parts=parts,
                             out_path=out, balance_ntypes=train,
                             balance_edges=True, return_mapping=True)
else:
    import dgl
    import torch
    g = dgl.graph((torch.from_numpy(src), torch.from_numpy(dst)),
                  num_nodes=n)
    g.ndata["feat"] = torch.from_numpy(feat)
    g.ndata["train_mask"] = torch.from_numpy(train)
    del z, src, dst, feat
    if who == "dgl":
        from dgl.distributed import partition_graph
    else:
        from dglpart import partition_graph
    t = time.time()
    partition_graph(g, "rmat", parts, out,
                    balance_ntypes=g.ndata["train_mask"], balance_edges=True,
                    return_mapping=True)
secs = time.time() - t
print(who, "%.2f" % secs, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
