"""Partitions a random graph big enough to take seconds; says "calling"
on stdout just before the library starts, so a parent can send SIGINT
while it runs. usage: interrupt_child.py OUT"""

import signal
import sys

import numpy as np

import dglpart

# a shell starts background jobs with SIGINT ignored: take it back
signal.signal(signal.SIGINT, signal.default_int_handler)
rng = np.random.default_rng(7)
n, e = 300_000, 3_000_000
src = rng.integers(0, n, e, dtype=np.int64)
dst = rng.integers(0, n, e, dtype=np.int64)
feat = rng.random((n, 16), dtype=np.float32)
print("calling", flush=True)
try:
    dglpart.partition_arrays(src, dst, n, {"feat": feat}, graph_name="g",
                             num_parts=4, out_path=sys.argv[1])
except KeyboardInterrupt as e:
    print("interrupted: %s" % e, flush=True)
    sys.exit(130)
print("finished", flush=True)
