"""Core numbers by peeling, written with the operators (Batagelj & Zaversnik, *An O(m)
Algorithm for Cores Decomposition of Networks*, 2003; the level-synchronous GPU peeling of
Kabir & Madduri, *Parallel k-Core Decomposition on Multicore Platforms*, 2017, and Gunrock's
k-core).

The ``k``-core is what remains after repeatedly removing the vertices of degree below ``k``; a
vertex's core number is the largest ``k`` whose core holds it. Peeling finds all of them in
rounds of increasing ``k``:

1. ``reduce``: ``k`` becomes the smallest degree left, and at least one more than the last
   round's (rounds with nothing to peel are skipped);
2. ``filter`` over all vertices: every vertex still present with degree ``<= k`` is claimed, its
   core number set to ``k``;
3. advance steps from the claimed vertices until the frontier is empty: each edge to a vertex
   still present decrements that vertex's degree with an atomic; the one decrement that takes
   it from ``k + 1`` to ``k`` claims it for this round and puts it in the next frontier;
4. the next round, until the smallest degree left says no vertex is (a removed vertex offers
   :data:`_REMOVED`).

All of it is one :func:`operators.loop` whose round is one ``k``: steps 1-2, then step 3 as a
``traverse`` (its advance step after step until its frontier is empty); a round returns the
vertices it claimed, so the loop ends with the round that finds none left. The whole peeling is
one persistent kernel and one read at the end (each round's ``k`` and advance steps are kept on
the device, in ``level``). A round's peeling runs as many steps as its longest chain of vertices
each freed by the last (half a path's length): while the frontier fits one block, those steps
run in one block at block barriers (the loop's small-frontier mode), else at grid barriers.

The degree of a vertex is its number of stored arcs, so a repeated edge counts as often as it is
stored (NetworkX refuses multigraphs; ``networkx.Graph(multigraph)`` collapses them). The graph
must be undirected and free of self-loops: NetworkX's ``core_number`` raises on self-loops and
so does :func:`k_core`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms.entry import Entry, testing
from algorithms.output import check_out, deliver, on_host
from frontier import Frontier, Graph, atomic_add, atomic_load, atomic_store, out_degree, validate
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import (  # noqa: A004
    LoadBalancer,
    compute,
    filter,
    get_balancer,
    loop,
    reduce,
    resolve_policy,
    traverse,
)
from operators.adaptive.profile import inspect

__all__ = ["k_core", "KCoreResult", "KCoreRoundStats", "undirected_simple", "check_undirected",
           "check_loopless", "ENTRIES"]

#: Larger than any degree: what a removed vertex offers to the minimum-degree reduction.
_REMOVED = np.iinfo(np.int32).max


@dataclass(frozen=True)
class KCoreRoundStats:
    """One peeling round: its ``k``, the vertices it peeled (core number ``k``) and its advance
    steps."""

    k: int
    peeled: int
    steps: int


@dataclass(frozen=True)
class KCoreResult:
    """``core_numbers`` (int32, one per vertex; on the target with ``out="device"``,
    :mod:`algorithms.output`), the advance steps run, wall time, ``rounds`` (each round's ``k``
    and advance steps; :attr:`stats` adds what each peeled), and the ``target`` that ran it."""

    core_numbers: Any
    iterations: int
    seconds: float
    graph: Graph = field(repr=False)
    rounds: list[tuple[int, int]] = field(repr=False, default_factory=list)
    target: Target | None = field(repr=False, default=None)

    @property
    def stats(self) -> list[KCoreRoundStats]:
        """One :class:`KCoreRoundStats` per round. A round peels exactly the vertices of core
        number ``k``, so they are counted from the core numbers when asked (a host copy of
        them with ``out="device"``), not by a reduction per round."""
        counts = np.bincount(on_host(self.core_numbers), minlength=1 + max(
            (k for k, _ in self.rounds), default=0))
        return [KCoreRoundStats(k, int(counts[k]), steps) for k, steps in self.rounds]

    @property
    def degeneracy(self) -> int:
        """The largest core number (0 for a graph without edges or vertices)."""
        return int(on_host(self.core_numbers).max(initial=0))

    @property
    def edges_traversed(self) -> int:
        """Every arc once, when its tail is peeled."""
        return self.graph.num_edges


# functors ------------------------------------------------------------------------------------
def count_arcs(v, degree, core, graph):
    degree[v] = out_degree(graph, v)
    core[v] = -1


def remaining_degree(v, core, degree):
    return degree[v] if core[v] == -1 else _REMOVED


def claim(v, core, degree, level):
    """Take ``v`` into this round's frontier if it is still present with degree ``<= k``."""
    if core[v] == -1 and degree[v] <= level[0]:
        core[v] = level[0]
        return True
    return False


def release(src, dst, eid, weight, core, degree, level):
    """Remove the edge ``src -> dst`` from ``dst``'s degree; claim ``dst`` when that takes its
    degree to ``k``."""
    k = level[0]
    # core[dst] is read while the edge taking dst's degree to k claims it: relaxed atomics
    if atomic_load(core, dst) != -1:
        return False
    if atomic_add(degree, dst, -1) == k + 1:
        atomic_store(core, dst, k)
        return True
    return False


def next_level(i, level, least):
    """``level[0]``: this round's ``k``, the smallest degree left and at least one more than
    the last round's; ``level[1]``: the rounds so far; round ``j``'s ``k`` at ``level[2 + 2j]``
    (its advance steps at ``level[3 + 2j]``, :func:`note_steps`)."""
    j = level[1]
    level[0] = max(level[0] + 1, least)
    level[2 + 2 * j] = level[0]
    level[1] = j + 1


def note_steps(i, level, walked):
    """This round's advance steps, beside its ``k``."""
    level[1 + 2 * level[1]] = walked


def _round(front: Frontier, graph: Graph, core: Any, degree: Any, level: Any,
           policy: Any) -> Frontier:
    """One ``k``: the smallest degree left raises it, the vertices of degree ``<= k`` are
    claimed, and the peeling from them claims the rest; returns the vertices claimed first
    (none once every vertex is peeled)."""
    least = reduce(graph, "vertices", remaining_degree, core, degree, op="min")
    compute(graph, 1, next_level, level, least)
    claimed = filter(graph, "vertices", claim, core, degree, level)
    peel = traverse(graph, claimed, release, core, degree, level, balancer=policy)
    compute(graph, 1, note_steps, level, peel.steps)
    return claimed


# the algorithm -------------------------------------------------------------------------------
def k_core(graph: Graph, *, balancer: str | LoadBalancer = "auto",
           target: str | Target | None = None, out: str = "host") -> KCoreResult:
    """The core number of every vertex of an undirected graph without self-loops (see the
    module docstring). ``balancer`` maps each peeling advance onto threads; ``target`` and
    ``out`` as :func:`algorithms.bfs`'s."""
    _check_graph(graph)
    check_out(out)
    balancer = get_balancer(balancer)
    n = graph.num_vertices
    tgt = resolve_target(target, graph)
    policy = resolve_policy(balancer, graph, tgt)
    degree, core = tgt.empty(n, np.int32), tgt.empty(n, np.int32)
    steps = 0
    rounds: list[tuple[int, int]] = []
    began = time.perf_counter()
    if n:
        compute(graph, "vertices", count_arcs, degree, core, target=tgt)
        # k grows by one or more a round, to the degeneracy at most: two entries a round
        level = tgt.zeros(2 * inspect(graph).max_degree + 8, np.int64)
        tgt.write_scalar(level, 0, -1)
        # a round reads the vertices, not its input: any frontier that is not empty starts
        # the rounds (one vertex, uploaded; no launch fills it)
        start = Frontier.from_vertices(graph, [0], target=tgt, shared=True)
        loop(graph, start, _round, graph, core, degree, level, policy)
        held = tgt.to_host(level)
        ks = held[2:2 + 2 * int(held[1]):2].tolist()
        walked = held[3:3 + 2 * int(held[1]):2].tolist()
        rounds = [(k, w) for k, w in zip(ks, walked, strict=True) if k != _REMOVED]
        steps = sum(w for _, w in rounds)
    return KCoreResult(deliver(tgt, core, out, made=True), steps,
                       time.perf_counter() - began, graph, rounds, tgt)


def _check_graph(graph: Graph) -> None:
    if validate.graph(graph).directed:
        raise ValueError("k_core needs an undirected graph (Graph.from_edges(..., "
                         "directed=False)); for a directed graph's in + out degree cores, "
                         "build the undirected graph of its arcs")
    check_loopless(graph, "k_core", "core numbers are not defined with self-loops")


def check_loopless(graph: Graph, name: str, why: str) -> None:
    """Raises ValueError, naming the first self-loop's vertex and saying ``why`` the algorithm
    ``name`` refuses them, if ``graph`` has self-loops (found once per graph)."""
    loops = graph.memo("self_loops",
                       lambda: np.flatnonzero(graph.coo().src == graph.col_indices))
    if loops.size:
        v = int(graph.col_indices[loops[0]])
        raise ValueError(f"{name}: the graph has {loops.size} self-loop(s) (vertex {v} first); "
                         f"{why} (NetworkX raises too): remove them first")


# the catalog entry: k-core of any graph's undirected simple graph ---------------------------
def check_undirected(graph: Graph, name: str) -> None:
    """Raises TypeError unless ``graph`` is a Graph, ValueError if it is directed."""
    if validate.graph(graph).directed:
        raise ValueError(f"{name} needs an undirected graph (Graph.from_edges(..., "
                         "directed=False)); NetworkX refuses directed graphs too: build the "
                         "undirected graph of the arcs first")


def undirected_simple(graph: Graph) -> Graph:
    """The undirected graph underlying ``graph``: ``graph.simple(directed=False)``
    (:meth:`frontier.Graph.simple`), one edge per pair of distinct vertices joined by an arc
    either way, self-loops and repeats dropped, what k-core, triangles, independent sets and
    colourings count on. ``graph`` itself where it is undirected and simple already; found
    once per graph and kept with it, so a repeated call makes no pass over the arcs."""
    return validate.graph(graph).simple(directed=False)


def _run(graph: Graph, **options: Any) -> KCoreResult:
    return k_core(validate.graph(graph).simple(directed=False), **options)


def _reference(graph: Graph, source: None) -> np.ndarray:
    return testing.reference_core_numbers(graph.simple(directed=False))


def _check(graph: Graph, source: None, result: KCoreResult) -> None:
    testing.check_core_numbers(graph.simple(directed=False), on_host(result.core_numbers))


def _report(result: KCoreResult) -> list[tuple[str, str]]:
    return [("degeneracy", f"{result.degeneracy} (the largest core number)")]


ENTRIES = (
    Entry(name="kcore", description="core numbers of the undirected simple graph underlying "
          "GRAPH, by peeling", run=_run, reference=_reference, check=_check,
          checks="core numbers equal a sequential bin peeling", report=_report, source=False),
)
