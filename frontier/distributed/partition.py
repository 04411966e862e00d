"""1D partitions of a graph over P workers: vertex ranges, each worker holding the out-arcs of
its vertices with global vertex ids (the 1D distribution of Buluç & Madduri, SC 2011, §3; the
per-GPU subgraphs of Pan et al., *Multi-GPU Graph Analytics*, IPDPS 2017, §III).

A partition is P+1 vertex boundaries ``0 = b[0] <= b[1] <= ... <= b[P] = |V|``: worker ``r``
owns the vertices ``b[r] <= v < b[r+1]``. :data:`PARTITIONERS` maps a name to the function that
chooses the boundaries; ``"arcs"`` (the default) balances out-arcs, ``"vertices"`` balances
vertex counts. Another partition plugs in with :func:`register_partitioner`; a partition that is
not a set of ranges (by hash, by a graph partitioner such as METIS) is a relabelling of the
vertices followed by a range partition: relabel the graph so that each part's vertices are
consecutive, partition by ranges, and map the results back.

A :class:`Piece` is what one worker holds: its rows of the CSR (offsets from 0, destination ids
global) and, when asked for, the in-arcs of its vertices (for weak components of a directed
graph). On the worker it becomes an ordinary :class:`frontier.Graph` over all |V| vertices in
which only the owned rows have arcs, so every operator runs on it unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from frontier.graph import OFFSET_DTYPE, VERTEX_DTYPE, Graph, from_sorted_keys

__all__ = ["Piece", "PARTITIONERS", "register_partitioner", "boundaries", "cut_pieces"]

#: A partitioner: ``(graph, parts) -> boundaries`` (int64, parts+1 entries, 0 to |V|, rising).
Partitioner = Callable[[Graph, int], np.ndarray]


def by_arcs(graph: Graph, parts: int) -> np.ndarray:
    """Vertex ranges holding about |E|/P out-arcs each (a range ends at the first vertex whose
    row offset reaches its share; a hub heavier than a share fills its range alone)."""
    shares = np.arange(parts + 1, dtype=np.float64) * graph.num_edges / parts
    cuts = np.searchsorted(graph.row_offsets, shares, side="left").astype(np.int64)
    cuts[0], cuts[-1] = 0, graph.num_vertices
    return np.minimum(np.maximum.accumulate(cuts), graph.num_vertices)


def by_vertices(graph: Graph, parts: int) -> np.ndarray:
    """Vertex ranges of equal size (within one vertex)."""
    return (np.arange(parts + 1, dtype=np.int64) * graph.num_vertices) // parts


PARTITIONERS: dict[str, Partitioner] = {"arcs": by_arcs, "vertices": by_vertices}


def register_partitioner(name: str, partitioner: Partitioner) -> None:
    """Make ``partition(G, P, by=name)`` cut the vertex ranges with ``partitioner``."""
    if not callable(partitioner):
        raise TypeError(f"partitioner {partitioner!r} is not callable; expected "
                        "(graph, parts) -> boundaries")
    PARTITIONERS[name] = partitioner


def boundaries(graph: Graph, parts: int, by: str | Partitioner) -> np.ndarray:
    """The checked boundaries of ``graph`` cut into ``parts`` ranges by ``by`` (a name in
    :data:`PARTITIONERS` or a partitioner). More parts than vertices (a part without a
    vertex, a worker without work) are refused with a ValueError, except one part of an empty
    graph."""
    n = graph.num_vertices
    if parts > max(n, 1):
        raise ValueError(f"parts={parts}: more partitions than the graph's {n} vertices; "
                         f"expected 1 <= parts <= {max(n, 1)}")
    if isinstance(by, str):
        if by not in PARTITIONERS:
            raise ValueError(f"by={by!r}; expected one of {sorted(PARTITIONERS)} or a function "
                             "(graph, parts) -> boundaries")
        by = PARTITIONERS[by]
    cuts = np.asarray(by(graph, parts))
    if (cuts.shape != (parts + 1,) or not np.issubdtype(cuts.dtype, np.integer)
            or cuts[0] != 0 or cuts[-1] != n or np.any(np.diff(cuts) < 0)):
        raise ValueError(f"the partitioner returned {cuts!r}; expected {parts + 1} rising integer "
                         f"boundaries from 0 to {n}")
    return cuts.astype(np.int64)


@dataclass
class Piece:
    """The part of a graph one worker holds: vertices ``lo <= v < hi`` of ``num_vertices``, their
    out-arcs (``row_offsets`` from 0, ``col_indices`` global ids, ``weights``) and, if cut with
    ``reverse=True``, their in-arcs (``in_offsets``, ``in_sources``)."""

    rank: int
    bounds: np.ndarray
    num_vertices: int
    directed: bool
    row_offsets: np.ndarray
    col_indices: np.ndarray
    weights: np.ndarray | None
    in_offsets: np.ndarray | None = field(default=None, repr=False)
    in_sources: np.ndarray | None = field(default=None, repr=False)

    @property
    def parts(self) -> int:
        return self.bounds.size - 1

    @property
    def lo(self) -> int:
        return int(self.bounds[self.rank])

    @property
    def hi(self) -> int:
        return int(self.bounds[self.rank + 1])

    @property
    def num_arcs(self) -> int:
        return int(self.col_indices.size)

    def owns(self, vertex: int) -> bool:
        return self.lo <= vertex < self.hi

    def _global_offsets(self, local: np.ndarray) -> np.ndarray:
        n, lo, hi = self.num_vertices, self.lo, self.hi
        offsets = np.empty(n + 1, dtype=OFFSET_DTYPE)
        offsets[:lo] = 0
        offsets[lo:hi + 1] = local
        offsets[hi + 1:] = local[-1]
        return offsets

    @cached_property
    def remote_heads(self) -> np.ndarray:
        """The heads of this piece's arcs owned by other partitions, sorted, each once."""
        cols = self.col_indices
        return np.unique(cols[(cols < self.lo) | (cols >= self.hi)]).astype(VERTEX_DTYPE)

    @cached_property
    def graph(self) -> Graph:
        """The owned out-arcs as a graph over all |V| vertices (other rows empty), built once
        on the worker: what the operators run on."""
        return Graph._trusted(self._global_offsets(self.row_offsets), self.col_indices,
                              self.weights, self.directed, weights_checked=True)

    @cached_property
    def in_graph(self) -> Graph:
        """The in-arcs of the owned vertices (``u -> v``, ``v`` owned, ``u`` anywhere) as a
        graph over all |V| vertices: its incoming-edge view is what a pull step scans. An
        undirected graph's in-arcs are its out-arcs reversed; a directed graph's need a piece
        cut with ``reverse=True``."""
        rows = np.arange(self.lo, self.hi, dtype=np.int64)
        if not self.directed:
            heads, tails = np.repeat(rows, np.diff(self.row_offsets)), self.col_indices
        elif self.in_offsets is None or self.in_sources is None:
            raise ValueError("this piece holds no in-arcs; partition the graph with "
                             "reverse=True for pull steps over a directed graph")
        else:
            heads, tails = np.repeat(rows, np.diff(self.in_offsets)), self.in_sources
        return Graph.from_edges(tails, heads, num_vertices=self.num_vertices,
                                directed=True)

    @cached_property
    def symmetric_graph(self) -> Graph:
        """The owned vertices' out- and in-arcs, all as arcs leaving the owned vertex (the
        undirected view weak components need); the piece's graph itself when undirected."""
        if not self.directed:
            return self.graph
        if self.in_offsets is None or self.in_sources is None:
            raise ValueError("this piece holds no in-arcs; partition the graph with "
                             "reverse=True to follow arcs backwards (weak components of a "
                             "directed graph)")
        n = self.num_vertices
        rows = np.arange(self.lo, self.hi, dtype=np.int64)
        out_src = np.repeat(rows, np.diff(self.row_offsets))
        in_dst = np.repeat(rows, np.diff(self.in_offsets))
        keys = np.concatenate([out_src * n + self.col_indices, in_dst * n + self.in_sources])
        keys.sort()
        return from_sorted_keys(keys, None, n, directed=False)


def cut_pieces(graph: Graph, cuts: np.ndarray, reverse: bool) -> list[Piece]:
    """One :class:`Piece` per range of ``cuts``: copies of the rows (and, with ``reverse``, of
    the CSC columns) of ``graph``; the graph itself is not modified."""
    offsets, cols, weights = graph.row_offsets, graph.col_indices, graph.weights
    csc = graph.csc() if reverse and graph.directed else None
    pieces = []
    for rank in range(cuts.size - 1):
        lo, hi = int(cuts[rank]), int(cuts[rank + 1])
        a, b = int(offsets[lo]), int(offsets[hi])
        in_offsets = in_sources = None
        if csc is not None:
            c, d = int(csc.col_offsets[lo]), int(csc.col_offsets[hi])
            in_offsets = (csc.col_offsets[lo:hi + 1] - c).astype(OFFSET_DTYPE)
            in_sources = csc.row_indices[c:d].astype(VERTEX_DTYPE)
        pieces.append(Piece(rank, cuts.copy(), graph.num_vertices, graph.directed,
                            (offsets[lo:hi + 1] - a).astype(OFFSET_DTYPE), cols[a:b].copy(),
                            None if weights is None else weights[a:b].copy(),
                            in_offsets, in_sources))
    return pieces
