"""Communities by semi-synchronous label propagation, written with the operators (Raghavan,
Albert & Kumara, *Near linear time algorithm to detect community structures in large-scale
networks*, Phys. Rev. E 76, 2007: every vertex takes the label most frequent among its
neighbours; Cordasco & Gargano, *Community Detection via Semi-Synchronous Label Propagation
Algorithms*, BASNA 2010: the vertices of one colour of a proper colouring update together, the
colours one after the other, and a tie keeps the vertex's own label if it is among the most
frequent, else takes the largest, "Prec-Max"). This is NetworkX's
``label_propagation_communities``, reproduced exactly.

Every vertex starts with its own id as its label. The colouring is NetworkX's: greedy first fit
by decreasing degree, ties to the smaller id (:func:`algorithms.graph_coloring` with
``order="largest_first"``, Jones & Plassmann's rounds). Then a sweep runs over the colours in
order, three operator calls per colour, over the vertices of that colour that have neighbours:

1. ``neighbor_reduce(op="mode")`` of the negated neighbour labels: the most frequent label, the
   largest of the most frequent (the mode takes the smallest value of a tie);
2. ``neighbor_reduce(op="sum")``: how many more neighbours carry that label than the vertex's
   own (0 when the vertex's label is among the most frequent);
3. ``compute``: a vertex whose own label is not among the most frequent takes the chosen one,
   counted with ``atomic_add``.

Vertices of one colour are never adjacent, so they update at once exactly as NetworkX's loop
updates them one after the other. Sweeps run until one changes no label (NetworkX tests before
each sweep whether every label is among its vertex's most frequent: a sweep that changes nothing
is that test). Each change gives its vertex strictly more neighbours of its label, so the number
of edges whose ends agree grows with every change: at most |E| changes, so the loop ends.

Neighbours are counted as NetworkX counts them on a graph: each distinct neighbour once, a
vertex with a self-loop among its own neighbours (so its label counts once for itself), and its
degree in the colouring order one more for the loop. Repeated edges count once (the communities
of ``networkx.Graph(multigraph)``). The graph must be undirected (NetworkX refuses directed
graphs). Each community is labelled by its smallest vertex id.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms.coloring import graph_coloring
from algorithms.components import is_root, offer_id, own_id, take_smallest
from algorithms.entry import Entry, testing
from algorithms.kcore import check_undirected
from algorithms.output import check_out, deliver, on_host
from frontier import Frontier, Graph, atomic_add, validate
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import LoadBalancer, compute, get_balancer, neighbor_reduce, reduce

__all__ = ["label_propagation_communities", "CommunitiesResult", "CommunitiesSweepStats",
           "neighbourhoods", "ENTRIES"]


@dataclass(frozen=True)
class CommunitiesSweepStats:
    """One sweep over the colours: the labels it changed, and its host wall time."""

    changed: int
    seconds: float


@dataclass(frozen=True)
class CommunitiesResult:
    """``labels`` (int32, one per vertex: the smallest vertex id of its community; on the target
    with ``out="device"``, :mod:`algorithms.output`), ``num_communities``, ``num_colors`` (the
    colour classes each sweep runs through), the sweeps run (``iterations``), wall time, the
    graph whose neighbours were counted (:func:`neighbourhoods`), per-sweep ``stats`` and the
    ``target`` that ran it."""

    labels: Any
    num_communities: int
    num_colors: int
    iterations: int
    seconds: float
    graph: Graph = field(repr=False)
    stats: list[CommunitiesSweepStats] = field(repr=False, default_factory=list)
    target: Target | None = field(repr=False, default=None)

    @property
    def edges_traversed(self) -> int:
        """Every arc twice a sweep (the mode and the count)."""
        return 2 * self.graph.num_edges * self.iterations


# functors ------------------------------------------------------------------------------------
def negated_label(src, dst, eid, weight, label):
    return -label[dst]


def gain(src, dst, eid, weight, label, chosen):
    """+1 for a neighbour of the chosen label, -1 for one of the vertex's own."""
    return int(label[dst] == -chosen[src]) - int(label[dst] == label[src])


def adopt(v, label, chosen, gained, changed):
    """Prec-Max: keep the own label if it is among the most frequent, else take the chosen."""
    if gained[v] > 0:
        label[v] = -chosen[v]
        atomic_add(changed, 0, 1)


# the algorithm -------------------------------------------------------------------------------
def neighbourhoods(graph: Graph) -> Graph:
    """The graph whose arcs are the neighbours NetworkX counts: ``graph`` with repeated edges
    merged and one self-loop kept at each vertex that has any (``graph`` itself where it has
    neither repeats nor several loops at a vertex). Built once per graph."""
    def build() -> Graph:
        simple = graph.simple()
        tails = graph.coo().src
        looped = np.unique(tails[tails == graph.col_indices])
        if not looped.size:
            return simple
        src, dst = simple.coo().src, simple.col_indices
        once = src < dst
        return Graph.from_edges(np.r_[src[once], looped], np.r_[dst[once], looped],
                                num_vertices=graph.num_vertices, directed=False)

    return graph.memo("communities.neighbourhoods", build)


def label_propagation_communities(graph: Graph, *, balancer: str | LoadBalancer = "auto",
                                  target: str | Target | None = None,
                                  out: str = "host") -> CommunitiesResult:
    """NetworkX's semi-synchronous label propagation on an undirected graph (see the module
    docstring): each vertex labelled by the smallest vertex id of its community. ``balancer``
    maps the colouring's advances onto threads; ``target`` and ``out`` as
    :func:`algorithms.bfs`'s."""
    check_undirected(graph, "label_propagation_communities")
    check_out(out)
    balancer = get_balancer(balancer)
    counted = neighbourhoods(graph)
    tgt = resolve_target(target, counted, deep=False)
    n = counted.num_vertices
    began = time.perf_counter()
    colors = graph_coloring(counted, order="largest_first", balancer=balancer,
                            target=tgt).colors
    classes = _color_classes(counted, tgt, colors)
    label = tgt.empty(n, np.int32)
    chosen, gained = tgt.empty(n, np.int32), tgt.empty(n, np.int32)
    changed = tgt.zeros(1, np.int64)
    compute(counted, "vertices", own_id, label, target=tgt)
    stats: list[CommunitiesSweepStats] = []
    while classes:
        started = time.perf_counter()
        for members in classes:
            neighbor_reduce(counted, members, negated_label, label, out=chosen, op="mode",
                            edges="out")
            neighbor_reduce(counted, members, gain, label, chosen, out=gained, op="sum",
                            edges="out")
            compute(counted, members, adopt, label, chosen, gained, changed)
        moved = int(tgt.to_host(changed)[0])
        stats.append(CommunitiesSweepStats(moved, time.perf_counter() - started))
        if not moved:
            break
        tgt.write_scalar(changed, 0, 0)
    smallest = tgt.full(n, n, np.int32)
    compute(counted, "vertices", offer_id, label, smallest, target=tgt)
    compute(counted, "vertices", take_smallest, label, smallest, target=tgt)
    count = reduce(counted, "vertices", is_root, label, op="count", target=tgt) if n else 0
    return CommunitiesResult(deliver(tgt, label, out, made=True), count,
                             int(colors.max(initial=-1)) + 1, len(stats),
                             time.perf_counter() - began, counted, stats, tgt)


def _color_classes(graph: Graph, tgt: Target, colors: np.ndarray) -> list[Frontier]:
    """One frontier per colour, in colour order, of the vertices of that colour that have
    neighbours (the others never change label)."""
    having = graph.memo("communities.having", lambda: np.flatnonzero(graph.out_degrees() > 0))
    order = having[np.argsort(colors[having], kind="stable")]
    bounds = np.searchsorted(colors[order], np.arange(int(colors.max(initial=-1)) + 2))
    return [Frontier.from_vertices(graph, order[a:b], capacity=b - a, target=tgt)
            for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


# the catalog entry: the undirected graph underlying any graph --------------------------------
def _run(graph: Graph, **options: Any) -> CommunitiesResult:
    return label_propagation_communities(_undirected(graph), **options)


def _undirected(graph: Graph) -> Graph:
    return graph.simple(directed=False) if validate.graph(graph).directed else graph


def _reference(graph: Graph, source: None) -> np.ndarray:
    return testing.reference_label_propagation(_undirected(graph))


def _check(graph: Graph, source: None, result: CommunitiesResult) -> None:
    testing.check_label_propagation(_undirected(graph), on_host(result.labels))


def _report(result: CommunitiesResult) -> list[tuple[str, str]]:
    return [("communities", f"{result.num_communities:,} ({result.num_colors} colours a "
                            "sweep)")]


ENTRIES = (
    Entry(name="communities", description="communities of the undirected graph underlying "
          "GRAPH by semi-synchronous label propagation (NetworkX's "
          "label_propagation_communities)", run=_run, reference=_reference, check=_check,
          checks="labels equal a sequential run of NetworkX's rule (Cordasco & Gargano's "
          "Prec-Max over greedy colour classes)", report=_report, source=False),
)
