"""Minimum spanning forests by Borůvka's algorithm, written with the operators as one
:func:`operators.loop` (Borůvka 1926; the GPU formulation of Vineet, Harish, Patidar &
Narayanan, *Fast Minimum Spanning Tree for Large Graphs on the GPU*, HPG 2009: every component
picks its lightest outgoing edge at once, the picked edges merge the components; without
contracting the graph, as Soman, Kothapalli & Narayanan's hooking loop keeps it: a parent per
vertex, pointer jumping, edge hiding).

Edges are ordered by weight, then by edge id (:meth:`frontier.Graph.edge_ids`; for an
undirected graph the order of the arc ``u -> v`` with ``u < v``, which is the arc that numbers
the edge). Under this strict order the minimum spanning forest is unique: it is the forest the
algorithm returns on every target, and the one Kruskal's algorithm builds scanning the edges in
that order (:func:`frontier.testing.reference_minimum_spanning_forest`). Its weight is that of
any minimum spanning forest (scipy's ``minimum_spanning_tree``).

Each vertex has a parent; the trees of parents are the components found so far, and every round
starts with them as stars (each vertex's parent is its component's root). An edge stands for
itself by its arc ``u -> v`` with ``u < v`` (a self-loop by none: it never joins two
components). The rounds are one :func:`operators.loop` over ``active``, the vertices with an
arc to another component: inside one persistent kernel where the policy fuses rounds
(:meth:`operators.AdaptivePolicy.fuses_rounds`: graphs without hubs, and the cpu target), else
the same body as the host loop, each advance balanced from its frontier. The loop starts from
an empty frontier, so its refill (:func:`_start`, a ``filter`` over the vertices) runs first:
every vertex not started yet becomes a component of its own and enters the first round; the
refill after the last round finds none and ends the loop (a fused call is one launch). A
round (:func:`_round`):

1. the lightest outgoing edge of every component (Vineet et al.'s minimum edge per
   supervertex, by atomics instead of their segmented scan): an ``advance`` over ``active``,
   in which each edge whose ends lie in different components offers its weight to both ends'
   roots (``atomic_min``); a second ``advance``: each such edge of that least weight offers its
   arc id, so every root holds its lightest outgoing edge under the order above;
2. merging (their successor array and cycle removal, as Soman et al.'s hooking): a ``compute``
   over the vertices hooks every root with an outgoing edge onto the root at the edge's other
   end and records the edge, except where both roots picked the same edge (the only cycle a
   strict order allows): then only the larger root hooks; a ``compute``: the hooks become
   parents; a ``compute``: pointer jumping turns the trees back into stars (Soman et al. §2 (2),
   :func:`algorithms.components.jump_to_root`);
3. edge hiding (Soman et al. §2 (3)), by vertices: an ``advance`` over ``active`` marks each
   vertex with an arc still crossing two components, and a ``filter`` keeps the marked ones as
   the next round's ``active`` (components only merge, so a vertex dropped never comes back);
   the loop ends when none is left.

Every round at least halves the number of components that have an outgoing edge, so there are
at most ``log2 |V| + 1`` rounds (a graph with arcs runs one round at least); each reads the arcs
of its active vertices three times and every vertex three times. The round's ``filter`` writes,
for each vertex it keeps, the round it keeps it for (an int32 per vertex: the last round that
read it), from which the per-round stats are counted after the run, when asked. State: seven
numbers per vertex (parent, hook, least weight offered, picked arc, recorded arc, mark, last
round) and the loop's frontiers.

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
from functools import cached_property
from typing import Any

import numpy as np

from algorithms.components import jump_to_root
from algorithms.entry import Entry, testing
from algorithms.kcore import check_undirected
from algorithms.output import check_out, on_host
from frontier import Frontier, Graph, atomic_min, atomic_store, validate
from frontier.graph import path_bound
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import ROUND, advance, compute, filter, loop, resolve_policy  # noqa: A004

__all__ = ["minimum_spanning_forest", "MSFResult", "MSFRoundStats", "ENTRIES"]

#: No edge picked: larger than every arc id.
_NONE = np.iinfo(np.int64).max


@dataclass(frozen=True)
class MSFRoundStats:
    """One round (``round`` from 1): the vertices it read (``active``: those with an arc to
    another component at its start; every vertex in the first round) and their arcs
    (``arcs``), which each of its three advances reads."""

    round: int
    active: int
    arcs: int


@dataclass(frozen=True)
class MSFResult:
    """The minimum spanning forest: ``edges`` (int32, shape (f, 2): each forest edge as
    ``(u, v)``, ``u < v``, the ends of its arc ``u -> v``), ``edge_ids`` (int64, their
    undirected edge ids, ascending, the order of every array here) and ``arcs`` (int64, the arc
    ``u -> v`` of each), all three on the target with ``out="device"`` (made on the host, the
    one read back of the call, and copied there); ``total_weight`` (an int for integer weights
    and unweighted graphs, else a float: the sum of the forest's weights in edge id order);
    ``num_components`` (|V| - f); the rounds run (``iterations``, all in one persistent kernel
    where the rounds run fused: :func:`operators.loop`), ``seconds`` (wall time from the first
    launch to the result), per-round :attr:`stats` and the ``target`` that ran it."""

    edges: Any
    edge_ids: Any
    arcs: Any
    total_weight: int | float
    num_components: int
    iterations: int
    seconds: float
    graph: Graph = field(repr=False)
    target: Target | None = field(repr=False, default=None)
    #: Per vertex, the last round that read it (from 0; 0 for a vertex never read after the
    #: first round), on the target; None where no round ran.
    last_active: Any = field(repr=False, default=None)

    @cached_property
    def stats(self) -> list[MSFRoundStats]:
        """One :class:`MSFRoundStats` per round, counted from :attr:`last_active` and the
        graph's degrees when first asked (a host copy), not by reductions in every round."""
        rounds = self.iterations
        if not rounds:
            return []
        last = on_host(self.last_active)
        later = np.bincount(last, minlength=rounds)[::-1].cumsum()[::-1]
        arcs = np.bincount(last, weights=self.graph.out_degrees(),
                           minlength=rounds)[::-1].cumsum()[::-1]  # whole numbers below 2**53
        return [MSFRoundStats(r + 1, int(later[r]), int(arcs[r])) for r in range(rounds)]

    @property
    def edges_traversed(self) -> int:
        """The arcs each round read, three times (the two selections and the edge hiding)."""
        return 3 * sum(r.arcs for r in self.stats)


# functors ------------------------------------------------------------------------------------
def offer_weight(src, dst, eid, weight, parent, lightest):
    """An edge (its arc ``u -> v``, ``u < v``) joining two components offers its weight to both
    ends' roots, which keep the least."""
    if src < dst:
        a = parent[src]
        b = parent[dst]
        if a != b:
            atomic_min(lightest, a, weight)
            atomic_min(lightest, b, weight)
    return False


def offer_arc(src, dst, eid, weight, parent, lightest, picked):
    """Of the edges joining two components with that least weight, both ends' roots keep the
    lowest arc id."""
    if src < dst:
        a = parent[src]
        b = parent[dst]
        if a != b:
            if weight == lightest[a]:
                atomic_min(picked, a, eid)
            if weight == lightest[b]:
                atomic_min(picked, b, eid)
    return False


def start(v, parent, lightest, picked, heaviest):
    """A vertex not started yet (every vertex at first, none after) becomes a component of its
    own, with no edge offered."""
    if parent[v] < 0:
        parent[v] = v
        lightest[v] = heaviest
        picked[v] = _NONE
        return True
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


def mark_crossing(src, dst, eid, weight, parent, crossing):
    """Mark ``src`` while one of its arcs joins two components (every such arc writes 1)."""
    if parent[src] != parent[dst]:
        atomic_store(crossing, src, 1)
    return False


def still_active(v, crossing, last_active, r):
    """Keep a marked vertex for round ``r + 1`` (noting it), clearing its mark."""
    if crossing[v] != 0:
        crossing[v] = 0
        last_active[v] = r + 1
        return True
    return False


# the algorithm -------------------------------------------------------------------------------
def _round(active: Frontier, graph: Graph, parent: Any, lightest: Any, picked: Any,
           heaviest: Any, hooked_to: Any, chosen: Any, tails: Any, heads: Any, crossing: Any,
           last_active: Any, policy: Any) -> Frontier:
    """One round over ``active``, the vertices with an arc to another component: every
    component picks its lightest outgoing edge, the picks merge the components; returns the
    vertices of ``active`` that still have an arc to another component."""
    advance(graph, active, offer_weight, parent, lightest, balancer=policy, output="none")
    advance(graph, active, offer_arc, parent, lightest, picked, balancer=policy, output="none")
    compute(graph, "vertices", hook, parent, picked, tails, heads, hooked_to, chosen)
    compute(graph, "vertices", take_hook, parent, hooked_to, lightest, picked, heaviest)
    compute(graph, "vertices", jump_to_root, parent)
    advance(graph, active, mark_crossing, parent, crossing, balancer=policy, output="none")
    return filter(graph, active, still_active, crossing, last_active, ROUND)


def _start(graph: Graph, parent: Any, lightest: Any, picked: Any, heaviest: Any,
           *rest: Any) -> Frontier:
    """The loop's refill (of the round's state, the arrays a vertex starts with): the vertices
    not started yet, each a component of its own (every vertex before the first round; none
    once the rounds ran, which ends the loop)."""
    return filter(graph, "vertices", start, parent, lightest, picked, heaviest)


def run_rounds(graph: Graph, tgt: Target, policy: Any, fused: bool) -> tuple[Any, Any, int]:
    """Borůvka's rounds over an undirected ``graph`` with at least one arc as one
    :func:`operators.loop` (``fused=False``: its host loop), the advances balanced by
    ``policy``; returns, on the target, the arc each vertex recorded when it hooked (-1 where
    it never did), each vertex's last active round (:attr:`MSFResult.last_active`) and the
    rounds."""
    n = graph.num_vertices
    tails, heads = graph.device_edge_sources(tgt), graph.device_arrays(tgt).col_indices
    dtype = graph.weights.dtype if graph.weighted else np.dtype(np.int64)
    heaviest = dtype.type(np.inf if dtype.kind == "f" else np.iinfo(dtype).max)  # above all
    # set where the refill starts a vertex: its parent, least weight offered and picked arc
    parent, lightest, picked = tgt.full(n, -1, np.int32), tgt.empty(n, dtype), tgt.empty(
        n, np.int64)
    hooked_to, chosen = tgt.full(n, -1, np.int32), tgt.full(n, -1, np.int64)
    crossing, last_active = tgt.zeros(n, np.int32), tgt.zeros(n, np.int32)
    # the calling thread's pool of the graph (its queues made once, not per call), empty: the
    # refill starts every vertex
    none = Frontier.from_vertices(graph, [], target=tgt, shared=True)
    rounds = loop(graph, none, _round, graph, parent, lightest, picked, heaviest, hooked_to,
                  chosen, tails, heads, crossing, last_active, policy, refill=_start,
                  fused=fused).rounds
    return chosen, last_active, rounds


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
    began = time.perf_counter()
    if not graph.num_edges:  # no edge: every vertex a tree of its own, no round
        return _result(graph, tgt, np.empty(0, np.int64), out, 0, None, began)
    policy = resolve_policy("auto", graph, tgt)
    chosen, last_active, rounds = run_rounds(graph, tgt, policy, policy.fuses_rounds())
    return _result(graph, tgt, _ascending(tgt.to_host(chosen), graph.num_edges), out, rounds,
                   last_active, began)


def _ascending(chosen: np.ndarray, arcs: int) -> np.ndarray:
    """The recorded arcs (each once, -1 for none) in ascending order: marked among the graph's
    ``arcs``, then found by one pass (no sort)."""
    marked = np.zeros(arcs, dtype=bool)
    marked[chosen[chosen >= 0]] = True
    return np.flatnonzero(marked).astype(np.int64)


def _result(graph: Graph, tgt: Target, arcs: np.ndarray, out: str, rounds: int,
            last_active: Any, began: float) -> MSFResult:
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
    return MSFResult(*arrays, total, graph.num_vertices - arcs.size, rounds,
                     time.perf_counter() - began, graph, tgt, last_active)


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
