"""A graph partitioned over the workers of a Dask cluster: :func:`partition` and
:class:`DistributedGraph`.

The client cuts the graph into :class:`~frontier.distributed.partition.Piece` s (vertex ranges,
:mod:`frontier.distributed.partition`) and places piece ``r`` in the memory of worker ``r``
(``Client.scatter`` to that worker alone). From then on the pieces stay there: a run over the
graph sends each worker a task that reads its own piece (:mod:`frontier.distributed.runner`),
and only the data of the exchange between steps crosses workers. The :class:`DistributedGraph`
on the client holds the futures of the pieces, the boundaries and the graph's sizes, not its
arcs; what its runs share lives on its runner.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frontier import validate
from frontier.distributed.cluster import client_for, worker_addresses
from frontier.distributed.errors import DistributedError
from frontier.distributed.partition import Partitioner, Piece, boundaries, cut_pieces
from frontier.distributed.runner import Runner, RunReport
from frontier.graph import Graph, path_bound

__all__ = ["DistributedGraph", "partition", "TRANSPORTS"]

#: How frontier updates cross workers: Dask's own transport (cpu workers, numpy arrays) or
#: NCCL (GPU workers, device arrays).
TRANSPORTS = ("dask", "nccl")


class DistributedGraph:
    """A graph whose arcs live on P Dask workers, one vertex range each; build one with
    :func:`partition`. ``algorithms.bfs``, ``sssp`` and ``connected_components`` accept it in
    place of a :class:`frontier.Graph` and return the same results.

    ``bounds`` are the P+1 vertex boundaries (worker ``workers[r]`` owns ``bounds[r] <= v <
    bounds[r+1]``), ``pieces`` the futures of the pieces, ``transport`` how frontier updates
    cross workers (:data:`TRANSPORTS`), ``min_weight`` the smallest arc weight (1 when
    unweighted), ``path_bound`` the largest total weight of a simple path
    (:func:`frontier.graph.path_bound`, for the overflow check of shortest paths),
    ``runner`` the :class:`~frontier.distributed.runner.Runner` that runs steps on the
    partitions, ``last_run`` the :class:`~frontier.distributed.runner.RunReport` of the last run.
    """

    def __init__(self, client: Any, workers: list[str], pieces: list[Any], bounds: np.ndarray,
                 num_vertices: int, num_edges: int, directed: bool, weighted: bool,
                 reverse: bool, transport: str, min_weight: float = 1,
                 path_bound: float = 0.0) -> None:
        self.client = client
        self.workers = list(workers)
        self.pieces = list(pieces)
        self.bounds = bounds
        self._num_vertices = num_vertices
        self._num_edges = num_edges
        self._directed = directed
        self._weighted = weighted
        self.has_reverse = reverse
        self.transport = transport
        self.min_weight = min_weight
        self.path_bound = path_bound
        self._out_degrees: np.ndarray | None = None
        self.runner = Runner(self)

    @property
    def last_run(self) -> RunReport | None:
        """What the last run over this graph did (None before the first)."""
        return self.runner.last_run

    @property
    def parts(self) -> int:
        return len(self.workers)

    @property
    def num_vertices(self) -> int:
        return self._num_vertices

    @property
    def num_edges(self) -> int:
        """Stored arcs over all partitions (as :attr:`frontier.Graph.num_edges`)."""
        return self._num_edges

    @property
    def directed(self) -> bool:
        return self._directed

    @property
    def weighted(self) -> bool:
        return self._weighted

    def owner(self, vertex: int) -> int:
        """The partition (rank) holding ``vertex``."""
        return int(np.searchsorted(self.bounds, vertex, side="right") - 1)

    def out_degrees(self) -> np.ndarray:
        """Out-degree of every vertex, gathered from the workers once."""
        if self._out_degrees is None:
            parts = self.client.gather([
                self.client.submit(_out_degrees, p, workers=[w], pure=False)
                for p, w in zip(self.pieces, self.workers, strict=True)])
            self._out_degrees = np.concatenate(parts) if parts else np.zeros(0, np.int64)
        return self._out_degrees

    def __repr__(self) -> str:
        kind = "directed" if self._directed else "undirected"
        return (f"DistributedGraph({self._num_vertices} vertices, {self._num_edges} arcs, {kind}, "
                f"{self.parts} partitions, transport {self.transport})")


def _out_degrees(piece: Piece) -> np.ndarray:
    return np.diff(piece.row_offsets)


def partition(graph: Graph, parts: int, *, by: str | Partitioner = "arcs", client: Any = None,
              workers: list[str] | None = None, reverse: bool = False,
              transport: str = "dask") -> DistributedGraph:
    """Cut ``graph`` into ``parts`` vertex ranges (``by``: ``"arcs"`` balances out-arcs,
    ``"vertices"`` vertex counts, or a partitioner, see :mod:`frontier.distributed.partition`)
    and place range ``r`` on worker ``r``.

    ``client`` is a ``distributed.Client`` (default: the process's default client, else a local
    cluster of ``parts`` cpu workers started now; :func:`frontier.distributed.start_cluster`
    starts one worker per GPU). ``workers`` picks the workers (default: the first ``parts`` in
    address order); each holds one partition. ``reverse=True`` also gives each worker the in-arcs
    of its vertices (needed for weak components of a directed graph). ``transport`` is how
    frontier updates cross workers: ``"dask"`` (cpu workers) or ``"nccl"`` (GPU workers). The
    graph is not modified.
    """
    validate.graph(graph, "partition(graph, parts)")
    if isinstance(parts, bool) or not isinstance(parts, (int, np.integer)) or parts < 1:
        raise ValueError(f"parts={parts!r}; expected a number of partitions >= 1")
    reverse = validate.flag("reverse", reverse)
    if transport not in TRANSPORTS:
        raise ValueError(f"transport={transport!r}; expected one of {TRANSPORTS}")
    parts = int(parts)
    cuts = boundaries(graph, parts, by)
    client = client_for(parts, client)
    available = worker_addresses(client)
    if workers is None:
        if len(available) < parts:
            raise DistributedError(f"{parts} partitions need {parts} workers; the cluster has "
                                   f"{len(available)} ({', '.join(available) or 'none'})")
        workers = available[:parts]
    workers = list(workers)
    missing = [w for w in workers if w not in available]
    if len(workers) != parts or len(set(workers)) != parts or missing:
        raise DistributedError(f"workers={workers}; expected {parts} distinct workers of the "
                               f"cluster ({', '.join(available)})")
    pieces = [client.scatter(piece, workers=[w], hash=False, broadcast=False)
              for piece, w in zip(cut_pieces(graph, cuts, reverse), workers, strict=True)]
    return DistributedGraph(client, workers, pieces, cuts, graph.num_vertices, graph.num_edges,
                            graph.directed, graph.weighted, reverse or not graph.directed,
                            transport, _min_weight(graph),
                            path_bound(graph.weights, graph.num_vertices))


def _min_weight(graph: Graph) -> float:
    w = graph.weights
    return 1 if w is None or w.size == 0 else w.min().item()
