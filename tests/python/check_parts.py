"""Checks a partition set against the graph it came from, through the
mapping partition_graph returned: every node's features, every edge's
endpoints and data, inner flags, and that each input edge is inner in
exactly one part. Reads the files with dglpart's own readers."""

import json
import os

import numpy as np

from dglpart.dglfile import load_graph, load_tensors


def _ranges(cfg, key, names):
    """{type: [(start, end) per part]} from node_map/edge_map."""
    m = cfg[key]
    return {t: [tuple(r) for r in m[t]] for t in names}


def _global_to_input(ranges, names, mapping):
    """Per global shuffled id: (type index, input id within the type)."""
    total = sum(b - a for t in names for a, b in ranges[t])
    tid = np.full(total, -1, np.int64)
    iid = np.full(total, -1, np.int64)
    for i, t in enumerate(names):
        k = 0
        for a, b in ranges[t]:
            tid[a:b] = i
            iid[a:b] = mapping[t][k:k + b - a]
            k += b - a
    return tid, iid


def check(cfg_path, ntypes, etypes, num_nodes, src, dst, ndata, edata,
          orig_nids, orig_eids, t):
    """ntypes [names], etypes [(s, r, d)], src/dst {etype: array},
    ndata {ntype: {name: array}}, edata {etype: {name: array}},
    orig_nids {ntype: array}, orig_eids {etype: array}; t: the test
    harness (t.ok(cond, desc))."""
    cfg = json.load(open(cfg_path))
    top = os.path.dirname(cfg_path)
    enames = [":".join(e) for e in etypes]
    t.ok(sorted(cfg["ntypes"], key=cfg["ntypes"].get) == ntypes,
         "config: node types in DGL's order")
    t.ok(sorted(cfg["etypes"], key=cfg["etypes"].get) == enames,
         "config: edge types in DGL's order")
    for nt in ntypes:
        m = orig_nids[nt]
        t.ok(len(m) == num_nodes[nt] and
             np.array_equal(np.sort(m), np.arange(num_nodes[nt])),
             "orig_nids[%s] is a permutation" % nt)
    for et in etypes:
        m = orig_eids[et]
        t.ok(len(m) == len(src[et]) and
             np.array_equal(np.sort(m), np.arange(len(src[et]))),
             "orig_eids[%s] is a permutation" % (et,))
    nr = _ranges(cfg, "node_map", ntypes)
    er = _ranges(cfg, "edge_map", enames)
    ntid, nin = _global_to_input(nr, ntypes, orig_nids)
    etid, ein = _global_to_input(
        er, enames, {":".join(e): orig_eids[e] for e in etypes})
    seen = {et: np.zeros(len(src[et]), np.int64) for et in etypes}
    bad_edge = bad_flag = bad_feat = 0
    for p in range(cfg["num_parts"]):
        part = cfg["part-%d" % p]
        g = load_graph(os.path.join(top, part["part_graph"]))
        nid = g["ndata"]["_ID"].astype(np.int64)
        inner = g["ndata"]["inner_node"].astype(bool)
        lsrc, ldst = g["coo"] if "coo" in g else (None, None)
        if lsrc is None:
            csc = g["csc"]
            ldst = np.repeat(np.arange(g["num_nodes"]),
                             np.diff(csc["indptr"]))
            lsrc = csc["indices"]
        eid = g["edata"]["_ID"].astype(np.int64)
        if "csc" in g and "coo" not in g and len(g["csc"]["data"]):
            eid = eid[g["csc"]["data"]]
        inner_e = g["edata"]["inner_edge"].astype(bool)
        if "coo" not in g:
            inner_e = inner_e[g["csc"]["data"]] if len(g["csc"]["data"]) \
                else inner_e
        gs, gd = nid[lsrc], nid[ldst]
        bad_flag += int(np.sum(inner_e != inner[ldst]))
        for k in np.nonzero(inner_e)[0]:
            ti, ii = etid[eid[k]], ein[eid[k]]
            et = etypes[ti]
            ok = (ntypes[ntid[gs[k]]] == et[0] and
                  ntypes[ntid[gd[k]]] == et[2] and
                  nin[gs[k]] == src[et][ii] and nin[gd[k]] == dst[et][ii])
            bad_edge += not ok
            seen[et][ii] += 1
        nf = load_tensors(os.path.join(top, part["node_feats"]))
        for i, nt in enumerate(ntypes):
            a, b = nr[nt][p]
            for name, arr in ndata.get(nt, {}).items():
                got = nf.get("%s/%s" % (nt, name))
                want = arr[nin[a:b]]
                if want.dtype == bool:
                    want = want.astype(np.uint8)
                if got is None or got.dtype != want.dtype or \
                        not np.array_equal(got, want):
                    bad_feat += 1
        ef = load_tensors(os.path.join(top, part["edge_feats"]))
        for et, named in edata.items():
            a, b = er[":".join(et)][p]
            for name, arr in named.items():
                got = ef.get("%s/%s" % (":".join(et), name))
                if got is None or not np.array_equal(got, arr[ein[a:b]]):
                    bad_feat += 1
    t.ok(bad_edge == 0, "every inner edge joins its input endpoints (%d bad)"
         % bad_edge)
    t.ok(bad_flag == 0, "an edge is inner iff its destination is (%d bad)"
         % bad_flag)
    t.ok(all(np.all(s == 1) for s in seen.values()),
         "every input edge is inner in exactly one part")
    t.ok(bad_feat == 0, "every node and edge data row is the input's (%d "
         "bad)" % bad_feat)
