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

The sources run in batches (:mod:`operators.sources`): the passes of a batch are one pass over
its copies of the graph, a row of ``depth``, ``sigma`` and ``delta`` per source, and the last
``compute`` adds the rows up vertex by vertex in source order, so the values are bit for bit
those of one source at a time. A batch of one source (a graph too large for two copies) runs
the pass as it is, its statistics from two reductions.

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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from algorithms.entry import Entry, testing
from algorithms.output import check_out, deliver, on_host
from frontier import (
    Frontier,
    Graph,
    atomic_add,
    atomic_cas,
    atomic_max,
    atomic_store,
    device_function,
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
    traverse,
)
from operators.sources import Batch, batches, sources_per_batch

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
    run over all sources, the edges they inspected (forward and backward), wall time, the
    ``passes`` (per batch of sources: their ids, the deepest level each reached, the arcs
    leaving each one's reached vertices, and the batch's host time per source), made into
    per-source ``stats`` on first use, the ``target`` that ran it, and, where asked for
    (``edges=True``), ``edge_values`` (float64, one per arc). With ``out="device"`` ``values``
    and ``edge_values`` stay on the target (:mod:`algorithms.output`)."""

    values: Any
    sources: np.ndarray
    iterations: int
    edges_traversed: int
    seconds: float
    graph: Graph = field(repr=False)
    passes: Sequence[tuple[np.ndarray, list[int], list[int], float]] = field(repr=False,
                                                                               default=())
    target: Target | None = field(repr=False, default=None)
    edge_values: Any = field(repr=False, default=None)

    @cached_property
    def stats(self) -> list[BetweennessSourceStats]:
        """Per source, in order: its BFS levels, the arcs its forward and backward sweeps
        inspected, and its share of its batch's host time."""
        return [BetweennessSourceStats(s, d + 1, 2 * a, seconds)
                for sources, deepest, arcs, seconds in self.passes
                for s, d, a in zip(sources.tolist(), deepest, arcs, strict=True)]


# functors ------------------------------------------------------------------------------------
def start_at(c, source, depth, sigma, delta):
    """Before a pass, vertex ``c``: only the ``source`` is reached, at depth 0 by one path."""
    depth[c] = 0 if c == source else -1
    sigma[c] = 1.0 if c == source else 0.0
    delta[c] = 0.0


device_function(start_at, inline=True)  # in its callers' loops: no call per vertex


def reset(v, depth, sigma, delta, source):
    start_at(v, source, depth, sigma, delta)


def reset_rows(v, depth, sigma, delta, counts, starts, n, rows):
    """Before a batch's pass, vertex ``v`` of every row (one source each, ``starts[row]`` in
    its copy); the rows' tallies (:func:`tally_vertex`) start from 0."""
    for row in range(rows):
        start_at(row * n + v, starts[row], depth, sigma, delta)
        if v == 0:
            counts[row] = 0
            counts[rows + row] = 0
            counts[2 * rows + row] = 0


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


def tally_vertex(c, row, depth, counts, rows, offsets):
    """Vertex ``c`` of ``row``, if reached, in the row's tallies: the deepest level
    (``counts[row]``), the arcs leaving the reached vertices (``counts[rows + row]``, by the
    row offsets of the copies) and how many they are (``counts[2 * rows + row]``)."""
    if depth[c] >= 0:
        atomic_max(counts, row, depth[c])
        atomic_add(counts, rows + row, offsets[c + 1] - offsets[c])
        atomic_add(counts, 2 * rows + row, 1)


device_function(tally_vertex, inline=True)  # in its callers' loops: no call per vertex


def tally(c, depth, counts, n, rows, offsets):
    tally_vertex(c, c // n, depth, counts, rows, offsets)


def reached_arcs(v, depth, offsets):
    return offsets[v + 1] - offsets[v] if depth[v] >= 0 else 0


def at_depth_or_more(v, depth, d):
    return depth[v] >= d


def add_dependency(v, c, source, values, delta, depth, endpoints, reached, sigma, overflow):
    """Adds the dependency of ``v`` on ``source`` (``c``: ``v`` in the source's row) to its
    centrality, and with ``endpoints`` the paths ending there (``reached - 1`` at the source);
    flags a path count that overflowed."""
    if not math.isfinite(sigma[c]):
        atomic_store(overflow, 0, 1)  # every vertex that overflowed writes the same flag
    if c == source:
        if endpoints:
            values[v] += reached - 1
    elif depth[c] > 0:
        values[v] += delta[c] + 1.0 if endpoints else delta[c]


device_function(add_dependency, inline=True)  # in its callers' loops: no call per vertex


def accumulate(v, values, delta, depth, source, endpoints, reached, sigma, overflow):
    add_dependency(v, v, source, values, delta, depth, endpoints, reached, sigma, overflow)


def accumulate_rows(v, values, delta, depth, starts, n, rows, endpoints, counts, sigma,
                    overflow, offsets, tallies):
    """:func:`add_dependency` of every row, row after row (in the order of the sources), the
    paths ending at a source ``counts[2 * rows + row]``; with ``tallies``, also tallies each
    row's copy of ``v`` (:func:`tally_vertex`)."""
    for row in range(rows):
        c = row * n + v
        if tallies:
            tally_vertex(c, row, depth, counts, rows, offsets)
        add_dependency(v, c, starts[row], values, delta, depth, endpoints,
                       counts[2 * rows + row], sigma, overflow)


def edge_share(e, tails, heads, depth, sigma, delta, edge_values, n, rows):
    """Add to arc ``e = u -> v`` the dependency it carries from each row's source, row after
    row (in the order of the sources; 0 where ``v`` is not on the level after ``u``'s)."""
    for row in range(rows):
        u = row * n + tails[e]
        if depth[u] >= 0:
            edge_values[e] += dependency(u, row * n + heads[e], e, 0.0, depth, sigma, delta)


def scale(v, values, factors):
    values[v] *= factors[v]


def scale_by(i, values, factor):
    values[i] *= factor


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
    values = tgt.zeros(n, np.float64)
    overflow = tgt.zeros(1, np.int32)
    edge_values = tgt.zeros(graph.num_edges, np.float64) if edges else None
    if edges:
        tails = graph.device_edge_sources(tgt)  # kept with the graph: no upload per call
        heads = graph.device_arrays(tgt).col_indices
    levels = inspected = 0
    records: list[tuple[np.ndarray, list[int], list[int], float]] = []
    began = time.perf_counter()
    if n and chosen.size:
        rows = min(chosen.size, sources_per_batch(graph, target=tgt))
        passes = _Passes(tgt.empty(rows * n, np.int32), tgt.empty(rows * n, np.float64),
                         tgt.empty(rows * n, np.float64), tgt.empty(3 * rows, np.int64),
                         values, overflow, endpoints,
                         (tails, heads, edge_values) if edges else None)
        for batch in batches(graph, chosen, target=tgt):
            passed = time.perf_counter()
            deepest, arcs = _batch(batch, balancer, tgt, passes)
            records.append((batch.sources, deepest, arcs,
                            (time.perf_counter() - passed) / batch.size))
            levels += sum(deepest) + batch.size  # each source's levels: its deepest, plus one
            inspected += 2 * sum(arcs)  # forward and backward
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
                             time.perf_counter() - began, graph, records, tgt, edge_values)


class _Passes(NamedTuple):
    """What the batches of one call share: the state of a batch's rows (``depth``, ``sigma``,
    ``delta``: room for the largest batch, a row of |V| entries per source), the rows' tallies
    (``counts``), and the call's ``values``, ``overflow`` flag and ``endpoints`` option; with
    ``edges=True`` the arcs' tails, heads and values (else None)."""

    depth: Any
    sigma: Any
    delta: Any
    counts: Any
    values: Any
    overflow: Any
    endpoints: bool
    arcs: tuple[Any, Any, Any] | None


def _batch(batch: Batch, balancer: LoadBalancer, tgt: Target, passes: _Passes
           ) -> tuple[list[int], list[int]]:
    """Brandes' passes of a batch of sources, one row each, as one pass over the batch's
    copies of the graph (:mod:`operators.sources`): its values added to ``passes.values``.
    Returns, per source, the deepest level it reached and the arcs leaving its reached
    vertices."""
    g, n, rows = batch.graph, batch.row, batch.size
    cells = rows * n
    depth, sigma, delta = passes.depth[:cells], passes.sigma[:cells], passes.delta[:cells]
    offsets = g.device_arrays(tgt).row_offsets
    if rows == 1:  # one source: Brandes' pass as it is, its tallies by reductions
        source = int(batch.sources[0])
        compute(g, "vertices", reset, depth, sigma, delta, source, target=tgt)
        steps = _forward_and_back(batch, balancer, tgt, depth, sigma, delta)
        arcs = reduce(g, "vertices", reached_arcs, depth, offsets, target=tgt)
        reached = reduce(g, "vertices", at_depth_or_more, depth, 0, op="count",
                         target=tgt) if passes.endpoints else 0
        compute(g, "vertices", accumulate, passes.values, delta, depth, source,
                passes.endpoints, reached, sigma, passes.overflow, target=tgt)
        _edge_shares(batch, tgt, passes, depth, sigma, delta)
        return [steps - 1], [arcs]
    counts = passes.counts[:3 * rows]
    starts = tgt.to_device(batch.starts)
    compute(g, n, reset_rows, depth, sigma, delta, counts, starts, n, rows, target=tgt)
    _forward_and_back(batch, balancer, tgt, depth, sigma, delta)
    if passes.endpoints:  # the paths ending at a source are its row's reached vertices
        compute(g, "vertices", tally, depth, counts, n, rows, offsets, target=tgt)
    compute(g, n, accumulate_rows, passes.values, delta, depth, starts, n, rows,
            passes.endpoints, counts, sigma, passes.overflow, offsets, not passes.endpoints,
            target=tgt)
    _edge_shares(batch, tgt, passes, depth, sigma, delta)
    held = tgt.to_host(counts).tolist()
    return held[:rows], held[rows:2 * rows]


def _edge_shares(batch: Batch, tgt: Target, passes: _Passes, depth: Any, sigma: Any,
                 delta: Any) -> None:
    """With ``edges=True``: each arc's share of the batch's paths, added row by row."""
    if passes.arcs is not None:
        tails, heads, edge_values = passes.arcs
        compute(batch.graph, tails.shape[0], edge_share, tails, heads, depth, sigma, delta,
                edge_values, batch.row, batch.size, target=tgt)


def _forward_and_back(batch: Batch, balancer: LoadBalancer, tgt: Target, depth: Any,
                      sigma: Any, delta: Any) -> int:
    """The batch's forward BFS (on the thread's pooled buffers of its copies, from their
    sources) and backward sweep; returns the traversal's steps (the deepest level, plus
    one)."""
    g = batch.graph
    start = Frontier.from_vertices(g, batch.starts, target=tgt, shared=True)
    run = traverse(g, start, discover, depth, sigma, balancer=batch.policy(balancer, tgt))
    top = run.steps - 2  # the level above the deepest (whose delta stays 0)
    if top > 0:
        neighbor_reduce(g, Levels(depth, top, 1), dependency, depth, sigma, delta, out=delta,
                        edges="out")
    return run.steps


def _sources(graph: Graph, sources: int | Iterable[int] | None) -> np.ndarray:
    """The sources, checked (the graph first): every vertex when None, else distinct ids."""
    if sources is None:
        return np.arange(validate.graph(graph).num_vertices, dtype=np.int64)
    chosen = validate.sources(graph, sources)
    if chosen.size > 1 and np.unique(chosen).size != chosen.size:  # one source: no repeat
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
