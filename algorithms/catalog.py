"""The catalog of algorithms: how to run each one and its scipy counterpart, so that the
benchmark suite and the command line pick up every algorithm without knowing it by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from algorithms.bfs import bfs
from frontier.graph import Graph


@dataclass(frozen=True)
class Entry:
    """``run(graph, source, **options)`` returns a result with ``edges_traversed``, ``seconds``
    (device time of the traversal) and ``iterations``; ``scipy(graph, source)`` runs the same
    computation with scipy.sparse.csgraph on one CPU core; ``agrees(graph, source, result)``
    raises unless the two give the same answer."""

    name: str
    run: Callable[..., Any]
    scipy: Callable[[Graph, int], Any]
    agrees: Callable[[Graph, int, Any], None]


def _scipy_bfs(graph: Graph, source: int) -> np.ndarray:
    from scipy.sparse.csgraph import breadth_first_order

    return breadth_first_order(_pattern(graph), source, directed=True,
                               return_predecessors=False)


def _pattern(graph: Graph) -> Any:
    import scipy.sparse as sp

    n = graph.num_vertices
    return sp.csr_matrix((np.ones(graph.num_edges, np.int8), graph.col_indices, graph.row_offsets),
                         shape=(n, n))


def _bfs_agrees(graph: Graph, source: int, result: Any) -> None:
    from frontier.testing import check_bfs

    check_bfs(graph, source, result.distances, result.predecessors)


def _bfs_direction_optimizing(graph: Graph, source: int, **options: Any) -> Any:
    return bfs(graph, source, direction="auto", **options)


CATALOG: dict[str, Entry] = {
    "bfs": Entry("bfs", bfs, _scipy_bfs, _bfs_agrees),
    "bfs_do": Entry("bfs_do", _bfs_direction_optimizing, _scipy_bfs, _bfs_agrees),
}
