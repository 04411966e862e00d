"""References for vertex measures (PageRank, betweenness centrality, core numbers), and checks
comparing an algorithm's output with them: the one reference of each algorithm, which the
catalog's ``check`` and ``--validate``, the benchmark suite's CPU baseline and the tests use.

Each reference is written from the original paper and independent of NetworkX and of Frontier's
operators, vectorized with NumPy and scipy.sparse (or compiled with Numba) so that it stays
quick on graphs of millions of edges: PageRank by power iteration (Page et al., 1999) as a
sparse matrix-vector product per iteration, with NetworkX's conventions (dangling vertices, the
L1 stopping rule ``N * tol``); Brandes' betweenness (Brandes, 2001) with scipy's BFS depths per
source, then path counts and dependencies level by level over the arcs joining levels; and
Batagelj & Zaversnik's bin peeling (2003) for core numbers. As elsewhere in
:mod:`frontier.testing`, every stored arc counts: a repeated arc is another path and adds to a
degree; a self-loop lies on no shortest path.

PageRank is an iteration to a tolerance, so :func:`check_pagerank` compares within ``atol``;
betweenness sums floating-point fractions in an order of its own, so :func:`check_betweenness`
compares to a relative ``1e-9``; core numbers are integers and compared exactly.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from frontier.graph import Graph

__all__ = [
    "reference_pagerank",
    "check_pagerank",
    "reference_betweenness",
    "check_betweenness",
    "reference_core_numbers",
    "check_core_numbers",
]

_SHOWN = 8


def _values(name: str, values: Any, graph: Graph) -> np.ndarray:
    got = np.asarray(values)
    if got.shape != (graph.num_vertices,):
        raise AssertionError(f"{name} has shape {got.shape}; expected one value per vertex "
                             f"({graph.num_vertices},)")
    return got


def _compare(name: str, got: np.ndarray, expected: np.ndarray, bad: np.ndarray) -> None:
    wrong = np.flatnonzero(bad)
    if wrong.size:
        listed = "; ".join(f"vertex {v}: expected {expected[v]!r}, got {got[v]!r}"
                           for v in wrong[:_SHOWN])
        more = f"; ... and {wrong.size - _SHOWN} more" if wrong.size > _SHOWN else ""
        raise AssertionError(f"{name} differs from the reference at {wrong.size} vertices: "
                             f"{listed}{more}")


# PageRank -----------------------------------------------------------------------------------
def _distribution(values: Any, n: int) -> np.ndarray:
    if values is None:
        return np.full(n, 1.0 / n)
    array = np.asarray(values, dtype=np.float64)
    return array / array.sum()


def reference_pagerank(graph: Graph, alpha: float = 0.85, *, personalization: Any = None,
                       nstart: Any = None, dangling: Any = None, weighted: bool = True,
                       max_iter: int = 100, tol: float = 1e-6) -> np.ndarray:
    """PageRank by power iteration: each vertex hands ``alpha`` of its rank to its
    out-neighbours in proportion to the edge weights (1 each if unweighted or not ``weighted``;
    repeated arcs add up), a dangling vertex (out-edges of total weight 0) hands it to
    ``dangling`` (default: ``personalization``, default uniform), and ``1 - alpha`` goes to
    ``personalization``. Stops when the L1 change is below ``N * tol``; raises
    ``RuntimeError`` after ``max_iter`` iterations without."""
    return pagerank_iteration(graph, alpha, personalization=personalization, nstart=nstart,
                              dangling=dangling, weighted=weighted, max_iter=max_iter,
                              tol=tol)()


def pagerank_iteration(graph: Graph, alpha: float = 0.85, *, personalization: Any = None,
                       nstart: Any = None, dangling: Any = None, weighted: bool = True,
                       max_iter: int = 100, tol: float = 1e-6) -> Callable[[], np.ndarray]:
    """:func:`reference_pagerank` as a function of no arguments, its sparse matrices built
    now (a benchmark times the iteration alone)."""
    n = graph.num_vertices
    if n == 0:
        return lambda: np.zeros(0)
    w = (graph.weights.astype(np.float64) if weighted and graph.weights is not None
         else np.ones(graph.num_edges))
    a = sp.csr_matrix((w, graph.col_indices, graph.row_offsets), shape=(n, n))
    strength = np.asarray(a.sum(axis=1)).ravel()
    inverse = np.divide(1.0, strength, out=np.zeros(n), where=strength > 0)
    dangles = strength == 0
    transposed = a.T.tocsr()
    p = _distribution(personalization, n)
    spread = p if dangling is None else _distribution(dangling, n)
    start = _distribution(nstart, n)

    def iterate() -> np.ndarray:
        rank = start
        for _ in range(max_iter):
            lost = rank[dangles].sum()
            following = alpha * (transposed @ (rank * inverse) + lost * spread) + (1 - alpha) * p
            change = np.abs(following - rank).sum()
            rank = following
            if change < n * tol:
                return rank
        raise RuntimeError(f"reference_pagerank did not converge in {max_iter} iterations")

    return iterate


def check_pagerank(graph: Graph, ranks: Any, alpha: float = 0.85, *, atol: float = 1e-6,
                   **options: Any) -> None:
    """Check ``ranks`` (one float per vertex) against :func:`reference_pagerank` with a tight
    tolerance (``options`` go to it), within ``atol`` per vertex."""
    got = _values("ranks", ranks, graph).astype(np.float64)
    expected = reference_pagerank(graph, alpha, **{"tol": 1e-12, "max_iter": 1000, **options})
    _compare("pagerank", got, expected, ~(np.abs(got - expected) <= atol))


# betweenness --------------------------------------------------------------------------------
def reference_betweenness(graph: Graph, sources: Iterable[int] | None = None, *,
                          endpoints: bool = False) -> np.ndarray:
    """Brandes' betweenness summed over ordered pairs ``(s, t)``, ``s`` in ``sources``
    (default every vertex), without rescaling: per source, the BFS depths by scipy, then the
    shortest-path counts ``sigma`` level by level over the arcs joining consecutive levels, and
    the dependencies ``delta`` back up the levels. ``endpoints=True`` counts the paths' ends
    too (NetworkX's option)."""
    n = graph.num_vertices
    chosen = range(n) if sources is None else [operator.index(s) for s in sources]
    values = np.zeros(n)
    if n == 0:
        return values
    pattern = graph.to_scipy(pattern=True)
    tails, heads = graph.coo().src.astype(np.int64), graph.col_indices.astype(np.int64)
    for s in chosen:
        depth = csgraph.shortest_path(pattern, indices=s, unweighted=True, method="D")
        depth = np.where(np.isinf(depth), -1, depth).astype(np.int64)
        joining = (depth[tails] >= 0) & (depth[heads] == depth[tails] + 1)
        src, dst = tails[joining], heads[joining]
        order = np.argsort(depth[src], kind="stable")
        src, dst = src[order], dst[order]
        bounds = np.searchsorted(depth[src], np.arange(depth.max() + 2))
        levels = [slice(bounds[d], bounds[d + 1]) for d in range(len(bounds) - 1)]
        sigma, delta = np.zeros(n), np.zeros(n)
        sigma[s] = 1.0
        for level in levels:
            np.add.at(sigma, dst[level], sigma[src[level]])
        for level in reversed(levels):
            u, v = src[level], dst[level]
            np.add.at(delta, u, sigma[u] / sigma[v] * (1.0 + delta[v]))
        reached = depth > 0
        values[reached] += delta[reached] + 1.0 if endpoints else delta[reached]
        if endpoints:
            values[s] += np.count_nonzero(reached)
    return values


def check_betweenness(graph: Graph, values: Any, sources: Iterable[int] | None = None, *,
                      endpoints: bool = False, rtol: float = 1e-9) -> None:
    """Check unscaled betweenness ``values`` against :func:`reference_betweenness`, to a
    relative ``rtol`` of the largest value."""
    got = _values("betweenness", values, graph).astype(np.float64)
    expected = reference_betweenness(graph, sources, endpoints=endpoints)
    bound = rtol * max(1.0, float(np.abs(expected).max(initial=0)))
    _compare("betweenness", got, expected, ~(np.abs(got - expected) <= bound))


# core numbers -------------------------------------------------------------------------------
def reference_core_numbers(graph: Graph) -> np.ndarray:
    """Core numbers (int32) of an undirected graph without self-loops by Batagelj &
    Zaversnik's O(m) peeling: vertices sorted into bins by degree, always removing one of least
    degree and moving each remaining neighbour of larger degree one bin down (a degree counts
    stored arcs). Sequential, compiled with Numba so that it stays quick on large graphs.
    Raises ValueError on a directed graph or a self-loop."""
    if graph.directed:
        raise ValueError("core numbers need an undirected graph")
    if np.any(graph.coo().src == graph.col_indices):
        raise ValueError("core numbers are not defined on a graph with self-loops")
    if graph.num_vertices == 0:
        return np.zeros(0, dtype=np.int32)
    return _bin_peeling(graph.row_offsets, graph.col_indices).astype(np.int32)


@numba.njit(cache=False)
def _bin_peeling(offsets: np.ndarray, heads: np.ndarray) -> np.ndarray:  # pragma: no cover
    n = offsets.size - 1
    degree = (offsets[1:] - offsets[:-1]).astype(np.int64)
    top = degree.max()
    bins = np.zeros(top + 1, np.int64)  # first position of each degree in ``order``
    for v in range(n):
        bins[degree[v]] += 1
    first = 0
    for d in range(top + 1):
        count = bins[d]
        bins[d] = first
        first += count
    position = np.empty(n, np.int64)
    order = np.empty(n, np.int64)
    for v in range(n):
        position[v] = bins[degree[v]]
        order[position[v]] = v
        bins[degree[v]] += 1
    for d in range(top, 0, -1):
        bins[d] = bins[d - 1]
    bins[0] = 0
    for i in range(n):
        v = order[i]
        for e in range(offsets[v], offsets[v + 1]):
            u = heads[e]
            if degree[u] > degree[v]:
                du, pu = degree[u], position[u]
                pw = bins[du]
                w = order[pw]
                if u != w:
                    position[u], order[pu] = pw, w
                    position[w], order[pw] = pu, u
                bins[du] += 1
                degree[u] -= 1
    return degree


def check_core_numbers(graph: Graph, core_numbers: Any) -> None:
    """Check ``core_numbers`` (integers, one per vertex) equal :func:`reference_core_numbers`."""
    got = _values("core numbers", core_numbers, graph)
    expected = reference_core_numbers(graph)
    _compare("core numbers", got, expected, got != expected)
