"""The immutable graph every operator runs on: CSR with lazily built CSC and COO views.

Vertex ids are int32, row offsets int64 (Busato & Bombieri, *Graph Algorithms on GPUs*, §1: the CSR
representation). The CSC view serves pull-style traversal, the COO view edge-parallel work. Device
copies are made once per target, on first use, and reused by every later operator call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from frontier import validate

if TYPE_CHECKING:
    import scipy.sparse

VERTEX_DTYPE = np.int32
OFFSET_DTYPE = np.int64
_WEIGHT_DTYPES = (np.float64, np.float32, np.int64, np.int32)


class GraphError(ValueError):
    """A graph could not be built from what was passed in."""


@dataclass(frozen=True)
class CSC:
    """Incoming edges: ``col_offsets`` (int64, |V|+1), ``row_indices`` (int32 sources) and
    ``edge_ids`` (int64 positions of each incoming edge in the CSR arrays)."""

    col_offsets: np.ndarray
    row_indices: np.ndarray
    edge_ids: np.ndarray


@dataclass(frozen=True)
class COO:
    """One (src, dst) pair per edge, in CSR order, so edge id ``e`` is ``(src[e], dst[e])``."""

    src: np.ndarray
    dst: np.ndarray


def _weights_array(weights: Any, num_edges: int) -> np.ndarray | None:
    if weights is None:
        return None
    w = np.asarray(weights)
    if w.shape != (num_edges,):
        raise GraphError(f"weights has shape {w.shape}; expected ({num_edges},), one per edge")
    if w.dtype == np.bool_ or not (np.issubdtype(w.dtype, np.integer)
                                   or np.issubdtype(w.dtype, np.floating)):
        raise GraphError(f"weights has dtype {w.dtype}; expected integers or floats")
    if np.issubdtype(w.dtype, np.floating):
        if not np.all(np.isfinite(w)):
            raise GraphError("weights contain NaN or infinity; expected finite numbers")
        return w.astype(np.float32 if w.dtype == np.float32 else np.float64)
    if w.size and w.dtype.kind == "u" and int(w.max()) > np.iinfo(np.int64).max:
        raise GraphError(f"weight {int(w.max())} does not fit int64 weights")
    small = w.dtype.itemsize < 4 or (w.dtype.itemsize == 4 and w.dtype.kind == "i")
    return w.astype(np.int32 if small else np.int64)


def _vertex_array(name: str, ids: Any) -> np.ndarray:
    a = np.asarray(ids)
    if a.ndim != 1:
        raise GraphError(f"{name} has {a.ndim} dimensions; expected a 1-D array of vertex ids")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise GraphError(f"{name} has dtype {a.dtype}; expected integer vertex ids")
    return a.astype(np.int64)


def from_sorted_keys(keys: np.ndarray, weights: np.ndarray | None, num_vertices: int,
                     directed: bool) -> Graph:
    """The graph whose arcs are ``keys = src * num_vertices + dst`` (int64, sorted ascending,
    ids already checked), with ``weights`` in the same order: the one CSR builder that
    :meth:`Graph.from_edges`, the loaders and the generators share."""
    n = num_vertices
    offsets = np.searchsorted(keys, np.arange(n + 1, dtype=np.int64) * n).astype(OFFSET_DTYPE)
    cols = (keys % max(n, 1)).astype(VERTEX_DTYPE)
    return Graph(offsets, cols, _weights_array(weights, keys.size), directed)


class Graph:
    """A directed or undirected graph in CSR form; immutable once built.

    An undirected graph stores each edge in both directions (a self-loop once), so ``num_edges``
    counts arcs. Build one with :meth:`from_edges`, :meth:`from_csr` or :meth:`from_scipy`, or load
    one with :func:`frontier.load`.
    """

    def __init__(self, row_offsets: np.ndarray, col_indices: np.ndarray,
                 weights: np.ndarray | None, directed: bool) -> None:
        self._row_offsets = row_offsets
        self._col_indices = col_indices
        self._weights = weights
        self._directed = bool(directed)
        for a in (row_offsets, col_indices) + ((weights,) if weights is not None else ()):
            a.setflags(write=False)
        self._csc: CSC | None = None
        self._coo: COO | None = None
        self._device: dict[tuple[str, str], Any] = {}
        self._memo: dict[str, Any] = {}

    # construction -------------------------------------------------------------------------
    @classmethod
    def from_edges(cls, src: Any, dst: Any, weights: Any = None, num_vertices: int | None = None,
                   directed: bool = True) -> Graph:
        """Build from parallel arrays of edge endpoints (and optional weights).

        Self-loops and repeated edges are kept. With ``directed=False`` every edge (u, v), u != v,
        is stored in both directions. Vertices are ``0 .. num_vertices-1``; ``num_vertices``
        defaults to the largest id plus one. Within a row, edges are ordered by destination
        (repeated edges keep their input order). The inputs are not modified.
        """
        s = _vertex_array("src", src)
        d = _vertex_array("dst", dst)
        if s.shape != d.shape:
            raise GraphError(f"src has {s.size} entries and dst {d.size}; expected the same count")
        w = _weights_array(weights, s.size)
        top = int(max(s.max(initial=-1), d.max(initial=-1))) + 1
        if num_vertices is None:
            num_vertices = top
        num_vertices = validate.count("num_vertices", num_vertices)
        if s.size and (min(s.min(), d.min()) < 0 or top > num_vertices):
            bad = int(s.min() if s.min() < 0 else d.min() if d.min() < 0 else top - 1)
            raise GraphError(f"vertex id {bad} is out of range; expected 0 <= id < {num_vertices}")
        if num_vertices > np.iinfo(VERTEX_DTYPE).max:
            raise GraphError(f"{num_vertices} vertices do not fit int32 vertex ids")
        if not directed:
            loop = s == d
            s, d = np.concatenate([s, d[~loop]]), np.concatenate([d, s[~loop]])
            if w is not None:
                w = np.concatenate([w, w[~loop]])
        keys = s * num_vertices + d
        if w is None:
            keys.sort()
        else:
            order = np.argsort(keys, kind="stable")
            keys, w = keys[order], w[order]
        return from_sorted_keys(keys, w, num_vertices, directed)

    @classmethod
    def from_csr(cls, row_offsets: Any, col_indices: Any, weights: Any = None,
                 directed: bool = True) -> Graph:
        """Build from CSR arrays, copied and checked (offsets monotone, ids in range).

        For an undirected graph the arrays must already hold both directions of every edge.
        """
        offs = np.asarray(row_offsets)
        if offs.ndim != 1 or offs.size == 0 or not np.issubdtype(offs.dtype, np.integer):
            raise GraphError("row_offsets must be a non-empty 1-D integer array of |V|+1 offsets")
        offs = offs.astype(OFFSET_DTYPE)
        cols = _vertex_array("col_indices", col_indices)
        n = offs.size - 1
        if offs[0] != 0 or offs[-1] != cols.size or np.any(np.diff(offs) < 0):
            raise GraphError(f"row_offsets must rise from 0 to len(col_indices) = {cols.size}")
        if cols.size and (cols.min() < 0 or cols.max() >= n):
            bad = int(cols.min() if cols.min() < 0 else cols.max())
            raise GraphError(f"col_indices holds vertex {bad}; expected 0 <= id < {n}")
        if n > np.iinfo(VERTEX_DTYPE).max:
            raise GraphError(f"{n} vertices do not fit int32 vertex ids")
        return cls(offs.copy(), cols.astype(VERTEX_DTYPE), _weights_array(weights, cols.size),
                   directed)

    @classmethod
    def from_scipy(cls, matrix: scipy.sparse.spmatrix | scipy.sparse.sparray,
                   directed: bool = True, weighted: bool = True) -> Graph:
        """Build from a square scipy sparse matrix: entry (i, j) is an edge i -> j.

        Stored entries become edges (explicit zeros included); their values become weights
        unless ``weighted=False``. Pass ``directed=False`` only for a symmetric matrix.
        """
        import scipy.sparse as sp

        if not sp.issparse(matrix):
            raise GraphError(f"expected a scipy sparse matrix, got {type(matrix).__name__}")
        if matrix.shape[0] != matrix.shape[1]:
            raise GraphError(f"matrix has shape {matrix.shape}; expected a square adjacency matrix")
        coo = sp.coo_matrix(matrix)  # keeps repeated entries apart; never sorts the caller's data
        graph = cls.from_edges(coo.row, coo.col, coo.data if weighted else None,
                               num_vertices=matrix.shape[0], directed=True)
        return graph if directed else cls(graph.row_offsets, graph.col_indices, graph.weights,
                                          directed=False)

    # views ------------------------------------------------------------------------------
    @property
    def num_vertices(self) -> int:
        return self._row_offsets.size - 1

    @property
    def num_edges(self) -> int:
        """Stored arcs: an undirected edge counts twice, a self-loop once."""
        return self._col_indices.size

    @property
    def directed(self) -> bool:
        return self._directed

    @property
    def weighted(self) -> bool:
        return self._weights is not None

    @property
    def row_offsets(self) -> np.ndarray:
        return self._row_offsets

    @property
    def col_indices(self) -> np.ndarray:
        return self._col_indices

    @property
    def weights(self) -> np.ndarray | None:
        return self._weights

    def out_degrees(self) -> np.ndarray:
        return np.diff(self._row_offsets)

    def in_degrees(self) -> np.ndarray:
        return np.diff(self.csc().col_offsets)

    def csc(self) -> CSC:
        """Incoming-edge view, built on first use."""
        if self._csc is None:
            order = np.argsort(self._col_indices, kind="stable").astype(np.int64)
            counts = np.bincount(self._col_indices, minlength=self.num_vertices)
            offsets = np.zeros(self.num_vertices + 1, dtype=OFFSET_DTYPE)
            np.cumsum(counts, out=offsets[1:])
            rows = self.coo().src[order]
            for a in (offsets, rows, order):
                a.setflags(write=False)
            self._csc = CSC(offsets, rows, order)
        return self._csc

    def coo(self) -> COO:
        """Edge-list view, built on first use."""
        if self._coo is None:
            src = np.repeat(np.arange(self.num_vertices, dtype=VERTEX_DTYPE), self.out_degrees())
            src.setflags(write=False)
            self._coo = COO(src, self._col_indices)
        return self._coo

    def to_scipy(self) -> scipy.sparse.csr_matrix:
        """The adjacency matrix; values are the weights, or ones for an unweighted graph.
        Repeated edges stay separate stored entries."""
        import scipy.sparse as sp

        data = self._weights if self._weights is not None else np.ones(self.num_edges)
        n = self.num_vertices
        return sp.csr_matrix((data, self._col_indices, self._row_offsets), shape=(n, n))

    def device_arrays(self, target: Any) -> Any:
        """The CSR arrays on ``target`` (a :class:`frontier.target.Target`), copied once."""
        return self._on_device(target, "csr", target.graph_arrays)

    def device_csc(self, target: Any) -> Any:
        """The CSC arrays on ``target`` (for pull traversal), built and copied once."""
        return self._on_device(target, "csc", target.csc_arrays)

    def device_edge_sources(self, target: Any) -> Any:
        """The tail of every edge (the COO view's ``src``) on ``target``, for edge frontiers."""
        return self._on_device(target, "coo", lambda g: target.to_device(g.coo().src))

    def memo(self, key: str, build: Any) -> Any:
        """A value derived from this (immutable) graph, built by ``build()`` on first use and
        kept with the graph under ``key`` (the adaptive runtime's degree profile, pooled
        frontier buffers)."""
        value = self._memo.get(key)
        if value is None:
            value = build()
            self._memo[key] = value
        return value

    def _on_device(self, target: Any, view: str, copy: Any) -> Any:
        key = (target.name, view)
        arrays = self._device.get(key)
        if arrays is None:
            arrays = copy(self)
            self._device[key] = arrays
        return arrays

    def __repr__(self) -> str:
        kind = "directed" if self._directed else "undirected"
        w = ", weighted" if self.weighted else ""
        return f"Graph({self.num_vertices} vertices, {self.num_edges} arcs, {kind}{w})"
