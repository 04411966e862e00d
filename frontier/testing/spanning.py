"""The reference for minimum spanning forests, and the check of an algorithm's forest against it.

:func:`reference_minimum_spanning_forest` is Kruskal's algorithm (*On the shortest spanning
subtree of a graph and the traveling salesman problem*, 1956): the edges of an undirected graph
scanned by weight, then by edge id (the order of each edge's arc ``u -> v`` with ``u < v``, the
arc that numbers it), each kept when its ends are still in different trees of a union-find.
Under that strict order the minimum spanning forest is unique, so
:func:`algorithms.minimum_spanning_forest` must return exactly these edges. The loop is compiled
with Numba so that it stays quick on large graphs.

:func:`check_minimum_spanning_forest` holds a forest to equality with the reference, and its
weight to scipy's ``minimum_spanning_tree`` (an implementation of its own).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree

from frontier.graph import Graph

__all__ = ["reference_minimum_spanning_forest", "check_minimum_spanning_forest"]


def _forest_arcs(graph: Graph) -> np.ndarray:
    """The arcs ``u -> v`` with ``u < v`` (one per edge, self-loops left out) in the order
    Kruskal scans them."""
    if graph.directed:
        raise ValueError("the minimum spanning forest reference needs an undirected graph")
    src, dst = graph.coo().src, graph.col_indices
    arcs = np.flatnonzero(src < dst)
    weights = graph.weights[arcs] if graph.weighted else np.ones(arcs.size, np.int64)
    return arcs[np.lexsort((arcs, weights))]


def reference_minimum_spanning_forest(graph: Graph) -> np.ndarray:
    """The minimum spanning forest of an undirected graph by Kruskal's algorithm in (weight,
    edge id) order: its edges as ``(u, v)`` pairs with ``u < v`` (int32, shape (f, 2)), in edge
    id order. ValueError for a directed graph or a NaN weight."""
    kept = _forest(graph)
    return np.stack([graph.coo().src[kept], graph.col_indices[kept]], axis=1).astype(np.int32)


def _forest(graph: Graph) -> np.ndarray:
    """The arcs of Kruskal's forest (one ``u -> v``, ``u < v``, per edge), ascending."""
    order = _forest_arcs(graph)
    return np.sort(order[_kruskal(graph.coo().src, graph.col_indices, order,
                                  graph.num_vertices)])


@numba.njit(cache=False)
def _kruskal(tails: np.ndarray, heads: np.ndarray, order: np.ndarray,
             n: int) -> np.ndarray:  # pragma: no cover
    parent = np.arange(n)
    kept = np.zeros(order.size, np.bool_)
    for i in range(order.size):
        a, b = tails[order[i]], heads[order[i]]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            parent[max(a, b)] = min(a, b)
            kept[i] = True
    return kept


def check_minimum_spanning_forest(graph: Graph, edges: Any, total_weight: float) -> None:
    """Check ``edges`` (``(u, v)`` pairs, one row per forest edge, in edge id order) equal
    :func:`reference_minimum_spanning_forest`, ``total_weight`` equals their weight, and that
    weight equals scipy's ``minimum_spanning_tree`` (to a relative 1e-9 for float weights;
    compared only where no weight is zero: some of scipy's releases drop an explicit zero from
    a sparse graph, others keep it as an edge)."""
    got = np.asarray(edges).reshape(-1, 2)
    kept = _forest(graph)
    expected = np.stack([graph.coo().src[kept], graph.col_indices[kept]], axis=1)
    if got.shape != expected.shape or not np.array_equal(got, expected):
        if got.shape != expected.shape:
            raise AssertionError(f"the forest has {got.shape[0]} edges; Kruskal's has "
                                 f"{expected.shape[0]}")
        i = int(np.flatnonzero((got != expected).any(axis=1))[0])
        raise AssertionError(f"forest edge {i} is {tuple(got[i].tolist())}; Kruskal's in "
                             f"(weight, edge id) order is {tuple(expected[i].tolist())}")
    kind = graph.weights.dtype.kind if graph.weighted else "i"
    want = (float(graph.weights[kept].sum()) if kind == "f"  # integers: exact Python ints
            else sum(graph.weights[kept].tolist()) if graph.weighted else kept.size)
    if not _close(total_weight, want):
        raise AssertionError(f"total_weight is {total_weight}; the forest's edges weigh {want}")
    simple = graph.simple()  # the least weight of repeated edges, loops dropped
    weights = simple.weights if simple.weighted else np.ones(simple.num_edges)
    if not weights.all():  # scipy's releases differ on whether an explicit zero is an edge
        return
    matrix = sp.csr_matrix((weights.astype(np.float64), simple.col_indices, simple.row_offsets),
                           shape=(graph.num_vertices,) * 2)
    scipy_total = float(minimum_spanning_tree(matrix).sum()) if graph.num_vertices else 0.0
    if not _close(float(total_weight), scipy_total):
        raise AssertionError(f"total_weight is {total_weight}; scipy's minimum_spanning_tree "
                             f"weighs {scipy_total}")


def _close(got: float, want: float) -> bool:
    if got == want:
        return True
    return bool(np.isclose(float(got), float(want), rtol=1e-9, atol=0.0))
