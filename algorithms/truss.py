"""The k-truss by peeling, written with the operators (Cohen, *Trusses: Cohesive Subgraphs for
Social Network Analysis*, 2008, §2: the edges of support below ``k - 2`` go, the supports of the
edges they shared triangles with drop, until none goes; level-synchronous, as the GPU and
multicore trusses peel, e.g. Kabir & Madduri, *Shared-Memory Graph Truss Decomposition*, HiPC
2017).

The k-truss of an undirected graph is its largest subgraph in which every edge lies in at least
``k - 2`` triangles of the subgraph (NetworkX's ``k_truss``, Cohen's definition: ``k <= 2``
keeps every edge). An edge's *support* is the number of triangles on it:

1. ``advance`` over every edge, once per edge (``u < v``, spread over threads by the load
   balancer): its support is :func:`frontier.intersection_count` of its ends' rows, kept by
   undirected edge id (:meth:`frontier.Graph.edge_ids`), so both arcs of an edge read one
   value;
2. a round: ``filter`` over the edges still in (an edge frontier of their arcs ``u -> v``,
   ``u < v``) takes those of support below ``k - 2``, marked with the round; ``reduce`` sums
   their common neighbours (none: nothing changes any more, the loop ends);
3. ``compute`` over the taken edges: each lists its common neighbours ``w`` with the arcs
   ``u -> w`` and ``v -> w`` (:func:`frontier.common_neighbors`, into slots of a round buffer
   claimed with ``atomic_add``); each triangle still whole at the round's start loses the
   taken edge, and its other edges that stay lose one support (``atomic_add``). A triangle
   that loses two or three edges in one round is handled once, by the one of lowest edge id;
4. ``filter`` keeps the edges still in for the next round.

Each edge is intersected twice at most (its support, and its triangles when it goes); a round
reads the edges still in. The graph must be undirected (NetworkX refuses directed graphs and
multigraphs too) and without self-loops (NetworkX raises on them; so does :func:`k_truss`);
repeated edges count once (the truss of the simple graph, ``networkx.Graph(multigraph)``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms.entry import Entry, Option, testing
from algorithms.kcore import check_loopless, check_undirected
from algorithms.output import check_out, on_host
from frontier import (
    Frontier,
    Graph,
    atomic_add,
    common_neighbors,
    intersection_count,
    validate,
)
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import (  # noqa: A004
    LoadBalancer,
    advance,
    compute,
    filter,
    get_balancer,
    reduce,
    resolve_policy,
)

__all__ = ["k_truss", "KTrussResult", "KTrussRoundStats", "ENTRIES"]

#: The round of an edge still in the truss: later than any round.
_IN = np.iinfo(np.int32).max
#: The catalog entry's ``k`` unless ``--k`` says otherwise.
DEFAULT_K = 5


@dataclass(frozen=True)
class KTrussRoundStats:
    """One peeling round: the edges it took out, the common neighbours they listed, and its
    host wall time."""

    peeled: int
    listed: int
    seconds: float


@dataclass(frozen=True)
class KTrussResult:
    """``edges``: the k-truss's edges as ``(u, v)`` pairs, ``u < v``, ascending (int32, shape
    (t, 2); made on the host, the one read back of the call, and copied to the target with
    ``out="device"``); ``k``; the rounds run (``iterations``); wall time; the simple graph
    peeled (``graph``); per-round ``stats``; the ``target`` that ran it."""

    edges: Any
    k: int
    iterations: int
    seconds: float
    graph: Graph = field(repr=False)
    stats: list[KTrussRoundStats] = field(repr=False, default_factory=list)
    target: Target | None = field(repr=False, default=None)

    @property
    def num_edges(self) -> int:
        """The edges of the truss."""
        return len(self.edges)

    @property
    def edges_traversed(self) -> int:
        """Every arc once (the support count; an edge with ``u > v`` only tests its order)."""
        return self.graph.num_edges


# functors ------------------------------------------------------------------------------------
def count_support(src, dst, eid, weight, ids, common, support, graph):
    """The triangles on the edge ``{src, dst}`` (seen from its smaller end)."""
    if src < dst:
        c = intersection_count(graph, src, dst)
        common[ids[eid]] = c
        support[ids[eid]] = c
    return False


def lower(a, tails, heads):
    """The arc ``u -> v`` with ``u < v``: one per edge."""
    return tails[a] < heads[a]


def too_weak(a, ids, support, peeled_in, floor, r):
    """Take the edge out in round ``r`` if its support is below ``k - 2``."""
    e = ids[a]
    if support[e] < floor:
        peeled_in[e] = r
        return True
    return False


def to_list(a, ids, common):
    return common[ids[a]]


def break_triangles(a, tails, heads, ids, common, peeled_in, support, cursor, ws, arcs_u,
                    arcs_v, r, graph):
    """The edge of arc ``a`` goes in round ``r``: every triangle on it still whole at the
    round's start loses one support on each of its edges that stays; a triangle losing more
    edges this round is handled by the one of lowest id."""
    e = ids[a]
    c = common[e]
    at = atomic_add(cursor, 0, c)
    common_neighbors(graph, tails[a], heads[a], ws[at:at + c], arcs_u[at:at + c],
                     arcs_v[at:at + c])
    for i in range(at, at + c):
        f = ids[arcs_u[i]]
        g = ids[arcs_v[i]]
        went_f = peeled_in[f]
        went_g = peeled_in[g]
        if went_f < r or went_g < r:  # an earlier round broke it
            continue
        if (went_f == r and f < e) or (went_g == r and g < e):  # a lower edge breaks it
            continue
        if went_f > r:
            atomic_add(support, f, -1)
        if went_g > r:
            atomic_add(support, g, -1)


def stays(a, ids, peeled_in, r):
    return peeled_in[ids[a]] > r


# the algorithm -------------------------------------------------------------------------------
def k_truss(graph: Graph, k: int, *, balancer: str | LoadBalancer = "auto",
            target: str | Target | None = None, out: str = "host") -> KTrussResult:
    """The k-truss of an undirected graph without self-loops (see the module docstring):
    ``k`` an integer (``k <= 2`` keeps every edge); repeated edges count once. ``balancer``
    spreads the support count's edges over threads; ``target`` and ``out`` as
    :func:`algorithms.bfs`'s."""
    check_undirected(graph, "k_truss")
    check_loopless(graph, "k_truss", "a k-truss counts the triangles of a simple graph")
    if not validate.integer(k):
        raise TypeError(f"k={k!r}; expected an integer (the k of the k-truss)")
    check_out(out)
    simple = graph.simple()  # the graph itself where it has no repeated edges
    tgt = resolve_target(target, simple, deep=False)
    policy = resolve_policy(get_balancer(balancer), simple, tgt)
    floor = int(min(max(k - 2, 0), _IN))
    began = time.perf_counter()
    rounds: list[tuple[int, float]] = []
    peeled_in = np.zeros(0, np.int32)
    if simple.num_edges:
        peeled_in, rounds = _peel(simple, tgt, policy, floor)
    return _result(simple, tgt, int(k), peeled_in, rounds, out, began)


def _peel(graph: Graph, tgt: Target, policy: Any, floor: int
          ) -> tuple[np.ndarray, list[tuple[int, float]]]:
    """The peeling rounds: each edge's round out (``_IN`` for the truss's), on the host, and
    each round's listed common neighbours and seconds."""
    ids = graph.edge_ids(tgt)
    tails, heads = graph.device_edge_sources(tgt), graph.device_arrays(tgt).col_indices
    edges = graph.num_edges // 2
    common, support = tgt.empty(edges, np.int32), tgt.empty(edges, np.int32)
    peeled_in, cursor = tgt.full(edges, _IN, np.int32), tgt.zeros(1, np.int64)
    bufs = [tgt.empty(1, np.int32) for _ in range(3)]
    advance(graph, Frontier.all_vertices(graph, target=tgt), count_support, ids, common,
            support, balancer=policy, output="none")
    alive = filter(graph, Frontier.all_edges(graph, kind="sparse", target=tgt), lower, tails,
                   heads)
    rounds: list[tuple[int, float]] = []
    while True:
        started, r = time.perf_counter(), len(rounds)
        peeled = filter(graph, alive, too_weak, ids, support, peeled_in, floor, r)
        listed = reduce(graph, peeled, to_list, ids, common)
        if listed:
            if listed > bufs[0].shape[0]:
                bufs = [tgt.empty(max(listed, 2 * bufs[0].shape[0]), np.int32)
                        for _ in range(3)]
            tgt.write_scalar(cursor, 0, 0)
            compute(graph, peeled, break_triangles, tails, heads, ids, common, peeled_in,
                    support, cursor, *bufs, r)
            alive = filter(graph, alive, stays, ids, peeled_in, r)
        rounds.append((listed, time.perf_counter() - started))
        if not listed:
            return tgt.to_host(peeled_in), rounds


def _result(graph: Graph, tgt: Target, k: int, peeled_in: np.ndarray,
            rounds: list[tuple[int, float]], out: str, began: float) -> KTrussResult:
    """The truss's edges from each edge's round out, the rounds' stats."""
    src, dst = graph.coo().src, graph.col_indices
    arcs = np.flatnonzero(src < dst)
    kept = arcs[peeled_in[graph.edge_ids()[arcs]] == _IN]
    pairs = np.stack([src[kept], dst[kept]], axis=1).astype(np.int32)
    pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    counts = np.bincount(peeled_in[peeled_in != _IN], minlength=len(rounds))
    stats = [KTrussRoundStats(int(counts[r]), listed, seconds)
             for r, (listed, seconds) in enumerate(rounds)]
    return KTrussResult(pairs if out == "host" else tgt.to_device(pairs), k, len(rounds),
                        time.perf_counter() - began, graph, stats, tgt)


# the catalog entry: the k-truss of any graph's undirected simple graph -----------------------
def _run(graph: Graph, *, k: int | str = DEFAULT_K, **options: Any) -> KTrussResult:
    return k_truss(validate.graph(graph).simple(directed=False), int(k), **options)


def _reference(graph: Graph, source: None) -> np.ndarray:
    return testing.reference_k_truss(graph.simple(directed=False), DEFAULT_K)


def _check(graph: Graph, source: None, result: KTrussResult) -> None:
    testing.check_k_truss(graph.simple(directed=False), result.k, on_host(result.edges))


def _report(result: KTrussResult) -> list[tuple[str, str]]:
    return [("truss", f"{result.num_edges:,} edges (k={result.k}) of "
                      f"{result.graph.num_edges // 2:,}")]


ENTRIES = (
    Entry(name="ktruss", description="the k-truss of the undirected simple graph underlying "
          "GRAPH (every edge in k - 2 triangles of it), by peeling", run=_run,
          reference=_reference, check=_check,
          checks="the edges equal a sequential peeling's (Cohen's k-truss, NetworkX's k)",
          report=_report, source=False,
          options=(Option("k", tuple(str(k) for k in range(3, 9)), str(DEFAULT_K),
                          "the k of the k-truss: each edge in at least k - 2 triangles",
                          shown="k={}"),)),
)
