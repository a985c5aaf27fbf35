"""DGL's side of bench/runtime_dgl.sh: a DistGraph server, or a trainer that
runs DistNodeDataLoader over the train nodes with the work dglpart sample
does per batch, and prints its epochs in dglpart sample's own words.

  rt_dgl.py server SERVER_ID IP_CONFIG NUM_SERVERS NUM_CLIENTS PART_CONFIG
  rt_dgl.py trainer (PART_CONFIG | IP_CONFIG) GRAPH_NAME [EPOCHS]

The trainer reads DGL's own variables: DGL_DIST_MODE (standalone: the part
config is loaded in process; distributed: IP_CONFIG), DGL_NUM_SERVER,
DGL_NUM_SAMPLER. RT_DGL_MACHINE=i makes a trainer of a simulated host
machine i (see below). Needs PYTHONPATH with DGL's python folder.
"""
import os
import sys
import time

# launch.py gives servers one OpenMP thread, and trainers cores / 2 /
# trainers, which is one on this 2-core machine; samplers get one.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402
import dgl  # noqa: E402
import dgl.distributed  # noqa: E402
from dgl.distributed import rpc_client  # noqa: E402

# A client finds its machine by the addresses of its network interfaces;
# the simulated hosts are loopback addresses no interface holds, so every
# client would think it is on machine 0. Done at import, so that DGL's
# sampler processes (spawned, they import this file again) agree.
if os.environ.get("RT_DGL_MACHINE"):
    _machine = int(os.environ["RT_DGL_MACHINE"])
    rpc_client.get_local_machine_id = lambda namebook: _machine

FANOUTS = [25, 10]  # input layer first, as dglpart sample's --fanouts 25,10
BATCH = 1000


def server(server_id, ip_config, num_servers, num_clients, part_config):
    os.environ["DGL_DIST_MODE"] = "distributed"
    srv = dgl.distributed.DistGraphServer(
        int(server_id), ip_config, int(num_servers), int(num_clients),
        part_config, disable_shared_mem=False, graph_format=["csc"])
    srv.start()


def trainer(config, name, epochs):
    standalone = os.environ.get("DGL_DIST_MODE", "standalone") == "standalone"
    dgl.distributed.initialize(None if standalone else config)
    g = dgl.distributed.DistGraph(
        name, part_config=config if standalone else None)
    seeds = dgl.distributed.node_split(g.ndata["train_mask"],
                                       g.get_partition_book(), force_even=True)
    sampler = dgl.dataloading.MultiLayerNeighborSampler(FANOUTS)
    loader = dgl.dataloading.DistNodeDataLoader(
        g, seeds, sampler, batch_size=BATCH, shuffle=True, drop_last=False)
    feat, label = g.ndata["feat"], g.ndata["label"]
    for epoch in range(epochs):
        batches = nseeds = edges = fbytes = 0
        t0 = time.time()
        # What dglpart sample's trainer gets per batch: the blocks, the
        # input nodes' features, the seeds' labels and in-degrees. DGL's
        # samplers only sample; the trainer pulls the rest, as DGL's
        # examples do.
        for inputs, out, blocks in loader:
            x = feat[inputs]
            y = label[out]
            d = g.in_degrees(out)
            batches += 1
            nseeds += len(out)
            edges += sum(b.num_edges() for b in blocks)
            fbytes += x.numel() * x.element_size()
            del y, d
        dt = time.time() - t0
        print(f"rt_dgl: epoch {epoch}: {batches} batches, {nseeds} seeds, "
              f"{edges} sampled edges, {fbytes / 1e6:.1f} MB of features "
              f"in {dt:.3f} s: {edges / dt:.0f} edges/s, "
              f"{batches / dt:.1f} batches/s", file=sys.stderr, flush=True)
    dgl.distributed.exit_client()


if __name__ == "__main__":
    if len(sys.argv) >= 7 and sys.argv[1] == "server":
        server(*sys.argv[2:7])
    elif len(sys.argv) >= 4 and sys.argv[1] == "trainer":
        trainer(sys.argv[2], sys.argv[3],
                int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    else:
        sys.exit(__doc__)
