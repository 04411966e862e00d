"""PageRank by power iteration, written with the operators (Page, Brin, Motwani & Winograd, *The
PageRank Citation Ranking*, 1999; the GPU formulation of Gunrock's PageRank: Wang et al.,
*Gunrock: GPU Graph Analytics*, §5.4).

Every vertex is active in every iteration, so one iteration is four operator calls over all
vertices:

1. ``reduce``: the rank held by *dangling* vertices (no out-edges, or out-edges of total weight
   zero), which they hand out to everyone;
2. the neighbour sum ``incoming[v] = sum rank[u] * w(u, v) / strength(u)`` over the edges
   ``u -> v``: *pull* (:func:`operators.neighbor_reduce` over in-edges: one thread per vertex,
   no atomics, a deterministic sum) or *push* (:func:`operators.advance` over all out-edges with
   an ``atomic_add`` per edge, mapped onto threads by the load balancer);
3. ``compute``: ``next[v] = alpha * (incoming[v] + lost * dangling[v]) + (1 - alpha) * p[v]``;
4. ``reduce``: the L1 change ``sum |next - rank|``, tested against ``N * tol``.

A pull iteration runs these phases as one :func:`operators.iterate` call: every iteration in
one persistent kernel, phases separated by grid barriers, the convergence test on the device and
one host read at the end (on the cpu target a sequential loop making the same operations in the
same order as the four calls). A push iteration (atomics per edge, which ``iterate`` does not
fuse) runs the four calls from the host each iteration. Either way the inverse out-strength of
every vertex comes first, from one pass of ``iterate`` (a Gather over out-edges, whose hubs are
spread over the grid, then the inversion).

That is NetworkX's ``pagerank`` iteration exactly (its convergence test, its handling of
dangling vertices, ``personalization`` ``p``, ``nstart`` and ``dangling`` weights, edge weights),
so results agree with it to the tolerance. ``direction="auto"`` picks pull: the frontier is every
vertex, the case where pulling wins (:class:`operators.Direction`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from algorithms.entry import Entry, Option, testing
from algorithms.output import check_out, deliver, on_host
from frontier import Frontier, Graph, atomic_add, validate
from frontier.options import Way
from frontier.runtime.device_arrays import extremes, flaws, is_device_array, to_host, view
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import (
    Direction,
    Each,
    Gather,
    LoadBalancer,
    Total,
    advance,
    compute,
    get_balancer,
    iterate,
    reduce,
    resolve_policy,
)

__all__ = ["pagerank", "PageRankResult", "PageRankIterationStats", "ConvergenceError",
           "ENTRIES"]


class ConvergenceError(RuntimeError):
    """The power iteration did not reach the tolerance within ``max_iter`` iterations (NetworkX
    raises ``PowerIterationFailedConvergence`` there)."""

    def __init__(self, iterations: int, error: float, tolerance: float) -> None:
        super().__init__(f"pagerank did not converge in {iterations} iterations: the last L1 "
                         f"change was {error:.3g}, the bound N * tol is {tolerance:.3g}; raise "
                         "max_iter or tol")
        self.iterations = iterations
        self.error = error


@dataclass(frozen=True)
class PageRankIterationStats:
    """One power iteration: its number (from 1), the L1 change of the ranks it made, and its
    host wall time."""

    iteration: int
    error: float
    seconds: float


@dataclass(frozen=True)
class PageRankResult:
    """``ranks`` (float64, one per vertex, summing to 1), the iterations run, the last L1
    change, the wall time of the iteration loop, each iteration's L1 change (``changes``) and
    host time (``iteration_seconds``), made into per-iteration ``stats`` on first use, and the
    ``target`` that ran it. With ``out="device"`` ``ranks`` stay on the target
    (:mod:`algorithms.output`)."""

    ranks: Any
    iterations: int
    error: float
    seconds: float
    graph: Graph = field(repr=False)
    changes: Sequence[float] = field(repr=False, default=())
    iteration_seconds: Sequence[float] = field(repr=False, default=())
    target: Target | None = field(repr=False, default=None)

    @cached_property
    def stats(self) -> list[PageRankIterationStats]:
        """Per iteration: its number (from 1), its L1 change and its host wall time."""
        return [PageRankIterationStats(i, float(change), seconds) for i, (change, seconds)
                in enumerate(zip(self.changes, self.iteration_seconds, strict=True), 1)]

    @property
    def edges_traversed(self) -> int:
        """Every edge once per iteration."""
        return self.iterations * self.graph.num_edges


# functors ------------------------------------------------------------------------------------
def dangling_rank(v, rank, inverse):
    return rank[v] if inverse[v] == 0.0 else 0.0


def pushed_share(src, dst, eid, weight, rank, inverse, weighted, incoming):
    atomic_add(incoming, dst, rank[src] * inverse[src] * (weight * 1.0 if weighted else 1.0))
    return False


def update(v, rank, incoming, teleport, dangling, lost, alpha, clear):
    rank[v] = alpha * (incoming[v] + lost * dangling[v]) + (1.0 - alpha) * teleport[v]
    if clear:
        incoming[v] = 0.0


def change(v, rank, last):
    return abs(rank[v] - last[v])


# the phases of operators.iterate: every functor takes the state (rank, last, incoming,
# inverse, teleport, dangling, alpha, weighted) and the totals
def fused_strength(src, dst, eid, weight, rank, last, incoming, inverse, teleport, dangling,
                   alpha, weighted, totals):
    """What an edge adds to its tail's strength: its weight, or 1."""
    return weight * 1.0 if weighted else 1.0


def fused_invert(v, rank, last, incoming, inverse, teleport, dangling, alpha, weighted, totals):
    """strength -> 1 / strength; 0 marks a dangling vertex."""
    inverse[v] = 1.0 / inverse[v] if inverse[v] > 0.0 else 0.0


def fused_none(v, rank, last, incoming, inverse, teleport, dangling, alpha, weighted, totals):
    return 0.0


def fused_dangling(v, rank, last, incoming, inverse, teleport, dangling, alpha, weighted,
                   totals):
    return rank[v] if inverse[v] == 0.0 else 0.0


def fused_share(src, dst, eid, weight, rank, last, incoming, inverse, teleport, dangling, alpha,
                weighted, totals):
    return rank[src] * inverse[src] * (weight * 1.0 if weighted else 1.0)


def fused_update(v, rank, last, incoming, inverse, teleport, dangling, alpha, weighted, totals):
    """The step of :func:`update`, keeping the previous rank in ``last`` (totals[0] is the
    dangling rank ``lost``)."""
    last[v] = rank[v]
    rank[v] = alpha * (incoming[v] + totals[0] * dangling[v]) + (1.0 - alpha) * teleport[v]


def fused_change(v, rank, last, incoming, inverse, teleport, dangling, alpha, weighted, totals):
    return abs(rank[v] - last[v])


#: The inverse out-strength of every vertex (into ``inverse``, state 3), as one pass of
#: :func:`operators.iterate`: its Gather spreads a hub's out-edges over the grid.
_STRENGTH = (Gather(fused_strength, into=3, edges="out"), Each(fused_invert), Total(fused_none))

#: One pull iteration as the phases of :func:`operators.iterate`: the dangling rank, the
#: neighbour sum over in-edges (into ``incoming``, state 2), the update, the L1 change.
_FUSED = (Total(fused_dangling), Gather(fused_share, into=2), Each(fused_update),
          Total(fused_change))


# the algorithm -------------------------------------------------------------------------------
def pagerank(graph: Graph, *, alpha: float = 0.85, personalization: Any = None,
             max_iter: int = 100, tol: float = 1e-6, nstart: Any = None, dangling: Any = None,
             weighted: bool = True, direction: str = "auto",
             balancer: str | LoadBalancer = "auto",
             target: str | Target | None = None, out: str = "host") -> PageRankResult:
    """PageRank of every vertex, as NetworkX's ``pagerank`` computes it.

    ``alpha`` is the damping factor; the iteration stops once the L1 change of the ranks drops
    below ``N * tol`` and raises :class:`ConvergenceError` after ``max_iter`` iterations without.
    ``personalization`` (the teleport distribution), ``nstart`` (the starting ranks) and
    ``dangling`` (where dangling vertices send their rank; default: ``personalization``, else
    uniform) are arrays of one finite non-negative value per vertex, with a positive sum,
    normalized to sum 1 (scaled by their largest value first, so values near float64's largest
    do not overflow the sum); they may be device arrays (:mod:`frontier.runtime.device_arrays`),
    read on the device on the cuda target (which ``"auto"`` then picks, whatever the graph) and
    never written. Edge weights are used when the graph
    has them and ``weighted`` (a bool; repeated edges add up; a vertex whose out-edges weigh 0
    in total is dangling).
    ``direction`` is ``"pull"``, ``"push"`` or ``"auto"`` (pull: every vertex is active);
    ``balancer`` maps a push onto threads; ``target`` and ``out`` as :func:`algorithms.bfs`'s.
    A pull runs every iteration in one launch, so its ``stats`` give each iteration's change
    and an even share of the loop's wall time; a push runs from the host (see the module
    docstring).
    Numbers may be Python or NumPy scalars.
    """
    n = validate.graph(graph).num_vertices
    check_out(out)
    alpha, max_iter, tol = _check_parameters(alpha, max_iter, tol)
    way = Direction.of(direction).choose(n, n)
    weighted = validate.flag("weighted", weighted) and graph.weighted
    if weighted:
        validate.non_negative_weights("pagerank", graph, "pass weighted=False to ignore them")
    tgt = resolve_target(target, graph, deep=False, inputs=(personalization, dangling, nstart))
    teleport = _distribution("personalization", personalization, n, tgt)
    spread = teleport if dangling is None else _distribution("dangling", dangling, n, tgt)
    start = _distribution("nstart", nstart, n, tgt)
    balancer = get_balancer(balancer)
    if n == 0:
        return PageRankResult(deliver(tgt, tgt.empty(0, np.float64), out), 0, 0.0, 0.0, graph,
                              target=tgt)
    rank, last = _placed(start, n, tgt), tgt.empty(n, np.float64)
    # one array where dangling vertices spread as they teleport (neither is written)
    placed = _placed(teleport, n, tgt)
    teleport, spread = placed, placed if spread is teleport else _placed(spread, n, tgt)
    # the pull's gather writes every incoming sum; the push adds into zeros
    incoming = tgt.empty(n, np.float64) if way == "pull" else tgt.zeros(n, np.float64)
    inverse = tgt.empty(n, np.float64)  # written whole by the out-weight reduction
    began = time.perf_counter()
    state = (rank, last, incoming, inverse, teleport, spread, alpha, weighted)
    iterate(graph, _STRENGTH, *state, stop_below=np.inf, max_iter=1, target=tgt)
    if way == "pull":
        ran = iterate(graph, _FUSED, *state, stop_below=n * tol, max_iter=max_iter, target=tgt)
        seconds = time.perf_counter() - began
        error = ran.totals[-1]
        if error < n * tol:  # one launch: each iteration an even share of its time
            return PageRankResult(deliver(tgt, rank, out), ran.iterations, error, seconds,
                                  graph, ran.history.tolist(),
                                  [seconds / ran.iterations] * ran.iterations, tgt)
        raise ConvergenceError(max_iter, error, n * tol)
    return _pushed(graph, rank, last, incoming, inverse, teleport, spread, alpha, max_iter,
                   tol, weighted, resolve_policy(balancer, graph, tgt), out, tgt, began)


def _pushed(graph: Graph, rank: Any, last: Any, incoming: Any, inverse: Any, teleport: Any,
            spread: Any, alpha: float, max_iter: int, tol: float, weighted: bool, policy: Any,
            out: str, tgt: Target, began: float) -> PageRankResult:
    """The push iteration, four operator calls an iteration from the host (its neighbour sum
    is an advance with atomics, which :func:`operators.iterate` does not fuse)."""
    n = graph.num_vertices
    everyone = Frontier.all_vertices(graph, target=tgt)
    changes: list[float] = []
    times: list[float] = []
    for iteration in range(1, max_iter + 1):
        stepped = time.perf_counter()
        rank, last = last, rank
        lost = reduce(graph, "vertices", dangling_rank, last, inverse, target=tgt)
        advance(graph, everyone, pushed_share, last, inverse, weighted, incoming,
                balancer=policy, output="none")
        compute(graph, "vertices", update, rank, incoming, teleport, spread, lost, alpha,
                True, target=tgt)
        error = reduce(graph, "vertices", change, rank, last, target=tgt)
        changes.append(float(error))
        times.append(time.perf_counter() - stepped)
        if error < n * tol:
            return PageRankResult(deliver(tgt, rank, out), iteration, float(error),
                                  time.perf_counter() - began, graph, changes, times, tgt)
    raise ConvergenceError(max_iter, float(error), n * tol)


def _check_parameters(alpha: Any, max_iter: Any, tol: Any) -> tuple[float, int, float]:
    """The damping factor (a number in [0, 1]), the iteration bound (an integer >= 1) and the
    tolerance (a number > 0), Python or NumPy numbers alike."""
    return (validate.fraction("alpha", alpha, 0.0, 1.0, closed=True),
            validate.count("max_iter", max_iter, 1), validate.positive("tol", tol))


def _placed(values: Any, n: int, tgt: Target) -> Any:
    """A distribution on the target: the uniform one (None) filled there, a host array uploaded,
    or a device array :func:`_distribution` made (which pagerank may overwrite) as it is."""
    if values is None:
        return tgt.full(n, 1.0 / n, np.float64)
    return values if is_device_array(values) else tgt.to_device(values)


def _scale(v, values, out, by):
    out[v] = values[v] * 1.0 / by


def _value(v, values):
    return values[v]


def _on_device(name: str, values: Any, n: int, tgt: Target) -> Any:
    """A device ``values`` normalized as :func:`_distribution` does, on the device: checked
    there (the host check runs on a copy for the message of a bad one) into a new float64
    device array."""
    array = view(values)
    if (array.shape != (n,) or array.dtype.kind not in "biuf"
            or (n and (any(flaws(array)[:2]) or extremes(array)[1] <= 0))):
        return _distribution(name, to_host(array), n, tgt)
    largest = float(extremes(array)[1])
    scaled = tgt.empty(n, np.float64)
    compute(None, n, _scale, array, scaled, largest, target=tgt)
    total = reduce(None, n, _value, scaled, target=tgt)
    compute(None, n, _scale, scaled, scaled, total, target=tgt)
    return scaled


def _distribution(name: str, values: Any, n: int, tgt: Target) -> Any:
    """``values`` (one non-negative weight per vertex) normalized to sum 1; None (uniform, which
    :func:`_placed` fills on the target: no host array to build and copy) if None.
    Scaled by the largest value before summing, so the sum cannot overflow (30 values of
    1e308 sum to inf, which would make every share 0). A device array stays on the device on
    the cuda target (:func:`_on_device`) and is copied to the host for the cpu target."""
    if values is None:
        return None
    if is_device_array(values):
        if tgt.name == "cuda":
            return _on_device(name, values, n, tgt)
        values = to_host(values)
    array = np.asarray(values)
    if array.shape != (n,) or array.dtype.kind not in "biuf":
        raise ValueError(f"{name} has shape {array.shape} and dtype {array.dtype}; expected one "
                         f"number per vertex ({n})")
    with np.errstate(over="ignore"):
        array = array.astype(np.float64)
    if not np.all(np.isfinite(array)) or np.any(array < 0) or not np.any(array > 0):
        raise ValueError(f"{name} must hold finite non-negative float64 values with a positive "
                         "sum")
    array = array / array.max()
    return array / array.sum()


# the catalog entry --------------------------------------------------------------------------
#: The L1 distance a PageRank result may have from the converged ranks: the power iteration
#: stops once its L1 change is below N * tol, which bounds the distance by that times
#: alpha / (1 - alpha) (5.67 at alpha 0.85).
_SLACK = 6.0


def _reference(graph: Graph, source: None) -> np.ndarray:
    return testing.reference_pagerank(graph, tol=1e-12, max_iter=10_000)


def _check(graph: Graph, source: None, result: PageRankResult) -> None:
    """Ranks within ``6 N tol`` (L1) of the reference run to convergence (``tol`` the
    default 1e-6, what the command runs with)."""
    expected, ranks = _reference(graph, source), on_host(result.ranks)
    distance = float(np.abs(ranks - expected).sum())
    bound = _SLACK * graph.num_vertices * 1e-6 + 1e-9
    if not distance <= bound:
        worst = int(np.argmax(np.abs(ranks - expected)))
        raise AssertionError(f"ranks are {distance:.3g} from scipy's in L1 (allowed {bound:.3g});"
                             f" vertex {worst}: expected {expected[worst]:.6g}, got "
                             f"{ranks[worst]:.6g}")


def _report(result: PageRankResult) -> list[tuple[str, str]]:
    top = int(np.argmax(result.ranks)) if result.ranks.size else -1
    return [("top vertex", f"{top} (rank {result.ranks[top]:.4g})" if top >= 0 else "-"),
            ("L1 change", f"{result.error:.3g}")]


ENTRIES = (
    Entry(name="pagerank", description="PageRank by power iteration (NetworkX's conventions)",
          run=pagerank, reference=_reference, check=_check,
          checks="ranks within 6 N tol (L1) of a scipy power iteration run to 1e-12",
          report=_report,
          options=(Option("direction", Way, Way.AUTO,
                          "pull: a neighbour sum per vertex; push: atomics per edge"),),
          source=False),
)
