"""The reference for label-propagation communities, and the check of an algorithm's labels.

The reference is NetworkX's ``label_propagation_communities`` (Cordasco & Gargano's
semi-synchronous label propagation) written out sequentially: colour the graph greedily, the
vertices by decreasing degree, the smaller id first on a tie (NetworkX's ``greedy_color``
default, :func:`frontier.testing.reference_coloring` with ``order="largest_first"``); label every
vertex with its id; then, until every vertex's label is among the most frequent of its
neighbours' labels, visit the colours in order and the vertices of each colour one by one: a
vertex takes its neighbours' most frequent label, and where several are most frequent, keeps its
own if it is one of them, else takes the largest ("Prec-Max"). Neighbours are NetworkX's: each
distinct neighbour once, a vertex with a self-loop among its own (its degree counting the loop
twice); repeated edges count once. Communities are labelled by their smallest vertex id.

The loop is compiled with Numba; it uses neither Frontier's operators nor NetworkX.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from frontier.graph import Graph
from frontier.testing.structure import reference_coloring

__all__ = ["reference_label_propagation", "check_label_propagation"]

_SHOWN = 8


def reference_label_propagation(graph: Graph) -> np.ndarray:
    """Each vertex's community (int32: the smallest vertex id in it) by NetworkX's
    semi-synchronous label propagation, of an undirected graph (see the module docstring).
    ValueError on a directed graph (NetworkX refuses one too)."""
    if graph.directed:
        raise ValueError("label propagation communities need an undirected graph")
    n = graph.num_vertices
    src, dst = graph.coo().src.astype(np.int64), graph.col_indices.astype(np.int64)
    keys = np.unique(np.minimum(src, dst) * max(n, 1) + np.maximum(src, dst))
    low, high = keys // max(n, 1), keys % max(n, 1)
    distinct = Graph.from_edges(low, high, num_vertices=n, directed=False)  # a loop once
    colors = reference_coloring(distinct, order="largest_first")
    heads = distinct.sorted_neighbors()
    labels = _propagate(distinct.row_offsets, heads, colors)
    smallest = np.full(n, n, np.int64)
    np.minimum.at(smallest, labels, np.arange(n))
    return smallest[labels].astype(np.int32)


@numba.njit(cache=False)
def _propagate(offsets: np.ndarray, heads: np.ndarray,
               colors: np.ndarray) -> np.ndarray:  # pragma: no cover
    n = offsets.size - 1
    labels = np.arange(n)
    by_color = np.argsort(colors, kind="mergesort")
    count = np.zeros(n, np.int64)
    changed = True
    while changed:
        changed = False
        for v in by_color:
            if offsets[v] == offsets[v + 1]:
                continue
            best, most = -1, 0
            for e in range(offsets[v], offsets[v + 1]):
                count[labels[heads[e]]] += 1
            for e in range(offsets[v], offsets[v + 1]):
                c, x = count[labels[heads[e]]], labels[heads[e]]
                if c > most or (c == most and x > best):
                    best, most = x, c
            own = count[labels[v]]
            for e in range(offsets[v], offsets[v + 1]):
                count[labels[heads[e]]] = 0
            if own < most:  # the own label is not among the most frequent: Prec-Max
                labels[v] = best
                changed = True
    return labels


def check_label_propagation(graph: Graph, labels: Any) -> None:
    """Check ``labels`` (one per vertex) equal :func:`reference_label_propagation`, naming the
    first vertices that differ."""
    got = np.asarray(labels)
    if got.shape != (graph.num_vertices,):
        raise AssertionError(f"labels has shape {got.shape}; expected one label per vertex "
                             f"({graph.num_vertices},)")
    expected = reference_label_propagation(graph)
    wrong = np.flatnonzero(got != expected)
    if wrong.size:
        listed = "; ".join(f"vertex {v}: expected {expected[v]}, got {got[v]}"
                           for v in wrong[:_SHOWN].tolist())
        more = f"; ... and {wrong.size - _SHOWN} more" if wrong.size > _SHOWN else ""
        raise AssertionError(f"labels differ from NetworkX's label propagation at "
                             f"{wrong.size} vertices: {listed}{more}")
