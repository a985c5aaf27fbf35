# A trainer shaped like DGL's train_dist.py for the launch tests: it reads
# what torchrun (or dglpart's direct launcher) sets, opens a gloo process
# group when a real torch is installed, and records what it saw. Started
# as a server (DGL_ROLE=server) it waits to be stopped, as DGL's do.
#   dgl_trainer.py RECORD_DIR [--fail-rank R] [--local_rank N] [ARGS...]
import json
import os
import sys
import time

KEYS = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
        "GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_WORLD_SIZE", "ROLE_NAME",
        "MASTER_ADDR", "MASTER_PORT")


def say(line):
    # one write per line: workers of one torchrun share its stdout
    os.write(1, (line + "\n").encode())


def main(argv):
    # torch.distributed.launch's --local_rank=N comes first when passed
    args = [a for a in argv if not a.startswith("--local_rank=")]
    rec, args = args[0], argv
    if os.environ.get("DGL_ROLE") == "server":
        # as DGL's servers, it runs until the launcher stops it
        say("server %s up" % os.environ.get("DGL_SERVER_ID"))
        while True:
            time.sleep(3600)
    env = {k: v for k, v in os.environ.items()
           if k in KEYS or k.startswith(("DGL_", "TORCHELASTIC_"))}
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    out = {"env": env, "args": args, "gloo": None}
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        dist = None
    if dist is not None and hasattr(dist, "init_process_group"):
        import datetime
        dist.init_process_group("gloo",
                                timeout=datetime.timedelta(seconds=60))
        assert dist.get_rank() == rank and dist.get_world_size() == world
        t = torch.tensor([rank + 1.0])
        dist.all_reduce(t)
        out["gloo"] = t.item()
        dist.destroy_process_group()
    with open(os.path.join(rec, "rank-%d.json" % rank), "w") as f:
        json.dump(out, f, sort_keys=True)
    say("trainer rank %d of %d up" % (rank, world))
    if "--fail-rank" in args and int(args[args.index("--fail-rank") + 1]) == rank:
        print("trainer rank %d fails" % rank, file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
