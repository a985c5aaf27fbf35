"""Readers of DGL's partition files without DGL: node_feat.dgl and
edge_feat.dgl (save_tensors) and graph.dgl (save_graphs v2), as numpy
arrays mapped from the file. For inspecting and testing parts."""

import mmap
import struct

import numpy as np

_TENSORS_MAGIC = 0xDD5A9FBE3FA2443F
_NDARRAY_MAGIC = 0xDD5E40F096B4A13F
_GRAPH_MAGIC = 0xDD2E4FF046B4A13F
_HETERO_MAGIC = 0xDD589FBE35224ABF
_IMMUTABLE_MAGIC = 0xDD3C5FFE20046ABF
_CSR_MAGIC = 0xDD6CD31205DFF127
_COO_MAGIC = 0xDD61FFD305DFF127
_UNIT_MAGIC = 0xDD2E60F0F6B4A127
_KINDS = {0: "i", 1: "u", 2: "f"}


class _Reader:
    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) \
                if f.seek(0, 2) else b""
        self.off = 0

    def fail(self, what):
        raise ValueError("'%s' offset %d: %s" % (self.path, self.off, what))

    def take(self, fmt):
        size = struct.calcsize(fmt)
        if self.off + size > len(self.buf):
            self.fail("truncated, expected %d more bytes" % size)
        v = struct.unpack_from(fmt, self.buf, self.off)
        self.off += size
        return v if len(v) > 1 else v[0]

    def magic(self, want, what):
        if self.take("<Q") != want:
            self.off -= 8
            self.fail("expected %s" % what)

    def string(self):
        n = self.take("<Q")
        if n > 1 << 16:
            self.fail("a name of %d bytes" % n)
        s = bytes(self.buf[self.off:self.off + n]).decode("utf-8", "replace")
        self.off += n
        return s

    def ndarray(self):
        self.magic(_NDARRAY_MAGIC, "an NDArray")
        _, _, _, ndim = self.take("<Qiii")
        code, bits, _ = self.take("<BBH")
        shape = self.take("<%dq" % ndim) if ndim else ()
        shape = shape if isinstance(shape, tuple) else (shape,)
        nbytes = self.take("<q")
        if code not in _KINDS or bits not in (8, 16, 32, 64):
            self.fail("dtype code %d, %d bits" % (code, bits))
        dt = np.dtype("<%s%d" % (_KINDS[code], bits // 8))
        count = int(np.prod(shape)) if shape else 1
        if nbytes != count * dt.itemsize or self.off + nbytes > len(self.buf):
            self.fail("%d data bytes for shape %s" % (nbytes, shape))
        a = np.frombuffer(self.buf, dt, count, self.off).reshape(shape)
        self.off += nbytes
        return a

    def named(self):
        return {self.string(): self.ndarray()
                for _ in range(self.take("<Q"))}


def load_tensors(path):
    """{name: numpy array} of a node_feat.dgl / edge_feat.dgl file."""
    r = _Reader(path)
    r.magic(_TENSORS_MAGIC, "a DGL tensor file")
    count = r.take("<Q")
    if r.take("<Q") != count:
        r.fail("the two entry counts differ")
    out = {}
    for _ in range(count):
        name = r.string()
        out[name] = r.ndarray()
    return out


def _csr(r):
    r.magic(_CSR_MAGIC, "a CSR matrix")
    cols, rows = r.take("<qq")
    indptr, indices, data = r.ndarray(), r.ndarray(), r.ndarray()
    r.take("<B")
    return {"num_rows": rows, "num_cols": cols, "indptr": indptr,
            "indices": indices, "data": data}


def load_graph(path):
    """The one graph of a part's graph.dgl: {"num_nodes", "ndata", "edata",
    and each stored format: "coo": (src, dst), "csc": {indptr, indices,
    data}, "csr": likewise}. Edge data ids are DGL's: an empty data array
    means the identity."""
    r = _Reader(path)
    r.magic(_GRAPH_MAGIC, "a DGL graph file")
    version, kind, ngraphs = r.take("<QQQ")
    if version != 2 or kind != 2 or ngraphs != 1:
        r.fail("version %d type %d with %d graphs, expected 2, 2, 1"
               % (version, kind, ngraphs))
    r.off = 4096
    start = r.take("<Q")
    r.off = start
    r.magic(_HETERO_MAGIC, "a heterograph")
    r.magic(_IMMUTABLE_MAGIC, "the metagraph")
    _csr(r)
    if r.take("<Q") != 1:
        r.fail("expected one relation graph")
    r.magic(_UNIT_MAGIC, "a unit graph")
    saved, _ = r.take("<qq")
    saved &= 7
    out = {}
    for code, name in ((1, "coo"), (2, "csr"), (4, "csc")):
        if not saved & code:
            continue
        r.magic(_IMMUTABLE_MAGIC, "the metagraph")
        _csr(r)
        if code == 1:
            r.magic(_COO_MAGIC, "a COO matrix")
            r.take("<qq")
            row, col, _ = r.ndarray(), r.ndarray(), r.ndarray()
            r.take("<BB")
            out["coo"] = (row, col)
        else:
            out[name] = _csr(r)
    if r.take("<Q") != 1:
        r.fail("expected one node type")
    out["num_nodes"] = r.take("<q")
    for key in ("ndata", "edata"):
        if r.take("<Q") != 1:
            r.fail("expected one %s list" % key)
        out[key] = r.named()
    return out
