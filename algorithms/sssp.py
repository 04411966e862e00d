"""Single-source shortest paths written with the operators: six methods from the GPU
literature side by side. Five are one stepping traversal each (:func:`operators.stepping`: a
lazy-batched priority queue fused into one persistent kernel, Dong, Gu, Sun & Zhang, SPAA 2021,
§3), differing only in the rule that picks the next threshold θ; one is a host loop.

* ``"bellman_ford"`` — frontier Bellman–Ford (H-BF; Busato & Bombieri, *Graph Algorithms on
  GPUs*, §3.2, Algorithm 5): every round relaxes the out-edges of every vertex whose distance
  dropped since it was last expanded (θ = ∞). Negative weights are fine; a queue still live
  after |V| + 2 rounds proves a negative cycle reachable from the source
  (:class:`frontier.NegativeCycleError`).
* ``"harish"`` — Harish & Narayanan, *Accelerating Large Graph Algorithms on the GPU Using
  CUDA*, §3.3, Algorithms 4–5: a mask (a bitmap frontier), the cost array and an *updating
  cost* array; kernel 1 relaxes the masked vertices' edges into the updating costs, kernel 2
  copies lowered updating costs into the costs and sets the mask for the next step. Two kernels
  and one host read per step: the host loop the others replace, kept as the paper's baseline.
  Negative weights and cycles are handled as above.
* ``"ordered"`` — Li & Becchi, *Deploying Graph Algorithms on GPUs: an Adaptive Solution*,
  §IV.A and §V.B: Dijkstra's order, in parallel where it allows: θ is the smallest queued
  distance, so each round expands every vertex at that distance. Work-efficient, little
  parallelism.
* ``"delta_stepping"`` — Δ-stepping's buckets (Meyer & Sanders; Davidson et al.'s GPU
  bucketing, Busato & Bombieri §3.1) as Dong et al.'s Δ*-stepping relaxes them (§4): θ is the
  end of the Δ-wide bucket holding the nearest queued vertex, kept until the bucket holds no
  queued vertex, and every out-edge of an extracted vertex is relaxed (no light/heavy split: a
  heavy edge's head lands in a later bucket and waits there).
* ``"near_far"`` — Davidson, Baxter, Garland & Owens' near–far pile (IPDPS 2014): θ stays
  while a queued vertex is below it (the near pile), then moves to the nearest queued (far)
  vertex plus Δ.
* ``"rho_stepping"`` — Dong et al.'s ρ-stepping (§4): θ is about the ρ-th smallest queued
  distance (a histogram of the queue), so each round extracts about ρ vertices whatever the
  weights.

The last four cannot take negative weights (a settled vertex could still improve) and raise
``ValueError`` on them before any work.

``method="auto"`` (the default) picks one from facts of the graph (:func:`choose_method`;
docs/algorithms.md has the measurements behind it). Δ defaults to Davidson et al.'s heuristic
Δ = c·w̄/d̄ (Busato & Bombieri, §3.1): c = 32, the warp width, w̄ the mean edge weight (1
unweighted), d̄ the mean out-degree; ``delta=`` overrides it. ρ defaults to
:data:`DEFAULT_RHO`; ``rho=`` overrides it. The weights' statistics (smallest, largest, mean,
the bound on a path's sum) are computed once per graph and kept with it.

``sources=[...]`` computes one row of distances (and predecessors) per source (``sources`` may
repeat): the sources run together, one stepping traversal over one copy of the graph per source
(:mod:`operators.sources`), so a batch of sources costs the launches and reads of one source;
each row equals the distances of a call from its source alone.

Distances: integer weights (or none: weight 1) are summed exactly in int64 while every simple
path fits (|V| · max weight < 2^62), then returned as float64; other graphs sum in float64. The
predecessors come from the final distances (:mod:`algorithms.tree`): a valid shortest-path tree
in which every tree edge is tight. A float64 sum can overflow: weights whose simple paths could
sum past float64's largest value (largest |weight| x (|V| - 1), or the sum of all |weights| if
smaller) are refused with ``ValueError`` before any work, so ``inf`` always means unreachable.
``out="device"`` leaves the distances (float64) and predecessors (int32) on the target.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from algorithms.entry import Entry, Option, testing
from algorithms.output import check_out, deliver, on_host
from algorithms.tree import parent, shortest_path_tree
from frontier import (
    Frontier,
    Graph,
    NegativeCycleError,
    NegativeWeightsError,
    atomic_min,
    options,
    validate,
)
from frontier.distributed.dispatch import scales_out
from frontier.frontier import FrontierPool
from frontier.graph import path_bound
from frontier.options import values
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import (  # noqa: A004
    LoadBalancer,
    advance,
    compute,
    filter,
    get_balancer,
    resolve_policy,
)
from operators.policy import Policy
from operators.sources import Batch, batches
from operators.stepping import Rule, stepping

__all__ = ["sssp", "SSSPResult", "SSSPStepStats", "SSSPMethod", "DEFAULT_METHOD",
           "choose_method", "default_delta", "DEFAULT_RHO", "WeightStats", "weight_stats",
           "ENTRIES"]


class SSSPMethod(options.Option):
    """The methods, by name; ``"auto"``: :func:`choose_method` picks one from the weights
    (docs/algorithms.md)."""

    AUTO = "auto"
    BELLMAN_FORD = "bellman_ford"
    HARISH = "harish"
    ORDERED = "ordered"
    DELTA_STEPPING = "delta_stepping"
    NEAR_FAR = "near_far"
    RHO_STEPPING = "rho_stepping"


DEFAULT_METHOD = SSSPMethod.AUTO
#: Methods that accept negative weights (and detect negative cycles).
NEGATIVE_WEIGHTS_OK = (SSSPMethod.BELLMAN_FORD, SSSPMethod.HARISH)
#: Davidson et al.'s c in Δ = c·w̄/d̄: the warp width.
WARP_WIDTH = 32
#: ρ-stepping's default batch: about the threads an H100 keeps busy at once with one vertex
#: each (Dong et al. size ρ by the machine's parallelism).
DEFAULT_RHO = 1 << 15
#: Each stepping method's rule (:class:`operators.stepping.Rule`), by method.
_RULES = {"bellman_ford": "bellman_ford", "ordered": "ordered", "delta_stepping": "delta",
          "near_far": "near_far", "rho_stepping": "rho"}
_INT_UNREACHED = np.iinfo(np.int64).max
_EXACT_LIMIT = 1 << 62


@dataclass(frozen=True)
class SSSPStepStats:
    """One relaxation step of a host-stepped SSSP method (``"harish"``): its input frontier's
    size and host wall time, and the lower end of its bucket (None: no buckets). The stepping
    methods run every round on the device and report their totals on the result instead."""

    iteration: int
    frontier_size: int | None
    seconds: float | None
    bucket: float | None = None


@dataclass(frozen=True)
class WeightStats:
    """What SSSP needs to know of a graph's weights, found once per graph
    (:func:`weight_stats`): the smallest and largest weight and their mean (1, 1, 1 unweighted
    or with no edge), whether they are integers, and :func:`frontier.graph.path_bound`."""

    low: float
    high: float
    mean: float
    integer: bool
    bound: float


def weight_stats(graph: Graph) -> WeightStats:
    """The graph's :class:`WeightStats`, computed on its first use and kept with the graph."""
    def find() -> WeightStats:
        w = graph.weights
        bound = path_bound(w, graph.num_vertices)
        if w is None or w.size == 0:
            return WeightStats(1, 1, 1, True, bound)
        integer = w.dtype.kind != "f"
        low, high = (int(w.min()), int(w.max())) if integer else (float(w.min()),
                                                                  float(w.max()))
        return WeightStats(low, high, float(np.mean(w)), integer, bound)

    return graph.memo("sssp.weight_stats", find)


@dataclass(frozen=True)
class SSSPResult:
    """``distances`` (float64, ``inf`` unreachable; one row per source with ``sources=``),
    ``predecessors`` (int32, -1 for the source and unreachable vertices; every tree edge
    tight), the rounds run (``iterations``; with ``sources=``, summed over the batches of
    sources that ran together, :mod:`operators.sources`), the vertices extracted
    and the out-edges relaxed by the stepping rounds, per-step ``stats`` of a host-stepped
    method, the method, Δ and ρ used, the time of the whole computation on the device (first
    launch to the last read, predecessors included), and how the rounds ran (``mode``: fused
    over the grid, in one block, or host steps). With ``out="device"`` both arrays are the
    target's."""

    distances: Any
    predecessors: Any
    iterations: int
    seconds: float
    method: str
    source: Any
    delta: float | None
    graph: Graph = field(repr=False)
    stats: list[SSSPStepStats] = field(repr=False, default_factory=list)
    rho: int | None = None
    extracted: int = 0
    relaxed: int = 0
    mode: str = "host"
    target: Target | None = field(repr=False, default=None)

    def path_to(self, vertex: int) -> list[int]:
        """The vertices of a shortest path from the source to ``vertex``, both included (a
        single-source result on the host)."""
        if np.ndim(self.source) != 0 or not isinstance(self.distances, np.ndarray):
            raise ValueError("path_to needs a single-source result on the host (out='host')")
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
        """Out-edges of every reached vertex (each is relaxed at least once), summed over the
        rows."""
        reached = np.isfinite(on_host(self.distances))
        return int((reached * self.graph.out_degrees()).sum())


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


def choose_method(graph: Graph) -> str:
    """What ``method="auto"`` runs: ``"near_far"`` on a graph with non-negative weights that are
    not all equal, ``"bellman_ford"`` otherwise (unweighted or uniform weights, where a distance
    rarely drops twice; negative weights, which only Bellman–Ford methods take). The weights'
    statistics are the graph's, found once (:func:`weight_stats`)."""
    stats = weight_stats(graph)
    if not graph.weighted or stats.low < 0 or stats.low == stats.high:
        return "bellman_ford"
    return "near_far"


def default_delta(graph: Graph) -> float:
    """Davidson et al.'s Δ = c·w̄/d̄ with c = 32 (the warp width), w̄ the mean edge weight (1 on
    an unweighted graph), d̄ the mean out-degree; 1 where that is not a positive number."""
    if graph.num_edges == 0 or graph.num_vertices == 0:
        return 1.0
    mean_weight = weight_stats(graph).mean if graph.weighted else 1.0
    delta = WARP_WIDTH * mean_weight / (graph.num_edges / graph.num_vertices)
    return delta if math.isfinite(delta) and delta > 0 else 1.0


@dataclass
class _Run:
    """What one method call works with: the graph, target, balancer, the batches of sources
    (:mod:`operators.sources`), the distances (one row per source, row after row) and their
    'unreached' value, the rule's Δ and ρ, and what the rounds did."""

    graph: Graph
    target: Target
    balancer: LoadBalancer
    batches: list[Batch]
    flat: Any
    unreached: Any
    delta: float
    rho: int
    stats: list[SSSPStepStats] = field(default_factory=list)
    rounds: int = 0
    extracted: int = 0
    relaxed: int = 0
    mode: str = "host"
    policies: dict[int, Policy] = field(default_factory=dict)

    def policy(self, batch: Batch) -> Policy:
        """The balancer's policy for the batch's copies, resolved once per batch (the
        traversal and the shortest-path tree share it: an adaptive policy's thresholds are
        looked up once per call)."""
        if id(batch) not in self.policies:
            self.policies[id(batch)] = resolve_policy(self.balancer, batch.graph, self.target)
        return self.policies[id(batch)]

    def start(self, batch: Batch, kind: str = "sparse") -> Frontier:
        """The batch's sources (one in each copy) as the first frontier, in a pool that holds
        every vertex of the copies."""
        return Frontier.from_vertices(batch.graph, batch.starts, kind=kind, target=self.target,
                                      capacity=max(batch.graph.num_vertices, 1), shared=True)


def _cyclic_source(run: _Run, batch: Batch) -> int:
    """The first source of ``batch`` that reaches a negative cycle (its batch did: found again
    source by source, on the error's path only)."""
    n = run.graph.num_vertices
    for source in batch.sources.tolist():
        dist = run.target.full(n, run.unreached, run.flat.dtype)
        run.target.write_scalar(dist, source, 0)
        start = Frontier.from_vertices(run.graph, [source], target=run.target,
                                       capacity=max(n, 1))
        if not stepping(run.graph, start, relax, dist, rule=Rule("bellman_ford"),
                        max_rounds=n + 2).finished:
            return source
    raise AssertionError("no source of the batch reaches a negative cycle")  # never


def _stepping(method: str) -> Any:
    """The method as one stepping traversal per batch of sources."""
    def run_method(run: _Run) -> None:
        n = run.graph.num_vertices
        rule = _rule(_RULES[method], run.delta, run.rho)
        negative_ok = method in NEGATIVE_WEIGHTS_OK
        for batch in run.batches:
            policy = run.policy(batch)
            done = stepping(batch.graph, run.start(batch), relax, batch.rows(run.flat),
                            rule=rule, balancer=policy,
                            max_rounds=n + 2 if negative_ok else None)
            if not done.finished:
                raise NegativeCycleError(f"a negative cycle is reachable from vertex "
                                         f"{_cyclic_source(run, batch)}, a source: distances "
                                         f"still drop after {n + 2} Bellman-Ford rounds")
            run.rounds += done.rounds
            run.extracted += done.extracted
            run.relaxed += done.relaxed
            run.mode = done.mode
    return run_method


@lru_cache(maxsize=64)
def _rule(name: str, delta: float, rho: int) -> Rule:
    """``Rule(name, delta, rho)``, made (and checked) once per value: the same few every call."""
    return Rule(name, delta, rho)


def _harish(run: _Run) -> None:
    n = run.graph.num_vertices
    for batch in run.batches:
        g, dist = batch.graph, batch.rows(run.flat)
        policy = run.policy(batch)
        updating = run.target.full(g.num_vertices, run.unreached, dist.dtype)
        for start in batch.starts.tolist():
            run.target.write_scalar(updating, start, 0)
        mask = run.start(batch, kind="dense")
        size, steps = batch.size, 0
        while size:
            if steps >= n:
                raise NegativeCycleError(f"a negative cycle is reachable from the source "
                                         f"{_cyclic_source(run, batch)}: costs still drop after "
                                         f"{n} rounds")
            start = time.perf_counter()
            lowered = advance(g, mask, relax_into_updating, dist, updating, balancer=policy,
                              output="dense")
            mask = filter(g, lowered, commit_updating, dist, updating)
            step_size, size, steps = size, len(mask), steps + 1
            run.stats.append(SSSPStepStats(len(run.stats), step_size,
                                           time.perf_counter() - start))
        run.rounds += steps


_METHODS = {**{m: _stepping(m) for m in _RULES}, "harish": _harish}
assert set(_METHODS) == set(SSSPMethod) - {SSSPMethod.AUTO}


def _distance_type(graph: Graph) -> tuple[np.dtype, Any]:
    """int64 (exact) for integer or unit weights, non-negative, whose simple paths fit; else
    float64. Returns the dtype and its 'unreached' value."""
    if not graph.weighted:
        return np.dtype(np.int64), _INT_UNREACHED
    stats = weight_stats(graph)
    if stats.integer and stats.low >= 0 and int(stats.high) * max(graph.num_vertices, 1) < \
            _EXACT_LIMIT:
        return np.dtype(np.int64), _INT_UNREACHED
    return np.dtype(np.float64), np.inf


def _check_arguments(graph: Graph, source: Any, sources: Any, method: str,
                     delta: float | None, rho: int | None, out: str
                     ) -> tuple[np.ndarray, float | None, int | None]:
    """Every argument but the balancer checked, before any work; returns the sources (one
    per row), ``delta`` as a float and ``rho`` as an int (or None)."""
    validate.graph(graph)
    if (source is None) == (sources is None):
        raise TypeError("pass a source vertex or sources=[...], exactly one of them")
    if source is not None:
        validate.source(graph, source)
        starts = np.asarray([int(source)], np.int64)
    else:
        starts = validate.sources(graph, sources)
        if starts.size == 0:
            raise ValueError("sources=[] is empty; expected at least one vertex")
    if not isinstance(method, str) or method not in values(SSSPMethod):
        raise ValueError(f"method={method!r}; expected one of {values(SSSPMethod)}")
    check_out(out)
    if delta is not None:
        delta = validate.positive("delta", delta)
        if method not in (SSSPMethod.DELTA_STEPPING, SSSPMethod.NEAR_FAR, SSSPMethod.AUTO):
            raise ValueError(f"delta= applies to 'delta_stepping' and 'near_far', not "
                             f"{method!r}")
    if rho is not None:
        rho = validate.count("rho", rho, low=1)
        if method not in (SSSPMethod.RHO_STEPPING, SSSPMethod.AUTO):
            raise ValueError(f"rho= applies to 'rho_stepping', not {method!r}")
    stats = weight_stats(graph)
    if method not in (*NEGATIVE_WEIGHTS_OK, SSSPMethod.AUTO) and graph.weighted and stats.low < 0:
        raise NegativeWeightsError(f"method {method!r} needs non-negative edge weights; this "
                                   f"graph has a weight of {stats.low}: use one of "
                                   f"{NEGATIVE_WEIGHTS_OK}")
    validate.path_sums(f"sssp on a graph of {graph.num_vertices} vertices", stats.bound,
                       _distance_type(graph)[0])
    return starts, delta, rho


def _buffer(target: Target, pool: FrontierPool | None, name: str, size: int, dtype: Any
            ) -> Any:
    """``size`` elements: a new array of the target, or (a result copied to the host) the
    pool's scratch buffer of that name, reused by the thread's later calls."""
    if pool is None:
        return target.empty(size, dtype)
    return pool.scratch(name, size, dtype)[:size]


def _start(c: int, flat: Any, sources: Any, n: int, unreached: Any) -> None:
    """Row ``c // n`` of the distances before any relaxation: 0 at its source."""
    flat[c] = 0 if sources[c // n] == c % n else unreached


def _start_tree(c: int, flat: Any, pred: Any, sources: Any, n: int, unreached: Any) -> None:
    """As :func:`_start`, and no predecessor yet."""
    flat[c] = 0 if sources[c // n] == c % n else unreached
    pred[c] = -1


def _as_float(v: int, dist: Any, out: Any, unreached: Any) -> None:
    """A distance as float64, ``inf`` where unreached (integer distances, converted on the
    target before any copy to the host)."""
    out[v] = np.inf if dist[v] == unreached else dist[v]


def _finish(v: int, dist: Any, out: Any, unreached: Any, pred: Any, n: int) -> None:
    """:func:`_as_float`, and the predecessor as recorded made the result's
    (:func:`algorithms.tree.parent`): the last pass over the rows, one launch."""
    out[v] = np.inf if dist[v] == unreached else dist[v]
    pred[v] = parent(pred[v], n)


def _settle(v: int, pred: Any, n: int) -> None:
    pred[v] = parent(pred[v], n)


@scales_out("sssp")
def sssp(graph: Graph, source: int | None = None, *, sources: Any = None,
         method: str = DEFAULT_METHOD, balancer: str | LoadBalancer = "auto",
         target: str | Target | None = None, delta: float | None = None,
         rho: int | None = None, out: str = "host", predecessors: bool = True
         ) -> SSSPResult:
    """Shortest-path distances and a shortest-path tree from ``source``, or one row of each
    per vertex of ``sources`` (see the module docstring for the methods; ``"auto"`` picks one
    with :func:`choose_method`, and the result's ``method`` says which ran). Unweighted graphs
    have weight 1 on every edge; of repeated edges the lightest counts. ``balancer`` maps the
    relaxations onto threads (``"auto"``: the adaptive runtime's choice); ``delta`` overrides
    the bucket width of ``"delta_stepping"`` and ``"near_far"`` (:func:`default_delta`; with
    ``"auto"`` it applies when one of them is picked), ``rho`` the batch of
    ``"rho_stepping"``; ``out="device"`` leaves the results on the target;
    ``predecessors=False`` skips the shortest-path tree (the result's ``predecessors`` is
    None). Raises
    :class:`frontier.NegativeWeightsError` (a ``ValueError``) for negative weights with a
    method that cannot take them, and :class:`frontier.NegativeCycleError` when a negative
    cycle is reachable from a source; ``ValueError`` for weights whose path sums could
    overflow float64 (see the module docstring)."""
    starts, delta, rho = _check_arguments(graph, source, sources, method, delta, rho, out)
    validate.flag("predecessors", predecessors)
    balancer = get_balancer(balancer)
    if method == SSSPMethod.AUTO:
        method = choose_method(graph)
    bucketed = method in ("delta_stepping", "near_far")
    width = (delta or default_delta(graph)) if bucketed else math.inf
    batch = (rho or DEFAULT_RHO) if method == "rho_stepping" else 0
    tgt = resolve_target(target, graph)
    dtype, unreached = _distance_type(graph)
    n, k = graph.num_vertices, starts.size
    # results copied to the host live in the thread's pooled buffers of the graph
    pool = FrontierPool.shared(graph, tgt, max(n, 1)) if out == "host" else None
    flat = _buffer(tgt, pool, "sssp.distances", k * n, dtype)
    preds = _buffer(tgt, pool, "sssp.predecessors", k * n, np.int32) if predecessors else None
    if k * n:
        given = tgt.to_device(starts)
        if predecessors:
            compute(None, k * n, _start_tree, flat, preds, given, n, unreached, target=tgt)
        else:
            compute(None, k * n, _start, flat, given, n, unreached, target=tgt)
    run = _Run(graph, tgt, balancer, list(batches(graph, starts, target=tgt)), flat, unreached,
               width, batch)
    start = time.perf_counter()
    _METHODS[method](run)
    # every tight edge leads strictly nearer only where no weight vanishes in a sum: positive
    # integers (a float weight below half an ulp of a distance is absorbed: 1.0 + 1e-17 == 1.0)
    positive = not graph.weighted or graph.num_edges == 0 or (
        graph.weights.dtype.kind in "iu" and weight_stats(graph).low > 0)
    for part in run.batches if predecessors else ():
        shortest_path_tree(part.graph, part.starts, part.rows(flat), unreached, positive, tgt,
                           run.policy(part), pred=part.rows(preds),
                           raw=True)
    finished = flat
    if dtype.kind != "f":  # exact integer sums, returned as float64 with inf where unreached
        finished = (tgt.empty(k * n, np.float64) if pool is None
                    else pool.scratch("sssp.float_distances", k * n, np.float64)[:k * n])
    if k * n:  # one pass: the distances as float64, the predecessors as the graph's vertices
        if predecessors and finished is not flat:
            compute(None, k * n, _finish, flat, finished, unreached, preds, n, target=tgt)
        elif predecessors:
            compute(None, k * n, _settle, preds, n, target=tgt)
        elif finished is not flat:
            compute(None, k * n, _as_float, flat, finished, unreached, target=tgt)
    if out == "device":
        tgt.synchronize()
        seconds = time.perf_counter() - start
        distances = deliver(tgt, finished.reshape(k, n) if source is None else finished, out)
        tree = preds if preds is None or source is not None else preds.reshape(k, n)
    else:
        distances = tgt.to_host(finished)
        tree = None if preds is None else tgt.to_host(preds)
        seconds = time.perf_counter() - start
        if source is None:
            distances = distances.reshape(k, n)
            tree = None if tree is None else tree.reshape(k, n)
    return SSSPResult(distances, tree, run.rounds, seconds, method,
                      int(source) if source is not None else starts,
                      width if bucketed else None, graph, run.stats, batch or None,
                      run.extracted, run.relaxed, run.mode, tgt)


# the catalog entry --------------------------------------------------------------------------
def _negative(graph: Graph) -> bool:
    return graph.weighted and weight_stats(graph).low < 0


def _reference(graph: Graph, source: int) -> np.ndarray:
    return testing.reference_sssp(graph, source, negative_weights=_negative(graph))


def _check(graph: Graph, source: int, result: SSSPResult) -> None:
    floats = graph.weighted and graph.weights.dtype.kind == "f"
    testing.check_sssp(graph, source, on_host(result.distances), on_host(result.predecessors),
               rtol=1e-12 if floats else 0, negative_weights=_negative(graph))


def _report(result: SSSPResult) -> list[tuple[str, str]]:
    distances = on_host(result.distances)
    reached = np.isfinite(distances)
    far = float(distances[reached].max()) if reached.any() else 0.0
    return [("reached", f"{int(np.count_nonzero(reached)):,} vertices"),
            ("farthest", f"{far:g}"), ("method", result.method)]


ENTRIES = (
    Entry(name="sssp", description="single-source shortest paths: distances and a shortest-path "
          "tree", run=sssp, reference=_reference, check=_check,
          checks="distances equal scipy.sparse.csgraph; every predecessor edge is tight",
          report=_report,
          options=(Option("method", SSSPMethod, DEFAULT_METHOD,
                          "the SSSP method (docs/algorithms.md compares them); auto: near_far "
                          "on spread weights, else bellman_ford", shown="method {}"),)),
)
