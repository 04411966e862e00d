"""The compiled step of :mod:`frontier_nx.traversal`'s ordered search: one level of NetworkX's
breadth-first search on the graph's arrays, in NetworkX's order (the queue scanned in order,
each vertex's arcs in adjacency order, a vertex queued when a scan first meets it unseen, with
the vertex whose scan met it). Sequential, as NetworkX's is: the order is the result. Compiled
once and kept in the library's cache directory
(:func:`frontier.runtime.cache_dir.cached_njit`).
"""

from __future__ import annotations

import numpy as np

from frontier.runtime.cache_dir import cached_njit

__all__ = ["next_level"]


@cached_njit(nogil=True)
def next_level(offsets: np.ndarray, heads: np.ndarray, order: np.ndarray, parents: np.ndarray,
               seen: np.ndarray, start: int, end: int) -> int:
    """Scans the level ``order[start:end]`` and appends the next one after it (its vertices to
    ``order``, the vertex that met each to ``parents``, each marked in ``seen``); returns the
    end of the next level (``end`` where it is empty)."""
    tail = end
    for i in range(start, end):
        v = order[i]
        for arc in range(offsets[v], offsets[v + 1]):
            w = heads[arc]
            if not seen[w]:
                seen[w] = True
                order[tail] = w
                parents[tail] = v
                tail += 1
    return tail
