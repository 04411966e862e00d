"""The simple graph of a graph (:meth:`frontier.Graph.simple`): self-loops dropped, repeated arcs
merged into one that keeps the least of their weights.

Kept directed or undirected as the graph is, or made undirected: the undirected simple graph
underlying a directed graph has one edge ``{u, v}`` wherever an arc ``u -> v`` or ``v -> u`` is,
weighing the least of those arcs. An undirected graph stays symmetric: it stores both arcs of an
edge with one weight each way (a repeated edge's weights as the same multiset both ways), so the
least weight is the same both ways too. Vectorized: the arcs' keys ``tail * |V| + head`` are
sorted already where the rows are (as the graph's sorted rows are); only the underlying
undirected graph of a directed one sorts its keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from frontier.graph import Graph

__all__ = ["simple"]


def simple(graph: Graph, directed: bool,
           from_sorted_keys: Callable[[np.ndarray, np.ndarray | None, int, bool], Graph]
           ) -> Graph:
    """The simple graph of ``graph`` as :meth:`frontier.Graph.simple` describes it, directed or
    not as ``directed`` says: ``graph`` itself where it is that already. ``from_sorted_keys``
    builds a graph of sorted arc keys (:func:`frontier.graph.from_sorted_keys`)."""
    n = graph.num_vertices
    heads, arcs = graph._sorted_rows()
    src, dst = graph.coo().src.astype(np.int64), heads.astype(np.int64)
    weights = graph.weights
    if weights is not None and arcs.size:
        weights = weights[arcs]
    apart = src != dst
    repeated = (src[1:] == src[:-1]) & (dst[1:] == dst[:-1])  # repeats are neighbours
    if (directed or not graph.directed) and apart.all() and not repeated.any():
        if directed == graph.directed:
            return graph
        return from_sorted_keys(src * n + dst, weights, n, directed)
    kept = None if weights is None else weights[apart]
    if directed or not graph.directed:  # the sorted rows are sorted keys
        keys, kept = _least_per_key(src[apart] * n + dst[apart], kept)
        return from_sorted_keys(keys, kept, n, directed)
    low, high = np.minimum(src, dst)[apart], np.maximum(src, dst)[apart]
    order = np.argsort(low * n + high, kind="stable")
    keys, kept = _least_per_key((low * n + high)[order], None if kept is None else kept[order])
    width = max(n, 1)
    return type(graph).from_edges(keys // width, keys % width, kept, num_vertices=n, directed=False)


def _least_per_key(keys: np.ndarray, weights: np.ndarray | None
                   ) -> tuple[np.ndarray, np.ndarray | None]:
    """Each distinct key of the sorted ``keys`` once, with the least of its ``weights``."""
    if keys.size == 0:
        return keys, weights
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return keys[starts], None if weights is None else np.minimum.reduceat(weights, starts)
