"""The communication model of a push BFS over partitions: the bytes each rank sends in each
level, predicted from the graph, the partition and the BFS levels (docs/scale-out.md,
"Communication model", checks it against the bytes measured on cpu workers).

In level ℓ rank ``r`` reaches each remote vertex ``v`` once, the first level one of its owned
vertices at distance ℓ has an arc to ``v`` (its own view of ``v`` is then visited: it never
reaches ``v`` again); ``sent(r, ℓ)`` counts them. Every rank joins two votes of the level (an
all-reduce each: 8 bytes to each of the P - 1 other ranks): the exchange's choice of dense or
sparse, and the count of the next frontiers that ends the traversal. The exchange
(:func:`frontier.distributed.exchange.exchange`) is dense when ``Σ_r sent(r, ℓ)`` is at least
|V| / ``DENSE_SHARE``: rank ``r`` then sends every other rank ``q`` a flag byte and a
predecessor for each vertex of ``q``'s range; otherwise each remote vertex's id and
predecessor::

    bytes(r, ℓ) = 8 · sent(r, ℓ) + 16 · (P - 1)                    (sparse)
    bytes(r, ℓ) = 5 · Σ_{q ≠ r} |range(q)| + 16 · (P - 1)          (dense)
"""

from __future__ import annotations

import numpy as np

from frontier.distributed.exchange import DENSE_SHARE
from frontier.graph import Graph

__all__ = ["push_bfs_bytes", "ID_BYTES", "FLAG_BYTES", "VALUE_BYTES", "VOTE_BYTES",
           "VOTES_PER_LEVEL"]

ID_BYTES = 4  #: a vertex id crossing partitions in a sparse exchange (int32)
FLAG_BYTES = 1  #: a vertex's "sent" flag in a dense exchange (uint8)
VALUE_BYTES = 4  #: the value sent with it: a BFS predecessor (int32)
VOTE_BYTES = 8  #: one rank's count in an all-reduce, sent to every other rank
VOTES_PER_LEVEL = 2  #: the exchange's dense-or-sparse vote and the next frontiers' count


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
    sent = np.zeros((parts, levels), np.int64)  # remote vertices reached, by rank and level
    if crossing.any():
        rank, head, level = owner_t[crossing], heads[crossing], distances[tails[crossing]]
        first = np.full((parts, graph.num_vertices), levels, np.int64)
        np.minimum.at(first, (rank, head), level)
        r, _ = np.nonzero(first < levels)
        np.add.at(sent, (r, first[first < levels]), 1)
    ranges = np.diff(bounds)
    dense = sent.sum(axis=0) * DENSE_SHARE >= graph.num_vertices
    dense_bytes = (ranges.sum() - ranges) * (FLAG_BYTES + VALUE_BYTES)  # by rank
    exchanged = np.where(dense[None, :], dense_bytes[:, None], sent * (ID_BYTES + VALUE_BYTES))
    return exchanged + VOTES_PER_LEVEL * VOTE_BYTES * (parts - 1)
