"""What :data:`algorithms.CATALOG` needs to run, check and report PageRank, betweenness
centrality and k-core from the command line and the benchmark suite: the reference computations
(vectorized with NumPy and scipy so that ``--validate`` stays quick on large graphs), the
comparisons and the summary lines."""

from __future__ import annotations

from typing import Any

import numpy as np

from algorithms.betweenness import betweenness_centrality
from algorithms.kcore import k_core
from algorithms.pagerank import pagerank
from frontier.graph import Graph

#: The L1 distance a PageRank result may have from the converged ranks: the power iteration
#: stops once its L1 change is below N * tol, which bounds the distance by that times
#: alpha / (1 - alpha) (5.67 at alpha 0.85).
_PAGERANK_SLACK = 6.0


# PageRank ------------------------------------------------------------------------------------
def scipy_pagerank(graph: Graph, tol: float = 1e-12, alpha: float = 0.85) -> np.ndarray:
    """NetworkX's PageRank iteration with a scipy sparse matrix (weights used, dangling rank
    spread uniformly), to ``tol``."""
    n = graph.num_vertices
    if n == 0:
        return np.zeros(0)
    a = graph.to_scipy().astype(np.float64)
    strength = np.asarray(a.sum(axis=1)).ravel()
    inverse = np.divide(1.0, strength, out=np.zeros(n), where=strength > 0)
    transposed = a.T.tocsr()
    rank = np.full(n, 1.0 / n)
    for _ in range(10_000):
        following = alpha * (transposed @ (rank * inverse) + rank[strength == 0].sum() / n)
        following += (1 - alpha) / n
        change = np.abs(following - rank).sum()
        rank = following
        if change < n * tol:
            return rank
    raise RuntimeError("scipy_pagerank did not converge")


def pagerank_agrees(graph: Graph, result: Any) -> None:
    expected = scipy_pagerank(graph)
    distance = float(np.abs(result.ranks - expected).sum())
    bound = _PAGERANK_SLACK * graph.num_vertices * 1e-6 + 1e-9
    if not distance <= bound:
        worst = int(np.argmax(np.abs(result.ranks - expected)))
        raise AssertionError(f"ranks are {distance:.3g} from scipy's in L1 (allowed {bound:.3g});"
                             f" vertex {worst}: expected {expected[worst]:.6g}, got "
                             f"{result.ranks[worst]:.6g}")


def pagerank_report(result: Any) -> list[tuple[str, str]]:
    top = int(np.argmax(result.ranks)) if result.ranks.size else -1
    return [("top vertex", f"{top} (rank {result.ranks[top]:.4g})" if top >= 0 else "-"),
            ("L1 change", f"{result.error:.3g}")]


def run_pagerank(graph: Graph, **options: Any) -> Any:
    return pagerank(graph, **options)


# betweenness ---------------------------------------------------------------------------------
def scipy_betweenness(graph: Graph, source: int) -> np.ndarray:
    """The dependencies of ``source`` on every vertex (Brandes), vectorized: the BFS depths by
    scipy, then path counts and dependencies level by level over the arcs joining levels."""
    from scipy.sparse import csgraph

    n = graph.num_vertices
    pattern = graph.to_scipy()
    depth = csgraph.shortest_path(pattern, indices=source, unweighted=True, method="D")
    depth = np.where(np.isinf(depth), -1, depth).astype(np.int64)
    src, dst = graph.coo().src.astype(np.int64), graph.col_indices.astype(np.int64)
    joining = (depth[src] >= 0) & (depth[dst] == depth[src] + 1)
    src, dst = src[joining], dst[joining]
    order = np.argsort(depth[src], kind="stable")
    src, dst = src[order], dst[order]
    bounds = np.searchsorted(depth[src], np.arange(depth.max(initial=0) + 2))
    sigma, delta = np.zeros(n), np.zeros(n)
    sigma[source] = 1.0
    levels = [slice(bounds[d], bounds[d + 1]) for d in range(len(bounds) - 1)]
    for level in levels:
        np.add.at(sigma, dst[level], sigma[src[level]])
    for level in reversed(levels):
        u, v = src[level], dst[level]
        np.add.at(delta, u, sigma[u] / sigma[v] * (1.0 + delta[v]))
    delta[source] = 0.0
    return delta


def betweenness_agrees(graph: Graph, source: int, result: Any) -> None:
    expected = scipy_betweenness(graph, source)
    bound = 1e-9 * max(1.0, float(np.abs(expected).max(initial=0)))
    bad = np.flatnonzero(~(np.abs(result.values - expected) <= bound))
    if bad.size:
        v = int(bad[0])
        raise AssertionError(f"{bad.size} vertices differ; vertex {v}: expected "
                             f"{expected[v]!r}, got {result.values[v]!r}")


def betweenness_report(result: Any) -> list[tuple[str, str]]:
    top = int(np.argmax(result.values)) if result.values.size else -1
    return [("top vertex", f"{top} ({result.values[top]:.4g})" if top >= 0 else "-")]


def run_betweenness(graph: Graph, source: int, **options: Any) -> Any:
    return betweenness_centrality(graph, source, **options)


# k-core --------------------------------------------------------------------------------------
def distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct values of ``keys``, ascending (a sort and a mask: many times faster than
    ``np.unique`` on millions of int64 keys with NumPy 2.4)."""
    ordered = np.sort(keys)
    if ordered.size == 0:
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def undirected_simple(graph: Graph) -> Graph:
    """The undirected graph underlying ``graph``: one edge per pair of distinct vertices joined
    by an arc either way (self-loops and repeats dropped), what k-core runs on from the command
    line."""
    n = graph.num_vertices
    src, dst = graph.coo().src.astype(np.int64), graph.col_indices.astype(np.int64)
    apart = src != dst
    repeated = (src[1:] == src[:-1]) & (dst[1:] == dst[:-1])  # rows are sorted by head
    if not graph.directed and apart.all() and not repeated.any():
        return graph
    keys = distinct(np.minimum(src, dst)[apart] * n + np.maximum(src, dst)[apart])
    return Graph.from_edges(keys // max(n, 1), keys % max(n, 1), num_vertices=n,
                            directed=False)


def run_k_core(graph: Graph, **options: Any) -> Any:
    return k_core(undirected_simple(graph), **options)


def k_core_agrees(graph: Graph, result: Any) -> None:
    from frontier.testing import check_core_numbers

    check_core_numbers(undirected_simple(graph), result.core_numbers)


def k_core_reference(graph: Graph) -> np.ndarray:
    from frontier.testing import reference_core_numbers

    return reference_core_numbers(undirected_simple(graph))


def k_core_report(result: Any) -> list[tuple[str, str]]:
    return [("degeneracy", f"{result.degeneracy} (the largest core number)")]
