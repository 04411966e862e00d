"""The graph as a functor sees it: degrees, sizes and neighbours, without passing arrays as state.

A functor whose last parameter is named ``graph`` receives this view (see
:mod:`operators.functors`); these functions read it on every target (CUDA, the sequential CPU and
the simulator)::

    def share(src, dst, eid, weight, rank, graph):
        return rank[src] / out_degree(graph, src)

    def triangles_at(v, count, graph):          # Gunrock's neighbour access in a lambda
        t = 0
        for u in neighbors(graph, v):
            if u > v:
                t += intersection_count(graph, v, u)
        count[v] = t

The view is the tuple ``(num_vertices, num_edges, row_offsets, col_offsets, sorted_heads,
sorted_tails, sorted_arcs)``: the CSR offsets and the incoming-edge (CSC) offsets of the graph
on the kernel's target, each vertex's out-neighbours (in-neighbours) in ascending order, row by
row under the same offsets (:meth:`frontier.Graph.sorted_neighbors`), and the arc id of each
sorted out-neighbour. Where the rows are already sorted, as :meth:`frontier.Graph.from_edges`
and :func:`frontier.load` build them, the sorted heads are the graph's own ``col_indices`` and
its incoming view's sources, and the arc ids are an empty array (a position is its arc id): the
view costs no memory beyond the CSC offsets.

Costs, per call in a functor: :func:`neighbors` and :func:`in_neighbors` O(1) (a view of the
row; iterating it reads one arc per step); :func:`intersection_count`,
:func:`tally_common_neighbors` and :func:`common_neighbors` of rows of lengths ``a <= b`` a
merge, O(a + b), or, where ``b > 16 a``, a binary search of the longer row for each element of
the shorter, O(a log b) (one search, :func:`_intersect`, serves the three), and
:func:`tally_common_neighbors` one atomic per common neighbour. One work item does all of it:
on a graph with hubs, count per edge (an ``advance``, which the load balancer spreads) rather
than per vertex.

In the checked mode (``FRONTIER_BOUNDSCHECK=1``, the cpu target) a vertex id outside
``0 .. |V|-1`` given to any of them (or a negative ``start`` to :func:`common_neighbors`, a
``tally`` of fewer than |E| entries to :func:`tally_common_neighbors`) raises
``IndexError`` naming the function, the id and the functor, instead of reading past the graph's
arrays. They are for functors: called from Python
with a :class:`frontier.Graph`, they raise ``TypeError`` saying so and naming the Python
equivalent (``G.out_degrees()[v]``, ...).
"""

from __future__ import annotations

from functools import wraps
from inspect import signature
from typing import Any

import numba
import numpy as np
from numba import types

from frontier.graph import OFFSET_DTYPE, VERTEX_DTYPE
from frontier.runtime.atomics import atomic_add
from frontier.runtime.devicefn import device_function

__all__ = ["out_degree", "in_degree", "graph_vertices", "graph_edges", "neighbors",
           "in_neighbors", "intersection_count", "tally_common_neighbors", "common_neighbors",
           "GRAPH_VIEW_FIELDS", "view_type"]

#: What the view holds, in order (kernels build it from their parameters of these names).
GRAPH_VIEW_FIELDS = ("num_vertices", "num_edges", "row_offsets", "col_offsets", "sorted_heads",
                     "sorted_tails", "sorted_arcs")

#: Longer row / shorter row above which an intersection searches instead of merging.
_SEARCH_RATIO = 16


def view_type() -> Any:
    """The Numba type of the view on the host (to type a functor that takes it)."""
    offsets = types.Array(numba.from_dtype(np.dtype(OFFSET_DTYPE)), 1, "C")
    vertices = types.Array(numba.from_dtype(np.dtype(VERTEX_DTYPE)), 1, "C")
    arcs = types.Array(types.int64, 1, "C")
    return types.Tuple((types.int64, types.int64, offsets, offsets, vertices, vertices, arcs))


def out_degree(graph: Any, v: Any) -> Any:
    """Number of edges leaving ``v``."""
    return graph[2][v + 1] - graph[2][v]


def in_degree(graph: Any, v: Any) -> Any:
    """Number of edges entering ``v``."""
    return graph[3][v + 1] - graph[3][v]


def graph_vertices(graph: Any) -> Any:
    """|V|."""
    return graph[0]


def graph_edges(graph: Any) -> Any:
    """|E| (arcs)."""
    return graph[1]


def neighbors(graph: Any, v: Any) -> Any:
    """The heads of the edges leaving ``v``, ascending (a repeated arc's head as often as it is
    stored, ``v`` itself for a self-loop): iterate it with ``for u in neighbors(graph, v)``."""
    return graph[4][graph[2][v]:graph[2][v + 1]]


def in_neighbors(graph: Any, v: Any) -> Any:
    """The tails of the edges entering ``v``, ascending (as :func:`neighbors`)."""
    return graph[5][graph[3][v]:graph[3][v + 1]]


def intersection_count(graph: Any, u: Any, v: Any) -> Any:
    """The number of common neighbours of ``u`` and ``v``: distinct vertices ``w``, other than
    ``u`` and ``v``, with edges ``u -> w`` and ``v -> w`` (NetworkX's ``common_neighbors``;
    repeated arcs count once). A merge of the two sorted rows, or a binary search of the longer
    one where it is much longer (see the module docstring for the cost)."""
    nowhere = graph[6][:0]  # no buffer: count only (a view, nothing allocated)
    return _intersect(graph, u, v, nowhere, nowhere, nowhere, 0, nowhere)


def tally_common_neighbors(graph: Any, u: Any, v: Any, tally: Any) -> Any:
    """:func:`intersection_count` of ``u`` and ``v``, each common neighbour ``w`` also counted
    at the arc ``u -> w``: ``atomic_add(tally, a, 1)``, ``a`` that arc's id (the lowest of a
    repeated arc), ``tally`` holding an entry per arc. The third corners of the triangles an
    edge closes, tallied per arc without a buffer: the adds spread over ``u``'s arcs instead of
    falling on the corners' vertices. The search is :func:`intersection_count`'s, plus one
    atomic per common neighbour."""
    nowhere = graph[6][:0]
    return _intersect(graph, u, v, nowhere, nowhere, nowhere, 0, tally)


def common_neighbors(graph: Any, u: Any, v: Any, out_w: Any, out_arc_u: Any, out_arc_v: Any,
                     start: Any = 0) -> Any:
    """The common neighbours of ``u`` and ``v`` with the arcs that reach them: for the
    ``i``-th common neighbour ``w`` (ascending; the vertices :func:`intersection_count`
    counts: distinct, other than ``u`` and ``v``), writes ``w`` to ``out_w[i - start]``, the
    id of the arc ``u -> w`` to ``out_arc_u[i - start]`` and of ``v -> w`` to
    ``out_arc_v[i - start]`` for ``start <= i < start + size``, ``size`` the length of the
    shortest of the three buffers, and returns the number of common neighbours (all of them,
    written or not). Where ``u -> w`` (or ``v -> w``) is a repeated arc, the arc written is
    its lowest id. Arc ids index per-arc state (``weight``-like arrays, :meth:`Graph.reverse_arcs`,
    :meth:`Graph.edge_ids`) as an advance functor's ``eid`` does.

    The buffers are the caller's (state arrays, or a ``cuda.local.array`` in a CUDA-only
    helper): nothing is allocated, so it compiles for CUDA. Where more common neighbours than
    the buffers hold are wanted, call again with ``start`` advanced by the buffers' size (each
    call costs one intersection). The search is :func:`intersection_count`'s (the same cost)."""
    return _intersect(graph, u, v, out_w, out_arc_u, out_arc_v, start, graph[6][:0])


def _intersect(graph: Any, u: Any, v: Any, out_w: Any, out_arc_u: Any, out_arc_v: Any,
               start: Any, tally: Any) -> Any:
    """The one search :func:`intersection_count`, :func:`tally_common_neighbors` and
    :func:`common_neighbors` run: the number of common neighbours of ``u`` and ``v``, written
    from the ``start``-th on into the buffers (none where they are empty), each counted at its
    arc from ``u`` in ``tally`` (none where it is empty). Each distinct vertex of the shorter
    row is looked up in the longer one past the last lookup's place: by stepping (a merge) or,
    where the longer row is much longer, by a binary search."""
    offsets, heads, arcs = graph[2], graph[4], graph[6]
    a, a_end, b, b_end = offsets[u], offsets[u + 1], offsets[v], offsets[v + 1]
    swapped = a_end - a > b_end - b
    if swapped:
        a, a_end, b, b_end = b, b_end, a, a_end
    search = b_end - b > _SEARCH_RATIO * (a_end - a)
    size = min(out_w.shape[0], out_arc_u.shape[0], out_arc_v.shape[0])
    count = 0
    previous = -1
    for i in range(a, a_end):
        w = heads[i]
        if w == previous or w == u or w == v:
            previous = w
            continue
        previous = w
        if search:
            high = b_end
            while b < high:
                middle = (b + high) // 2
                if heads[middle] < w:
                    b = middle + 1
                else:
                    high = middle
        else:
            while b < b_end and heads[b] < w:
                b += 1
        if b == b_end:
            break
        if heads[b] == w:
            k = count - start
            if k >= 0 and k < size:
                # the arc ids of the two positions (through the sorted copy's, if any)
                here, there = (arcs[i], arcs[b]) if arcs.shape[0] != 0 else (i, b)
                out_w[k] = w
                out_arc_u[k] = there if swapped else here
                out_arc_v[k] = here if swapped else there
            if tally.shape[0] != 0:
                mine = b if swapped else i  # w's place in u's row
                atomic_add(tally, arcs[mine] if arcs.shape[0] != 0 else mine, 1)
            count += 1
    return count


def _in_range(name: str, graph: Any, v: Any) -> None:
    """IndexError unless ``v`` is a vertex id of the view (``0 .. |V|-1``), naming view
    function ``name``."""
    if v < 0 or v >= graph[0]:
        raise IndexError(name + "(graph, ...): vertex id " + str(v) + " is out of range; "
                         "expected 0 <= id < " + str(graph[0]))


def _vertex_checks(name: str, parameters: tuple[str, ...]) -> Any:
    """The checks the checked mode runs before view function ``name`` of ``parameters`` taking
    one vertex id ``v`` or two, ``u`` and ``v`` (:func:`frontier.runtime.devicefn.device_function`'s
    ``checks``); None for one that takes none. One call per id, so ids of two integer types
    (an int32 neighbour and an int64 vertex) are checked alike."""
    if parameters == ("graph", "v"):
        def one(graph: Any, v: Any) -> None:
            _in_range(name, graph, v)
        return one
    if parameters == ("graph", "u", "v"):
        def two(graph: Any, u: Any, v: Any) -> None:
            _in_range(name, graph, u)
            _in_range(name, graph, v)
        return two
    assert "u" not in parameters and "v" not in parameters, parameters
    return None


def _common_neighbors_checks(graph: Any, u: Any, v: Any, out_w: Any, out_arc_u: Any,
                             out_arc_v: Any, start: Any = 0) -> None:
    """:func:`common_neighbors`'s checks: both vertex ids, and ``start`` not negative."""
    _in_range("common_neighbors", graph, u)
    _in_range("common_neighbors", graph, v)
    if start < 0:
        raise IndexError("common_neighbors(graph, ...): start " + str(start) + " is negative; "
                         "expected the index of the first common neighbour to write, >= 0")


def _tally_checks(graph: Any, u: Any, v: Any, tally: Any) -> None:
    """:func:`tally_common_neighbors`' checks: both vertex ids, and an entry of ``tally`` per
    arc."""
    _in_range("tally_common_neighbors", graph, u)
    _in_range("tally_common_neighbors", graph, v)
    if tally.shape[0] < graph[1]:
        raise IndexError("tally_common_neighbors(graph, ...): tally has " + str(tally.shape[0])
                         + " entries; expected one per arc, " + str(graph[1]))


_ROW_U = "G.col_indices[G.row_offsets[u]:G.row_offsets[u + 1]]"
_ROW_V = "G.col_indices[G.row_offsets[v]:G.row_offsets[v + 1]]"

#: What Python code uses instead of each view function, for the message of a Python call.
_FROM_PYTHON = {
    "out_degree": "G.out_degrees()[v]", "in_degree": "G.in_degrees()[v]",
    "graph_vertices": "G.num_vertices", "graph_edges": "G.num_edges",
    "neighbors": "G.sorted_neighbors()[G.row_offsets[v]:G.row_offsets[v + 1]]",
    "in_neighbors": "G.transpose().sorted_neighbors()[G.csc().col_offsets[v]:"
                    "G.csc().col_offsets[v + 1]]",
    "intersection_count": "len((set(G.sorted_neighbors()[G.row_offsets[u]:G.row_offsets[u + 1]]"
                          ") & set(G.sorted_neighbors()[G.row_offsets[v]:G.row_offsets[v + 1]]"
                          ")) - {u, v})",
    "tally_common_neighbors": f"sorted((set({_ROW_U}) & set({_ROW_V})) - {{u, v}})",
    "common_neighbors": f"[(w, G.row_offsets[u] + list({_ROW_U}).index(w), G.row_offsets[v] + "
                        f"list({_ROW_V}).index(w)) for w in sorted((set({_ROW_U}) & "
                        f"set({_ROW_V})) - {{u, v}})]",
}


def _for_functors(body: Any, inline: bool = False, checks: Any = None) -> Any:
    """The view function ``body`` as functors and Python see it: compiled code runs ``body``
    (bounds-checked after ``checks``, by default :func:`_vertex_checks`', in the checked
    mode); the simulator, which runs functors as Python, calls it with the view (a tuple),
    after ``checks`` (it checks every index); any other first argument (a
    :class:`frontier.Graph` from Python) is a TypeError saying what to call instead."""
    name = body.__name__
    if checks is None:
        checks = _vertex_checks(name, tuple(signature(body).parameters))

    @wraps(body)
    def view_function(graph: Any, *args: Any) -> Any:
        if type(graph) is not tuple:
            raise TypeError(
                f"frontier.{name}(graph, ...) is for functors: its graph is the view a functor "
                "receives as its last parameter named `graph` (def f(v, out, graph): out[v] = "
                f"{name}(graph, ...)), not a {type(graph).__name__}; from Python, "
                f"use {_FROM_PYTHON[name]} of a frontier.Graph G")
        if checks is not None:  # the simulator checks every index: these too
            checks(graph, *args)
        return body(graph, *args)

    return device_function(view_function, inline=inline, checks=checks, implementation=body)


# Compiled functors call these through Numba's overloads: each function's own Python body is its
# implementation on the CPU and on CUDA (the simulator calls it as Python).
_in_range = device_function(_in_range)
_intersect = device_function(_intersect)
out_degree = _for_functors(out_degree)
in_degree = _for_functors(in_degree)
graph_vertices = _for_functors(graph_vertices)
graph_edges = _for_functors(graph_edges)
intersection_count = _for_functors(intersection_count)
tally_common_neighbors = _for_functors(tally_common_neighbors, checks=_tally_checks)
common_neighbors = _for_functors(common_neighbors, checks=_common_neighbors_checks)
# a row is a view: compiled into the caller on CUDA
neighbors = _for_functors(neighbors, inline=True)
in_neighbors = _for_functors(in_neighbors, inline=True)
