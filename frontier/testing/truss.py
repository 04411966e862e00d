"""The reference for k-trusses, and the check comparing an algorithm's truss with it.

The k-truss of an undirected graph is its largest subgraph in which every edge lies in at least
``k - 2`` triangles of the subgraph (Cohen's definition, NetworkX's ``k_truss``). The reference
is Cohen's sequential peeling (*Trusses: Cohesive Subgraphs for Social Network Analysis*, 2008):
count each edge's triangles by merging its ends' sorted rows, put the edges of support below
``k - 2`` on a queue, and take them out one at a time, each lowering the support of the two
other edges of every triangle it still closes (an edge whose support falls below ``k - 2``
joins the queue). The truss does not depend on the order the edges go in. Plain sequential
code compiled with Numba, independent of Frontier's operators, of its arc pairing
(:meth:`frontier.Graph.edge_ids`) and of NetworkX: it builds its own table of distinct edges.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from frontier.graph import Graph

__all__ = ["reference_k_truss", "check_k_truss"]


def reference_k_truss(graph: Graph, k: int) -> np.ndarray:
    """The k-truss's edges as ``(u, v)`` pairs, ``u < v``, ascending (int32, shape (t, 2)) of an
    undirected graph without self-loops, repeated edges counted once (``k <= 2`` keeps every
    edge). ValueError on a directed graph or one with self-loops (NetworkX refuses both)."""
    if graph.directed:
        raise ValueError("the k-truss reference needs an undirected graph")
    src, dst = graph.coo().src.astype(np.int64), graph.col_indices.astype(np.int64)
    if (src == dst).any():
        raise ValueError("the k-truss reference needs a graph without self-loops")
    n = max(graph.num_vertices, 1)
    keys = np.unique(src[src < dst] * n + dst[src < dst])  # each distinct edge u < v once
    u, v = keys // n, keys % n
    # each edge in both rows: (tail, head, edge), sorted by tail then head
    tails, heads = np.concatenate([u, v]), np.concatenate([v, u])
    edge = np.concatenate([np.arange(keys.size)] * 2)
    order = np.lexsort((heads, tails))
    offsets = np.searchsorted(tails[order], np.arange(graph.num_vertices + 1))
    kept = _peel(offsets, heads[order], edge[order], u, v, max(int(k) - 2, 0))
    return np.stack([u[kept], v[kept]], axis=1).astype(np.int32)


@numba.njit(cache=False)
def _peel(offsets: np.ndarray, heads: np.ndarray, edge: np.ndarray, u: np.ndarray,
          v: np.ndarray, floor: int) -> np.ndarray:  # pragma: no cover
    m = u.size
    support = np.zeros(m, np.int64)
    for e in range(m):
        i, j = offsets[u[e]], offsets[v[e]]
        while i < offsets[u[e] + 1] and j < offsets[v[e] + 1]:
            if heads[i] < heads[j]:
                i += 1
            elif heads[i] > heads[j]:
                j += 1
            else:
                support[e] += 1
                i += 1
                j += 1
    gone = np.zeros(m, np.bool_)
    queued = support < floor
    queue = list(np.flatnonzero(queued))
    while queue:
        e = queue.pop()
        gone[e] = True
        i, j = offsets[u[e]], offsets[v[e]]
        while i < offsets[u[e] + 1] and j < offsets[v[e] + 1]:
            if heads[i] < heads[j]:
                i += 1
            elif heads[i] > heads[j]:
                j += 1
            else:
                f, g = edge[i], edge[j]
                if not gone[f] and not gone[g]:
                    for x in (f, g):
                        support[x] -= 1
                        if support[x] < floor and not queued[x]:
                            queued[x] = True
                            queue.append(x)
                i += 1
                j += 1
    return ~gone


def check_k_truss(graph: Graph, k: int, edges: Any) -> None:
    """Check ``edges`` (``(u, v)`` pairs, ``u < v``, ascending, one row per edge) equal
    :func:`reference_k_truss` of ``graph`` and ``k``, naming an edge one has and the other
    lacks."""
    got = np.asarray(edges).reshape(-1, 2).astype(np.int64)
    expected = reference_k_truss(graph, k).astype(np.int64)
    if got.shape == expected.shape and np.array_equal(got, expected):
        return
    have, want = set(map(tuple, got.tolist())), set(map(tuple, expected.tolist()))
    if have == want:
        raise AssertionError("the truss's edges are right but not as (u, v), u < v, ascending")
    extra, missing = sorted(have - want), sorted(want - have)
    said = (f"edge {extra[0]} is not in the {k}-truss" if extra
            else f"edge {missing[0]} of the {k}-truss is missing")
    raise AssertionError(f"{said} ({len(extra)} extra, {len(missing)} missing edges; "
                         f"{len(want)} in the reference's truss)")
