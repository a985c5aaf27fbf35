"""Tests of the Python package on real graphs (Cora, and the typed graph
DGL's hetero fixtures were made from), checked against the input through
the returned mapping and against DGL's own partitions by content.

usage: test_dglpart.py FIXTURES HELPERS TMP
Prints "ok - ..." / "not ok - ..." and a final "N passed, N failed"."""

import os
import shutil
import subprocess
import sys
import traceback
import json

import numpy as np

import dglpart
from check_parts import check

FIX, HELPERS, TMP = sys.argv[1:4]
ETYPE = ("_N", "_E", "_N")


class Harness:
    passed = failed = 0

    def ok(self, cond, desc):
        if cond:
            self.passed += 1
            print("ok - " + desc)
        else:
            self.failed += 1
            print("not ok - " + desc)

    def raises(self, exc, match, desc, fn, *args, **kw):
        try:
            fn(*args, **kw)
        except exc as e:
            self.ok(match in str(e), "%s (%s: %s)" % (desc, type(e).__name__,
                                                       e))
            return
        except Exception as e:  # noqa: BLE001 - any other is a failure
            self.ok(False, "%s: raised %r" % (desc, e))
            return
        self.ok(False, desc + ": no exception")


t = Harness()


def out(name):
    return os.path.join(TMP, name)


def cora():
    d = os.path.join(FIX, "dgl-cora", "input")
    g = {k: np.load(os.path.join(d, k + ".npy"))
         for k in ("src", "dst", "feat", "label", "train_mask", "val_mask",
                   "test_mask")}
    for m in ("train_mask", "val_mask", "test_mask"):
        g[m] = g[m].astype(bool)
    return g


def cora_ndata(g):
    return {k: g[k] for k in ("feat", "label", "train_mask", "val_mask",
                              "test_mask")}


def hetero(g):
    """The heterograph of fixtures/dgl-cora-hetero/README.md."""
    words = g["feat"] != 0
    ps, ws = np.nonzero(words)
    feat = np.zeros((2708, 8), np.float32)
    for b in range(8):
        feat[:, b] = words[:, b::8].sum(1)
    src = {("paper", "cites", "paper"): g["src"],
           ("paper", "has", "word"): ps, ("word", "rev_has", "paper"): ws}
    dst = {("paper", "cites", "paper"): g["dst"],
           ("paper", "has", "word"): ws, ("word", "rev_has", "paper"): ps}
    ndata = {"paper": {"feat": feat, "label": g["label"],
                       "train_mask": g["train_mask"],
                       "val_mask": g["val_mask"],
                       "test_mask": g["test_mask"]},
             "word": {"count": words.sum(0).astype(np.float32)[:, None]}}
    edata = {("paper", "cites", "paper"):
             {"weight": np.arange(len(g["src"]), dtype=np.float32)}}
    return src, dst, {"paper": 2708, "word": 1433}, ndata, edata


def save_mapping(folder, nids, eids):
    """The mapping as DGL's fixtures keep it, for partcmp."""
    if isinstance(nids, dict):
        for nt, a in nids.items():
            np.save(os.path.join(folder, "orig_nids_%s.npy" % nt), a)
        for et, a in eids.items():
            np.save(os.path.join(folder, "orig_eids_%s.npy" % "_".join(et)),
                    a)
    else:
        np.save(os.path.join(folder, "orig_nids.npy"), nids)
        np.save(os.path.join(folder, "orig_eids.npy"), eids)


def run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        print("#   " + " ".join(cmd) + ": " + p.stderr.strip()[:800])
    return p.returncode


def test_homogeneous(g):
    w = np.arange(len(g["src"]), dtype=np.float32)
    nids, eids = dglpart.partition_arrays(
        g["src"], g["dst"], 2708, cora_ndata(g), {"weight": w},
        graph_name="cora", num_parts=4, out_path=out("hom4"),
        balance_ntypes=g["train_mask"], balance_edges=True,
        return_mapping=True)
    check(out("hom4/cora.json"), ["_N"], [ETYPE], {"_N": 2708},
          {ETYPE: g["src"]}, {ETYPE: g["dst"]}, {"_N": cora_ndata(g)},
          {ETYPE: {"weight": w}}, {"_N": nids}, {ETYPE: eids}, t)
    t.ok(sorted(os.listdir(out("hom4"))) ==
         ["cora.json", "part0", "part1", "part2", "part3"],
         "hom4: the files partition_graph writes, no others")
    t.ok(isinstance(nids, np.ndarray) and nids.dtype == np.int64,
         "hom4: mappings are int64 arrays")
    # balance_ntypes alone: train nodes within DGL's default 1.03
    nids, _ = dglpart.partition_arrays(
        g["src"], g["dst"], 2708, graph_name="cora", num_parts=4,
        out_path=out("bal4"), balance_ntypes=g["train_mask"],
        return_mapping=True)
    cfg = json.load(open(out("bal4/cora.json")))
    tm = g["train_mask"][nids]
    per = [int(tm[a:b].sum()) for a, b in cfg["node_map"]["_N"]]
    t.ok(max(per) * 4 <= 1.03 * sum(per) + 4, "bal4: train nodes balanced %s"
         % per)


def test_dgl_replay(g):
    """DGL's own assignment through part_assign: content equals DGL's."""
    w = np.arange(len(g["src"]), dtype=np.float32)
    for case, k, hops in (("metis4-train-edges", 4, 1), ("metis2-hops2", 2, 2),
                          ("one-part", 1, 1)):
        fix = os.path.join(FIX, "dgl-cora", case)
        kw = {}
        if k > 1:
            assign = out(case + ".txt")
            t.ok(run(os.path.join(HELPERS, "partcmp"), "assign", fix,
                     assign) == 0, case + ": DGL's assignment")
            kw["part_assign"] = assign
        nids, eids = dglpart.partition_arrays(
            g["src"], g["dst"], 2708, cora_ndata(g), {"weight": w},
            graph_name="cora", num_parts=k, out_path=out(case),
            num_hops=hops, return_mapping=True, **kw)
        save_mapping(out(case), nids, eids)
        t.ok(run(os.path.join(HELPERS, "partcmp"), "compare", fix,
                 out(case + "/cora.json")) == 0,
             case + ": same content as DGL's partition_graph")


def test_typed(g):
    src, dst, nn, nd, ed = hetero(g)
    ets = sorted(src)
    nids, eids = dglpart.partition_arrays(
        src, dst, nn, nd, ed, graph_name="cora_hetero", num_parts=4,
        out_path=out("het4"),
        balance_ntypes={"paper": g["train_mask"].astype(np.int64)},
        return_mapping=True)
    t.ok(set(nids) == {"paper", "word"} and set(eids) == set(ets),
         "typed: mappings are dicts by type")
    check(out("het4/cora_hetero.json"), ["paper", "word"], ets, nn, src,
          dst, nd, ed, nids, eids, t)
    for case, k in (("hetero-metis4-train", 4), ("hetero-metis2-edges", 2),
                    ("hetero-one-part", 1)):
        fix = os.path.join(FIX, "dgl-cora-hetero", case)
        kw = {}
        if k > 1:
            assign = out(case + "-assign")
            t.ok(run(os.path.join(HELPERS, "partcmp"), "assign", fix,
                     assign) == 0, case + ": DGL's assignment")
            kw["part_assign"] = assign
        nids, eids = dglpart.partition_arrays(
            src, dst, nn, nd, ed, graph_name="cora_hetero", num_parts=k,
            out_path=out(case), return_mapping=True, **kw)
        save_mapping(out(case), nids, eids)
        t.ok(run(os.path.join(HELPERS, "partcmp"), "compare", fix,
                 out(case + "/cora_hetero.json")) == 0,
             case + ": same content as DGL's partition_graph")


class StandIn:
    """What partition_graph reads of a DGLGraph, and nothing more: DGL's
    call shape without DGL. Tensors are torch's when torch is here."""

    class View:
        def __init__(self, data):
            self.data = data

    def __init__(self, src, dst, num_nodes, ndata, edata, wrap):
        self.ntypes = sorted(num_nodes)
        self.canonical_etypes = sorted(src)
        self._src = {k: wrap(v) for k, v in src.items()}
        self._dst = {k: wrap(v) for k, v in dst.items()}
        self._n = num_nodes
        self.nodes = {nt: self.View({k: wrap(v) for k, v in
                                     ndata.get(nt, {}).items()})
                      for nt in self.ntypes}
        self.edges_ = {et: self.View({k: wrap(v) for k, v in
                                      edata.get(et, {}).items()})
                       for et in self.canonical_etypes}

    def num_nodes(self, ntype=None):
        return self._n[ntype]

    def edges(self, form="uv", order="eid", etype=None):
        assert form == "uv" and order == "eid"
        return self._src[etype], self._dst[etype]

    def __getattr__(self, name):
        raise AttributeError(name)


# partition_graph reads g.edges[et].data; StandIn.edges is the method, so
# the view lives on a callable that can also be indexed, as DGL's is
class _Edges:
    def __init__(self, fn, views):
        self.fn, self.views = fn, views

    def __call__(self, *a, **kw):
        return self.fn(*a, **kw)

    def __getitem__(self, et):
        return self.views[et]


def stand_in(*args):
    s = StandIn(*args)
    s.edges = _Edges(s.edges, s.edges_)
    return s


def test_stand_in(g):
    try:
        import torch
        wrap = torch.from_numpy
    except ImportError:
        torch, wrap = None, (lambda a: a)
    w = np.arange(len(g["src"]), dtype=np.float32)
    hom = stand_in({ETYPE: g["src"]}, {ETYPE: g["dst"]}, {"_N": 2708},
                   {"_N": cora_ndata(g)}, {ETYPE: {"weight": w}}, wrap)
    r = dglpart.partition_graph(
        hom, "cora", 4, out("si-hom"), balance_ntypes=wrap(g["train_mask"]),
        balance_edges=True, return_mapping=True)
    r2 = dglpart.partition_arrays(
        g["src"], g["dst"], 2708, cora_ndata(g), {"weight": w},
        graph_name="cora", num_parts=4, out_path=out("si-arr"),
        balance_ntypes=g["train_mask"], balance_edges=True,
        return_mapping=True)
    kind = torch.Tensor if torch else np.ndarray
    t.ok(isinstance(r[0], kind) and isinstance(r[1], kind),
         "stand-in: mappings come back as the graph's tensors")
    t.ok(np.array_equal(np.asarray(r[0]), r2[0]) and
         np.array_equal(np.asarray(r[1]), r2[1]),
         "stand-in: same mapping as partition_arrays")
    same = all(
        open(os.path.join(out("si-hom"), f), "rb").read() ==
        open(os.path.join(out("si-arr"), f), "rb").read()
        for f in ("cora.json", "part0/graph.dgl", "part2/node_feat.dgl",
                  "part3/edge_feat.dgl"))
    t.ok(same, "stand-in: the same files as partition_arrays")
    src, dst, nn, nd, ed = hetero(g)
    het = stand_in(src, dst, nn, nd, ed, wrap)
    nids, eids = dglpart.partition_graph(
        het, "cora_hetero", 2, out("si-het"), balance_edges=True,
        return_mapping=True, num_trainers_per_machine=2)
    t.ok(isinstance(nids, dict) and set(eids) == set(src),
         "stand-in typed: dicts of tensors by type")
    check(out("si-het/cora_hetero.json"), ["paper", "word"], sorted(src), nn,
          src, dst, nd, ed, {k: np.asarray(v) for k, v in nids.items()},
          {k: np.asarray(v) for k, v in eids.items()}, t)
    nf = dglpart.load_tensors(out("si-het/part0/node_feat.dgl"))
    t.ok("paper/trainer_id" in nf and "word/trainer_id" in nf,
         "stand-in typed: trainer ids per type, as DGL adds them")


def test_errors(g):
    s, d, nd = g["src"], g["dst"], cora_ndata(g)
    base = dict(graph_name="cora", num_parts=2, out_path=out("bad"))
    pa = dglpart.partition_arrays
    A = dglpart.ArgumentError
    t.raises(A, "balance_ntypes", "balance_ntypes of the wrong length", pa,
             s, d, 2708, nd, balance_ntypes=g["train_mask"][:100], **base)
    t.raises(A, "num_parts", "num_parts < 1", pa, s, d, 2708,
             **dict(base, num_parts=0))
    t.raises(A, "num_parts", "more parts than nodes", pa, s, d, 2708,
             **dict(base, num_parts=5000))
    t.raises(A, "part_method", "unknown part_method", pa, s, d, 2708,
             part_method="kway", **base)
    t.raises(A, "objtype", "unknown objtype", pa, s, d, 2708, objtype="x",
             **base)
    t.raises(A, "graph_formats", "unknown graph format", pa, s, d, 2708,
             graph_formats=["coo", "dense"], **base)
    t.raises(A, "src and dst", "src and dst of other lengths", pa, s, d[:-1],
             2708, **base)
    bad = d.copy()
    bad[7] = 2708
    t.raises(A, "dst[7] = 2708 out of range", "an edge to a node that is not "
             "there", pa, s, bad, 2708, **base)
    t.raises(A, "src", "float node ids", pa, s.astype(np.float32), d, 2708,
             **base)
    t.raises(A, "expected 2708", "data of the wrong row count", pa, s, d,
             2708, {"feat": g["feat"][:10]}, **base)
    t.raises(A, "no partition option 'colour'", "an unknown option", pa, s,
             d, 2708, colour=1, **base)
    t.raises(A, "num_hops", "negative num_hops", pa, s, d, 2708, num_hops=-1,
             **base)
    t.raises(A, "use_graphbolt", "use_graphbolt", dglpart.partition_graph,
             object(), "cora", 2, out("bad"), use_graphbolt=True)
    t.raises(A, "expected a DGLGraph", "not a graph", dglpart.partition_graph,
             object(), "cora", 2, out("bad"))
    src, dst, nn, ndh, edh = hetero(g)
    t.raises(A, "balance_ntypes: no node type 'author'", "typed: balance of "
             "an unknown type", pa, src, dst, nn, ndh, edh,
             balance_ntypes={"author": np.zeros(3)}, **base)
    t.raises(A, "no node has value 1", "typed: balance values not 0..k-1",
             pa, src, dst, nn, ndh, edh,
             balance_ntypes={"paper": g["train_mask"] * 2}, **base)
    t.ok(not os.path.exists(out("bad")) and
         not os.path.exists(out("bad.tmp")),
         "no error left anything at out_path")
    # an input mapped from a file inside out_path
    os.makedirs(out("holds"))
    np.save(out("holds/feat.npy"), g["feat"])
    mm = np.load(out("holds/feat.npy"), mmap_mode="r")
    t.raises(A, "holds data 'feat'", "out_path holding an input", pa, s, d,
             2708, {"feat": mm}, graph_name="cora", num_parts=2,
             out_path=out("holds"))
    t.raises(A, "which no partition writes", "out_path holding other files",
             pa, s, d, 2708, graph_name="cora", num_parts=2,
             out_path=out("holds"))
    t.ok(os.path.exists(out("holds/feat.npy")), "the other files are kept")
    # an earlier partition set is replaced whole
    pa(s, d, 2708, graph_name="cora", num_parts=4, out_path=out("again"))
    pa(s, d, 2708, graph_name="cora", num_parts=2, out_path=out("again"))
    t.ok(sorted(os.listdir(out("again"))) == ["cora.json", "part0", "part1"],
         "a rerun replaces the earlier partition set")


def test_interrupt(g):
    """The library stops at its next step once asked to, and the failure
    path leaves nothing at out_path."""
    from dglpart import _lib
    clear = _lib.lib.dp_interrupt_clear
    _lib.lib.dp_interrupt_clear = lambda: None
    _lib.lib.dp_interrupt()
    try:
        t.raises(KeyboardInterrupt, "interrupted", "a pending interrupt "
                 "stops the run", dglpart.partition_arrays, g["src"],
                 g["dst"], 2708, cora_ndata(g), graph_name="cora",
                 num_parts=2, out_path=out("intr"))
    finally:
        _lib.lib.dp_interrupt_clear = clear
        clear()
    t.ok(not os.path.exists(out("intr")) and
         not os.path.exists(out("intr.tmp")), "interrupted: nothing left")


def main():
    g = cora()
    for f in (test_homogeneous, test_dgl_replay, test_typed, test_stand_in,
              test_errors, test_interrupt):
        try:
            f(g)
        except Exception:  # noqa: BLE001 - report and go on
            traceback.print_exc()
            t.ok(False, f.__name__ + " raised")
    shutil.rmtree(os.path.join(TMP, "holds"), ignore_errors=True)
    print("%d passed, %d failed" % (t.passed, t.failed))
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
