"""References for vertex structures (maximal independent sets, colourings), and checks of an
algorithm's output against them.

Both references are the plain sequential greedy algorithms, visiting the vertices one at a time
in a random order fixed by a seed: a vertex joins the independent set unless a neighbour visited
before it did; a vertex takes the smallest colour none of its coloured neighbours has (first
fit). The order is the one :func:`algorithms.maximal_independent_set` (priority method) and
:func:`algorithms.graph_coloring` (Jones & Plassmann) use, so their results equal these: the
vertices by decreasing ``random_bits(random_bits(seed, 0), v)``, the smaller id first on a tie;
or, for a colouring in order ``"largest_first"``, by decreasing degree as NetworkX counts it
(every arc once, a self-loop twice), the smaller id first on a tie (NetworkX's
``greedy_color`` default strategy).
The bits come from :mod:`frontier.testing.random_reference` (SplitMix64 from its definition,
independent of :mod:`frontier.runtime.rng`); the greedy loops are compiled with Numba so that they
stay quick on large graphs. Self-loops are ignored (as NetworkX's greedy loops ignore them); a
repeated edge counts once.

The checks hold any result to the definitions (independent and maximal; proper and complete),
and, given the seed, to equality with the reference.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from frontier import validate
from frontier.graph import Graph
from frontier.testing.random_reference import reference_random_bits, reference_random_bits_of

__all__ = ["greedy_order", "reference_mis", "check_independent_set", "reference_coloring",
           "check_coloring"]

_SHOWN = 8
def _undirected(graph: Graph, what: str) -> Graph:
    if graph.directed:
        raise ValueError(f"{what} needs an undirected graph")
    return graph


def greedy_order(graph: Graph, seed: int = 0, order: str = "random") -> np.ndarray:
    """The vertices in the order the greedy references visit them (int64): decreasing
    ``random_bits(random_bits(seed, 0), v)`` (``order="random"``) or decreasing degree as
    NetworkX counts it (``order="largest_first"``: the arcs at the vertex, a self-loop's once
    more), the smaller id first on a tie."""
    ids = np.arange(graph.num_vertices, dtype=np.uint64)
    if order == "largest_first":
        src, dst = graph.coo().src, graph.col_indices
        degree = np.bincount(src, minlength=graph.num_vertices) + np.bincount(
            src[src == dst], minlength=graph.num_vertices)
        return np.lexsort((ids, -degree)).astype(np.int64)
    if order != "random":
        raise ValueError(f"order={order!r}; expected 'random' or 'largest_first'")
    bits = reference_random_bits_of(reference_random_bits(seed, 0), ids)
    return np.lexsort((ids, ~bits)).astype(np.int64)


def _vertex_values(name: str, values: Any, graph: Graph) -> np.ndarray:
    got = np.asarray(values)
    if got.shape != (graph.num_vertices,):
        raise AssertionError(f"{name} has shape {got.shape}; expected one value per vertex "
                             f"({graph.num_vertices},)")
    return got


def _fail(what: str, vertices: np.ndarray, describe: Any) -> None:
    if vertices.size:
        listed = "; ".join(describe(int(v)) for v in vertices[:_SHOWN])
        more = f"; ... and {vertices.size - _SHOWN} more" if vertices.size > _SHOWN else ""
        raise AssertionError(f"{what} at {vertices.size} vertices: {listed}{more}")


def _arcs(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """Every arc between two distinct vertices, as (tails, heads)."""
    src, dst = graph.coo().src, graph.col_indices
    apart = src != dst
    return src[apart], dst[apart]


# maximal independent sets --------------------------------------------------------------------
def reference_mis(graph: Graph, seed: int = 0) -> np.ndarray:
    """The greedy maximal independent set (bool, one per vertex) of an undirected graph, in
    :func:`greedy_order`. Raises ValueError on a directed graph."""
    graph = _undirected(graph, "reference_mis")
    return _greedy_mis(graph.row_offsets, graph.col_indices, greedy_order(graph, seed))


@numba.njit(cache=False)
def _greedy_mis(offsets: np.ndarray, heads: np.ndarray, order: np.ndarray
                ) -> np.ndarray:  # pragma: no cover
    taken = np.zeros(offsets.size - 1, np.bool_)
    blocked = np.zeros(offsets.size - 1, np.bool_)
    for v in order:
        if not blocked[v]:
            taken[v] = True
            for e in range(offsets[v], offsets[v + 1]):
                if heads[e] != v:
                    blocked[heads[e]] = True
    return taken


def check_independent_set(graph: Graph, in_set: Any, *, seed: int | None = None) -> None:
    """Check ``in_set`` (booleans, one per vertex) is an independent set (no edge between two
    distinct members) and maximal (every other vertex has a neighbour in it); with ``seed``,
    also that it equals :func:`reference_mis` of that seed."""
    members = _vertex_values("in_set", in_set, graph).astype(bool)
    tails, heads = _arcs(graph)
    both = members[tails] & members[heads]
    _fail("not independent: an edge joins two members", np.unique(tails[both]),
          lambda v: f"vertex {v} and its neighbour {int(heads[both][tails[both] == v][0])}")
    covered = members.copy()
    covered[heads[members[tails]]] = True
    _fail("not maximal: a vertex outside the set has no neighbour in it",
          np.flatnonzero(~covered), lambda v: f"vertex {v} could join")
    if seed is not None:
        expected = reference_mis(graph, seed)
        _fail(f"differs from the greedy MIS of seed {seed}", np.flatnonzero(members != expected),
              lambda v: f"vertex {v}: expected {'in' if expected[v] else 'out'}")


# colourings ----------------------------------------------------------------------------------
def reference_coloring(graph: Graph, seed: int = 0, order: str = "random") -> np.ndarray:
    """The greedy first-fit colouring (int32 colours 0, 1, ..., one per vertex) of an undirected
    graph, in :func:`greedy_order` (of ``seed`` and ``order``). Raises ValueError on a directed
    graph."""
    graph = _undirected(graph, "reference_coloring")
    return _first_fit(graph.row_offsets, graph.col_indices, greedy_order(graph, seed, order))


@numba.njit(cache=False)
def _first_fit(offsets: np.ndarray, heads: np.ndarray, order: np.ndarray
               ) -> np.ndarray:  # pragma: no cover
    n = offsets.size - 1
    colors = np.full(n, -1, np.int32)
    seen_by = np.full(n + 1, -1, np.int64)  # seen_by[c] == v: a neighbour of v has colour c
    for v in order:
        for e in range(offsets[v], offsets[v + 1]):
            if heads[e] != v and colors[heads[e]] >= 0:
                seen_by[colors[heads[e]]] = v
        c = 0
        while seen_by[c] == v:
            c += 1
        colors[v] = c
    return colors


def check_coloring(graph: Graph, colors: Any, *, seed: int | None = None,
                   order: str = "random", neighbours: str = "distinct") -> None:
    """Check ``colors`` (integers, one per vertex) colour every vertex (``>= 0``), properly (no
    edge between two distinct vertices of one colour) and within first fit's bound: no vertex's
    colour above its number of ``neighbours``, ``"distinct"`` (what any first fit gives) or
    ``"arcs"`` (its arcs to other vertices, a repeated arc counted each time: what speculative
    colouring gives; the same on a graph without repeated arcs), so at most max degree + 1
    colours; with ``seed``, also that they equal :func:`reference_coloring` of that seed and
    ``order`` (the seed is unused in order ``"largest_first"``)."""
    distinct = validate.one_of("neighbours", neighbours, ("distinct", "arcs")) == "distinct"
    got = _vertex_values("colors", colors, graph).astype(np.int64)
    _fail("not coloured (negative colour)", np.flatnonzero(got < 0),
          lambda v: f"vertex {v}: colour {got[v]}")
    tails, heads = _arcs(graph)
    clash = got[tails] == got[heads]
    _fail("not proper: an edge joins two vertices of one colour", np.unique(tails[clash]),
          lambda v: f"vertex {v} and its neighbour {int(heads[clash][tails[clash] == v][0])}, "
                    f"colour {got[v]}")
    n = got.size
    keys = tails.astype(np.int64) * n + heads
    bound = np.bincount((np.unique(keys) if distinct else keys) // max(n, 1), minlength=n)
    what = "distinct neighbours" if distinct else "arcs to other vertices"
    _fail(f"above first fit: a vertex's colour exceeds its number of {what}",
          np.flatnonzero(got > bound),
          lambda v: f"vertex {v}: colour {got[v]}, {bound[v]} {what}")
    if seed is not None:
        expected = reference_coloring(graph, seed, order)
        which = f"seed {seed}" if order == "random" else f"order {order}"
        _fail(f"differs from the greedy first-fit colouring of {which}",
              np.flatnonzero(got != expected),
              lambda v: f"vertex {v}: expected {expected[v]}, got {got[v]}")
