"""Triangle counting on the degree-ordered graph: each triangle found once, from its
lowest-ranked vertex (Schank & Wagner, *Finding, Counting and Listing all Triangles in Large
Graphs*, 2005, §3: the edge iterator, in its "forward" form with the vertices ordered by degree;
the intersection-based GPU counting of Wang et al., *A Comparative Study on Exact Triangle
Counting Algorithms on the GPU*, HPGP 2016, §3, which Gunrock ships).

Rank the vertices of the undirected simple graph by (degree, id) and orient every edge from its
lower-ranked end to its higher-ranked one: a directed acyclic graph, :func:`degree_dag`, built
once per graph (vectorized, a pass over the arcs) and kept with it (:meth:`frontier.Graph.memo`),
its rows sorted. A vertex's out-row there holds only neighbours of at least its degree, so no row
is longer than ``sqrt(2 |E|)`` (``k`` out-neighbours of degree ``>= k`` have ``k * k <= 2 |E|``
arcs): a hub's long row becomes an in-row, which no intersection reads. A triangle ``u < v < w``
(by rank) has the arcs ``u -> v``, ``u -> w`` and ``v -> w``; only its top corner ``w`` is an
out-neighbour of both others, so

1. one ``advance`` over the arcs ``u -> v`` of the dag, spread over threads by the load
   balancer, intersects the two out-rows (:func:`frontier.tally_common_neighbors`: a merge, or
   binary searches of the longer row where it is 16 times longer) and finds each triangle
   exactly once, from its lowest corner: the number found is added at ``u`` and at ``v``, and
   each top corner ``w`` gets one as it is found (an atomic add per triangle, made in the
   search);
2. the vertices' counts, three per triangle, are totalled: on the host where they are
   returned there (``out="host"``), else by a ``reduce`` on the target.

Work: per arc ``u -> v`` a merge of rows of at most ``sqrt(2 |E|)`` (``O(a + b)``, or
``O(a log b)`` searching), plus an atomic per triangle; intersecting the undirected rows
instead costs ``O(d(u) + d(v))`` per edge, the sum of two hubs' degrees for an edge between hubs.

The top corners are counted by that listing rather than by a second intersection per arc
``u -> w`` (the middles ``v`` with ``u -> v -> w``: ``u``'s out-row against ``w``'s in-row,
:func:`frontier.in_neighbors`). A triangle's top is the highest-ranked of its corners, so those
in-rows are the hubs' long ones and the second intersection costs more than the first, while
the atomics are one per triangle found, fewer than the first intersection's steps. They fall
mostly on the hubs' counters, spread over the whole advance.

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
from frontier import Frontier, Graph, atomic_add, tally_common_neighbors, validate
from frontier.target import Target, resolve_target
from operators import LoadBalancer, advance, get_balancer, reduce, resolve_policy

__all__ = ["triangle_count", "TriangleResult", "degree_dag", "ENTRIES"]


@dataclass(frozen=True)
class TriangleResult:
    """``per_vertex`` (int64, the triangles at each vertex; on the target with
    ``out="device"``, :mod:`algorithms.output`), ``total`` (the triangles of the graph), one
    advance step (over :func:`degree_dag`'s arcs), wall time, the simple graph counted on, and
    the ``target`` that ran it."""

    per_vertex: Any
    total: int
    seconds: float
    graph: Graph = field(repr=False)
    iterations: int = 1
    stats: list = field(repr=False, default_factory=list)
    target: Target | None = field(repr=False, default=None)

    @property
    def edges_traversed(self) -> int:
        """Every edge once: the arcs of the degree-ordered graph (:func:`degree_dag`)."""
        return self.graph.num_edges // 2


# the degree-ordered graph --------------------------------------------------------------------
#: The :meth:`frontier.Graph.memo` key of an undirected simple graph's :func:`degree_dag`.
_DAG_KEY = "triangles.degree_dag"


def degree_dag(graph: Graph) -> Graph:
    """The undirected simple graph underlying ``graph`` (:meth:`frontier.Graph.simple`) with
    every edge ``{u, v}`` oriented once, from the end of lower rank to the end of higher rank,
    the rank ordering the vertices by degree, then by id: a directed acyclic graph on the same
    vertices, with as many arcs as the simple graph has edges, each row sorted by id, no row
    longer than ``sqrt(2 |E|)``. Built once per graph, with numpy over the arcs, and kept with
    its simple graph; raises as :func:`triangle_count` does for a graph that is not an
    undirected :class:`frontier.Graph`."""
    check_undirected(graph, "degree_dag")
    simple = graph.simple()
    return simple.memo(_DAG_KEY, lambda: _orient_by_degree(simple))


def _orient_by_degree(simple: Graph) -> Graph:
    """:func:`degree_dag` of the undirected simple graph ``simple``: the arcs ``u -> v`` whose
    tail ranks lower, kept in their (sorted) row order."""
    degree = simple.out_degrees()
    tails, heads = simple.coo().src, simple.sorted_neighbors()
    rising = degree[tails] - degree[heads]
    up = (rising < 0) | ((rising == 0) & (tails < heads))
    offsets = np.zeros(simple.num_vertices + 1, dtype=simple.row_offsets.dtype)
    np.cumsum(np.bincount(tails[up], minlength=simple.num_vertices), out=offsets[1:])
    return Graph._trusted(offsets, heads[up], None, directed=True)


# functors ------------------------------------------------------------------------------------
def close_triangles(src, dst, eid, weight, per_vertex, graph):
    """Arc ``src -> dst`` of the degree-ordered graph: each common out-neighbour ``w`` closes a
    triangle whose lowest corners are ``src`` and ``dst``: one at ``w`` (counted in the search),
    and at ``src`` and ``dst`` as many as there are."""
    closed = tally_common_neighbors(graph, src, dst, per_vertex)
    if closed:
        atomic_add(per_vertex, src, closed)
        atomic_add(per_vertex, dst, closed)
    return False


def at_vertex(v, per_vertex):
    return per_vertex[v]


# the algorithm -------------------------------------------------------------------------------
def triangle_count(graph: Graph, *, balancer: str | LoadBalancer = "auto",
                   target: str | Target | None = None, out: str = "host") -> TriangleResult:
    """The triangles at every vertex of an undirected graph, and their total (see the module
    docstring); self-loops and repeated edges are dropped first (a copy, where there are
    any). ``balancer`` spreads the arcs of the degree-ordered graph over threads; ``target``
    and ``out`` as :func:`algorithms.bfs`'s."""
    check_undirected(graph, "triangle_count")
    check_out(out)
    graph = graph.simple()  # the graph itself where it has no loops or repeats
    dag = degree_dag(graph)
    tgt = resolve_target(target, graph, deep=False)
    policy = resolve_policy(get_balancer(balancer), dag, tgt)
    began = time.perf_counter()
    per_vertex = tgt.zeros(graph.num_vertices, np.int64)
    if graph.num_edges:
        everyone = Frontier.all_vertices(dag, target=tgt)
        advance(dag, everyone, close_triangles, per_vertex, balancer=policy, output="none")
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
