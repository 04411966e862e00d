"""The reference for triangle counting, and the check comparing an algorithm's output with it.

A triangle is a set of three distinct vertices joined pairwise, in the undirected simple graph:
self-loops and repeated edges add none (NetworkX's ``triangles``). The reference walks each
vertex ``v``'s neighbours ``u > v`` and merges the two sorted rows for the ``w > u`` they share,
so that every triangle ``v < u < w`` is found once and counted at its three corners: a plain
sequential implementation, compiled with Numba so that it stays quick on graphs of millions of
edges, and independent of Frontier's operators and of NetworkX.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from frontier.graph import Graph

__all__ = ["reference_triangles", "check_triangles"]


def reference_triangles(graph: Graph) -> np.ndarray:
    """Triangles at each vertex (int64, one per vertex) of an undirected graph, self-loops and
    repeated edges ignored. ValueError on a directed graph (NetworkX refuses one too)."""
    if graph.directed:
        raise ValueError("triangles are counted in an undirected graph")
    return _corners(graph.row_offsets, graph.sorted_neighbors())


@numba.njit(cache=False)
def _corners(offsets: np.ndarray, heads: np.ndarray) -> np.ndarray:  # pragma: no cover
    n = offsets.size - 1
    count = np.zeros(n, np.int64)
    for v in range(n):
        previous = -1
        for e in range(offsets[v], offsets[v + 1]):
            u = heads[e]
            if u <= v or u == previous:
                previous = u
                continue
            previous = u
            a, b, last = offsets[v], offsets[u], -1
            while a < offsets[v + 1] and b < offsets[u + 1]:
                x, y = heads[a], heads[b]
                if x < y:
                    a += 1
                elif y < x:
                    b += 1
                else:
                    if x > u and x != last:
                        count[v] += 1
                        count[u] += 1
                        count[x] += 1
                    last = x
                    a += 1
                    b += 1
    return count


def check_triangles(graph: Graph, per_vertex: Any, total: int | None = None) -> None:
    """Check ``per_vertex`` (one count per vertex) equals :func:`reference_triangles`, and
    ``total``, where given, the number of triangles (their sum over three)."""
    expected = reference_triangles(graph)
    got = np.asarray(per_vertex)
    if got.shape != expected.shape:
        raise AssertionError(f"triangle counts: {got.shape[0] if got.ndim else got} values for "
                             f"{graph.num_vertices} vertices")
    bad = np.flatnonzero(got != expected)
    if bad.size:
        shown = ", ".join(f"vertex {v}: {got[v]} (expected {expected[v]})" for v in bad[:5])
        raise AssertionError(f"triangle counts differ at {bad.size} vertices: {shown}")
    if total is not None and int(total) != int(expected.sum()) // 3:
        raise AssertionError(f"total triangles {total}, expected {int(expected.sum()) // 3}")
