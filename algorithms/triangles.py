"""Triangle counting on the degree-ordered graph: each triangle found once, from its
lowest-ranked corner, with neighbour intersections inside a functor (Schank & Wagner, *Finding,
Counting and Listing all Triangles in Large Graphs*, 2005, §3: the edge iterator in its
"forward" form, vertices ordered by degree; the intersection-based GPU counting of Wang et al.,
*A Comparative Study on Exact Triangle Counting Algorithms on the GPU*, HPGP 2016, §3).

Rank the vertices of the undirected simple graph by (degree, id) and orient every edge from its
lower-ranked end to its higher-ranked one: a vertex's *up-row* holds its neighbours of higher
rank, its *down-row* those of lower rank. An up-row holds only neighbours of at least the
vertex's degree, so none is longer than ``sqrt(2 |E|)`` (``k`` neighbours of degree ``>= k``
have ``k * k <= 2 |E|`` arcs): a hub's long row is a down-row. A triangle ``a < b < c`` (by
rank) has the oriented edges ``a -> b``, ``a -> c`` and ``b -> c``, so for each oriented edge
``u -> v``

* ``up(u) ∩ up(v)`` are the third corners above both: the triangles whose two lowest corners
  are ``u`` and ``v``, each found once (from ``a -> b``);
* ``up(u) ∩ down(v)`` are the third corners between them: the triangles whose lowest corner is
  ``u`` and highest ``v``, each found once (from ``a -> c``).

``u`` is credited with the first count, ``v`` with both: every triangle is credited once to each
of its corners (``a`` and ``b`` from ``a -> b``, ``c`` from ``a -> c``), with two atomic adds
per oriented edge and none per triangle, so a hub's counter takes one add per edge at it,
however many triangles it closes. Both intersections start from ``up(u)``, the short side:
:func:`frontier.intersection_count` merges the two sorted rows, or binary-searches the longer
where it is 16 times longer (a hub's down-row), chosen per pair.

The rows are those of :func:`degree_ordered`, a graph on ``2 |V|`` vertices whose row ``v`` is
``v``'s up-row and row ``|V| + v`` its down-row (each ascending; the simple graph's arcs
partitioned, built once per graph with numpy and kept with it, :meth:`frontier.Graph.memo`),
so that ``intersection_count(graph, u, v)`` and ``intersection_count(graph, u, |V| + v)`` are
the two counts. One ``advance`` over its vertices, the load balancer spreading the arcs over
threads, intersects at the arcs of the up-rows (those of the down-rows only test their tail),
and the counts are totalled: on the host where they are returned there, else by a ``reduce``.

Work: per oriented edge ``u -> v``, ``O(|up(u)| + |up(v)|)`` for the merge (or ``O(|up(u)| log
|up(v)|)`` searching) and ``O(|up(u)| log |down(v)|)`` at most for the second count; the
undirected edge iterator this replaces merged the whole rows, ``O(d(u) + d(v))`` per edge, the
sum of two hubs' degrees for an edge between hubs, and counted each triangle six times.

Triangles are those of the undirected simple graph: self-loops and repeated edges add none
(NetworkX's ``triangles``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms.entry import Entry
from algorithms.kcore import check_undirected
from algorithms.output import check_out, deliver, on_host
from frontier import (
    Frontier,
    Graph,
    atomic_add,
    graph_vertices,
    intersection_count,
    out_degree,
    validate,
)
from frontier.target import Target, resolve_target
from operators import LoadBalancer, advance, get_balancer, reduce, resolve_policy

__all__ = ["triangle_count", "TriangleResult", "degree_ordered", "ENTRIES"]


@dataclass(frozen=True)
class TriangleResult:
    """``per_vertex`` (int64, the triangles at each vertex; on the target with
    ``out="device"``, :mod:`algorithms.output`), ``total`` (the triangles of the graph), one
    advance step (over :func:`degree_ordered`'s arcs), wall time, the simple graph counted on,
    and the ``target`` that ran it."""

    per_vertex: Any
    total: int
    seconds: float
    graph: Graph = field(repr=False)
    iterations: int = 1
    stats: list = field(repr=False, default_factory=list)
    target: Target | None = field(repr=False, default=None)

    @property
    def edges_traversed(self) -> int:
        """Every arc once (those of the down-rows only test their tail)."""
        return self.graph.num_edges


# the degree-ordered rows ---------------------------------------------------------------------
#: The :meth:`frontier.Graph.memo` key of an undirected simple graph's :func:`degree_ordered`.
_ORDERED_KEY = "triangles.degree_ordered"


def degree_ordered(graph: Graph) -> Graph:
    """The rows of the undirected simple graph underlying ``graph`` (:meth:`frontier.Graph.simple`)
    split by rank, the rank ordering the vertices by degree, then by id: a directed graph on
    ``2 |V|`` vertices whose row ``v`` holds ``v``'s neighbours of higher rank and row
    ``|V| + v`` those of lower rank, each row ascending, every arc a vertex id below ``|V|``
    (the simple graph's arcs, each once). Built once per graph, with numpy over the arcs, and
    kept with its simple graph; raises as :func:`triangle_count` does for a graph that is not
    an undirected :class:`frontier.Graph`."""
    check_undirected(graph, "degree_ordered")
    simple = graph.simple()
    return simple.memo(_ORDERED_KEY, lambda: _split_by_rank(simple))


def _split_by_rank(simple: Graph) -> Graph:
    """:func:`degree_ordered` of the undirected simple graph ``simple``: its arcs ``t -> h``
    whose head ranks higher (the up-rows) then those whose head ranks lower (the down-rows),
    each kept in its (sorted) row order."""
    n = simple.num_vertices
    degree = simple.out_degrees()
    tails, heads = simple.coo().src, simple.sorted_neighbors()
    tail_degree, head_degree = degree[tails], degree[heads]
    up = (tail_degree < head_degree) | ((tail_degree == head_degree) & (tails < heads))
    rising = np.bincount(tails[up], minlength=n)
    offsets = np.zeros(2 * n + 1, dtype=simple.row_offsets.dtype)
    np.cumsum(np.concatenate((rising, degree - rising)), out=offsets[1:])
    return Graph._trusted(offsets, np.concatenate((heads[up], heads[~up])), None, directed=True)


# functors ------------------------------------------------------------------------------------
def close_triangles(src, dst, eid, weight, per_vertex, graph):
    """Arc ``src -> dst`` of an up-row (``src`` below |V|): the third corners above both ends
    (up-row against up-row) count at ``src`` and ``dst``, those between them (up-row against
    ``dst``'s down-row) at ``dst``; none where ``src`` has no other up-neighbour."""
    rows = graph_vertices(graph) // 2
    if src < rows and out_degree(graph, src) > 1:  # a lowest corner has two up-neighbours
        above = intersection_count(graph, src, dst)
        closed = above + intersection_count(graph, src, rows + dst)
        if above:
            atomic_add(per_vertex, src, above)
        if closed:
            atomic_add(per_vertex, dst, closed)
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
    if graph.num_edges:
        everyone = Frontier.all_vertices(ordered, target=tgt, shared=True)
        advance(ordered, everyone, close_triangles, per_vertex, balancer=policy, output="none")
    delivered = deliver(tgt, per_vertex, out, made=True)
    if not graph.num_edges:
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
    from frontier.testing import reference_triangles  # imported when first needed

    return reference_triangles(graph.simple(directed=False))


def _check(graph: Graph, source: None, result: TriangleResult) -> None:
    from frontier.testing import check_triangles

    check_triangles(graph.simple(directed=False), on_host(result.per_vertex), result.total)


def _report(result: TriangleResult) -> list[tuple[str, str]]:
    return [("triangles", f"{result.total}")]


ENTRIES = (
    Entry(name="triangles", description="triangles at every vertex of the undirected simple "
          "graph underlying GRAPH, by neighbour intersections on its edges oriented by degree",
          run=_run, reference=_reference,
          check=_check, checks="per-vertex counts equal a sequential merge count",
          report=_report, source=False),
)
