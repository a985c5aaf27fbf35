# A small torchrun for the launch tests: --nproc_per_node workers, each
# with the variables torch's LocalElasticAgent sets for a static
# rendezvous (torch/distributed/elastic/agent/server/local_elastic_agent.py),
# exit 1 when any worker fails. It dies like torch 1.13 on Python 3.11
# where the api module is marked BROKEN.
import os
import subprocess
import sys

from torch.distributed.elastic.multiprocessing.api import Std, to_map


def main(argv):
    opts, i = {}, 0
    while i < len(argv) and argv[i].startswith("--"):
        k, _, v = argv[i][2:].partition("=")
        opts[k] = v
        i += 1
    script, args = argv[i], argv[i + 1:]
    nproc, nnodes = int(opts["nproc_per_node"]), int(opts["nnodes"])
    node = int(opts["node_rank"])
    to_map(Std.from_str("0"), nproc)
    procs = []
    for t in range(nproc):
        rank = node * nproc + t
        env = dict(os.environ)
        env.update(
            LOCAL_RANK=str(t), RANK=str(rank), GROUP_RANK=str(node),
            ROLE_RANK=str(rank), ROLE_NAME="default",
            LOCAL_WORLD_SIZE=str(nproc), WORLD_SIZE=str(nnodes * nproc),
            GROUP_WORLD_SIZE=str(nnodes), ROLE_WORLD_SIZE=str(nnodes * nproc),
            MASTER_ADDR=opts["master_addr"], MASTER_PORT=opts["master_port"],
            TORCHELASTIC_RESTART_COUNT="0", TORCHELASTIC_MAX_RESTARTS="0",
            TORCHELASTIC_RUN_ID="none", TORCHELASTIC_USE_AGENT_STORE="True")
        procs.append(subprocess.Popen([sys.executable, "-u", script] + args,
                                      env=env))
    return 1 if any(p.wait() != 0 for p in procs) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
