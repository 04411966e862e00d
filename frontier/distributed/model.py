"""The communication model of a push BFS over partitions: the bytes each rank sends in each
level, predicted from the graph, the partition and the BFS levels (docs/scale-out.md,
"Communication model", checks it against the bytes measured on cpu workers).

In level ℓ rank ``r`` sends each remote vertex ``v`` once, the first level one of its owned
vertices at distance ℓ has an arc to ``v`` (its own view of ``v`` is then visited: it never
sends ``v`` again), with the predecessor: 4 bytes of id + 4 of predecessor; and it joins the
vote that ends the level (an all-reduce of the frontier sizes: 8 bytes to each of the P - 1
other ranks)::

    bytes(r, ℓ) = 8 · |{v remote to r : min{dist(u) : u owned by r, u → v} = ℓ}| + 8 · (P - 1)
"""

from __future__ import annotations

import numpy as np

from frontier.graph import Graph

__all__ = ["push_bfs_bytes", "ID_BYTES", "VALUE_BYTES", "VOTE_BYTES"]

ID_BYTES = 4  #: a vertex id crossing partitions (int32)
VALUE_BYTES = 4  #: the value sent with it: a BFS predecessor (int32)
VOTE_BYTES = 8  #: one rank's frontier size, sent to every other rank by the all-reduce


def push_bfs_bytes(graph: Graph, bounds: np.ndarray, distances: np.ndarray) -> np.ndarray:
    """The model's bytes sent by rank ``r`` in level ``ℓ`` (``[r, ℓ]``, int64) of a push BFS
    over the partition ``bounds`` (P + 1 vertex boundaries) whose levels were ``distances``
    (-1 unreached), one column per level the BFS ran."""
    bounds = np.asarray(bounds, np.int64)
    distances = np.asarray(distances, np.int64)
    parts = bounds.size - 1
    if bounds[0] != 0 or bounds[-1] != graph.num_vertices or distances.size != graph.num_vertices:
        raise ValueError(f"bounds {bounds.tolist()} and {distances.size} distances do not "
                         f"describe a graph of {graph.num_vertices} vertices")
    levels = int(distances.max(initial=-1)) + 1
    tails = np.repeat(np.arange(graph.num_vertices), np.diff(graph.row_offsets))
    heads = graph.col_indices.astype(np.int64)
    owner_t = np.searchsorted(bounds, tails, side="right") - 1
    owner_h = np.searchsorted(bounds, heads, side="right") - 1
    crossing = (owner_t != owner_h) & (distances[tails] >= 0)
    sent = np.zeros((parts, levels), np.int64)
    if crossing.any():
        rank, head, level = owner_t[crossing], heads[crossing], distances[tails[crossing]]
        first = np.full((parts, graph.num_vertices), levels, np.int64)
        np.minimum.at(first, (rank, head), level)
        r, _ = np.nonzero(first < levels)
        np.add.at(sent, (r, first[first < levels]), ID_BYTES + VALUE_BYTES)
    return sent + VOTE_BYTES * (parts - 1)
