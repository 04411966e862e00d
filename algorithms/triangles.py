"""Triangle counting with neighbour intersections inside a functor (the edge-iterator method of
Schank & Wagner, *Finding, Counting and Listing all Triangles in Large Graphs*, 2005, §3; the
intersection-based GPU counting of Wang et al., *A Comparative Study on Exact Triangle Counting
Algorithms on the GPU*, HPGP 2016, §3, which Gunrock ships).

Every edge ``{u, v}`` closes one triangle with each common neighbour ``w`` of its ends, so

1. ``advance`` over every edge, once per edge (``u < v``): the functor counts the common
   neighbours of ``u`` and ``v`` (:func:`frontier.intersection_count`, a merge of the two sorted
   rows, or binary searches where one row is much longer) and adds the count to both ends;
2. each triangle at ``v`` has been counted through both of its other corners, so ``compute``
   halves every vertex's count.

The advance spreads the edges over threads with the load balancer, so a hub's edges are shared
out instead of falling to one thread. Triangles are those of the undirected simple graph:
self-loops and repeated edges add none (NetworkX's ``triangles``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms.entry import Entry, testing
from algorithms.kcore import check_undirected
from algorithms.output import check_out, deliver, on_host
from frontier import Frontier, Graph, atomic_add, intersection_count, validate
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import LoadBalancer, advance, compute, get_balancer, reduce, resolve_policy

__all__ = ["triangle_count", "TriangleResult", "ENTRIES"]


@dataclass(frozen=True)
class TriangleResult:
    """``per_vertex`` (int64, the triangles at each vertex; on the target with
    ``out="device"``, :mod:`algorithms.output`), ``total`` (the triangles of the graph), one
    advance step, wall time, the simple graph counted on, and the ``target`` that ran it."""

    per_vertex: Any
    total: int
    seconds: float
    graph: Graph = field(repr=False)
    iterations: int = 1
    stats: list = field(repr=False, default_factory=list)
    target: Target | None = field(repr=False, default=None)

    @property
    def edges_traversed(self) -> int:
        """Every arc once (the edges with ``u > v`` only test their order)."""
        return self.graph.num_edges


# functors ------------------------------------------------------------------------------------
def close_triangles(src, dst, eid, weight, per_vertex, graph):
    """Edge ``{src, dst}`` (seen from its smaller end) closes a triangle with each common
    neighbour: count them at both ends."""
    if src < dst:
        common = intersection_count(graph, src, dst)
        if common:
            atomic_add(per_vertex, src, common)
            atomic_add(per_vertex, dst, common)
    return False


def halve(v, per_vertex):
    per_vertex[v] //= 2


def at_vertex(v, per_vertex):
    return per_vertex[v]


# the algorithm -------------------------------------------------------------------------------
def triangle_count(graph: Graph, *, balancer: str | LoadBalancer = "auto",
                   target: str | Target | None = None, out: str = "host") -> TriangleResult:
    """The triangles at every vertex of an undirected graph, and their total (see the module
    docstring); self-loops and repeated edges are dropped first (a copy, where there are
    any). ``balancer`` spreads the edges over threads; ``target`` and ``out`` as
    :func:`algorithms.bfs`'s."""
    check_undirected(graph, "triangle_count")
    check_out(out)
    graph = graph.simple()  # the graph itself where it has no loops or repeats
    tgt = resolve_target(target, graph, deep=False)
    policy = resolve_policy(get_balancer(balancer), graph, tgt)
    began = time.perf_counter()
    per_vertex = tgt.zeros(graph.num_vertices, np.int64)
    if graph.num_edges:
        everyone = Frontier.all_vertices(graph, target=tgt)
        advance(graph, everyone, close_triangles, per_vertex, balancer=policy, output="none")
        compute(graph, "vertices", halve, per_vertex, target=tgt)
    total = reduce(graph, "vertices", at_vertex, per_vertex, target=tgt) if graph.num_edges else 0
    return TriangleResult(deliver(tgt, per_vertex, out, made=True), int(total) // 3,
                          time.perf_counter() - began, graph, target=tgt)


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
          "graph underlying GRAPH, by neighbour intersections", run=_run, reference=_reference,
          check=_check, checks="per-vertex counts equal a sequential merge count",
          report=_report, source=False),
)
