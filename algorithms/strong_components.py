"""Strongly connected components by forward–backward colouring with trimming, written with the
operators.

A strongly connected component (SCC) is a largest set of vertices that all reach one another.
The method is Fleischer, Hendrickson & Pinar's forward–backward search (*On Identifying
Strongly Connected Components in Parallel*, IPDPS Workshops 2000: the SCC of a vertex is what
it reaches forward and backward) in its colouring form (Orzan, *On Distributed Verification
and Verified Distribution*, PhD thesis, VU Amsterdam, 2004; Slota, Rajamanickam & Madduri, *BFS
and Coloring-based Parallel Algorithms for Strongly Connected Components and Related Problems*,
IPDPS 2014: the Coloring algorithm their background reviews and their Multistep method ends
with), with the trimming of McLendon, Hendrickson, Plimpton & Rauchwerger (*Finding Strongly
Connected Components in Distributed Graphs*, JPDC 2005: vertices without in- or out-arcs are
SCCs of one, removed repeatedly; Multistep's "simple trimming").

Every vertex carries a colour class (``part``), at first one class for all; an arc *counts*
when it joins two distinct unassigned vertices of one class. The rounds are one
:func:`operators.loop` over the unassigned vertices (``left``), whose body is the round
(:func:`_round`: twelve operator calls); every round runs inside one persistent kernel, its
traversals as inner loops, where the policy fuses rounds (graphs without hubs; on graphs with
hubs the same body runs as the host loop, each traversal deciding its steps adaptively). Each
round:

1. trim (McLendon et al., to its fixed point): ``neighbor_reduce`` counts the in-arcs of each
   vertex of ``left``; a ``filter`` claims those with none (each is its own SCC), and a forward
   ``traverse`` peels them: every counted arc out of a claimed vertex decrements its head's
   count with an atomic, and the decrement to 0 claims the head. Then the same for out-arcs,
   backward (``edges="in"``). Removing sources never makes a sink of a vertex left (its arcs
   to the sources were not counted), and removing sinks never makes a source, so after the two
   sweeps no unassigned vertex lacks a counted in- or out-arc: a DAG is trimmed in one round;
2. colour (Slota et al.'s Coloring, with the minimum where they take the maximum):
   every unassigned vertex takes its own id as colour (a ``filter`` of ``left``: the seeds),
   and a forward ``traverse`` pushes colours
   over the counted arcs with ``atomic_min`` until none drops. A vertex's colour is then the
   smallest vertex of its class that reaches it. A vertex whose colour drops several times in
   one step is pushed once (:data:`COLOURING_CULL`);
3. backward search (their Coloring's backward step): the vertices whose colour is their own
   id are roots (the smallest vertex left in each class is one); a
   backward ``traverse`` (``edges="in"``, the arcs entering the frontier) from every root at
   once claims the vertices of the root's colour. A vertex of colour ``r`` is reached by ``r``,
   and the ones found reach ``r`` too: each root's search is its SCC, labelled ``r``;
4. the colours become the classes of the next round (two vertices of different colours are in
   different SCCs, so arcs between classes are dropped): a ``filter`` of the seeds keeps the
   unassigned ones, with their colour as class, as the next round's ``left``; the loop ends
   when it is empty.

Labels: every vertex gets the **smallest vertex id of its SCC** (a trimmed vertex its own id, a
root is the smallest of its class's SCC), the same on every target and balancer. An undirected
graph stores both arcs of each edge, so its SCCs are its connected components: they are
computed as such (:func:`algorithms.connected_components`, afforest, with the same labels and
its choice of target), in one round (its stats: the components and the vertices they hold,
afforest's iterations as the colouring steps). A round whose trimming assigns every vertex left
ends the run (its colouring has no seed). The per-round stats are counted after the run, when
asked, from where each vertex was assigned (``2r`` trimmed in round ``r``, ``2r + 1`` by its
colouring: an int32 a vertex the functors write) and each round's colouring steps (the
colouring traverse's, noted by a ``compute``). Self-loops never count (a vertex with only a
self-loop is trimmed) and repeated arcs count once each.

Cost: each round counts every arc twice and walks the arcs of its colour classes; the
colouring and the searches take as many steps as the longest path they follow. Trimming
finishes DAGs and the acyclic parts of a graph in one round. Each round assigns at least one
SCC per class (the class's smallest vertex's): a chain of SCCs whose ids grow along the arcs
(``{0, 1} -> {2, 3} -> ...``) takes a round per SCC, O(#SCC x |E|) work (with the arcs
reversed, one round). State: six int32
arrays (label, class, colour, arc count, round assigned, steps per round), 24 bytes per vertex,
plus the frontier buffers (fused: the round's ring, five queues of the body's own and the
traversals' three).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from algorithms.components import connected_components, is_root
from algorithms.entry import Entry, testing
from algorithms.output import check_out, deliver, on_host
from frontier import Frontier, Graph, atomic_add, atomic_cas, atomic_min, validate
from frontier.options import Cull
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import (  # noqa: A004
    ROUND,
    LoadBalancer,
    compute,
    filter,
    get_balancer,
    loop,
    neighbor_reduce,
    reduce,
    resolve_policy,
    traverse,
)

__all__ = ["strongly_connected_components", "SCCResult", "SCCRoundStats", "ENTRIES"]


@dataclass(frozen=True)
class SCCRoundStats:
    """One round: the vertices it trimmed, the SCCs its colouring found (one per root), the
    vertices those hold, and its colouring steps."""

    round: int
    trimmed: int
    components: int
    assigned: int
    colouring_steps: int


@dataclass(frozen=True)
class SCCResult:
    """``labels`` (int32: each vertex's smallest SCC member), ``num_components``, the number of
    rounds (``iterations``, all in one persistent kernel where the rounds run fused:
    :func:`operators.loop`), ``seconds`` (wall time from the first launch to the last read),
    per-round :attr:`stats`, and the ``target`` that ran it. With ``out="device"`` ``labels``
    stay on the target (:mod:`algorithms.output`)."""

    labels: Any
    num_components: int
    iterations: int
    seconds: float
    graph: Graph = field(repr=False)
    target: Target | None = field(repr=False, default=None)
    #: Per vertex, where a directed graph's rounds assigned it: ``2r`` trimmed in round ``r``
    #: (from 0), ``2r + 1`` found by round ``r``'s colouring; on the target.
    assigned_in: Any = field(repr=False, default=None)
    #: Per round, its colouring steps (on the target); an undirected graph's stats instead.
    steps: Any = field(repr=False, default=None)

    @property
    def edges_traversed(self) -> int:
        """The graph's arcs: every round counts each one (a lower bound on the arcs read)."""
        return self.graph.num_edges

    @cached_property
    def stats(self) -> list[SCCRoundStats]:
        """One :class:`SCCRoundStats` per round, counted from :attr:`assigned_in` and the
        labels when asked (host copies of them), not by reductions in every round."""
        if self.assigned_in is None:
            return list(self.steps)
        labels = on_host(self.labels)
        when = on_host(self.assigned_in)[:labels.size]
        rounds = self.iterations
        counts = np.bincount(when, minlength=2 * rounds)
        roots = np.bincount(when[labels == np.arange(labels.size)], minlength=2 * rounds)
        steps = on_host(self.steps)
        return [SCCRoundStats(r + 1, int(counts[2 * r]), int(roots[2 * r + 1]),
                              int(counts[2 * r + 1]), int(steps[r])) for r in range(rounds)]


#: How the colouring traversal culls repeated heads (:mod:`operators.cull`). ``spread`` accepts
#: a vertex each time its colour drops, which can happen several times in one step (in the order
#: the threads run), and the next step would expand every copy again, reading a colour that can
#: be dropping during that step: unculled, a step can push more than the queue's max(|E|, |V|)
#: entries. Culled, each step pushes a vertex at most once: at most |V| entries, whose expansion
#: walks at most |E| arcs. One entry suffices: it is expanded after the step that pushed it,
#: reading the lowest colour that step gave.
COLOURING_CULL = Cull.BITMAP


# functors ------------------------------------------------------------------------------------
def counted(src, dst, eid, weight, label, part):
    """1 for an arc joining two distinct unassigned vertices of one class, else 0."""
    return int(src != dst and label[src] == -1 and label[dst] == -1 and part[src] == part[dst])


def claim_lone(v, label, count, when, r):
    """Claim an unassigned ``v`` with no counted arc left (``count[v]`` 0): an SCC of its own,
    trimmed in round ``r``."""
    if label[v] == -1 and count[v] == 0:
        label[v] = v
        when[v] = 2 * r
        return True
    return False


def peel(src, dst, eid, weight, label, part, count, when, r):
    """Uncount the arc to ``dst`` of the claimed ``src``; claim ``dst`` when none is left."""
    if src == dst or label[dst] != -1 or part[src] != part[dst]:
        return False
    if atomic_add(count, dst, -1) == 1 and atomic_cas(label, dst, -1, dst) == -1:
        when[dst] = 2 * r
        return True
    return False


def own_colour(v, label, colour):
    """An unassigned ``v`` takes its own id as colour: a seed of the colouring."""
    if label[v] == -1:
        colour[v] = v
        return True
    return False


def spread(src, dst, eid, weight, label, part, colour):
    c = colour[src]
    return label[dst] == -1 and part[dst] == part[src] and atomic_min(colour, dst, c) > c


def claim_root(v, label, colour, when, r):
    """A vertex whose colour is its own id is a root: it claims itself (its SCC's label)."""
    if label[v] == -1 and colour[v] == v:
        label[v] = v
        when[v] = 2 * r + 1
        return True
    return False


def gather(src, dst, eid, weight, label, colour, when, r):
    """Backward from a vertex of root ``c``'s SCC: claim an in-neighbour of colour ``c``."""
    c = colour[src]
    if colour[dst] == c and atomic_cas(label, dst, -1, c) == -1:
        when[dst] = 2 * r + 1
        return True
    return False


def note_steps(i, steps, r, walked):
    steps[r] = walked


def next_class(v, label, part, colour):
    """A vertex left unassigned keeps its colour as its class for the next round."""
    if label[v] == -1:
        part[v] = colour[v]
        return True
    return False


# the algorithm -------------------------------------------------------------------------------
def _round(left: Frontier, graph: Graph, label: Any, part: Any, colour: Any, count: Any,
           when: Any, steps: Any, ahead: Any, back: Any) -> Frontier:
    """One round over ``left``, the vertices no SCC holds yet: trim, colour, search backward
    from the roots; returns the vertices it left."""
    for counts, sweep, policy in (("in", "out", ahead), ("out", "in", back)):
        neighbor_reduce(graph, left, counted, label, part, out=count, edges=counts)
        lone = filter(graph, left, claim_lone, label, count, when, ROUND)
        traverse(graph, lone, peel, label, part, count, when, ROUND, balancer=policy,
                 edges=sweep)
    seeds = filter(graph, left, own_colour, label, colour)
    walk = traverse(graph, seeds, spread, label, part, colour, balancer=ahead,
                    cull=COLOURING_CULL)
    roots = filter(graph, seeds, claim_root, label, colour, when, ROUND)
    traverse(graph, roots, gather, label, colour, when, ROUND, balancer=back, edges="in")
    compute(graph, 1, note_steps, steps, ROUND, walk.steps)
    return filter(graph, seeds, next_class, label, part, colour)


def strongly_connected_components(graph: Graph, *, balancer: str | LoadBalancer = "auto",
                                  target: str | Target | None = None, out: str = "host"
                                  ) -> SCCResult:
    """The SCCs of ``graph`` (of an undirected graph: its connected components), each vertex
    labelled by the smallest vertex id of its SCC (see the module docstring). ``balancer``
    maps the traversals' steps onto threads; ``target`` and ``out`` as :func:`algorithms.bfs`'s.
    The graph is not modified."""
    validate.graph(graph)
    check_out(out)
    balancer = get_balancer(balancer)
    g, n = graph, graph.num_vertices
    if not g.directed:  # both arcs of every edge: the SCCs are the connected components
        found = connected_components(g, balancer=balancer, target=target, out=out)
        rounds = [SCCRoundStats(1, 0, found.num_components, n, found.iterations)] if n else []
        return SCCResult(found.labels, found.num_components, len(rounds), found.seconds, graph,
                         found.target, steps=rounds)
    tgt = resolve_target(target, graph)
    ahead = resolve_policy(balancer, g, tgt)
    back = resolve_policy(balancer, g.transpose(), tgt)
    began = time.perf_counter()
    label, when, steps, rounds = run_rounds(g, tgt, ahead, back,
                                            ahead.fuses_rounds() and back.fuses_rounds())
    components = reduce(g, "vertices", is_root, label, op="count", target=tgt)
    return SCCResult(deliver(tgt, label, out), components, rounds, time.perf_counter() - began,
                     graph, tgt, when, steps)


def run_rounds(graph: Graph, tgt: Target, ahead: Any, back: Any, fused: bool
               ) -> tuple[Any, Any, Any, int]:
    """The rounds over a directed ``graph`` as one :func:`operators.loop` (``fused=False``:
    its host loop), the forward steps with policy ``ahead``, the backward ones with ``back``
    (resolved for the transpose); returns the labels, where each vertex was assigned
    (:attr:`SCCResult.assigned_in`), each round's colouring steps and the rounds, on the
    target."""
    n = graph.num_vertices
    label, part = tgt.full(n, -1, np.int32), tgt.zeros(n, np.int32)  # one class at first
    # written before they are read: a count and a colour by each round for the vertices it
    # starts with, the round of each vertex where it is assigned, the steps of each round (a
    # round assigns one vertex or more)
    colour, count, when, steps = (tgt.empty(max(n, 1), np.int32) for _ in range(4))
    # the calling thread's pool of the graph: its queues and culling marks made once, not per
    # call (a run keeps no frontier)
    left = Frontier.all_vertices(graph, kind="sparse", target=tgt, shared=True)
    rounds = loop(graph, left, _round, graph, label, part, colour, count, when, steps, ahead,
                  back, fused=fused).rounds
    return label, when, steps, rounds


# the catalog entry ---------------------------------------------------------------------------
def _reference(graph: Graph, source: None) -> np.ndarray:
    return testing.reference_scc(graph)


def _check(graph: Graph, source: None, result: SCCResult) -> None:
    testing.check_scc(graph, on_host(result.labels))


def _report(result: SCCResult) -> list[tuple[str, str]]:
    largest = np.bincount(result.labels).max(initial=0) if result.labels.size else 0
    trimmed = sum(s.trimmed for s in result.stats)
    return [("components", f"{result.num_components:,} (the largest holds {largest:,} "
                           "vertices)"), ("trimmed", f"{trimmed:,} vertices (SCCs of one)")]


ENTRIES = (
    Entry(name="scc", description="strongly connected components by forward-backward colouring "
          "with trimming, each vertex labelled by its SCC's smallest vertex id",
          run=strongly_connected_components, reference=_reference, check=_check,
          checks="labels partition the vertices like a sequential Tarjan; each is the SCC's "
          "smallest id", report=_report, source=False),
)
