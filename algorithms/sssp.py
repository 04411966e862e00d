"""Single-source shortest paths written with the operators: five methods from the GPU
literature side by side, each a short host loop of operator calls.

* ``"bellman_ford"`` — frontier Bellman–Ford (H-BF; Busato & Bombieri, *Graph Algorithms on
  GPUs*, §3.2, Algorithm 5): each step relaxes the out-edges of the frontier with an atomic min,
  and only the vertices whose distance dropped enter the next frontier, each once (duplicate
  culling, :mod:`operators.cull`). One ``traverse``, fused into one persistent kernel where the
  balancer allows. Negative weights are fine; after |V| steps a non-empty frontier proves a
  negative cycle reachable from the source (:class:`frontier.NegativeCycleError`).
* ``"harish"`` — Harish & Narayanan, *Accelerating Large Graph Algorithms on the GPU Using
  CUDA*, §3.3, Algorithms 4–5: a mask (a bitmap frontier), the cost array and an *updating
  cost* array; kernel 1 relaxes the masked vertices' edges into the updating costs, kernel 2
  copies lowered updating costs into the costs and sets the mask for the next step. Two kernels
  (an ``advance`` and a ``filter``) and one host read per step; the steps are synchronous
  Bellman–Ford rounds, so negative weights and cycles are handled as above. Kernel 2 runs over
  the vertices kernel 1 lowered (the advance's bitmap) instead of all vertices: elsewhere the
  updating cost already equals the cost.
* ``"ordered"`` — Li & Becchi, *Deploying Graph Algorithms on GPUs: an Adaptive Solution*,
  §IV.A and §V.B: Dijkstra's order, in parallel where it allows. The working set is every
  reached, unsettled vertex (their bitmap working set, kept implicitly in the distances); each
  step finds its minimum tentative distance with a device reduction (``reduce``, their
  *findmin*), settles every vertex at that distance (``filter``) and relaxes their edges
  (``advance``). As many steps as distinct distances: work-efficient, little parallelism.
* ``"delta_stepping"`` — Meyer & Sanders' Δ-stepping as Davidson et al. (IPDPS 2014) bucket it
  on the GPU (Busato & Bombieri, §3.1): vertices are processed by buckets of width Δ of their
  tentative distance; within a bucket, light edges (weight < Δ) are relaxed until the bucket
  holds no more improved vertices (one fused ``traverse``), then the bucket's heavy edges once.
* ``"near_far"`` — Davidson et al.'s Near–Far pile: a threshold splits improved vertices into
  the near pile (below it, expanded at once by the fused ``traverse``) and the far pile (at or
  above it); when the near pile is empty the threshold moves up by Δ past the nearest far
  vertex and the far vertices below it become the near pile.

The last three cannot take negative weights (a settled vertex could still improve) and raise
``ValueError`` on them before any work. The piles and buckets are the distances themselves:
a vertex is in the far pile (a later bucket) when its tentative distance is at or above the
threshold and it has not been expanded at that distance. Each new near pile (bucket) is one
``filter`` over every vertex (Li & Becchi's working-set generation over a bitmap of all
vertices), moved into the traversal's frontier pool with ``union``.

``method="auto"`` (the default) runs near–far on graphs whose non-negative weights are not all
equal and Bellman–Ford otherwise (:func:`choose_method`; docs/algorithms.md has the measurements).

Δ defaults to Davidson et al.'s heuristic Δ = c·w̄/d̄ (Busato & Bombieri, §3.1): c = 32, the warp
width, w̄ the mean edge weight (1 unweighted), d̄ the mean out-degree; ``delta=`` overrides it.

Distances: integer weights (or none: weight 1) are summed exactly in int64 while every simple
path fits (|V| · max weight < 2^62), then returned as float64; other graphs sum in float64. The
predecessors come from the final distances (:mod:`algorithms.tree`): a valid shortest-path tree
in which every tree edge is tight. A float64 sum can overflow: weights whose simple paths could
sum past float64's largest value (largest |weight| x (|V| - 1), or the sum of all |weights| if
smaller) are refused with ``ValueError`` before any work, so ``inf`` always means unreachable.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from algorithms.entry import Entry, Option
from algorithms.tree import shortest_path_tree
from frontier import (
    Frontier,
    Graph,
    NegativeCycleError,
    NegativeWeightsError,
    atomic_min,
    validate,
)
from frontier.distributed.dispatch import scales_out
from frontier.graph import path_bound
from frontier.target import Target, resolve_target
from operators import (  # noqa: A004
    LoadBalancer,
    advance,
    filter,
    get_balancer,
    reduce,
    resolve_policy,
    traverse,
)
from operators.policy import Policy

__all__ = ["sssp", "SSSPResult", "SSSPStepStats", "METHODS", "DEFAULT_METHOD", "AUTO",
           "choose_method", "default_delta", "ENTRIES"]

#: The methods, by name.
METHODS = ("bellman_ford", "harish", "ordered", "delta_stepping", "near_far")
#: ``method="auto"``: :func:`choose_method` picks one from the weights (docs/algorithms.md).
AUTO = "auto"
DEFAULT_METHOD = AUTO
#: Methods that accept negative weights (and detect negative cycles).
NEGATIVE_WEIGHTS_OK = ("bellman_ford", "harish")
#: Davidson et al.'s c in Δ = c·w̄/d̄: the warp width.
WARP_WIDTH = 32
_INT_UNREACHED = np.iinfo(np.int64).max
_EXACT_LIMIT = 1 << 62


@dataclass(frozen=True)
class SSSPStepStats:
    """One relaxation step of an SSSP method: its input frontier's size and host wall time
    (None where the step ran inside a fused traversal, which the host does not see), and the
    lower end of the bucket or near pile it belonged to (None for methods without buckets)."""

    iteration: int
    frontier_size: int | None
    seconds: float | None
    bucket: float | None = None


@dataclass(frozen=True)
class SSSPResult:
    """``distances`` (float64, ``inf`` unreachable), ``predecessors`` (int32, -1 for the source
    and unreachable vertices; every tree edge tight), the number of relaxation steps
    (``iterations``) with per-step ``stats``, the method and Δ used, and the time of the whole
    computation on the device (first launch to the last read, predecessors included)."""

    distances: np.ndarray
    predecessors: np.ndarray
    iterations: int
    seconds: float
    method: str
    source: int
    delta: float | None
    graph: Graph = field(repr=False)
    stats: list[SSSPStepStats] = field(repr=False, default_factory=list)

    def path_to(self, vertex: int) -> list[int]:
        """The vertices of a shortest path from the source to ``vertex``, both included."""
        validate.source(self.graph, vertex, "vertex")
        if not np.isfinite(self.distances[vertex]):
            raise ValueError(f"vertex {vertex} is not reachable from the source {self.source}")
        path = [int(vertex)]
        while path[-1] != self.source:
            if len(path) > self.graph.num_vertices:
                raise AssertionError("predecessors form a cycle")  # never: see algorithms.tree
            path.append(int(self.predecessors[path[-1]]))
        return path[::-1]

    @cached_property
    def edges_traversed(self) -> int:
        """Out-edges of every reached vertex (each is relaxed at least once)."""
        return int(self.graph.out_degrees()[np.isfinite(self.distances)].sum())


def relax(src: int, dst: int, eid: int, weight: Any, dist: Any) -> bool:
    """Bellman–Ford's edge relaxation with an atomic min; True when ``dst`` improved."""
    new = dist[src] + weight
    return atomic_min(dist, dst, new) > new


def relax_into_updating(src: int, dst: int, eid: int, weight: Any, cost: Any,
                        updating: Any) -> bool:
    """Harish & Narayanan's kernel 1: lower the updating cost from the (unchanging) cost."""
    new = cost[src] + weight
    return atomic_min(updating, dst, new) > new


def commit_updating(v: int, cost: Any, updating: Any) -> bool:
    """Harish & Narayanan's kernel 2: a lowered updating cost becomes the cost and masks ``v``."""
    if updating[v] < cost[v]:
        cost[v] = updating[v]
        return True
    return False


def unsettled_distance(v: int, dist: Any, settled: Any, unreached: Any) -> Any:
    return dist[v] if settled[v] == 0 else unreached


def settle_at(v: int, dist: Any, settled: Any, at: Any) -> bool:
    """Settle ``v`` when its tentative distance is the working set's minimum."""
    if settled[v] == 0 and dist[v] == at:
        settled[v] = 1
        return True
    return False


def relax_only(src: int, dst: int, eid: int, weight: Any, dist: Any) -> bool:
    """Relax without pushing: the next working set is read from the distances."""
    atomic_min(dist, dst, dist[src] + weight)
    return False


def relax_below(src: int, dst: int, eid: int, weight: Any, dist: Any, threshold: Any) -> bool:
    """Near pile: relax; push ``dst`` when it improved to below the threshold."""
    new = dist[src] + weight
    return atomic_min(dist, dst, new) > new and new < threshold


def relax_light_below(src: int, dst: int, eid: int, weight: Any, dist: Any, threshold: Any,
                      delta: Any) -> bool:
    """Δ-stepping within a bucket: relax light edges only; push improvements in the bucket."""
    if weight >= delta:
        return False
    new = dist[src] + weight
    return atomic_min(dist, dst, new) > new and new < threshold


def relax_heavy(src: int, dst: int, eid: int, weight: Any, dist: Any, delta: Any) -> bool:
    """Δ-stepping after a bucket: relax its heavy edges once (they land in later buckets)."""
    if weight >= delta:
        atomic_min(dist, dst, dist[src] + weight)
    return False


def distance_at_or_above(v: int, dist: Any, threshold: Any, unreached: Any) -> Any:
    return dist[v] if dist[v] >= threshold else unreached


def in_band(v: int, dist: Any, low: Any, high: Any) -> bool:
    return low <= dist[v] and dist[v] < high


def choose_method(graph: Graph) -> str:
    """What ``method="auto"`` runs: ``"near_far"`` on a graph with non-negative weights that are
    not all equal, ``"bellman_ford"`` otherwise (unweighted or uniform weights, where a distance
    rarely drops twice and one fused kernel does all the steps; negative weights, which only
    Bellman–Ford methods take). Measured on the cpu target (docs/algorithms.md): Bellman–Ford
    re-relaxes vertices many times when weights spread on a high-diameter graph (the 2000x2000
    grid with weights 1..63: 84 s against near–far's 4.5 s), and pays nothing for it with unit
    weights (luxembourg_osm: 13 ms against 68 ms)."""
    w = graph.weights
    if w is None or w.size == 0 or w.min() < 0 or w.min() == w.max():
        return "bellman_ford"
    return "near_far"


def default_delta(graph: Graph) -> float:
    """Davidson et al.'s Δ = c·w̄/d̄ with c = 32 (the warp width), w̄ the mean edge weight (1 on
    an unweighted graph), d̄ the mean out-degree; 1 where that is not a positive number."""
    if graph.num_edges == 0 or graph.num_vertices == 0:
        return 1.0
    mean_weight = float(np.mean(graph.weights)) if graph.weighted else 1.0
    delta = WARP_WIDTH * mean_weight / (graph.num_edges / graph.num_vertices)
    return delta if math.isfinite(delta) and delta > 0 else 1.0


@dataclass
class _Run:
    """What one method call works with: the graph, target, balancer policy, the distance array
    and its 'unreached' value, and the statistics gathered so far."""

    graph: Graph
    target: Target
    balancer: Policy
    source: int
    dist: Any
    unreached: Any
    delta: float
    stats: list[SSSPStepStats] = field(default_factory=list)

    def record(self, size: int | None, seconds: float | None, bucket: float | None = None
               ) -> None:
        self.stats.append(SSSPStepStats(len(self.stats), size, seconds, bucket))

    def record_traversal(self, steps: int, seconds: list[float | None],
                         bucket: float | None = None) -> None:
        for s in seconds[:steps]:
            self.record(None, s, bucket)

    def start(self) -> Frontier:
        """The source as the first frontier; culled steps never hold more than |V| entries."""
        return Frontier.from_vertices(self.graph, [self.source], target=self.target,
                                      capacity=max(self.graph.num_vertices, 1))


def _bellman_ford(run: _Run) -> None:
    n = run.graph.num_vertices
    done = traverse(run.graph, run.start(), relax, run.dist, balancer=run.balancer,
                    cull="bitmap", max_steps=n)
    run.record_traversal(done.steps, done.step_seconds)
    if done.steps >= n and not done.frontier.is_empty():
        raise NegativeCycleError(f"a negative cycle is reachable from the source {run.source}: "
                                 f"distances still drop after {n} Bellman-Ford rounds")


def _harish(run: _Run) -> None:
    g, n = run.graph, run.graph.num_vertices
    updating = run.target.full(n, run.unreached, run.dist.dtype)
    run.target.write_scalar(updating, run.source, 0)
    mask = Frontier.from_vertices(g, [run.source], kind="dense", target=run.target)
    size = 1
    while size:
        if len(run.stats) >= n:
            raise NegativeCycleError(f"a negative cycle is reachable from the source "
                                     f"{run.source}: costs still drop after {n} rounds")
        start = time.perf_counter()
        lowered = advance(g, mask, relax_into_updating, run.dist, updating,
                          balancer=run.balancer, output="dense")
        mask = filter(g, lowered, commit_updating, run.dist, updating)
        step_size, size = size, len(mask)
        run.record(step_size, time.perf_counter() - start)


def _ordered(run: _Run) -> None:
    g, tgt = run.graph, run.target
    settled = tgt.zeros(g.num_vertices, np.uint8)
    everyone = Frontier.all_vertices(g, target=tgt)
    work = Frontier.from_vertices(g, np.empty(0, np.int64), target=tgt,
                                  capacity=max(g.num_vertices, 1))
    while True:
        start = time.perf_counter()
        low = reduce(g, "vertices", unsettled_distance, run.dist, settled, run.unreached,
                     op="min", target=tgt)
        if low == run.unreached:
            return
        at_min = filter(g, everyone, settle_at, run.dist, settled, low, output="sparse")
        work = advance(g, work.union(at_min), relax_only, run.dist, balancer=run.balancer)
        run.record(None, time.perf_counter() - start, float(low))


def _next_band(run: _Run, low: Any) -> tuple[Any, float] | None:
    """The lower end and the threshold of the next near pile or bucket: the nearest vertex at
    or above ``low``, and Δ past it; None when no reached vertex is left there."""
    nearest = reduce(run.graph, "vertices", distance_at_or_above, run.dist, low, run.unreached,
                     op="min", target=run.target)
    if nearest == run.unreached:
        return None
    return nearest, max(float(nearest) + run.delta, float(np.nextafter(nearest, np.inf)))


def _near_far(run: _Run) -> None:
    g = run.graph
    everyone = Frontier.all_vertices(g, target=run.target)
    near, low, threshold = run.start(), 0, run.delta
    while True:
        done = traverse(g, near, relax_below, run.dist, threshold, balancer=run.balancer,
                        cull="bitmap")
        run.record_traversal(done.steps, done.step_seconds, float(low))
        band = _next_band(run, threshold)
        if band is None:
            return
        low, threshold = band
        far_to_near = filter(g, everyone, in_band, run.dist, low, threshold, output="sparse")
        near = done.frontier.union(far_to_near)


def _delta_stepping(run: _Run) -> None:
    g = run.graph
    everyone = Frontier.all_vertices(g, target=run.target)
    bucket, low, high = run.start(), 0, run.delta
    while True:
        done = traverse(g, bucket, relax_light_below, run.dist, high, run.delta,
                        balancer=run.balancer, cull="bitmap")
        run.record_traversal(done.steps, done.step_seconds, float(low))
        start = time.perf_counter()
        settled = done.frontier.union(filter(g, everyone, in_band, run.dist, low, high,
                                             output="sparse"))
        empty = advance(g, settled, relax_heavy, run.dist, run.delta, balancer=run.balancer)
        run.record(None, time.perf_counter() - start, float(low))
        band = _next_band(run, high)
        if band is None:
            return
        low, high = band
        bucket = empty.union(filter(g, everyone, in_band, run.dist, low, high,
                                    output="sparse"))


_METHODS = {"bellman_ford": _bellman_ford, "harish": _harish, "ordered": _ordered,
            "delta_stepping": _delta_stepping, "near_far": _near_far}
assert tuple(_METHODS) == METHODS


def _distance_type(graph: Graph) -> tuple[np.dtype, Any]:
    """int64 (exact) for integer or unit weights, non-negative, whose simple paths fit; else
    float64. Returns the dtype and its 'unreached' value."""
    w = graph.weights
    if w is None:
        return np.dtype(np.int64), _INT_UNREACHED
    if np.issubdtype(w.dtype, np.integer) and (w.size == 0 or (
            w.min() >= 0 and int(w.max()) * max(graph.num_vertices, 1) < _EXACT_LIMIT)):
        return np.dtype(np.int64), _INT_UNREACHED
    return np.dtype(np.float64), np.inf


def _check_arguments(graph: Graph, source: int, method: str, delta: float | None
                     ) -> float | None:
    """Every argument but the balancer checked, before any work; returns ``delta`` as a float
    (or None)."""
    validate.source(graph, source)
    if not isinstance(method, str) or method not in METHODS + (AUTO,):
        raise ValueError(f"method={method!r}; expected {AUTO!r} or one of {METHODS}")
    if delta is not None:
        delta = validate.positive("delta", delta)
        if method not in ("delta_stepping", "near_far", AUTO):
            raise ValueError(f"delta= applies to 'delta_stepping' and 'near_far', not "
                             f"{method!r}")
    if method not in NEGATIVE_WEIGHTS_OK + (AUTO,):
        validate.non_negative_weights(f"method {method!r}", graph,
                                      f"use one of {NEGATIVE_WEIGHTS_OK}", NegativeWeightsError)
    validate.path_sums(f"sssp on a graph of {graph.num_vertices} vertices",
                       path_bound(graph.weights, graph.num_vertices), _distance_type(graph)[0])
    return delta


@scales_out("sssp")
def sssp(graph: Graph, source: int, *, method: str = DEFAULT_METHOD,
         balancer: str | LoadBalancer = "auto", target: str | Target | None = None,
         delta: float | None = None) -> SSSPResult:
    """Shortest-path distances and a shortest-path tree from ``source`` (see the module
    docstring for the methods; ``"auto"`` picks one with :func:`choose_method`, and the
    result's ``method`` says which ran). Unweighted graphs have weight 1 on every edge; of
    repeated edges the lightest counts. ``balancer`` maps each push step onto threads
    (``"auto"``: the adaptive runtime chooses per step, as for BFS);
    ``delta`` overrides the bucket width of ``"delta_stepping"`` and ``"near_far"``
    (:func:`default_delta`; with ``"auto"`` it applies when near-far is picked). Raises
    :class:`frontier.NegativeWeightsError` (a ``ValueError``) for negative weights with a
    method that cannot take them, and :class:`frontier.NegativeCycleError` when a negative
    cycle is reachable from the source; ``ValueError`` for weights whose path sums could
    overflow float64 (see the module docstring)."""
    delta = _check_arguments(graph, source, method, delta)
    balancer = get_balancer(balancer)
    if method == AUTO:
        method = choose_method(graph)
        delta = delta if method in ("delta_stepping", "near_far") else None
    tgt = resolve_target(target)
    policy = resolve_policy(balancer, graph, tgt)
    dtype, unreached = _distance_type(graph)
    dist = tgt.full(graph.num_vertices, unreached, dtype)
    tgt.write_scalar(dist, source, 0)
    bucketed = method in ("delta_stepping", "near_far")
    width = (delta or default_delta(graph)) if bucketed else math.inf
    run = _Run(graph, tgt, policy, int(source), dist, unreached, width)
    start = time.perf_counter()
    _METHODS[method](run)
    positive = not graph.weighted or graph.num_edges == 0 or graph.weights.min() > 0
    pred = shortest_path_tree(graph, np.asarray([source]), dist, unreached, positive, tgt,
                              policy)
    host = tgt.to_host(dist)
    seconds = time.perf_counter() - start
    distances = host.astype(np.float64)
    if dtype.kind != "f":
        distances[host == unreached] = np.inf
    return SSSPResult(distances, tgt.to_host(pred), len(run.stats), seconds, method,
                      int(source), width if bucketed else None, graph, run.stats)


# the catalog entry --------------------------------------------------------------------------
def _negative(graph: Graph) -> bool:
    return graph.weighted and graph.num_edges > 0 and bool(graph.weights.min() < 0)


def _reference(graph: Graph, source: int) -> np.ndarray:
    from frontier.testing import reference_sssp  # scipy.sparse: imported when first needed

    return reference_sssp(graph, source, negative_weights=_negative(graph))


def _check(graph: Graph, source: int, result: SSSPResult) -> None:
    from frontier.testing import check_sssp

    floats = graph.weighted and graph.weights.dtype.kind == "f"
    check_sssp(graph, source, result.distances, result.predecessors,
               rtol=1e-12 if floats else 0, negative_weights=_negative(graph))


def _report(result: SSSPResult) -> list[tuple[str, str]]:
    reached = np.isfinite(result.distances)
    far = float(result.distances[reached].max()) if reached.any() else 0.0
    return [("reached", f"{int(np.count_nonzero(reached)):,} vertices"),
            ("farthest", f"{far:g}"), ("method", result.method)]


ENTRIES = (
    Entry(name="sssp", description="single-source shortest paths: distances and a shortest-path "
          "tree", run=sssp, reference=_reference, check=_check,
          checks="distances equal scipy.sparse.csgraph; every predecessor edge is tight",
          report=_report,
          options=(Option("method", (AUTO, *METHODS), DEFAULT_METHOD,
                          "the SSSP method (docs/algorithms.md compares them); auto: near_far "
                          "on spread weights, else bellman_ford", shown="method {}"),)),
)
