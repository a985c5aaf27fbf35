"""A cost model of the partition under mpirun, fitted to measured runs
(partition-stats.json files of bench/mpi.sh) and extrapolated to P
machines on a given network.

Per phase, the measured per-rank work is split into compute (seconds per
input edge a rank holds, taken from the run with the most ranks, where
each rank's share is smallest) and traffic (bytes per input edge, per
rank, measured); the initial partition at rank 0 is a fixed cost for a
coarse graph of about E / P entries, scaled from the one-rank run. Time on
P machines with bandwidth B and per-message latency L:

    T(P) = sum over phases of  c_phase * E / P  +  bytes_phase(P) / B
           + messages(P) * L  +  root(E / P)

Prints the predicted time of each phase for papers100M (1.6B edges) and a
10-billion-edge graph on 8 and 32 machines over 10 and 25 GbE, and which
term limits scaling: the per-level exchanges, the rank that partitions the
coarsest graph, or the dispatch of the parts.

usage: mpi_model.py stats-SCALE-P.json ...
"""

import json
import re
import sys

PHASES = ("graph", "partition", "parts")


def load(paths):
    runs = []
    for p in paths:
        m = re.search(r"stats-(\d+)-(\d+)\.json$", p)
        s = json.load(open(p))
        runs.append({"scale": int(m.group(1)), "P": int(m.group(2)),
                     "E": s["num_edges"], "ranks": s["ranks"]})
    return runs


def fit(runs):
    """Compute seconds per edge-share and bytes per edge for each phase."""
    big = max(runs, key=lambda r: (r["E"], r["P"]))
    one = [r for r in runs if r["P"] == 1 and r["E"] == big["E"]]
    P, E = big["P"], big["E"]
    m = {}
    for ph in PHASES:
        t = max(x[ph + "_s"] for x in big["ranks"])
        b = sum(x[ph + "_bytes"] for x in big["ranks"])
        # ranks share 2 cores here: a rank's compute ran at 2 / P of a core
        cores = min(P, 2)
        m[ph] = {"sec_per_edge": t * cores / P / (E / P) if P else t / E,
                 "bytes_per_edge": b / E}
    # the root's share: the one-rank partition phase is all of it
    m["root_sec_per_entry"] = (one[0]["ranks"][0]["partition_s"] / (2 * E)
                               if one else m["partition"]["sec_per_edge"])
    m["msgs"] = sum(x.get("messages", 0) for x in big["ranks"]) / P
    return m


def predict(m, E, P, gbit, latency=20e-6):
    bw = gbit * 1e9 / 8
    out = {}
    for ph in PHASES:
        compute = m[ph]["sec_per_edge"] * E / P
        # each rank sends its share; the bisection carries all of it
        traffic = m[ph]["bytes_per_edge"] * E / P / bw
        out[ph] = (compute, traffic)
    # the coarsest graph, about 2E / P entries, at one rank
    root = m["root_sec_per_entry"] * 2 * E / P
    msgs = m["msgs"] * P * latency
    return out, root, msgs


def main():
    runs = load(sys.argv[1:])
    if not runs:
        sys.exit("mpi_model.py: no stats files")
    m = fit(runs)
    print("model (fitted to %d runs): per input edge" % len(runs))
    for ph in PHASES:
        print("  %-9s %.1f ns of compute, %.1f bytes sent" % (
            ph, m[ph]["sec_per_edge"] * 1e9, m[ph]["bytes_per_edge"]))
    for name, E in (("papers100M (1.6B edges)", 1.6e9),
                    ("10B edges", 1e10)):
        print(name + ":")
        for P in (8, 32):
            for gbit in (10, 25):
                ph, root, msgs = predict(m, E, P, gbit)
                total = sum(c + t for c, t in ph.values()) + root + msgs
                terms = {"per-level exchanges": ph["partition"][1] + msgs,
                         "coarsest-level rank": root,
                         "dispatch": ph["parts"][1] + ph["graph"][1],
                         "compute": sum(c for c, _ in ph.values())}
                limit = max(terms, key=terms.get)
                print("  %2d machines, %2d GbE: %6.0f s  (graph %.0f+%.0f, "
                      "partition %.0f+%.0f, parts %.0f+%.0f, root %.0f; "
                      "limit: %s)" % (
                          P, gbit, total, *ph["graph"], *ph["partition"],
                          *ph["parts"], root, limit))


if __name__ == "__main__":
    main()
