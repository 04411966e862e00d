"""Each arc's reverse arc and undirected edge id: what :meth:`frontier.Graph.reverse_arcs` and
:meth:`frontier.Graph.edge_ids` compute, once per graph.

The pairing rule. Arcs ``u -> v`` are ranked by arc id among the arcs of the same ``(u, v)``
(repeated arcs); the ``k``-th arc ``u -> v`` pairs with the ``k``-th arc ``v -> u``, and with
none (``-1``) where there are fewer than ``k + 1`` arcs ``v -> u``. So the pairing is one to one
and its own inverse: ``rev[rev[a]] == a`` wherever ``rev[a] != -1``; every arc of an undirected
graph has its reverse (the graph stores each edge both ways, with as many arcs each way), and
a self-loop ``u -> u`` is its own reverse (the ``k``-th loop at ``u`` is also the ``k``-th arc
``u -> u`` "the other way").

Undirected edge ids follow from the pairing: an arc and its reverse share an id, an arc without
a reverse has one of its own, and the ids run ``0 .. k-1`` in the order of each edge's lower arc
id. On an undirected graph these are its edges (a repeated edge is two edges, a self-loop one);
on a directed graph they are the edges of the undirected multigraph in which ``u -> v`` and a
``v -> u`` paired with it are one edge.

Both are a few passes of vectorized NumPy over the arcs (a stable sort by ``(tail, head)``,
skipped where the rows are sorted already, and a binary search per arc): O(|E| log |E|), no
Python loop over arcs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from frontier.graph import Graph

__all__ = ["reverse_arcs", "edge_ids"]


def reverse_arcs(graph: Graph) -> np.ndarray:
    """For each arc ``a = u -> v`` of ``graph``, the id of the arc ``v -> u`` paired with it by
    the rule of the module docstring, or -1 where none is: int64, one per arc, read-only."""
    n, m = graph.num_vertices, graph.num_edges
    reverse = np.full(m, -1, dtype=np.int64)
    if m:
        heads, arcs = graph._sorted_rows()
        keys = graph.coo().src.astype(np.int64) * n + heads  # ascending: rows, then heads
        # each arc's rank among the arcs of its (u, v), by arc id (the sort is stable)
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        sizes = np.diff(np.r_[starts, m])
        first = np.repeat(starts, sizes)
        rank = np.arange(m) - first
        # the arcs (v, u): the first at `low` where present, as many as that run holds
        back = (keys % n) * n + keys // n
        low = np.searchsorted(keys, back)
        found = low < m
        found[found] = keys[low[found]] == back[found]
        run = np.zeros(m, dtype=np.int64)
        run[starts] = sizes
        paired = found & (rank < run[np.where(found, low, 0)])
        position = np.where(paired, low + rank, 0)
        ids = arcs if arcs.size else np.arange(m, dtype=np.int64)
        reverse[ids[paired]] = ids[position[paired]]
    reverse.setflags(write=False)
    return reverse


def edge_ids(graph: Graph) -> np.ndarray:
    """For each arc of ``graph``, its undirected edge id (see the module docstring): int64, one
    per arc, ``0 .. k-1`` for ``k`` edges, read-only."""
    reverse = graph.reverse_arcs()
    arcs = np.arange(reverse.size, dtype=np.int64)
    lower = (reverse == -1) | (arcs <= reverse)  # the arc that numbers its edge
    numbers = np.cumsum(lower) - 1
    ids = np.where(lower, numbers, numbers[np.where(lower, arcs, reverse)])
    ids.setflags(write=False)
    return ids
