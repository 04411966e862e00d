"""Graph colouring by Jones & Plassmann's heuristic (Jones & Plassmann, *A Parallel Graph
Coloring Heuristic*, SIAM J. Sci. Comput. 14(3), 1993, Section 3), the default
``method="jones_plassmann"``, or by speculative colouring with conflict resolution
(``method="speculative"``, below), written with the operators.

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

``method="speculative"`` (Gebremedhin & Manne, *Scalable Parallel Graph Coloring Algorithms*,
Concurrency: Practice and Experience 12(12), 2000; Çatalyürek, Feo, Gebremedhin, Halappanavar &
Pothen, *Graph Coloring Algorithms for Multi-core and Massively Multithreaded Architectures*,
Parallel Computing 38(10-11), 2012, Section 3): no vertex waits for its neighbours. A round over
the frontier of uncoloured vertices is six operator calls, each seeing what the one before wrote
(the loop's barrier between them):

1. ``advance`` (with the load balancer) over their arcs: a coloured neighbour whose colour falls
   in the vertex's window sets its bit of the vertex's mask, as above;
2. ``compute``: every vertex of the frontier wishes for the lowest clear bit of its window (a
   full window moves up by 63; the vertex stays uncoloured);
3. ``advance`` over the same arcs: each neighbour with the same wish that comes first in the
   order (a *rival*) adds one to the vertex's *rank* (``atomic_add``; a repeated arc counts
   each time);
4. ``compute``: a vertex of rank ``j`` tentatively takes the ``j+1``-th clear bit of its window,
   or its last clear bit if there are fewer: rivals spread over the free colours instead of all
   taking one, so a clique of one window is coloured in one round;
5. ``advance`` over the same arcs: a neighbour with the same tentative colour that comes first
   in the order marks the vertex *lost* (``atomic_store``);
6. ``filter``: a lost vertex is uncoloured again; the uncoloured vertices form the next
   frontier.

A coloured vertex outside the frontier never changes colour again, so a mask reads final
colours only, a tentative colour is a clear bit (never a coloured neighbour's colour), and a
window moves up only past colours taken for good. The colouring is proper when the loop ends:
two neighbours of one colour were both in the frontier of the last round either was coloured in
(a vertex coloured earlier had its colour in the other's mask), and step 5 of that round,
reading both final colours, put the later one back. A vertex's colour is at most its coloured
neighbours' colours below it (distinct) plus the free colours it stepped over (at most its rank,
arcs to rivals still uncoloured): at most its number of arcs to other vertices (its distinct
neighbours on a graph without repeated arcs), so at most max degree + 1 colours. Every step
reads only what the steps before it wrote, and its atomics commute: the colours depend on the
seed and order only, the same on every target, balancer and thread schedule. Not a greedy
colouring in the order, and it uses more colours than first fit (a vertex steps over a colour
for every rival, whatever colour the rival ends with). A vertex with no uncoloured neighbour
before it in the order keeps what it took, so each round colours at least those Jones &
Plassmann colours and the rounds are at most its rounds.
State: 24 bytes per vertex (colour, window, rank then lost, last round uncoloured: int32; the
mask: int64) plus the frontier. It runs on the cpu target as everywhere.

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

from algorithms.entry import Entry, Option, testing
from algorithms.independent_set import arcs_per_round, comes_first, per_round, priority_order
from algorithms.kcore import check_undirected
from algorithms.output import check_out, deliver, on_host
from frontier import (
    Frontier,
    Graph,
    atomic_add,
    atomic_or,
    atomic_store,
    device_function,
    neighbors,
    options,
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

__all__ = ["graph_coloring", "ColoringResult", "ColoringRoundStats", "ColoringOrder",
           "ColoringMethod", "networkx_degrees", "ENTRIES"]


class ColoringOrder(options.Option):
    """``order=``: a random priority order (the seed's), or by decreasing degree (for
    "speculative": which end of a clash keeps its colour)."""

    RANDOM = "random"
    LARGEST_FIRST = "largest_first"


class ColoringMethod(options.Option):
    """``method=``: jones_plassmann, the greedy first fit in the order, a vertex waiting for its
    preceding neighbours; speculative, every uncoloured vertex colours itself each round,
    clashes undone."""

    JONES_PLASSMANN = "jones_plassmann"
    SPECULATIVE = "speculative"

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
    the ``order`` of the first fit and the ``method``."""

    colors: Any
    seed: int
    iterations: int
    seconds: float
    graph: Graph = field(repr=False)
    last_live: Any = field(repr=False, default=None)
    target: Target | None = field(repr=False, default=None)
    order: str = "random"
    method: str = "jones_plassmann"

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


def mark_taken(src, dst, eid, weight, colors, window, used):
    c = colors[dst] - window[src]
    if dst != src and colors[dst] >= 0 and 0 <= c < WINDOW:
        atomic_or(used, src, 1 << c)
    return False


def wish(v, colors, window, used):
    if used[v] == FULL:
        window[v] += WINDOW
    else:
        k = 0
        while used[v] >> k & 1:
            k += 1
        colors[v] = window[v] + k


def count_rivals(src, dst, eid, weight, colors, rank, s, degree, by_degree):
    if (dst != src and colors[src] >= 0 and colors[dst] == colors[src]
            and precedes(dst, src, s, degree, by_degree)):
        atomic_add(rank, src, 1)
    return False


def step_aside(v, colors, window, used, rank):
    if colors[v] >= 0:
        k, free, skip = 0, 0, rank[v]
        for bit in range(WINDOW):
            if not used[v] >> bit & 1:
                k = bit
                free += 1
                if free > skip:
                    break
        colors[v] = window[v] + k
    used[v], rank[v] = 0, 0


def clash(src, dst, eid, weight, colors, lost, s, degree, by_degree):
    if (dst != src and colors[src] >= 0 and colors[dst] == colors[src]
            and precedes(dst, src, s, degree, by_degree)):
        atomic_store(lost, src, 1)
    return False


def undo_lost(v, colors, lost, last_live, r):
    last_live[v] = r
    if lost[v]:
        colors[v] = -1
        lost[v] = 0
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


def _speculative_round(live: Frontier, graph: Graph, colors: Any, window: Any, lost: Any,
                       used: Any, s: int, degree: Any, by_degree: bool, last_live: Any,
                       policy: Any) -> Frontier:
    """One round of speculative colouring over the uncoloured vertices ``live``."""
    advance(graph, live, mark_taken, colors, window, used, balancer=policy, output="none")
    compute(graph, live, wish, colors, window, used)
    advance(graph, live, count_rivals, colors, lost, s, degree, by_degree, balancer=policy,
            output="none")  # lost holds each vertex's rank among its rivals until step_aside
    compute(graph, live, step_aside, colors, window, used, lost)
    advance(graph, live, clash, colors, lost, s, degree, by_degree, balancer=policy,
            output="none")
    return filter(graph, live, undo_lost, colors, lost, last_live, ROUND)


# the algorithm -------------------------------------------------------------------------------
def networkx_degrees(graph: Graph) -> np.ndarray:
    """Each vertex's degree as NetworkX's ``G.degree`` counts it on the graph as stored (int64):
    every arc once, a self-loop twice (stored once, it is counted again)."""
    loops = graph.coo().src[graph.coo().src == graph.col_indices]
    return graph.out_degrees().astype(np.int64) + np.bincount(loops,
                                                              minlength=graph.num_vertices)


def graph_coloring(graph: Graph, *, seed: int = 0, order: str = "random",
                   method: str = "jones_plassmann", balancer: str | LoadBalancer = "auto",
                   target: str | Target | None = None, out: str = "host") -> ColoringResult:
    """A proper colouring of an undirected graph (see the module docstring): with ``method``
    ``"jones_plassmann"`` the greedy first-fit colouring in ``order`` ``"random"`` (fixed by
    ``seed``, an integer ``0 <= seed < 2**63``) or ``"largest_first"`` (by decreasing degree,
    NetworkX's ``greedy_color`` default; the seed is then unused); with ``"speculative"`` every
    uncoloured vertex colours itself each round, rivals for one colour spread over the free
    ones and clashes settled by that order (few rounds, more colours); ``balancer`` maps each
    round's advances onto threads; ``target`` and ``out`` as :func:`algorithms.bfs`'s."""
    check_undirected(graph, "graph_coloring")
    check_out(out)
    seed = validate.count("seed", seed)
    by_degree = validate.one_of("order", order, ColoringOrder) == ColoringOrder.LARGEST_FIRST
    speculative = validate.one_of("method", method, ColoringMethod) == ColoringMethod.SPECULATIVE
    balancer = get_balancer(balancer)
    tgt = resolve_target(target, graph, deep=False)
    policy = resolve_policy(balancer, graph, tgt)
    n, s = graph.num_vertices, random_bits(seed, 0)
    degree = tgt.to_device(networkx_degrees(graph) if by_degree else np.zeros(1, np.int64))
    colors, window = tgt.full(n, -1, np.int32), tgt.zeros(n, np.int32)
    # beaten; or speculative's rank among its rivals, then lost
    marked = tgt.zeros(n, np.int32 if speculative else np.bool_)
    used = tgt.zeros(n, np.int64)
    last_live = tgt.empty(n, np.int32)  # every vertex is uncoloured in round 0
    began = time.perf_counter()
    if not speculative and not tgt.runs_balancers:  # one thread: the first fit the rounds equal
        rounds = min(n, 1)
        visit = (np.lexsort((np.arange(n), -tgt.to_host(degree))) if by_degree
                 else priority_order(graph, tgt, s))
        compute(graph, "vertices", first_round, last_live, target=tgt)
        compute(graph, 1, first_fit, visit, colors, tgt.full(n + 1, -1, np.int64), target=tgt)
    else:
        live = Frontier.all_vertices(graph, kind="sparse", target=tgt)
        rounds = loop(graph, live, _speculative_round if speculative else _round, graph, colors,
                      window, marked, used, s, degree, by_degree, last_live, policy,
                      fused=policy.fuses_rounds()).rounds
    return ColoringResult(deliver(tgt, colors, out, made=True), seed, rounds,
                          time.perf_counter() - began, graph, last_live, tgt, order, method)


# the catalog entry: the undirected simple graph underlying any graph -------------------------
def _run(graph: Graph, **options: Any) -> ColoringResult:
    return graph_coloring(validate.graph(graph).simple(directed=False), **options)


def _reference(graph: Graph, source: None) -> np.ndarray:
    return testing.reference_coloring(graph.simple(directed=False))


def _check(graph: Graph, source: None, result: ColoringResult) -> None:
    greedy = result.method == ColoringMethod.JONES_PLASSMANN
    testing.check_coloring(graph.simple(directed=False), on_host(result.colors),
                           seed=result.seed if greedy else None, order=result.order,
                           neighbours="distinct" if greedy else "arcs")


def _report(result: ColoringResult) -> list[tuple[str, str]]:
    how = f"seed {result.seed}" if result.order == "random" else "largest first"
    return [("colours", f"{result.num_colors} ({how}, {result.method.replace('_', ' ')})")]


ENTRIES = (
    Entry(name="coloring", description="a proper colouring of the undirected simple graph "
          "underlying GRAPH by Jones & Plassmann (first fit in a random priority order)",
          run=_run, reference=_reference, check=_check,
          checks="proper, no colour above the vertex's distinct neighbours; jones_plassmann: "
          "equal to the sequential greedy first-fit colouring in the same order",
          report=_report, source=False,
          options=(Option("order", ColoringOrder, ColoringOrder.RANDOM,
                          "random: a random priority order (the seed's); largest_first: "
                          "decreasing degree, NetworkX's greedy_color default",
                          shown="{} order"),
                   Option("method", ColoringMethod, ColoringMethod.JONES_PLASSMANN,
                          "jones_plassmann: the greedy first fit in the order; speculative: "
                          "every uncoloured vertex colours itself each round, rivals spreading "
                          "over the free colours, the later end of a clash retries (far fewer "
                          "rounds on skewed graphs, more colours)"))),
)
