"""Triangle counting on the degree-ordered graph: each triangle found once, from its
lowest-ranked corner, with neighbour intersections inside a functor (Schank & Wagner, *Finding,
Counting and Listing all Triangles in Large Graphs*, 2005, §3: the edge iterator in its
"forward" form, vertices ordered by degree; the intersection-based GPU counting of Wang et al.,
*A Comparative Study on Exact Triangle Counting Algorithms on the GPU*, HPGP 2016, §3).

Rank the vertices of the undirected simple graph by (degree, id) and orient every edge from its
lower-ranked end to its higher-ranked one: :func:`degree_ordered`, each vertex's *up-row*, its
neighbours of higher rank, ascending (built once per graph with numpy and kept with it,
:meth:`frontier.Graph.memo`). An up-row holds only neighbours of at least the vertex's degree,
so none is longer than ``sqrt(2 |E|)`` (``k`` neighbours of degree ``>= k`` have ``k * k <=
2 |E|`` arcs): a hub's long row is not intersected. A triangle ``a < b < c`` (by rank) has the
oriented edges ``a -> b``, ``a -> c`` and ``b -> c``; only its top corner ``c`` is in both up-rows
of the other two, so

1. one ``advance`` over the oriented edges ``u -> v``, spread over threads by the load
   balancer, intersects the two up-rows (:func:`frontier.tally_common_neighbors`: a
   merge, or binary searches of the longer row where it is 16 times longer, chosen per pair)
   and finds each triangle exactly once, from its two lowest corners: their count is added at
   ``u`` and at ``v``, and each top corner ``w`` found is tallied at the arc ``u -> w``;
2. a second ``advance`` over the same edges adds each arc's tally at its head: the triangles
   whose lowest corner is ``u`` and highest ``w``, credited to ``w``.

Every corner is credited once per triangle, and no vertex's counter takes an add per triangle:
a hub's counter, the top corner of most triangles, takes one add per edge at it (the tallies'
adds spread over the arcs of the lower corners' up-rows). The counts are totalled on the host
where they are returned there, else by a ``reduce``.

Work: per oriented edge ``u -> v`` a merge of rows of at most ``sqrt(2 |E|)`` (``O(a + b)``, or
``O(a log b)`` searching) and an add per triangle found; the undirected edge iterator this
replaced merged the whole rows, ``O(d(u) + d(v))`` per edge (two hubs' degrees for an edge
between hubs), and found each triangle six times.

Triangles are those of the undirected simple graph: self-loops and repeated edges add none
(NetworkX's ``triangles``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms.entry import Entry, testing
from algorithms.kcore import check_undirected
from algorithms.output import check_out, deliver, on_host
from frontier import Frontier, Graph, atomic_add, tally_common_neighbors, validate
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import LoadBalancer, advance, get_balancer, reduce, resolve_policy

__all__ = ["triangle_count", "TriangleResult", "degree_ordered", "ENTRIES"]


@dataclass(frozen=True)
class TriangleResult:
    """``per_vertex`` (int64, the triangles at each vertex; on the target with
    ``out="device"``, :mod:`algorithms.output`), ``total`` (the triangles of the graph), the
    advance steps (two over :func:`degree_ordered`'s arcs), wall time, the simple graph counted
    on, and the ``target`` that ran it."""

    per_vertex: Any
    total: int
    seconds: float
    graph: Graph = field(repr=False)
    iterations: int = 2
    stats: list = field(repr=False, default_factory=list)
    target: Target | None = field(repr=False, default=None)

    @property
    def edges_traversed(self) -> int:
        """Every edge once per step: the arcs of :func:`degree_ordered`, twice."""
        return self.graph.num_edges


# the degree-ordered graph --------------------------------------------------------------------
#: The :meth:`frontier.Graph.memo` key of an undirected simple graph's :func:`degree_ordered`.
_ORDERED_KEY = "triangles.degree_ordered"


def degree_ordered(graph: Graph) -> Graph:
    """The undirected simple graph underlying ``graph`` (:meth:`frontier.Graph.simple`) with
    every edge ``{u, v}`` oriented once, from the end of lower rank to the end of higher rank,
    the rank ordering the vertices by degree, then by id: a directed acyclic graph on the same
    vertices, with as many arcs as the simple graph has edges, each row ascending, none longer
    than ``sqrt(2 |E|)``. Built once per graph, with numpy over the arcs, and kept with its
    simple graph; raises as :func:`triangle_count` does for a graph that is not an undirected
    :class:`frontier.Graph`."""
    check_undirected(graph, "degree_ordered")
    simple = graph.simple()
    return simple.memo(_ORDERED_KEY, lambda: _orient_by_rank(simple))


def _orient_by_rank(simple: Graph) -> Graph:
    """:func:`degree_ordered` of the undirected simple graph ``simple``: its arcs whose head
    ranks higher than their tail, each kept in its (sorted) row order."""
    degree = simple.out_degrees()
    tails, heads = simple.coo().src, simple.sorted_neighbors()
    tail_degree, head_degree = degree[tails], degree[heads]
    up = (tail_degree < head_degree) | ((tail_degree == head_degree) & (tails < heads))
    offsets = np.zeros(simple.num_vertices + 1, dtype=simple.row_offsets.dtype)
    np.cumsum(np.bincount(tails[up], minlength=simple.num_vertices), out=offsets[1:])
    return Graph._trusted(offsets, heads[up], None, directed=True)


# functors ------------------------------------------------------------------------------------
def close_triangles(src, dst, eid, weight, per_vertex, tops, graph):
    """Oriented edge ``src -> dst``: each common up-neighbour ``w`` closes a triangle whose two
    lowest corners are ``src`` and ``dst``: counted at both, and tallied at the arc
    ``src -> w`` (in the search)."""
    closed = tally_common_neighbors(graph, src, dst, tops)
    if closed:
        atomic_add(per_vertex, src, closed)
        atomic_add(per_vertex, dst, closed)
    return False


def credit_tops(src, dst, eid, weight, per_vertex, tops):
    """Oriented edge ``src -> dst``: the triangles it tallied, ``dst`` their top corner."""
    if tops[eid]:
        atomic_add(per_vertex, dst, tops[eid])
    return False


def at_vertex(v, per_vertex):
    return per_vertex[v]


# the algorithm -------------------------------------------------------------------------------
def triangle_count(graph: Graph, *, balancer: str | LoadBalancer = "auto",
                   target: str | Target | None = None, out: str = "host") -> TriangleResult:
    """The triangles at every vertex of an undirected graph, and their total (see the module
    docstring); self-loops and repeated edges are dropped first (a copy, where there are
    any). ``balancer`` spreads the arcs of :func:`degree_ordered` over threads; ``target``
    and ``out`` as :func:`algorithms.bfs`'s."""
    check_undirected(graph, "triangle_count")
    check_out(out)
    graph = graph.simple()  # the graph itself where it has no loops or repeats
    ordered = degree_ordered(graph)
    tgt = resolve_target(target, graph, deep=False)
    policy = resolve_policy(get_balancer(balancer), ordered, tgt)
    began = time.perf_counter()
    per_vertex = tgt.zeros(graph.num_vertices, np.int64)
    if ordered.num_edges:
        tops = tgt.zeros(ordered.num_edges, np.int64)
        everyone = Frontier.all_vertices(ordered, target=tgt, shared=True)
        advance(ordered, everyone, close_triangles, per_vertex, tops, balancer=policy,
                output="none")
        advance(ordered, everyone, credit_tops, per_vertex, tops, balancer=policy,
                output="none")
    delivered = deliver(tgt, per_vertex, out, made=True)
    if not ordered.num_edges:
        total = 0
    elif out == "host":  # the counts are on the host already: no reduction to launch
        total = int(delivered.sum())
    else:
        total = int(reduce(graph, "vertices", at_vertex, per_vertex, target=tgt))
    return TriangleResult(delivered, total // 3, time.perf_counter() - began, graph, target=tgt)


# the catalog entry: triangles of any graph's undirected simple graph -------------------------
def _run(graph: Graph, **options: object) -> TriangleResult:
    return triangle_count(validate.graph(graph).simple(directed=False), **options)


def _reference(graph: Graph, source: None) -> np.ndarray:
    return testing.reference_triangles(graph.simple(directed=False))


def _check(graph: Graph, source: None, result: TriangleResult) -> None:
    testing.check_triangles(graph.simple(directed=False), on_host(result.per_vertex), result.total)


def _report(result: TriangleResult) -> list[tuple[str, str]]:
    return [("triangles", f"{result.total}")]


ENTRIES = (
    Entry(name="triangles", description="triangles at every vertex of the undirected simple "
          "graph underlying GRAPH, by neighbour intersections on its edges oriented by degree",
          run=_run, reference=_reference,
          check=_check, checks="per-vertex counts equal a sequential merge count",
          report=_report, source=False),
)
