"""What the benchmarks compare with and check against, from the algorithm catalog: the one module
of bench that reads :data:`algorithms.CATALOG` (an entry's run, scipy reference and check).

Also the scipy calls that the sssp and components suites time with their matrix built once,
off the clock (the catalog's references build it inside each call), and the BFS distances the
BFS suites check against (:func:`frontier.testing.reference_bfs`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from algorithms import CATALOG
from frontier.graph import Graph
from frontier.testing import pagerank_iteration, reference_bfs


def names(suite_only: bool = False, any_graph_only: bool = False) -> list[str]:
    """The catalog's algorithms: those the catalog suite runs on its graphs (``suite_only``),
    those that take any graph (``any_graph_only``: not list ranking's lists), or all."""
    return [name for name, entry in CATALOG.items()
            if (entry.suite or not suite_only) and (entry.example is None or not any_graph_only)]


def example(name: str) -> str | None:
    """The generator spec of a graph the algorithm takes where it does not take any graph
    (list ranking takes a list: ``list:42``); None where it takes any."""
    return CATALOG[name].example


def takes_source(name: str) -> bool:
    return CATALOG[name].source


def balanced(name: str) -> bool:
    """Whether the algorithm takes a ``balancer``."""
    return CATALOG[name].balanced


def run(name: str, graph: Graph, source: int | None, *, balancer: Any = "auto",
        target: Any = None, **options: Any) -> Any:
    """One call of the algorithm (the source and balancer passed where it takes them)."""
    return CATALOG[name].invoke(graph, source, balancer=balancer, target=target, **options)


def reference(name: str, graph: Graph, source: int | None) -> Any:
    """The algorithm's scipy reference (one CPU core)."""
    return CATALOG[name].reference(graph, source)


def option_choices(name: str) -> dict[str, tuple[Any, ...]]:
    """The algorithm's options beyond balancer and target, each with its choices."""
    return {option.name: tuple(option.choices) for option in CATALOG[name].options}


def disagreement(name: str, graph: Graph, source: int | None, result: Any) -> str | None:
    """How ``result`` differs from the reference (None where it agrees)."""
    try:
        CATALOG[name].check(graph, source, result)
    except AssertionError as err:
        return str(err)
    return None


def check(name: str, graph: Graph, source: int | None, result: Any, where: str = "") -> bool:
    """Whether ``result`` agrees with the reference; a disagreement is said on stderr."""
    differs = disagreement(name, graph, source, result)
    if differs is not None:
        print(f"  VALIDATION FAILED: {name}{' on ' + where if where else ''}: "
              f"{differs[:200]}", file=sys.stderr)
    return differs is None


def bfs_distances(graph: Graph, source: int) -> np.ndarray:
    """Hop distances from ``source`` by scipy (-1 where unreachable)."""
    return reference_bfs(graph, source)


def pattern(graph: Graph, dtype: Any = np.int8, weighted: bool = False) -> sp.csr_matrix:
    """The graph's adjacency as a scipy CSR matrix (its weights, as float64, if ``weighted``;
    ones where the graph has none)."""
    n = graph.num_vertices
    if weighted:
        data = (graph.weights if graph.weighted else np.ones(graph.num_edges)).astype(np.float64)
    else:
        data = np.ones(graph.num_edges, dtype)
    return sp.csr_matrix((data, graph.col_indices, graph.row_offsets), shape=(n, n))


def scipy_components(graph: Graph) -> Callable[[], tuple[int, np.ndarray]]:
    """scipy's weak components of ``graph``, the matrix built now (off the clock)."""
    matrix = pattern(graph)
    return lambda: csgraph.connected_components(matrix, directed=True, connection="weak")


def scipy_bfs(graph: Graph, source: int) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
    """scipy's breadth-first order (and predecessors) from ``source``, the matrix built now
    (off the clock)."""
    matrix = pattern(graph)
    return lambda: csgraph.breadth_first_order(matrix, source, directed=True)


def scipy_pagerank(graph: Graph) -> Callable[[], np.ndarray]:
    """PageRank by scipy's sparse products, NetworkX's rule (stopping below ``N * 1e-6``), the
    matrices built now (off the clock): :func:`frontier.testing.pagerank_iteration`."""
    return pagerank_iteration(graph)


def scipy_dijkstra(graph: Graph, source: int) -> Callable[[], np.ndarray]:
    """scipy's Dijkstra from ``source``, the weighted matrix built now (off the clock)."""
    matrix = pattern(graph, weighted=True)
    return lambda: csgraph.dijkstra(matrix, indices=source)
