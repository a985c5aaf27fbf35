"""dglpart for DGL users in Python: ``from dglpart import partition_graph``
in place of ``from dgl.distributed import partition_graph``. The work is
done by dglpart's C library, on the caller's arrays in place."""

from ._lib import ArgumentError, Error, ResourceError
from .dglfile import load_tensors
from .partition import partition_arrays, partition_graph

__all__ = ["partition_graph", "partition_arrays", "load_tensors", "Error",
           "ArgumentError", "ResourceError"]
__version__ = "0.1.0"
