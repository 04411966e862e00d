"""Connected components and spanning forests, written with the operators.

Weak components: an arc ``u -> v`` joins ``u`` and ``v`` whatever its direction, so a directed
graph's components are those of its undirected view. Every method labels each vertex by the
smallest vertex id of its component, so results compare exactly.

Methods (``connected_components(G, method=...)``):

* ``"soman"`` (Soman, Kothapalli & Narayanan, Fig. 3, §2 and §4.2): each iteration hooks over
  the edge list (``compute`` over an edge frontier), the orientation alternating between
  iterations (odd: the larger root takes the smaller as parent; even: the reverse), with plain
  concurrent writes (an arbitrary writer wins; an edge whose hook was overwritten stays and
  tries again); multi-level pointer jumping then turns every tree into a star (one ``compute``:
  each vertex jumps until its parent is a root); edge hiding (``filter``) drops the edges whose
  ends now share a root, and the loop ends when no edge is left. On an undirected graph the
  hiding also keeps one arc of each edge. The edge frontiers are bitmaps (|E| bits), so no
  queue of |E| ids is allocated.
* ``"shiloach_vishkin"`` (Dehne & Yogaratnam, §4, Algorithm 4): kernels SV1a (short-cut into a
  second parent array), SV1b (mark trees that changed), SV2 (conditional hooking onto smaller
  parents), SV3 (hooking stagnant roots), SV4 (short-cut again), SV5 (did any tree change? a
  ``reduce``); SV0 is the initialisation.
* ``"label_propagation"``: every vertex starts with its own id; vertices whose label dropped
  push it along their out-edges (``advance`` with the load balancer; on an undirected graph
  every round in one persistent kernel, :func:`operators.loop`); on a directed graph every
  vertex also pulls the smallest label of its out-neighbours (``neighbor_reduce``) and the
  vertices that adopted one join the next frontier (``filter``, ``Frontier.union``). Ends when
  no label drops. O(diameter) rounds.
* ``"afforest"`` (Sutton, Ben-Nun & Bar, IPDPS 2018; the GAP benchmark's ``cc``): link each
  vertex with its first two neighbours (two rounds of ``compute``, each followed by
  compression), sample 1,024 labels to find the largest intermediate component (a graph of at
  most 1,024 vertices: read every label instead), then link the
  remaining edges of the vertices outside it only (``filter`` then ``advance``; on a directed
  graph the arcs leaving or entering the component, ``filter`` over the edge frontier), and
  compress. Links hook the larger root onto the smaller with a compare-and-swap, so a root is
  always the smallest id of its tree.

``spanning_forest(G)`` is Soman et al.'s §3 and §3.1: the same hooking loop, where every root is
hooked by exactly one competing edge (a compare-and-swap on its parent) and that edge is
recorded; the recorded edges form a spanning forest of the weak components.

Default: ``"afforest"``: it touches most edges once (only those of vertices outside the giant
component after sampling) and needs a handful of launches; ``docs/algorithms.md`` has the
measurements behind the choice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms.entry import Entry, Option, testing
from algorithms.output import check_out, deliver, on_host
from frontier import (
    Frontier,
    Graph,
    atomic_cas,
    atomic_exch,
    atomic_load,
    atomic_min,
    atomic_store,
    device_function,
    options,
    validate,
)
from frontier.distributed.dispatch import scales_out
from frontier.options import values
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import (
    ROUND,
    LoadBalancer,
    advance,
    compute,
    filter,
    get_balancer,
    loop,
    neighbor_reduce,
    reduce,
    resolve_policy,
)
from operators.common import thread_buffer

__all__ = ["connected_components", "spanning_forest", "ComponentsResult",
           "SpanningForestResult", "ComponentsStepStats", "ComponentsMethod", "DEFAULT_METHOD",
           "ENTRIES"]


class ComponentsMethod(options.Option):
    """The methods of :func:`connected_components` (see the module docstring)."""

    AFFOREST = "afforest"
    SOMAN = "soman"
    SHILOACH_VISHKIN = "shiloach_vishkin"
    LABEL_PROPAGATION = "label_propagation"


DEFAULT_METHOD = ComponentsMethod.AFFOREST
#: Afforest: neighbours linked per vertex before sampling, and labels sampled.
NEIGHBOR_ROUNDS = 2
SAMPLES = 1024


@dataclass(frozen=True)
class ComponentsStepStats:
    """One step of a components method: its iteration number, what it did (``phase``), how
    many elements (edges for hooking, vertices for a label-propagation frontier) it worked on
    (-1 where not counted, to save a device read), and its host wall time."""

    iteration: int
    phase: str
    active: int
    seconds: float


@dataclass(frozen=True)
class ComponentsResult:
    """``labels`` (int32: each vertex's smallest component member), ``num_components``, the
    number of ``iterations`` (hooking iterations, SV rounds, propagation rounds, or afforest's
    neighbour rounds plus its final pass), ``seconds`` (wall time from the first launch to the
    last read), per-step ``stats`` and the ``target`` that ran it. With ``out="device"``
    ``labels`` stay on the target (:mod:`algorithms.output`)."""

    labels: Any
    num_components: int
    iterations: int
    seconds: float
    method: str
    graph: Graph = field(repr=False)
    stats: list[ComponentsStepStats] = field(repr=False, default_factory=list)
    target: Target | None = field(repr=False, default=None)

    @property
    def edges_traversed(self) -> int:
        """The graph's arcs: every method looks at each at least once."""
        return self.graph.num_edges


@dataclass(frozen=True)
class SpanningForestResult:
    """``edges``: ascending CSR edge ids (int64) of a spanning forest of the weak components,
    |V| - ``num_components`` of them; ``labels`` and ``target`` as
    :class:`ComponentsResult`'s. With ``out="device"`` both arrays are the target's; the edges
    are sorted on the host (the one read back of such a call) and copied there."""

    edges: Any
    labels: Any
    num_components: int
    iterations: int
    seconds: float
    graph: Graph = field(repr=False)
    stats: list[ComponentsStepStats] = field(repr=False, default_factory=list)
    target: Target | None = field(repr=False, default=None)

    @property
    def edges_traversed(self) -> int:
        return self.graph.num_edges


# shared steps: compression to stars, labels by smallest member --------------------------------
def own_id(v, parent):
    parent[v] = v


@device_function
def jump(parent, v):
    """Multi-level pointer jumping (Soman et al. §2 (2)): jump until the parent is a root."""
    # the others read parent[v] while v jumps (any ancestor is right): relaxed atomics
    p = parent[v]
    up = atomic_load(parent, p)
    while up != p:
        p = up
        atomic_store(parent, v, p)
        up = atomic_load(parent, p)


def jump_to_root(v, parent):
    """Pointer jumping from ``v`` (:func:`jump`)."""
    jump(parent, v)


def jump_telling_root(v, parent):
    """:func:`jump_to_root`, telling whether ``v`` is a root (a root stays one while the
    others jump, and no vertex becomes one): a count of them is the number of trees."""
    if atomic_load(parent, v) == v:
        return True
    jump(parent, v)
    return False


def offer_id(v, parent, smallest):
    """Offer ``v`` as its star's smallest member."""
    atomic_min(smallest, parent[v], v)


def take_smallest(v, parent, smallest):
    """Replace ``v``'s root by its star's smallest member (each thread writes its own entry)."""
    parent[v] = smallest[parent[v]]


def crosses(e, parent, src, dst, both_arcs):
    """Edge hiding (Soman et al. §2 (3)): keep an edge whose ends lie in different stars; on a
    graph storing both arcs of an edge (``both_arcs``), keep one of them."""
    u = src[e]
    v = dst[e]
    return (not both_arcs or u < v) and parent[u] != parent[v]


class _ComponentSteps:
    """The graph's arrays on the target and the per-step statistics of one run."""

    def __init__(self, graph: Graph, tgt: Target) -> None:
        self.graph = graph
        self.tgt = tgt
        self.src = graph.device_edge_sources(tgt)
        arrays = graph.device_arrays(tgt)
        self.dst = arrays.col_indices
        self.offsets = arrays.row_offsets
        self.stats: list[ComponentsStepStats] = []
        self.start = time.perf_counter()
        self._last = self.start
        #: The components, where the method's last compression counted them (else None).
        self.count: int | None = None

    def record(self, iteration: int, phase: str, active: int) -> None:
        now = time.perf_counter()
        self.stats.append(ComponentsStepStats(iteration, phase, active, now - self._last))
        self._last = now

    def identity(self) -> Any:
        """A parent array in which every vertex is its own root (filled on the device)."""
        parent = self.tgt.empty(self.graph.num_vertices, np.int32)
        compute(self.graph, "vertices", own_id, parent, target=self.tgt)
        return parent

    def compress(self, parent: Any, last: bool = False) -> None:
        """Every vertex's parent made its root; the method's ``last`` compression (one whose
        roots are the final labels) also counts them into :attr:`count`, in the same launch (a
        reduction: each thread counts its own roots, where one counter that every root
        incremented passed its cache line from thread to thread)."""
        if not last:
            compute(self.graph, "vertices", jump_to_root, parent, target=self.tgt)
            return
        self.count = reduce(self.graph, "vertices", jump_telling_root, parent, op="count",
                            target=self.tgt)

    def smallest_members(self, parent: Any) -> None:
        """Stars in ``parent`` become labels: each vertex's smallest component member."""
        smallest = self.tgt.full(self.graph.num_vertices, self.graph.num_vertices, np.int32)
        compute(self.graph, "vertices", offer_id, parent, smallest, target=self.tgt)
        compute(self.graph, "vertices", take_smallest, parent, smallest, target=self.tgt)


def is_root(v, labels):
    return labels[v] == v


def _labels_and_count(graph: Graph, tgt: Target, labels: Any, out: str,
                      count: int | None = None) -> tuple[Any, int]:
    """The labels as the caller gets them, and the number of components (the vertices that
    are their own label, counted on the target, unless ``count`` was). Every method makes its
    labels for the call, so a target of host arrays hands them over without a copy."""
    if count is None:
        count = reduce(graph, "vertices", is_root, labels, op="count", target=tgt)
    return deliver(tgt, labels, out, made=True), count


# Soman, Kothapalli & Narayanan: hooking, pointer jumping, edge hiding ------------------------
def hook(e, parent, src, dst, upward):
    """Soman et al. Fig. 3: hook the roots of an edge's ends, the larger onto the smaller
    (``upward``: the smaller onto the larger); an arbitrary writer wins (relaxed atomics: the
    roots are read while other edges hook them)."""
    pu = atomic_load(parent, src[e])
    pv = atomic_load(parent, dst[e])
    if pu != pv:
        high = max(pu, pv)
        low = min(pu, pv)
        if upward:
            atomic_store(parent, low, high)
        else:
            atomic_store(parent, high, low)


def hook_once(e, parent, src, dst, upward, hooked_by):
    """Soman et al. §3: edges compete to hook a root; the one whose compare-and-swap succeeds
    hooks it and is recorded in ``hooked_by`` (a root is hooked once, so the recorded edges
    never close a cycle)."""
    pu = parent[src[e]]
    pv = parent[dst[e]]
    if pu != pv:
        high = max(pu, pv)
        low = min(pu, pv)
        child = high
        other = low
        if upward:
            child = low
            other = high
        if atomic_cas(parent, child, child, other) == child:
            hooked_by[child] = e


def _hooking_loop(steps: _ComponentSteps, parent: Any, hooker: Callable, *extra: Any) -> int:
    """Hook, compress, hide until no edge crosses two stars; returns the iterations."""
    g, tgt = steps.graph, steps.tgt
    both_arcs = not g.directed
    if g.num_edges == 0:
        return 0
    compute(g, "edges", hooker, parent, steps.src, steps.dst, False, *extra, target=tgt)
    steps.compress(parent)
    edges = filter(g, Frontier.all_edges(g, target=tgt), crosses, parent, steps.src, steps.dst,
                   both_arcs)
    steps.record(1, "hook all edges, jump, hide", g.num_edges)
    iteration = 1
    while (active := len(edges)) > 0:
        iteration += 1
        compute(g, edges, hooker, parent, steps.src, steps.dst, iteration % 2 == 0, *extra)
        steps.compress(parent)
        edges = filter(g, edges, crosses, parent, steps.src, steps.dst, both_arcs)
        steps.record(iteration, "hook, jump, hide", active)
    return iteration


def _soman(steps: _ComponentSteps, balancer: Any) -> tuple[Any, int]:
    parent = steps.identity()
    iterations = _hooking_loop(steps, parent, hook)
    steps.smallest_members(parent)
    return parent, iterations


# Shiloach–Vishkin, Dehne & Yogaratnam Algorithm 4 --------------------------------------------
def sv1a_short_cut(j, d, d_old):
    """SV1a: D(s)[j] = D(s-1)[D(s-1)[j]]."""
    d[j] = d_old[d_old[j]]


def sv1b_mark(j, d, d_old, q, s):
    """SV1b: a vertex whose parent changed marks its new parent's tree as active in round s."""
    p = d[j]
    if p != d_old[j]:
        atomic_store(q, p, s)  # every child of p writes the same s


def sv2_hook(e, d, d_old, q, src, dst, s, both_ways):
    """SV2: conditional hooking: a vertex whose parent is a root hooks that root onto a smaller
    parent across an edge (both orientations of an arc on a directed graph)."""
    a = src[e]
    b = dst[e]
    for _ in range(2 if both_ways else 1):
        # d is read while other edges hook (an arbitrary one wins): relaxed atomics
        pa = atomic_load(d, a)
        pb = atomic_load(d, b)
        if pa == d_old[a] and pb < pa:
            atomic_store(d, pa, pb)
            atomic_store(q, pb, s)
        a, b = b, a


def sv3_hook_stagnant(e, d, q, src, dst, s, both_ways):
    """SV3: a stagnant star (no change this round) hooks onto any neighbouring tree."""
    a = src[e]
    b = dst[e]
    for _ in range(2 if both_ways else 1):
        # d is read while other edges hook (an arbitrary one wins): relaxed atomics
        pa = atomic_load(d, a)
        pb = atomic_load(d, b)
        if q[pa] < s and pa == atomic_load(d, pa) and pa != pb:
            atomic_store(d, pa, pb)
        a, b = b, a


def sv4_short_cut(j, d):
    """SV4: short-cut again (others read d[j] meanwhile: relaxed atomics)."""
    atomic_store(d, j, atomic_load(d, d[j]))


def sv5_changed(j, q, s):
    """SV5: whether tree j changed in round s (summed: is there more work?)."""
    return q[j] == s


def _shiloach_vishkin(steps: _ComponentSteps, balancer: Any) -> tuple[Any, int]:
    g, tgt = steps.graph, steps.tgt
    n = g.num_vertices
    both_ways = g.directed
    d_old = steps.identity()  # SV0
    d = tgt.empty(n, np.int32)
    q = tgt.zeros(n, np.int32)
    s = 1
    while True:
        compute(g, "vertices", sv1a_short_cut, d, d_old, target=tgt)
        compute(g, "vertices", sv1b_mark, d, d_old, q, s, target=tgt)
        compute(g, "edges", sv2_hook, d, d_old, q, steps.src, steps.dst, s, both_ways,
                target=tgt)
        compute(g, "edges", sv3_hook_stagnant, d, q, steps.src, steps.dst, s, both_ways,
                target=tgt)
        compute(g, "vertices", sv4_short_cut, d, target=tgt)
        changed = reduce(g, "vertices", sv5_changed, q, s, target=tgt)
        steps.record(s, "SV1a-SV5", g.num_edges)
        if changed == 0:
            break
        d, d_old = d_old, d
        s += 1
    steps.smallest_members(d)
    return d, s


# Label propagation: push along out-edges, pull from out-neighbours --------------------------
def adopt_smaller(src, dst, eid, weight, labels):
    """Push: the head takes the tail's label if smaller; it joins the next frontier then."""
    new = labels[src]
    return atomic_min(labels, dst, new) > new


def adopt_smaller_once(src, dst, eid, weight, labels, stamp, r):
    """Push, in round ``r`` of a fused loop: the head takes the tail's label if smaller; the
    first edge of the round that lowers it puts it in the next frontier (once)."""
    new = labels[src]
    return atomic_min(labels, dst, new) > new and atomic_exch(stamp, dst, r) != r


def head_label(src, dst, eid, weight, labels):
    return labels[dst]


def adopt_pulled(v, labels, pulled):
    """Pull: take the smallest out-neighbour label if smaller; the vertex then propagates."""
    if pulled[v] < labels[v]:
        labels[v] = pulled[v]
        return True
    return False


def _push_round(front: Frontier, g: Graph, labels: Any, stamp: Any, balancer: Any) -> Frontier:
    return advance(g, front, adopt_smaller_once, labels, stamp, ROUND, balancer=balancer)


def _label_propagation(steps: _ComponentSteps, balancer: Any) -> tuple[Any, int]:
    g, tgt = steps.graph, steps.tgt
    labels = steps.identity()
    if g.num_vertices == 0:
        return labels, 0
    if not g.directed:  # every round one advance: all of them in one persistent kernel
        stamp = tgt.full(g.num_vertices, -1, np.int64)
        ran = loop(g, Frontier.all_vertices(g, kind="sparse", target=tgt), _push_round,
                   g, labels, stamp, balancer, fused=balancer.fuses_rounds())
        steps.record(ran.rounds, "push (fused loop)", g.num_vertices)
        return labels, ran.rounds
    frontier = Frontier.all_vertices(g, target=tgt)
    everyone = Frontier.all_vertices(g, target=tgt) if g.directed else None
    pulled = tgt.empty(g.num_vertices, np.int32) if g.directed else None
    rounds = 0
    active = g.num_vertices
    while active:
        rounds += 1
        lowered = advance(g, frontier, adopt_smaller, labels, balancer=balancer,
                          output="dense")
        if everyone is not None:
            neighbor_reduce(g, "vertices", head_label, labels, out=pulled, op="min",
                            edges="out")
            lowered = lowered.union(filter(g, everyone, adopt_pulled, labels, pulled))
        steps.record(rounds, "push" + (" and pull" if everyone is not None else ""), active)
        frontier = lowered
        active = len(frontier)
    return labels, rounds


# Afforest (Sutton et al.): neighbour sampling, skip the largest component ---------------------
@device_function
def link(comp, u, v):
    """GAP's Link of the trees of ``u`` and ``v``: hook the larger root onto the smaller with a
    compare-and-swap, retrying from the new roots when another link won."""
    p1 = comp[u]
    p2 = comp[v]
    while p1 != p2:
        high = max(p1, p2)
        low = min(p1, p2)
        p_high = comp[high]
        if p_high == low:
            break
        if p_high == high and atomic_cas(comp, high, high, low) == high:
            break
        p1 = comp[comp[high]]
        p2 = comp[low]


def link_neighbor(v, comp, offsets, col_indices, r):
    """Afforest's neighbour round ``r``: link ``v`` with its ``r``-th neighbour."""
    k = offsets[v] + r
    if k < offsets[v + 1]:
        link(comp, v, col_indices[k])


def link_later_edge(src, dst, eid, weight, comp, offsets, rounds):
    """Afforest's final phase, per edge of a vertex outside the largest component: link it
    unless the neighbour rounds already did."""
    if eid - offsets[src] >= rounds:
        link(comp, src, dst)
    return False


def link_edge(e, comp, src, dst):
    link(comp, src[e], dst[e])


def outside(v, comp, largest):
    return comp[v] != largest


def later_arc_touching_outside(e, comp, src, dst, offsets, largest, rounds):
    """A directed arc the neighbour rounds did not link, with an end outside the largest
    component."""
    u = src[e]
    return e - offsets[u] >= rounds and (comp[u] != largest or comp[dst[e]] != largest)


def gather(i, comp, picks, sampled):
    sampled[i] = comp[picks[i]]


def _most_frequent_label(steps: _ComponentSteps, comp: Any) -> int:
    """Sutton et al.'s sampling: the most frequent of 1,024 labels at random vertices (the same
    vertices every call: drawn once per graph and target, kept with the graph); on a graph of
    at most 1,024 vertices, of every vertex's label (one read of no more elements, and no
    launch)."""
    g, tgt = steps.graph, steps.tgt
    if g.num_vertices <= SAMPLES:
        return _most_frequent(tgt.to_host(comp), g.num_vertices)
    picks = g.memo(f"afforest.samples.{tgt.name}", lambda: tgt.to_device(
        np.random.default_rng(27491095).integers(0, g.num_vertices, SAMPLES, dtype=np.int32)))
    sampled = thread_buffer("afforest samples", tgt, SAMPLES, np.int32)[:SAMPLES]
    compute(g, SAMPLES, gather, comp, picks, sampled, target=tgt)
    return _most_frequent(tgt.to_host(sampled), g.num_vertices)


def _most_frequent(labels: np.ndarray, bound: int) -> int:
    """The most frequent of ``labels`` (vertex ids below ``bound``), the smallest of those
    tied: counted by ``np.bincount`` where ``bound`` is at most eight times the labels' count
    (its array of counts then costs less than sorting them), else by sorting them."""
    if labels.size and bound <= 8 * labels.size:
        return int(np.argmax(np.bincount(labels)))
    values, counts = np.unique(labels, return_counts=True)
    return int(values[np.argmax(counts)])


def _afforest(steps: _ComponentSteps, balancer: Any) -> tuple[Any, int]:
    g, tgt = steps.graph, steps.tgt
    comp = steps.identity()
    if g.num_vertices == 0 or g.num_edges == 0:
        return comp, 0
    for r in range(NEIGHBOR_ROUNDS):
        compute(g, "vertices", link_neighbor, comp, steps.offsets, steps.dst, r, target=tgt)
        steps.compress(comp)
        steps.record(r + 1, f"link neighbour {r}, compress", -1)
    largest = _most_frequent_label(steps, comp)
    if g.directed:
        arcs = filter(g, Frontier.all_edges(g, target=tgt), later_arc_touching_outside, comp,
                      steps.src, steps.dst, steps.offsets, largest, NEIGHBOR_ROUNDS)
        compute(g, arcs, link_edge, comp, steps.src, steps.dst)
    else:
        # the frontiers live in the thread's pooled buffers of the graph (none outlives the call)
        rest = filter(g, Frontier.all_vertices(g, target=tgt, shared=True), outside, comp,
                      largest)
        advance(g, rest, link_later_edge, comp, steps.offsets, NEIGHBOR_ROUNDS,
                balancer=balancer, output="none")
    steps.compress(comp, last=True)
    steps.record(NEIGHBOR_ROUNDS + 1, "skip the largest component, link the rest, compress",
                 -1)
    return comp, NEIGHBOR_ROUNDS + 1


_RUNNERS: dict[str, Callable[[_ComponentSteps, Any], tuple[Any, int]]] = {
    "afforest": _afforest, "soman": _soman, "shiloach_vishkin": _shiloach_vishkin,
    "label_propagation": _label_propagation}


# the public calls ---------------------------------------------------------------------------
def _check(graph: Graph, method: str | None = None, forest: bool = False) -> None:
    """The graph, and the method unless ``forest`` (spanning_forest takes none)."""
    validate.graph(graph)
    if (method is not None or not forest) and (not isinstance(method, str)
                                               or method not in values(ComponentsMethod)):
        raise ValueError(f"method={method!r}; expected one of {values(ComponentsMethod)}")


@scales_out("connected_components")
def connected_components(graph: Graph, *, method: str = DEFAULT_METHOD,
                         balancer: str | LoadBalancer = "auto",
                         target: str | Target | None = None, out: str = "host"
                         ) -> ComponentsResult:
    """The weak components of ``graph``: each vertex labelled by the smallest vertex id of its
    component (see the module docstring for the methods). ``balancer`` maps the ``advance``
    steps onto threads (label propagation, afforest's final phase on an undirected graph);
    the other steps run one thread per edge or vertex; ``target`` and ``out`` as
    :func:`algorithms.bfs`'s. The graph is not modified."""
    _check(graph, method)
    check_out(out)
    balancer = get_balancer(balancer)
    tgt = resolve_target(target, graph, deep=method == "label_propagation")
    policy = resolve_policy(balancer, graph, tgt)
    steps = _ComponentSteps(graph, tgt)
    labels, iterations = _RUNNERS[method](steps, policy)
    labels, count = _labels_and_count(graph, tgt, labels, out, steps.count)
    return ComponentsResult(labels, count, iterations, time.perf_counter() - steps.start, method,
                            graph, steps.stats, tgt)


def spanning_forest(graph: Graph, *, target: str | Target | None = None, out: str = "host"
                    ) -> SpanningForestResult:
    """A spanning forest of the weak components of ``graph`` (arcs taken as undirected): the
    edges that hooked a root in Soman et al.'s hooking loop (§3, §3.1), as ascending CSR edge
    ids, |V| - #components of them. ``target`` and ``out`` as :func:`algorithms.bfs`'s."""
    _check(graph, forest=True)
    check_out(out)
    tgt = resolve_target(target, graph, deep=False)
    steps = _ComponentSteps(graph, tgt)
    parent = steps.identity()
    hooked_by = tgt.full(graph.num_vertices, -1, np.int64)
    iterations = _hooking_loop(steps, parent, hook_once, hooked_by)
    steps.smallest_members(parent)
    labels, count = _labels_and_count(graph, tgt, parent, out)
    chosen = tgt.to_host(hooked_by)
    edges = np.sort(chosen[chosen >= 0]).astype(np.int64)
    return SpanningForestResult(edges if out == "host" else tgt.to_device(edges), labels, count,
                                iterations, time.perf_counter() - steps.start, graph,
                                steps.stats, tgt)


# the catalog entries ------------------------------------------------------------------------
def _cc_reference(graph: Graph, source: None) -> np.ndarray:
    return testing.reference_components(graph)


def _cc_check(graph: Graph, source: None, result: ComponentsResult) -> None:
    labels = on_host(result.labels)
    testing.check_components(graph, labels)
    first = np.unique(labels)
    if not np.array_equal(labels[first], first):
        raise AssertionError("labels are not each component's smallest vertex id")


def _cc_report(result: ComponentsResult) -> list[tuple[str, str]]:
    return [("components", f"{result.num_components:,}")]


def _forest_check(graph: Graph, source: None, result: SpanningForestResult) -> None:
    testing.check_spanning_forest(graph, on_host(result.edges))


def _forest_report(result: SpanningForestResult) -> list[tuple[str, str]]:
    return [("components", f"{result.num_components:,}"),
            ("forest", f"{len(result.edges):,} edges")]


ENTRIES = (
    Entry(name="cc", description="weakly connected components, each vertex labelled by its "
          "component's smallest vertex id", run=connected_components, reference=_cc_reference,
          check=_cc_check, checks="labels partition the vertices like scipy's weak components; "
          "each is the component's smallest id", report=_cc_report,
          options=(Option("method", ComponentsMethod, DEFAULT_METHOD, "the components method",
                          shown="{} method"),), source=False),
    Entry(name="forest", description="spanning forest of the weak components (Soman et al. "
          "hooking)", run=spanning_forest, reference=_cc_reference, check=_forest_check,
          checks="|V| - #components edges, acyclic, spanning every weak component",
          report=_forest_report, source=False, balanced=False),
)
