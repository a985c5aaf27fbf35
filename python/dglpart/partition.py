"""partition_graph, a drop-in for dgl.distributed.partition_graph, and
partition_arrays, the same on numpy arrays. Arguments are checked and
passed to the C library in place; the library does the work."""

import ctypes
import os

import numpy as np

from ._lib import ArgumentError, check, lib, run_interruptible

NTYPE, ETYPE = "_N", ("_N", "_E", "_N")
# DGL's own fields in a graph's data, which partition_graph never copies
_RESERVED = {"_ID", "inner_node", "inner_edge"}
_FORMATS = ("coo", "csr", "csc")


def _etype_key(et):
    """A canonical edge type as DGL's tuple (src, rel, dst)."""
    if isinstance(et, str):
        parts = et.split(":")
        if len(parts) == 3:
            return tuple(parts)
    elif isinstance(et, tuple) and len(et) == 3:
        return tuple(str(x) for x in et)
    raise ArgumentError(
        "edge type %r: expected a canonical type (src, rel, dst) or "
        "'src:rel:dst'" % (et,))


def _array(x, what, dtypes=None):
    """x as a C-ordered numpy array, sharing memory where it can (a torch
    tensor on the CPU, a contiguous numpy array); dtypes: allowed kinds."""
    if hasattr(x, "detach"):  # torch
        try:
            x = x.detach().cpu().numpy()
        except (TypeError, RuntimeError) as e:
            raise ArgumentError("%s: cannot be read as a numpy array (%s)"
                                % (what, e)) from None
    try:
        a = np.asarray(x)
    except Exception as e:  # noqa: BLE001 - anything array-like may fail
        raise ArgumentError("%s: not an array (%s)" % (what, e)) from None
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    if dtypes is not None and a.dtype.kind not in dtypes:
        raise ArgumentError("%s: dtype %s, expected %s" % (
            what, a.dtype, {"iu": "integers", "iub": "integers or bools"}
            .get(dtypes, dtypes)))
    if a.dtype.kind not in "biuf" or a.dtype.name == "float128":
        raise ArgumentError("%s: dtype %s, expected bool, integer or float"
                            % (what, a.dtype))
    return np.ascontiguousarray(a)


def _ids(x, what):
    a = _array(x, what, "iu")
    if a.ndim != 1:
        raise ArgumentError("%s: expected a 1-D array, found shape %s"
                            % (what, a.shape))
    if a.dtype.name not in ("int32", "int64"):
        a = a.astype(np.int64)
    return a


def _int(x, what, lo):
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise ArgumentError("%s: expected an integer, found %r" % (what, x))
    if x < lo:
        raise ArgumentError("%s = %d: must be at least %d" % (what, x, lo))
    return int(x)


def _check_out(out_path, arrays):
    """out_path as a string; no input array may live in it (it is
    replaced)."""
    if not isinstance(out_path, (str, os.PathLike)) or not str(out_path):
        raise ArgumentError("out_path: expected a folder path, found %r"
                            % (out_path,))
    out = os.path.realpath(os.fspath(out_path))
    for what, a in arrays:
        base = a
        while base is not None and not isinstance(base, np.memmap):
            base = getattr(base, "base", None)
        fn = getattr(base, "filename", None)
        if fn and os.path.realpath(fn).startswith(out + os.sep):
            raise ArgumentError("out_path '%s' holds %s ('%s'), which the "
                                "partition would replace" % (out_path, what,
                                                             fn))
    return os.fspath(out_path)


def _formats(graph_formats):
    if graph_formats is None:
        return None
    fl = [graph_formats] if isinstance(graph_formats, str) else \
        list(graph_formats)
    for f in fl:
        if f not in _FORMATS:
            raise ArgumentError("graph_formats: %r is not one of coo, csr, "
                                "csc" % (f,))
    if not fl:
        raise ArgumentError("graph_formats: empty")
    return ",".join(fl)


class _Graph:
    """The arrays of one call, handed to the library; holds them alive."""

    def __init__(self):
        self.g = lib.dp_arrays_new()
        if not self.g:
            check(2)
        self.keep = []

    def close(self):
        if self.g:
            lib.dp_arrays_free(self.g)
            self.g = None

    def ntype(self, name, count):
        check(lib.dp_arrays_add_ntype(self.g, name.encode(), count))

    def etype(self, name, src, dst):
        self.keep += [src, dst]
        check(lib.dp_arrays_add_etype(self.g, name.encode(), len(src),
                                      src.dtype.name.encode(),
                                      src.ctypes.data, dst.ctypes.data))

    def data(self, edge, t, name, a):
        self.keep.append(a)
        shape = (ctypes.c_int64 * a.ndim)(*a.shape)
        check(lib.dp_arrays_add_data(self.g, edge, t, name.encode(),
                                     a.dtype.name.encode(), a.ndim, shape,
                                     a.ctypes.data))

    def balance(self, t, a):
        self.keep.append(a)
        check(lib.dp_arrays_set_balance(self.g, t, a.dtype.name.encode(),
                                        a.ctypes.data))

    def option(self, name, value=None):
        check(lib.dp_arrays_set_option(
            self.g, name.encode(),
            None if value is None else str(value).encode()))


def _partition(ntypes, etypes, ndata, edata, balance, graph_name, num_parts,
               out_path, num_hops, part_method, balance_edges,
               return_mapping, num_trainers_per_machine, objtype,
               graph_formats, options):
    """ntypes [(name, count)], etypes [(key, src, dst)], ndata/edata
    {type index: {name: array}}, balance {type index or -1: array}.
    Returns per-type (orig_nids, orig_eids) lists, or None."""
    if not isinstance(graph_name, str) or not graph_name or \
            "/" in graph_name:
        raise ArgumentError("graph_name %r: expected a non-empty name "
                            "without '/'" % (graph_name,))
    num_parts = _int(num_parts, "num_parts", 1)
    num_hops = _int(num_hops, "num_hops", 0)
    num_trainers_per_machine = _int(num_trainers_per_machine,
                                    "num_trainers_per_machine", 1)
    if part_method not in ("metis", "random"):
        raise ArgumentError("part_method %r: expected 'metis' or 'random'"
                            % (part_method,))
    if objtype not in ("cut", "vol"):
        raise ArgumentError("objtype %r: expected 'cut' or 'vol'"
                            % (objtype,))
    fmts = _formats(graph_formats)
    arrays = [("edges", a) for _, s, d in etypes for a in (s, d)]
    arrays += [("data '%s'" % n, a) for dd in (ndata, edata)
               for t in dd.values() for n, a in t.items()]
    out = _check_out(out_path, arrays)
    g = _Graph()
    try:
        for name, count in ntypes:
            g.ntype(name, count)
        for key, src, dst in etypes:
            g.etype(":".join(key), src, dst)
        for edge, dd in ((0, ndata), (1, edata)):
            for t, named in dd.items():
                for name, a in named.items():
                    g.data(edge, t, name, a)
        for t, a in balance.items():
            g.balance(t, a)
        g.option("num_parts", num_parts)
        g.option("num_hops", num_hops)
        g.option("part_method", part_method)
        g.option("num_trainers_per_machine", num_trainers_per_machine)
        g.option("objtype", objtype)
        if balance_edges:
            g.option("balance_edges")
        if fmts:
            g.option("graph_formats", fmts)
        for k, v in options.items():
            if v is True:
                g.option(k)
            elif v is not False and v is not None:
                g.option(k, v)
        nids = eids = None
        if return_mapping:
            nids = np.empty(lib.dp_arrays_num_nodes(g.g), np.int64)
            eids = np.empty(lib.dp_arrays_num_edges(g.g), np.int64)
        run_interruptible(lib.dp_arrays_partition, g.g, graph_name.encode(),
                          out.encode(),
                          None if nids is None else nids.ctypes.data,
                          None if eids is None else eids.ctypes.data)
    finally:
        g.close()
    if not return_mapping:
        return None
    # grouped by type in type order: split at the types' counts
    nsplit = np.cumsum([c for _, c in ntypes])[:-1]
    esplit = np.cumsum([len(s) for _, s, _ in etypes])[:-1]
    return np.split(nids, nsplit), np.split(eids, esplit)


def _named(d, what):
    if d is None:
        return {}
    if not isinstance(d, dict):
        raise ArgumentError("%s: expected a dict of name -> array" % what)
    return d


def partition_arrays(src, dst, num_nodes, ndata=None, edata=None, *,
                     graph_name, num_parts, out_path, num_hops=1,
                     part_method="metis", balance_ntypes=None,
                     balance_edges=False, return_mapping=False,
                     num_trainers_per_machine=1, objtype="cut",
                     graph_formats=None, **options):
    """Partition a graph given as arrays, as partition_graph would.

    Homogeneous: src, dst 1-D integer arrays (edge k: src[k] -> dst[k]),
    num_nodes an int, ndata/edata {name: array} (first dimension the node
    or edge count), balance_ntypes an array of one value a node.

    Typed: src and dst {(srctype, rel, dsttype): array}, num_nodes
    {ntype: count}, ndata {ntype: {name: array}}, edata {etype: {name:
    array}}, balance_ntypes {ntype: array of 0..k-1}. Types are taken in
    sorted order, as dgl.heterograph orders them.

    Other options of `dglpart partition` may be given by name (seed=1,
    imbalance=1.05, halo_edges="in", metis_mode="exact", mem_limit="8G").
    Returns (orig_nids, orig_eids) with return_mapping=True: numpy arrays,
    or dicts by type for a typed graph; entry k is the input id (within
    its type) of the node or edge whose new id (within its type) is k.
    """
    typed = isinstance(num_nodes, dict)
    if typed != isinstance(src, dict) or typed != isinstance(dst, dict):
        raise ArgumentError("src, dst and num_nodes: give all three as "
                            "dicts by type (a typed graph) or none")
    if not typed:
        num_nodes = {NTYPE: _int(num_nodes, "num_nodes", 0)}
        src, dst = {ETYPE: src}, {ETYPE: dst}
        ndata = {NTYPE: _named(ndata, "ndata")}
        edata = {ETYPE: _named(edata, "edata")}
        if balance_ntypes is not None:
            balance_ntypes = {NTYPE: balance_ntypes}
    ntnames = sorted(num_nodes)
    tid = {n: i for i, n in enumerate(ntnames)}
    keys = sorted(_etype_key(k) for k in src)
    if sorted(_etype_key(k) for k in dst) != keys:
        raise ArgumentError("src and dst: not the same edge types")
    srcs = {_etype_key(k): v for k, v in src.items()}
    dsts = {_etype_key(k): v for k, v in dst.items()}
    ntypes = [(n, _int(num_nodes[n], "num_nodes[%r]" % n, 0))
              for n in ntnames]
    etypes = []
    for k in keys:
        if k[0] not in tid or k[2] not in tid:
            raise ArgumentError("edge type %r: node type %r is not in "
                                "num_nodes" % (k, k[0] if k[0] not in tid
                                               else k[2]))
        label = "" if not typed else "[%r]" % (k,)
        s, d = _ids(srcs[k], "src" + label), _ids(dsts[k], "dst" + label)
        if len(s) != len(d):
            raise ArgumentError("src%s and dst%s: %d and %d edges"
                                % (label, label, len(s), len(d)))
        if s.dtype != d.dtype:
            s, d = s.astype(np.int64), d.astype(np.int64)
        etypes.append((k, s, d))
    eid = {k: i for i, k in enumerate(keys)}

    def data(dd, what, index, edge):
        out = {}
        for t, named in _named(dd, what).items():
            key = _etype_key(t) if edge else t
            if key not in index:
                raise ArgumentError("%s: no %s type %r" % (
                    what, "edge" if edge else "node", t))
            arrs = {}
            for name, a in _named(named, "%s[%r]" % (what, t)).items():
                if name in _RESERVED:
                    continue
                label = "%s[%r]" % (what, name) if not typed else \
                    "%s[%r][%r]" % (what, t, name)
                arr = _array(a, label)
                if arr.ndim == 0:
                    raise ArgumentError("%s: a scalar, expected one row a "
                                        "%s" % (label, "edge" if edge
                                                else "node"))
                arrs[name] = arr
            out[index[key]] = arrs
        return out

    nd = data(ndata, "ndata", tid, 0)
    ed = data(edata, "edata", eid, 1)
    bal = {}
    if balance_ntypes is not None:
        if not isinstance(balance_ntypes, dict):
            raise ArgumentError("balance_ntypes: expected a dict by node "
                                "type for a typed graph")
        for t, a in balance_ntypes.items():
            if t not in tid:
                raise ArgumentError("balance_ntypes: no node type %r" % (t,))
            what = "balance_ntypes" if not typed else \
                "balance_ntypes[%r]" % (t,)
            arr = _array(a, what, "iub")
            if arr.ndim != 1 or len(arr) != num_nodes[t]:
                raise ArgumentError("%s: %s values, expected one a node (%d)"
                                    % (what, "x".join(map(str, arr.shape)),
                                       num_nodes[t]))
            bal[tid[t] if typed else -1] = arr
    res = _partition(ntypes, etypes, nd, ed, bal, graph_name, num_parts,
                     out_path, num_hops, part_method, balance_edges,
                     return_mapping, num_trainers_per_machine, objtype,
                     graph_formats, options)
    if res is None:
        return None
    nids, eids = res
    if not typed:
        return nids[0], eids[0]
    return ({n: nids[i] for i, n in enumerate(ntnames)},
            {k: eids[i] for i, k in enumerate(keys)})


def _torch_like(x, arrays):
    """Return arrays as torch tensors when the graph's are torch's."""
    try:
        import torch
    except ImportError:
        return arrays
    if not isinstance(x, torch.Tensor):
        return arrays
    if isinstance(arrays, dict):
        return {k: torch.from_numpy(v) for k, v in arrays.items()}
    return torch.from_numpy(arrays)


def partition_graph(g, graph_name, num_parts, out_path, num_hops=1,
                    part_method="metis", balance_ntypes=None,
                    balance_edges=False, return_mapping=False,
                    num_trainers_per_machine=1, objtype="cut",
                    graph_formats=None, use_graphbolt=False, **kwargs):
    """dgl.distributed.partition_graph, by dglpart: the same arguments,
    files and returns, in a fraction of the time and memory.

    g is a DGLGraph (homogeneous or typed); node and edge data are written
    under their own names. Options of `dglpart partition` that DGL lacks
    may be given by name (seed=1, imbalance=1.05, metis_mode="exact").
    """
    if use_graphbolt:
        raise ArgumentError(
            "use_graphbolt=True: dglpart writes DGL's graph.dgl parts; "
            "convert them with dgl.distributed.dgl_partition_to_graphbolt")
    for attr in ("ntypes", "canonical_etypes", "num_nodes", "edges",
                 "nodes"):
        if not hasattr(g, attr):
            raise ArgumentError("g: expected a DGLGraph, found %s (no %s)"
                                % (type(g).__name__, attr))
    ntypes = list(g.ntypes)
    etypes = [tuple(e) for e in g.canonical_etypes]
    hom = len(ntypes) == 1 and len(etypes) == 1
    num_nodes = {nt: int(g.num_nodes(nt)) for nt in ntypes}
    src, dst, ndata, edata = {}, {}, {}, {}
    first = None
    for et in etypes:
        s, d = g.edges(form="uv", order="eid", etype=et)
        src[et], dst[et] = s, d
        first = s if first is None else first
        edata[et] = dict(g.edges[et].data)
    for nt in ntypes:
        ndata[nt] = dict(g.nodes[nt].data)
    bal = balance_ntypes
    if bal is not None and hom and isinstance(bal, dict):
        if len(bal) != 1:
            raise ArgumentError("balance_ntypes: a dict with %d entries for "
                                "a graph of one node type" % len(bal))
        bal = list(bal.values())[0]
    if bal is not None and hom:
        bal = {ntypes[0]: bal}
    elif bal is not None and not isinstance(bal, dict):
        # DGL balances a typed graph's node types when no dict is given
        bal = None
    res = partition_arrays(
        src, dst, num_nodes, ndata, edata, graph_name=graph_name,
        num_parts=num_parts, out_path=out_path, num_hops=num_hops,
        part_method=part_method, balance_ntypes=bal,
        balance_edges=balance_edges, return_mapping=return_mapping,
        num_trainers_per_machine=num_trainers_per_machine, objtype=objtype,
        graph_formats=graph_formats, **kwargs)
    if res is None:
        return None
    nids, eids = res
    if hom:
        return (_torch_like(first, nids[ntypes[0]]),
                _torch_like(first, eids[etypes[0]]))
    return _torch_like(first, nids), _torch_like(first, eids)
