"""Minimum spanning forests by Borůvka's algorithm, written with the operators (Borůvka 1926;
the GPU formulation of Vineet, Harish, Patidar & Narayanan, *Fast Minimum Spanning Tree for
Large Graphs on the GPU*, HPG 2009: every component picks its lightest outgoing edge at once,
the picked edges merge the components; without contracting the graph, as Soman, Kothapalli &
Narayanan's hooking loop keeps it: a parent per vertex, pointer jumping, edge hiding).

Edges are ordered by weight, then by edge id (:meth:`frontier.Graph.edge_ids`; for an
undirected graph the order of the arc ``u -> v`` with ``u < v``, which is the arc that numbers
the edge). Under this strict order the minimum spanning forest is unique: it is the forest the
algorithm returns on every target, and the one Kruskal's algorithm builds scanning the edges in
that order (:func:`frontier.testing.reference_minimum_spanning_forest`). Its weight is that of
any minimum spanning forest (scipy's ``minimum_spanning_tree``).

Each vertex has a parent; the trees of parents are the components found so far, and every round
starts with them as stars (each vertex's parent is its component's root). A round:

1. ``filter`` (edge hiding, Soman et al. §2 (3)): the edges whose ends lie in different
   components stay; the loop ends when none is left;
2. ``advance`` over that edge frontier: each edge offers its weight to both ends' roots
   (``atomic_min``); a second ``advance``: each edge of that least weight offers its arc id, so
   every root holds its lightest outgoing edge under the order above;
3. ``compute`` over the vertices: every root with an outgoing edge hooks onto the root at the
   edge's other end and records the edge, except where both roots picked the same edge (the
   only cycle a strict order allows): then only the larger root hooks;
4. ``compute``: the hooks become parents; ``compute``: pointer jumping turns the trees back into
   stars (:func:`algorithms.components.jump_to_root`).

Every round at least halves the number of components that have an outgoing edge, so there are
at most ``log2 |V| + 1`` rounds; each reads the edges still crossing components twice.

The graph must be undirected (NetworkX refuses directed graphs too; the catalog entry runs on
the undirected simple graph underlying any graph, each edge weighing the least of its arcs).
Self-loops never join two components and are ignored; of repeated edges the lightest (then the
lowest id) is the one a forest may use; isolated vertices are trees of their own. Weights may be
integers or floats, zero or negative (a graph's weights are finite: :class:`frontier.Graph`
refuses others); an unweighted graph weighs 1 per edge. The total weight of integer weights is
exact (a Python int, past int64 where the weights are that large); float weights whose forest
could weigh more than float64 holds are refused before any work.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms.components import jump_to_root, own_id
from algorithms.entry import Entry, testing
from algorithms.kcore import check_undirected
from algorithms.output import check_out, on_host
from frontier import Frontier, Graph, atomic_min, validate
from frontier.graph import path_bound
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import advance, compute, filter  # noqa: A004

__all__ = ["minimum_spanning_forest", "MSFResult", "MSFRoundStats", "ENTRIES"]

#: No edge picked: larger than every arc id.
_NONE = np.iinfo(np.int64).max


@dataclass(frozen=True)
class MSFRoundStats:
    """One round: the edges crossing two components at its start, and its host wall time."""

    crossing: int
    seconds: float


@dataclass(frozen=True)
class MSFResult:
    """The minimum spanning forest: ``edges`` (int32, shape (f, 2): each forest edge as
    ``(u, v)``, ``u < v``, the ends of its arc ``u -> v``), ``edge_ids`` (int64, their
    undirected edge ids, ascending, the order of every array here) and ``arcs`` (int64, the arc
    ``u -> v`` of each), all three on the target with ``out="device"`` (made on the host, the
    one read back of the call, and copied there); ``total_weight`` (an int for integer weights
    and unweighted graphs, else a float: the sum of the forest's weights in edge id order);
    ``num_components`` (|V| - f); the rounds run (``iterations``), wall time, per-round
    ``stats`` and the ``target`` that ran it."""

    edges: Any
    edge_ids: Any
    arcs: Any
    total_weight: int | float
    num_components: int
    iterations: int
    seconds: float
    graph: Graph = field(repr=False)
    stats: list[MSFRoundStats] = field(repr=False, default_factory=list)
    target: Target | None = field(repr=False, default=None)

    @property
    def edges_traversed(self) -> int:
        """The graph's arcs (the first edge hiding reads them all), then each round's crossing
        edges twice (the two selections)."""
        return self.graph.num_edges + 2 * sum(r.crossing for r in self.stats)


# functors ------------------------------------------------------------------------------------
def apart(e, parent, tails, heads):
    """Edge hiding: keep the arc ``u -> v`` with ``u < v`` (one per edge, no self-loop) whose
    ends lie in different components."""
    u = tails[e]
    v = heads[e]
    return u < v and parent[u] != parent[v]


def offer_weight(src, dst, eid, weight, parent, lightest):
    """Both ends' roots keep the least weight of their outgoing edges."""
    atomic_min(lightest, parent[src], weight)
    atomic_min(lightest, parent[dst], weight)
    return False


def offer_arc(src, dst, eid, weight, parent, lightest, picked):
    """Of the outgoing edges of that least weight, both ends' roots keep the lowest arc id."""
    a = parent[src]
    b = parent[dst]
    if weight == lightest[a]:
        atomic_min(picked, a, eid)
    if weight == lightest[b]:
        atomic_min(picked, b, eid)
    return False


def hook(v, parent, picked, tails, heads, hooked_to, chosen):
    """A root with an outgoing edge hooks onto the root at the edge's other end and records the
    edge, unless that root picked the same edge and is the larger one (it hooks instead)."""
    e = picked[v]
    if parent[v] == v and e != _NONE:
        other = parent[heads[e]]
        if other == v:
            other = parent[tails[e]]
        if picked[other] != e or other < v:
            hooked_to[v] = other
            chosen[v] = e


def take_hook(v, parent, hooked_to, lightest, picked, heaviest):
    """The hook becomes the parent; the root's picks are cleared for the next round."""
    if hooked_to[v] >= 0:
        parent[v] = hooked_to[v]
        hooked_to[v] = -1
    lightest[v] = heaviest
    picked[v] = _NONE


# the algorithm -------------------------------------------------------------------------------
def minimum_spanning_forest(graph: Graph, *, target: str | Target | None = None,
                            out: str = "host") -> MSFResult:
    """The minimum spanning forest of an undirected graph by Borůvka's algorithm, ties broken
    by edge id (see the module docstring); ``target`` and ``out`` as :func:`algorithms.bfs`'s.
    ValueError for a directed graph, or float weights whose sum over a forest could overflow."""
    check_undirected(graph, "minimum_spanning_forest")
    check_out(out)
    if graph.weighted and graph.weights.dtype.kind == "f":
        validate.forest_sums("minimum_spanning_forest",
                             path_bound(graph.weights, graph.num_vertices), graph.weights.dtype)
    tgt = resolve_target(target, graph, deep=False)
    n = graph.num_vertices
    tails, heads = graph.device_edge_sources(tgt), graph.device_arrays(tgt).col_indices
    dtype = graph.weights.dtype if graph.weighted else np.dtype(np.int64)
    heaviest = dtype.type(np.inf if dtype.kind == "f" else np.iinfo(dtype).max)  # above all
    parent, hooked_to = tgt.empty(n, np.int32), tgt.full(n, -1, np.int32)
    lightest, picked = tgt.full(n, heaviest, dtype), tgt.full(n, _NONE, np.int64)
    chosen = tgt.full(n, -1, np.int64)
    stats: list[MSFRoundStats] = []
    began = time.perf_counter()
    if n:
        compute(graph, "vertices", own_id, parent, target=tgt)
    if graph.num_edges:
        crossing = filter(graph, Frontier.all_edges(graph, kind="sparse", target=tgt), apart,
                          parent, tails, heads)
        while (size := len(crossing)) > 0:
            started = time.perf_counter()
            advance(graph, crossing, offer_weight, parent, lightest, output="none")
            advance(graph, crossing, offer_arc, parent, lightest, picked, output="none")
            compute(graph, "vertices", hook, parent, picked, tails, heads, hooked_to, chosen,
                    target=tgt)
            compute(graph, "vertices", take_hook, parent, hooked_to, lightest, picked,
                    heaviest, target=tgt)
            compute(graph, "vertices", jump_to_root, parent, target=tgt)
            crossing = filter(graph, crossing, apart, parent, tails, heads)
            stats.append(MSFRoundStats(size, time.perf_counter() - started))
    picked_by = tgt.to_host(chosen)
    return _result(graph, tgt, np.sort(picked_by[picked_by >= 0]).astype(np.int64), out, stats,
                   began)


def _result(graph: Graph, tgt: Target, arcs: np.ndarray, out: str,
            stats: list[MSFRoundStats], began: float) -> MSFResult:
    """The result of the forest's ``arcs`` (ascending), its arrays where ``out`` says."""
    edges = np.stack([graph.coo().src[arcs], graph.col_indices[arcs]], axis=1).astype(np.int32)
    ids = graph.edge_ids()[arcs]
    weights = graph.weights[arcs] if graph.weighted else np.ones(arcs.size, np.int64)
    if weights.dtype.kind == "f":
        total = float(weights.sum())
    elif path_bound(weights, arcs.size + 1) <= np.iinfo(np.int64).max:
        total = int(weights.sum())
    else:  # the int64 sum could wrap around: Python's ints are exact
        total = sum(weights.tolist())
    arrays = [edges, ids, arcs] if out == "host" else [tgt.to_device(a) for a in
                                                       (edges, ids, arcs)]
    return MSFResult(*arrays, total, graph.num_vertices - arcs.size, len(stats),
                     time.perf_counter() - began, graph, stats, tgt)


# the catalog entry: the undirected simple graph underlying any graph -------------------------
def _run(graph: Graph, **options: Any) -> MSFResult:
    validate.graph(graph)
    return minimum_spanning_forest(graph.simple(directed=False) if graph.directed else graph,
                                   **options)


def _reference(graph: Graph, source: None) -> np.ndarray:
    undirected = graph.simple(directed=False) if graph.directed else graph
    return testing.reference_minimum_spanning_forest(undirected)


def _check(graph: Graph, source: None, result: MSFResult) -> None:
    undirected = graph.simple(directed=False) if graph.directed else graph
    testing.check_minimum_spanning_forest(undirected, on_host(result.edges), result.total_weight)


def _report(result: MSFResult) -> list[tuple[str, str]]:
    return [("weight", f"{result.total_weight:,}"),
            ("forest", f"{len(result.edge_ids):,} edges, {result.num_components:,} trees")]


ENTRIES = (
    Entry(name="msf", description="minimum spanning forest of the undirected graph underlying "
          "GRAPH (Borůvka; ties by edge id)", run=_run, reference=_reference, check=_check,
          checks="the forest Kruskal's algorithm builds in (weight, edge id) order; its weight "
          "equals scipy's minimum_spanning_tree", report=_report, source=False,
          balanced=False),
)
