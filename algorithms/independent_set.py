"""Maximal independent sets, written with the operators: the deterministic parallel greedy MIS of
Blelloch, Fineman & Shun (*Greedy Sequential Maximal Independent Set and Matching are Parallel
on Average*, SPAA 2012, Section 3) and Luby's randomized algorithm (Luby, *A Simple Parallel
Algorithm for the Maximal Independent Set Problem*, SIAM J. Comput. 15(4), 1986, in its
random-priority form: fresh random numbers every round, local maxima join).

Every vertex is *undecided*, *in* the set or *out* of it. Each vertex has a priority, the 64
bits ``random_bits(s, v)`` (:mod:`frontier.runtime.rng`) with ties going to the smaller id; a round
over the frontier of undecided vertices is three operator calls:

1. ``neighbor_reduce`` (``logical_or`` over each vertex's arcs): is the vertex *beaten*, that
   is, has it an undecided neighbour of higher priority?
2. ``advance`` (with the load balancer): every arc of an unbeaten vertex takes its head out of
   the set (two unbeaten vertices are never adjacent, so no unbeaten vertex is taken out);
3. ``filter``: the unbeaten vertices join the set; the vertices still undecided stay in the
   frontier.

``method="priority"`` (the default) draws the priorities once (``s = random_bits(seed, 0)``):
a vertex then joins exactly when no undecided neighbour comes before it, so the set equals the
sequential greedy MIS that visits the vertices in decreasing priority, whatever the target and
the thread order (Blelloch et al.'s Lemma: O(log^2 n) rounds with high probability, O(m) work).
On a target that runs one thread (the cpu target) the priority method runs that sequential
greedy MIS itself (one pass in priority order: the same set, without the rounds' repeated
scans; ``iterations`` is then 1). Everywhere else every round runs inside one persistent
kernel (:func:`operators.loop`).
``method="luby"`` draws new priorities every round (``s = random_bits(seed, round)``): O(log n)
rounds with high probability (Luby's analysis), a set that depends on the seed but no longer
equals a sequential greedy one. Both give the same set on every target for one seed.

The graph must be undirected (NetworkX's ``maximal_independent_set`` raises on directed graphs
too; the catalog entry runs on the undirected simple graph underlying any graph). A self-loop is
ignored, as NetworkX's greedy loop ignores it (it never takes a vertex out because of its own
loop); repeated edges change nothing. State: one byte (undecided / in / out) and one boolean
(beaten) per vertex, plus the frontier.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from algorithms.entry import Entry, Option, testing
from algorithms.kcore import check_undirected
from algorithms.output import check_out, on_host
from frontier import (
    Frontier,
    Graph,
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
    neighbor_reduce,
    resolve_policy,
)

__all__ = ["maximal_independent_set", "MISResult", "MISRoundStats", "MISMethod", "comes_first",
           "per_round", "arcs_per_round", "ENTRIES"]


class MISMethod(options.Option):
    """``method=``: the sequential greedy MIS in a random order, or Luby's new priorities each
    round."""

    PRIORITY = "priority"
    LUBY = "luby"
UNDECIDED, IN, OUT = 0, 1, 2


@dataclass(frozen=True)
class MISRoundStats:
    """One round: the vertices undecided at its start and their arcs."""

    undecided: int
    arcs: int


@dataclass(frozen=True)
class MISResult:
    """``in_set`` (bool, one per vertex; on the target with ``out="device"``,
    :mod:`algorithms.output`), the method and seed, the rounds run (``iterations``, all in one
    persistent kernel: :func:`operators.loop`), wall time, per-round ``stats``, and the
    ``target`` that ran it."""

    in_set: Any
    method: str
    seed: int
    iterations: int
    seconds: float
    graph: Graph = field(repr=False)
    last_live: Any = field(repr=False, default=None)
    target: Target | None = field(repr=False, default=None)

    @cached_property
    def stats(self) -> list[MISRoundStats]:
        """Per round: the vertices undecided at its start and their arcs (found when first
        asked, from the last round each vertex was undecided in)."""
        last_live = on_host(self.last_live)
        sizes = per_round(last_live, np.ones(last_live.size), self.iterations)
        arcs = arcs_per_round(self.graph, last_live, self.iterations)
        return [MISRoundStats(size, a) for size, a in zip(sizes, arcs, strict=True)]

    @property
    def size(self) -> int:
        """The number of vertices in the set."""
        return int(np.count_nonzero(on_host(self.in_set)))

    @property
    def edges_traversed(self) -> int:
        """The arcs of the undecided vertices, summed over the rounds (each round reads them
        twice: the reduction and the advance)."""
        return sum(round_.arcs for round_ in self.stats)


# functors ------------------------------------------------------------------------------------
@device_function
def comes_first(u, v, s):
    """``u`` has the higher priority: more ``random_bits(s, .)``, the smaller id on a tie."""
    p, q = random_bits(s, u), random_bits(s, v)
    return p > q or (p == q and u < v)


def beats(src, dst, eid, weight, state, seed, r):
    return dst != src and state[dst] == UNDECIDED and comes_first(dst, src, random_bits(seed, r))


def exclude(src, dst, eid, weight, beaten, state):
    if not beaten[src] and dst != src:
        atomic_store(state, dst, OUT)  # every neighbour in the set says so: an intended race
    return False


def first_round(v, last_live):
    last_live[v] = 0


def taken(v, state, in_set):
    """``out="device"``: whether ``v`` is in the set, from its state."""
    in_set[v] = state[v] == IN


def settle(v, beaten, state, last_live, r):
    last_live[v] = r
    if state[v] == UNDECIDED and not beaten[v]:
        state[v] = IN
    return state[v] == UNDECIDED


def per_round(last_live: np.ndarray, weights: np.ndarray, rounds: int) -> list[int]:
    """The sum of ``weights`` over the vertices live in each of ``rounds`` rounds of a loop
    that starts with every vertex live and drops vertices for good: vertex ``v`` counts in
    rounds 0 to ``last_live[v]``, the last round it was live in."""
    if rounds == 0:
        return []
    last = np.bincount(last_live, weights=weights, minlength=rounds)
    return [int(a) for a in np.cumsum(last[::-1])[::-1]]


def arcs_per_round(graph: Graph, last_live: np.ndarray, rounds: int) -> list[int]:
    """The arcs of the vertices live in each of ``rounds`` rounds (:func:`per_round`)."""
    return per_round(last_live, graph.out_degrees(), rounds)


def priority_of(v, priority, s):
    priority[v] = random_bits(s, v)


def priority_order(graph: Graph, tgt: Target, s: int) -> np.ndarray:
    """The vertices in decreasing priority (``random_bits(s, v)``, ties to the smaller id:
    :func:`comes_first`'s order), on the host."""
    priority = tgt.empty(graph.num_vertices, np.uint64)
    compute(graph, "vertices", priority_of, priority, s, target=tgt)
    return np.lexsort((np.arange(graph.num_vertices), ~tgt.to_host(priority)))


def greedy_set(i, order, state, graph):
    """The sequential greedy MIS in ``order``: a vertex no earlier member neighbours joins and
    takes its neighbours out (a self-loop ignored)."""
    for j in range(order.shape[0]):
        v = order[j]
        if state[v] == UNDECIDED:
            state[v] = IN
            for u in neighbors(graph, v):
                if u != v:
                    state[u] = OUT


def _round(live: Frontier, graph: Graph, state: Any, beaten: Any, last_live: Any, seed: int,
           r: Any, policy: Any) -> Frontier:
    """One round over the undecided vertices ``live``; ``r`` is the round (Luby: fresh
    priorities) or 0."""
    neighbor_reduce(graph, live, beats, state, seed, r, out=beaten, op="logical_or",
                    edges="out")
    advance(graph, live, exclude, beaten, state, balancer=policy, output="none")
    return filter(graph, live, settle, beaten, state, last_live, ROUND)


# the algorithm -------------------------------------------------------------------------------
def maximal_independent_set(graph: Graph, *, method: str = "priority", seed: int = 0,
                            balancer: str | LoadBalancer = "auto",
                            target: str | Target | None = None, out: str = "host") -> MISResult:
    """A maximal independent set of an undirected graph (see the module docstring): ``method``
    ``"priority"`` (the sequential greedy MIS in a random order fixed by ``seed``) or
    ``"luby"``; ``seed`` an integer ``0 <= seed < 2**63``; ``balancer`` maps each round's
    advance onto threads; ``target`` and ``out`` as :func:`algorithms.bfs`'s."""
    check_undirected(graph, "maximal_independent_set")
    check_out(out)
    method = validate.one_of("method", method, MISMethod)
    seed = validate.count("seed", seed)
    balancer = get_balancer(balancer)
    tgt = resolve_target(target, graph, deep=False)
    policy = resolve_policy(balancer, graph, tgt)
    n = graph.num_vertices
    state, beaten = tgt.zeros(n, np.int8), tgt.zeros(n, np.bool_)
    last_live = tgt.empty(n, np.int32)  # every vertex is undecided in round 0
    began = time.perf_counter()
    if method == "priority" and not tgt.runs_balancers:
        # one thread: the rounds collapse into the sequential greedy MIS they equal
        rounds = min(graph.num_vertices, 1)
        compute(graph, "vertices", first_round, last_live, target=tgt)
        compute(graph, 1, greedy_set, priority_order(graph, tgt, random_bits(seed, 0)), state,
                target=tgt)
    else:
        live = Frontier.all_vertices(graph, kind="sparse", target=tgt)
        rounds = loop(graph, live, _round, graph, state, beaten, last_live, seed,
                      ROUND if method == "luby" else 0, policy,
                      fused=policy.fuses_rounds()).rounds
    if out == "host":
        in_set = tgt.to_host(state) == IN
    else:
        in_set = tgt.empty(n, np.bool_)
        compute(graph, "vertices", taken, state, in_set, target=tgt)
    return MISResult(in_set, method, seed, rounds, time.perf_counter() - began, graph,
                     last_live, tgt)


# the catalog entry: the undirected simple graph underlying any graph -------------------------
def _run(graph: Graph, **options: Any) -> MISResult:
    return maximal_independent_set(validate.graph(graph).simple(directed=False), **options)


def _reference(graph: Graph, source: None) -> np.ndarray:
    return testing.reference_mis(graph.simple(directed=False))


def _check(graph: Graph, source: None, result: MISResult) -> None:
    testing.check_independent_set(graph.simple(directed=False), on_host(result.in_set),
                          seed=result.seed if result.method == "priority" else None)


def _report(result: MISResult) -> list[tuple[str, str]]:
    return [("set size", f"{result.size} of {result.in_set.size} vertices "
                         f"({result.method}, seed {result.seed})")]


ENTRIES = (
    Entry(name="mis", description="a maximal independent set of the undirected simple graph "
          "underlying GRAPH (parallel greedy in a random priority order, or Luby)", run=_run,
          reference=_reference, check=_check,
          checks="independent and maximal; the priority method equals the sequential greedy "
          "MIS in the same order", report=_report, source=False,
          options=(Option("method", MISMethod, MISMethod.PRIORITY,
                          "priority: the sequential greedy MIS in a random order "
                          "(deterministic); luby: new priorities each round"),)),
)
