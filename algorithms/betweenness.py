"""Betweenness centrality by Brandes' algorithm, written with the operators (Brandes, *A Faster
Algorithm for Betweenness Centrality*, 2001; on GPUs level-synchronously as in Sariyüce et al.,
*Betweenness Centrality on GPUs and Heterogeneous Architectures*, 2013, and Gunrock's BC: Wang et
al., *Gunrock: GPU Graph Analytics*, §5.3).

For each source ``s``:

1. *forward*: a BFS from ``s`` (one fused :func:`operators.traverse`) whose functor claims each
   newly reached vertex with a compare-and-swap on its depth, as BFS does, and adds the tail's
   path count to the head's, ``sigma[v] += sigma[u]``, on every edge ``u -> v`` that joins
   consecutive levels: the number of shortest paths from ``s`` per vertex, level by level;
2. *backward*: from the deepest level up, the vertices of level ``d`` gather the dependency of
   their successors, ``delta[u] = sum sigma[u] / sigma[v] * (1 + delta[v])`` over the edges
   ``u -> v`` into level ``d + 1`` (one thread per vertex folding its out-edges in order, as
   :func:`operators.neighbor_reduce` does: no atomics). The whole sweep is one
   ``neighbor_reduce`` over :class:`operators.levels.Levels` from the level above the deepest
   up to level 1: the vertices grouped by depth on the target, then a level after the other
   in one launch (Ligra's and Gunrock's backward pass over the stored frontiers, without
   storing them);
3. a ``compute`` adds ``delta`` to the centrality of every vertex but ``s``; with
   ``edges=True`` a ``compute`` over the arcs adds to each arc ``u -> v`` joining consecutive
   levels its share of the paths, ``sigma[u] / sigma[v] * (1 + delta[v])`` (Brandes 2008, *On
   variants of shortest-path betweenness centrality*: edge betweenness).

Paths follow the stored arcs: a repeated arc is another path (NetworkX's graphs have no repeated
edges), a self-loop lies on no shortest path. Without rescaling the result sums over ordered
pairs ``(s, t)``, on undirected graphs too; ``normalized=False`` / ``True`` rescale as NetworkX
does (see :func:`betweenness_centrality`).

Path counts are float64, as in NetworkX: a graph with more than about 1.8e308 shortest paths
from one source (a chain of 1,024 diamonds has 2^1024) would make them ``inf`` and the
dependencies ``0`` or NaN, so the run raises :class:`PathCountOverflowError` (an
``OverflowError`` and a ``ValueError``) instead.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms.entry import Entry, testing
from algorithms.output import check_out, deliver, on_host
from frontier import (
    Frontier,
    Graph,
    atomic_add,
    atomic_cas,
    atomic_store,
    device_function,
    out_degree,
    validate,
)
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import (
    Levels,
    LoadBalancer,
    compute,
    get_balancer,
    neighbor_reduce,
    reduce,
    resolve_policy,
    traverse,
)

__all__ = ["betweenness_centrality", "BetweennessResult", "BetweennessSourceStats",
           "PathCountOverflowError", "ENTRIES"]


class PathCountOverflowError(OverflowError, ValueError):
    """The shortest paths from a source are too many for float64 path counts: an
    ``OverflowError`` and, since it is a limit of the input (the CLI exits 2 on it), a
    ``ValueError``."""


@dataclass(frozen=True)
class BetweennessSourceStats:
    """The pass of one source: the source, its BFS levels, the arcs its forward and backward
    sweeps inspected, and its host wall time."""

    source: int
    levels: int
    edges: int
    seconds: float


@dataclass(frozen=True)
class BetweennessResult:
    """``values`` (float64, one per vertex), the sources the paths start from, the BFS levels
    run over all sources, the edges they inspected (forward and backward), wall time, and
    per-source ``stats``, the ``target`` that ran it, and, where asked for (``edges=True``),
    ``edge_values`` (float64, one per arc). With ``out="device"`` ``values`` and
    ``edge_values`` stay on the target (:mod:`algorithms.output`)."""

    values: Any
    sources: np.ndarray
    iterations: int
    edges_traversed: int
    seconds: float
    graph: Graph = field(repr=False)
    stats: list[BetweennessSourceStats] = field(repr=False, default_factory=list)
    target: Target | None = field(repr=False, default=None)
    edge_values: Any = field(repr=False, default=None)


# functors ------------------------------------------------------------------------------------
def reset(v, depth, sigma, delta, source):
    """Before a source's pass: only the source is reached, at depth 0 by one path."""
    depth[v] = 0 if v == source else -1
    sigma[v] = 1.0 if v == source else 0.0
    delta[v] = 0.0


def at_depth_or_more(v, depth, d):
    return depth[v] >= d


def discover(src, dst, eid, weight, depth, sigma):
    """Claim ``dst`` for the next level if nobody has; count the paths through ``src`` into
    ``dst`` if ``dst`` is on that level (claimed now, by this edge or another)."""
    level = depth[src] + 1
    old = atomic_cas(depth, dst, -1, level)
    if old == -1 or old == level:
        atomic_add(sigma, dst, sigma[src])
    return old == -1


@device_function
def dependency(src, dst, eid, weight, depth, sigma, delta):
    """What edge ``src -> dst`` adds to ``delta[src]``: ``sigma[src] / sigma[dst] * (1 +
    delta[dst])`` if ``dst`` is on the next level, else 0."""
    if depth[dst] == depth[src] + 1:
        return sigma[src] / sigma[dst] * (1.0 + delta[dst])
    return 0.0


def accumulate(v, values, delta, depth, source, endpoints, reached, sigma, overflow):
    if not math.isfinite(sigma[v]):
        atomic_store(overflow, 0, 1)  # every vertex that overflowed writes the same flag
    if v == source:
        if endpoints:
            values[v] += reached - 1
    elif depth[v] > 0:
        values[v] += delta[v] + 1.0 if endpoints else delta[v]


def edge_share(e, tails, heads, depth, sigma, delta, edge_values):
    """Add to arc ``e = u -> v`` the dependency it carries from this source (0 unless ``v`` is
    on the level after ``u``'s)."""
    u = tails[e]
    if depth[u] >= 0:
        edge_values[e] += dependency(u, heads[e], e, 0.0, depth, sigma, delta)


def scale(v, values, factors):
    values[v] *= factors[v]


def scale_by(i, values, factor):
    values[i] *= factor


def reached_arcs(v, depth, graph):
    return out_degree(graph, v) if depth[v] >= 0 else 0


# the algorithm -------------------------------------------------------------------------------
def betweenness_centrality(graph: Graph, sources: int | Iterable[int] | None = None, *,
                           normalized: bool | None = None, endpoints: bool = False,
                           edges: bool = False, balancer: str | LoadBalancer = "auto",
                           target: str | Target | None = None, out: str = "host"
                           ) -> BetweennessResult:
    """Betweenness centrality: for every vertex ``v``, the sum over pairs ``(s, t)``, ``s`` in
    ``sources`` (default: every vertex; one vertex id or several distinct ones), of the share of
    the shortest ``s``-``t`` paths that pass through ``v`` (``endpoints=True`` also counts the
    paths' ends, as NetworkX's option does).

    ``normalized=None`` (the default) returns these sums as they are, over ordered pairs on
    directed and undirected graphs alike (Brandes' output; on an undirected graph twice NetworkX's
    ``normalized=False``). ``normalized=False`` and ``True`` rescale as NetworkX's
    ``betweenness_centrality`` does, with ``sources`` as its sampled sources ``k``: ``False``
    halves undirected graphs' values (each unordered pair once) and scales a sample up to the
    whole graph, so it needs at least one source; ``True`` divides by the number of pairs.
    ``normalized`` and ``endpoints`` are bools (``normalized`` also None).

    ``edges=True`` also sums, for every arc, the share of the same shortest paths through it
    (``edge_values``, one per arc; the value of an undirected graph's edge is the sum of its
    two arcs'), rescaled where ``normalized`` is not None as NetworkX's
    ``edge_betweenness_centrality`` rescales (its rule with the paths' ends counted, whatever
    ``endpoints`` says). ``balancer`` maps
    the forward BFS's advances onto threads. ``OverflowError`` when the shortest paths from a
    source are too many for float64 (see the module docstring). ``target`` and ``out`` as
    :func:`algorithms.bfs`'s.
    """
    chosen = _sources(graph, sources)
    check_out(out)
    normalized = validate.flag("normalized", normalized, none=True)
    endpoints = validate.flag("endpoints", endpoints)
    edges = validate.flag("edges", edges)
    if normalized is not None and sources is not None and chosen.size == 0:
        raise ValueError(f"sources=[] with normalized={normalized}: rescaling estimates the "
                         "whole graph from the sampled sources, which needs at least one; pass "
                         "sources, or normalized=None for the (zero) sums")
    balancer = get_balancer(balancer)
    n = graph.num_vertices
    tgt = resolve_target(target, graph)
    policy = resolve_policy(balancer, graph, tgt)
    values = tgt.zeros(n, np.float64)
    depth = tgt.full(n, -1, np.int32)
    sigma, delta = tgt.zeros(n, np.float64), tgt.zeros(n, np.float64)
    overflow = tgt.zeros(1, np.int32)
    edge_values = tgt.zeros(graph.num_edges, np.float64) if edges else None
    if edges:
        tails, heads = tgt.to_device(graph.coo().src), tgt.to_device(graph.col_indices)
    levels = inspected = 0
    stats: list[BetweennessSourceStats] = []
    began = time.perf_counter()
    if n:
        for s in chosen.tolist():
            passed = time.perf_counter()
            compute(graph, "vertices", reset, depth, sigma, delta, s, target=tgt)
            # the traversal runs on the thread's pooled buffers of the graph, from the source
            start = Frontier.from_vertices(graph, [s], target=tgt, shared=True)
            run = traverse(graph, start, discover, depth, sigma, balancer=policy)
            top = run.steps - 2  # the level above the deepest (whose delta stays 0)
            if top > 0:
                neighbor_reduce(graph, Levels(depth, top, 1), dependency, depth, sigma, delta,
                                out=delta, edges="out")
            arcs = reduce(graph, "vertices", reached_arcs, depth, target=tgt)
            reached = reduce(graph, "vertices", at_depth_or_more, depth, 0, op="count",
                             target=tgt) if endpoints else 0
            compute(graph, "vertices", accumulate, values, delta, depth, s, endpoints, reached,
                    sigma, overflow, target=tgt)
            if edges:
                compute(graph, "edges", edge_share, tails, heads, depth, sigma, delta,
                        edge_values, target=tgt)
            levels += run.steps
            inspected += 2 * arcs
            stats.append(BetweennessSourceStats(s, run.steps, 2 * arcs,
                                                time.perf_counter() - passed))
    if tgt.read_scalar(overflow, 0):
        raise PathCountOverflowError(
            "betweenness_centrality: a source has more shortest paths to some vertex than "
            "float64 can count (about 1.8e308), so the path counts became inf; no exact result "
            "is possible in float64")
    if normalized is not None:
        factors = _rescale(n, graph.directed, normalized, endpoints,
                           None if sources is None else chosen)
        if factors is not None:
            compute(graph, "vertices", scale, values, tgt.to_device(factors), target=tgt)
        edge_factors = _rescale(n, graph.directed, normalized, True,
                                None if sources is None else chosen) if edges else None
        if edge_factors is not None and graph.num_edges:
            compute(graph, "edges", scale_by, edge_values, float(edge_factors[0]), target=tgt)
    if edges:
        edge_values = deliver(tgt, edge_values, out, made=True)
    return BetweennessResult(deliver(tgt, values, out, made=True), chosen, levels, inspected,
                             time.perf_counter() - began, graph, stats, tgt, edge_values)


def _sources(graph: Graph, sources: int | Iterable[int] | None) -> np.ndarray:
    """The sources, checked (the graph first): every vertex when None, else distinct ids."""
    if sources is None:
        return np.arange(validate.graph(graph).num_vertices, dtype=np.int64)
    chosen = validate.sources(graph, sources)
    if np.unique(chosen).size != chosen.size:
        raise ValueError("sources repeat a vertex; expected distinct vertex ids")
    return chosen


def _rescale(n: int, directed: bool, normalized: bool, endpoints: bool,
             sampled: np.ndarray | None) -> np.ndarray | None:
    """The factor of each vertex's value in NetworkX's rescaling
    (``networkx.algorithms.centrality.betweenness._rescale``, 3.5+; ``sampled`` sources
    estimate the whole graph's values); None: the values stay as they are."""
    pairs = n if endpoints else n - 1  # the vertices t that a path through v may end at
    if pairs < 2:
        return None
    k = pairs if sampled is None else len(sampled)
    if sampled is None or endpoints:
        return np.full(n, 1 / (k * (pairs - 1)) if normalized
                       else pairs / (k * (1 if directed else 2)))
    if normalized:
        at_source = 1 / ((k - 1) * (pairs - 1)) if k > 1 else np.nan
        elsewhere = 1 / (k * (pairs - 1))
    else:
        correction = 1 if directed else 2
        at_source = pairs / ((k - 1) * correction) if k > 1 else np.nan
        elsewhere = pairs / (k * correction)
    factors = np.full(n, elsewhere)
    factors[sampled] = at_source
    return factors


# the catalog entry --------------------------------------------------------------------------
def _reference(graph: Graph, source: int) -> np.ndarray:
    return testing.reference_betweenness(graph, [source])


def _check(graph: Graph, source: int, result: BetweennessResult) -> None:
    testing.check_betweenness(graph, on_host(result.values), [source])


def _report(result: BetweennessResult) -> list[tuple[str, str]]:
    top = int(np.argmax(result.values)) if result.values.size else -1
    return [("top vertex", f"{top} ({result.values[top]:.4g})" if top >= 0 else "-")]


ENTRIES = (
    Entry(name="bc", description="betweenness centrality: the dependencies of one source "
          "(Brandes)", run=betweenness_centrality, reference=_reference, check=_check,
          checks="dependencies equal a scipy/NumPy Brandes pass", report=_report),
)
