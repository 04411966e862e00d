"""Graph colouring by Jones & Plassmann's heuristic (Jones & Plassmann, *A Parallel Graph
Coloring Heuristic*, SIAM J. Sci. Comput. 14(3), 1993, Section 3), written with the operators.

Every vertex has a priority: with ``order="random"`` (the default) a random one fixed by the
seed (the order of :func:`algorithms.maximal_independent_set`'s priority method:
``random_bits(s, v)`` with ``s = random_bits(seed, 0)``, ties to the smaller id); with
``order="largest_first"`` its degree as NetworkX counts it (:func:`networkx_degrees`: a
self-loop twice), ties to the smaller id, the order of NetworkX's ``greedy_color`` default
strategy. In each round every uncoloured vertex that comes before all its uncoloured neighbours
takes the smallest colour none of its coloured neighbours has (first fit). Those vertices form
an independent set, so the colouring is proper, and it equals the sequential greedy first-fit
colouring in decreasing priority (:func:`frontier.testing.reference_coloring`), on every
target. A round over the frontier of uncoloured vertices is two operator calls:

1. ``advance`` (with the load balancer) over their arcs: an uncoloured neighbour of higher
   priority marks the vertex *beaten*; a coloured neighbour whose colour falls in the vertex's
   *window* of 63 colours sets that colour's bit of the vertex's mask (``atomic_or`` on an
   int64);
2. ``filter``: an unbeaten vertex takes the lowest colour of its window whose bit is clear; if
   all 63 are taken, its window moves up by 63 and it tries again in the next round (the
   colours below never free up, so the first fit is unchanged). Uncoloured vertices stay in
   the frontier.

On a target that runs one thread (the cpu target) the sequential greedy first fit in the same
order runs instead (one pass: the same colours, without the rounds' repeated scans;
``iterations`` is then 1); everywhere else every round runs inside one persistent kernel
(:func:`operators.loop`).

Cost: O(m) work per round over the uncoloured vertices' arcs; the number of rounds is the
length of the longest path of decreasing priority, O(log n / log log n) expected on graphs of
bounded degree (Jones & Plassmann), plus one round per full window of a vertex with more than
63 colours among its neighbours. At most max degree + 1 colours. State: 17 bytes per vertex
(colour and window: int32; beaten: a byte; the mask: int64) plus the frontier.

The graph must be undirected (the catalog entry runs on the undirected simple graph underlying
any graph). A self-loop is ignored, as NetworkX's ``greedy_color`` ignores it; repeated edges
change nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from algorithms.entry import Entry, Option
from algorithms.independent_set import arcs_per_round, comes_first, per_round, priority_order
from algorithms.kcore import check_undirected
from algorithms.output import check_out, deliver, on_host
from frontier import (
    Frontier,
    Graph,
    atomic_or,
    atomic_store,
    device_function,
    neighbors,
    random_bits,
    validate,
)
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import (  # noqa: A004
    ROUND,
    LoadBalancer,
    advance,
    compute,
    filter,
    get_balancer,
    loop,
    resolve_policy,
)

__all__ = ["graph_coloring", "ColoringResult", "ColoringRoundStats", "ORDERS",
           "networkx_degrees", "ENTRIES"]

#: The orders the greedy first fit visits the vertices in.
ORDERS = ("random", "largest_first")

#: Colours per window: the bits 0..62 of an int64 mask (the sign bit stays clear).
WINDOW = 63
FULL = (1 << WINDOW) - 1


@dataclass(frozen=True)
class ColoringRoundStats:
    """One round: the vertices uncoloured at its start and their arcs."""

    uncolored: int
    arcs: int


@dataclass(frozen=True)
class ColoringResult:
    """``colors`` (int32, one per vertex, from 0; on the target with ``out="device"``,
    :mod:`algorithms.output`), the seed, the rounds run (``iterations``, all in one persistent
    kernel: :func:`operators.loop`), wall time, per-round ``stats``, the ``target`` that ran it,
    and the ``order`` of the first fit."""

    colors: Any
    seed: int
    iterations: int
    seconds: float
    graph: Graph = field(repr=False)
    last_live: Any = field(repr=False, default=None)
    target: Target | None = field(repr=False, default=None)
    order: str = "random"

    @cached_property
    def stats(self) -> list[ColoringRoundStats]:
        """Per round: the vertices uncoloured at its start and their arcs (found when first
        asked, from the last round each vertex was uncoloured in)."""
        last_live = on_host(self.last_live)
        sizes = per_round(last_live, np.ones(last_live.size), self.iterations)
        arcs = arcs_per_round(self.graph, last_live, self.iterations)
        return [ColoringRoundStats(size, a) for size, a in zip(sizes, arcs, strict=True)]

    @property
    def num_colors(self) -> int:
        """The number of colours used (0 for a graph without vertices)."""
        return int(on_host(self.colors).max(initial=-1)) + 1

    @property
    def edges_traversed(self) -> int:
        """The arcs of the uncoloured vertices, summed over the rounds."""
        return sum(round_.arcs for round_ in self.stats)


# functors ------------------------------------------------------------------------------------
@device_function
def precedes(u, v, s, degree, by_degree):
    """``u`` is visited before ``v``: the larger ``degree`` first, the smaller id on a tie,
    where ``by_degree`` (order "largest_first"); else by random priority (:func:`comes_first`)."""
    if by_degree:
        return degree[u] > degree[v] or (degree[u] == degree[v] and u < v)
    return comes_first(u, v, s)


def look(src, dst, eid, weight, colors, window, beaten, used, s, degree, by_degree):
    c = colors[dst] - window[src]
    if dst != src and colors[dst] < 0 and precedes(dst, src, s, degree, by_degree):
        atomic_store(beaten, src, True)  # any of src's edges may say so: an intended race
    elif dst != src and colors[dst] >= 0 and 0 <= c < WINDOW:
        atomic_or(used, src, 1 << c)
    return False


def settle(v, colors, window, beaten, used, last_live, r):
    last_live[v] = r
    if not beaten[v] and used[v] == FULL:
        window[v] += WINDOW
    elif not beaten[v]:
        k = 0
        while used[v] >> k & 1:
            k += 1
        colors[v] = window[v] + k
    beaten[v], used[v] = False, 0
    return colors[v] < 0


def first_fit(i, order, colors, seen_by, graph):
    """The sequential greedy first fit in ``order``: each vertex takes the smallest colour no
    coloured neighbour has (``seen_by[c] == v``: a neighbour of ``v`` has colour ``c``)."""
    for j in range(order.shape[0]):
        v = order[j]
        for u in neighbors(graph, v):
            if u != v and colors[u] >= 0:
                seen_by[colors[u]] = v
        c = 0
        while seen_by[c] == v:
            c += 1
        colors[v] = c


def first_round(v, last_live):
    last_live[v] = 0


def _round(live: Frontier, graph: Graph, colors: Any, window: Any, beaten: Any, used: Any,
           s: int, degree: Any, by_degree: bool, last_live: Any, policy: Any) -> Frontier:
    """One round over the uncoloured vertices ``live``."""
    advance(graph, live, look, colors, window, beaten, used, s, degree, by_degree,
            balancer=policy, output="none")
    return filter(graph, live, settle, colors, window, beaten, used, last_live, ROUND)


# the algorithm -------------------------------------------------------------------------------
def networkx_degrees(graph: Graph) -> np.ndarray:
    """Each vertex's degree as NetworkX's ``G.degree`` counts it on the graph as stored (int64):
    every arc once, a self-loop twice (stored once, it is counted again)."""
    loops = graph.coo().src[graph.coo().src == graph.col_indices]
    return graph.out_degrees().astype(np.int64) + np.bincount(loops,
                                                              minlength=graph.num_vertices)


def graph_coloring(graph: Graph, *, seed: int = 0, order: str = "random",
                   balancer: str | LoadBalancer = "auto", target: str | Target | None = None,
                   out: str = "host") -> ColoringResult:
    """A proper colouring of an undirected graph by Jones & Plassmann (see the module
    docstring): the greedy first-fit colouring in ``order`` ``"random"`` (fixed by ``seed``, an
    integer ``0 <= seed < 2**63``) or ``"largest_first"`` (by decreasing degree, NetworkX's
    ``greedy_color`` default; the seed is then unused); ``balancer`` maps each round's advance
    onto threads; ``target`` and ``out`` as :func:`algorithms.bfs`'s."""
    check_undirected(graph, "graph_coloring")
    check_out(out)
    seed = validate.count("seed", seed)
    by_degree = validate.one_of("order", order, ORDERS) == "largest_first"
    balancer = get_balancer(balancer)
    tgt = resolve_target(target, graph, deep=False)
    policy = resolve_policy(balancer, graph, tgt)
    n, s = graph.num_vertices, random_bits(seed, 0)
    degree = tgt.to_device(networkx_degrees(graph) if by_degree else np.zeros(1, np.int64))
    colors, window = tgt.full(n, -1, np.int32), tgt.zeros(n, np.int32)
    beaten, used = tgt.zeros(n, np.bool_), tgt.zeros(n, np.int64)
    last_live = tgt.empty(n, np.int32)  # every vertex is uncoloured in round 0
    began = time.perf_counter()
    if not tgt.runs_balancers:  # one thread: the rounds collapse into the first fit they equal
        rounds = min(n, 1)
        visit = (np.lexsort((np.arange(n), -tgt.to_host(degree))) if by_degree
                 else priority_order(graph, tgt, s))
        compute(graph, "vertices", first_round, last_live, target=tgt)
        compute(graph, 1, first_fit, visit, colors, tgt.full(n + 1, -1, np.int64), target=tgt)
    else:
        live = Frontier.all_vertices(graph, kind="sparse", target=tgt)
        rounds = loop(graph, live, _round, graph, colors, window, beaten, used, s, degree,
                      by_degree, last_live, policy, fused=policy.fuses_rounds()).rounds
    return ColoringResult(deliver(tgt, colors, out, made=True), seed, rounds,
                          time.perf_counter() - began, graph, last_live, tgt, order)


# the catalog entry: the undirected simple graph underlying any graph -------------------------
def _run(graph: Graph, **options: Any) -> ColoringResult:
    return graph_coloring(validate.graph(graph).simple(directed=False), **options)


def _reference(graph: Graph, source: None) -> np.ndarray:
    from frontier.testing import reference_coloring  # imported when first needed

    return reference_coloring(graph.simple(directed=False))


def _check(graph: Graph, source: None, result: ColoringResult) -> None:
    from frontier.testing import check_coloring

    check_coloring(graph.simple(directed=False), on_host(result.colors), seed=result.seed,
                   order=result.order)


def _report(result: ColoringResult) -> list[tuple[str, str]]:
    how = f"seed {result.seed}" if result.order == "random" else "largest first"
    return [("colours", f"{result.num_colors} ({how})")]


ENTRIES = (
    Entry(name="coloring", description="a proper colouring of the undirected simple graph "
          "underlying GRAPH by Jones & Plassmann (first fit in a random priority order)",
          run=_run, reference=_reference, check=_check,
          checks="proper; equal to the sequential greedy first-fit colouring in the same order",
          report=_report, source=False,
          options=(Option("order", ORDERS, "random", "random: a random priority order (the "
                          "seed's); largest_first: decreasing degree, NetworkX's greedy_color "
                          "default", shown="{} order"),)),
)
