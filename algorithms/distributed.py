"""BFS, SSSP and connected components over a graph partitioned by vertex ranges
(:class:`frontier.distributed.DistributedGraph`): the same operator steps as on one device, run
on every partition at once, with the frontier exchanged between steps (Buluç & Madduri, SC 2011,
§3: 1D level-synchronous BFS, expand then fold; Pan et al., *Multi-GPU Graph Analytics*, IPDPS
2017, §III).

Each partition runs, on its piece (its vertices' out-arcs, destination ids global)::

    while any_left(comm, F):                       # all-reduce: is any frontier left?
        out = advance(G_r, F, step, state)         # reaches owned and remote vertices
        got = exchange(piece, comm, out, values, inbox)   # remote ones to their owners
        taken = filter(G_r, got, merge, state, inbox)     # received vertices this step changes
        F = filter(G_r, out, owned).union(taken)   # the next frontier: owned vertices only

Every partition keeps the algorithm's state over all |V| vertices: its entries for remote
vertices are the partition's own view of them (what it last sent), so a vertex is sent again
only when the partition improves on what it sent before. The owner's entries are the result.

* BFS: ``step`` claims unvisited vertices (the BFS of :mod:`algorithms.bfs`), the value sent is
  the predecessor; the owner claims a received vertex if it is still unvisited. A pull level
  (Beamer et al., SC 2012, bottom-up, over partitions) all-gathers the frontier bitmaps
  (:func:`frontier.distributed.exchange.gather`) and lets each partition's unvisited vertices
  scan their in-arcs; ``direction="auto"`` decides per level from the all-reduced frontier
  size, the same on every partition.
* SSSP (Bellman–Ford): ``step`` relaxes arcs with ``atomic_min``; the value sent is the
  tentative distance; the owner keeps the smaller. Predecessors are found after the distances
  settle: every partition refreshes its view of the remote heads of its arcs (:func:`refresh`),
  picks for each head a tail on a shortest path and sends it to the head's owner.
* Connected components (label propagation): every vertex starts with its own id; ``step``
  lowers a head's label to the tail's; labels cross partitions like distances. Each partition
  follows its vertices' out- and in-arcs (the piece's symmetric graph), so a directed graph must
  be partitioned with ``reverse=True``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms.bfs import BFSResult, unvisited, visit
from algorithms.components import ComponentsMethod, ComponentsResult, ComponentsStepStats
from algorithms.output import Out, check_out
from algorithms.sssp import SSSPMethod, SSSPResult, SSSPStepStats
from frontier import Frontier, Graph, atomic_cas, atomic_min, validate
from frontier.distributed import Communicator, DistributedGraph, Piece, RunReport
from frontier.distributed.dispatch import register_version
from frontier.distributed.exchange import any_left, exchange, gather, moved, refresh
from frontier.distributed.result import Distributed
from frontier.options import Kind
from frontier.runtime import device_arrays
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import Direction, LoadBalancer, advance, filter, get_balancer  # noqa: A004

__all__ = ["bfs", "sssp", "connected_components", "sssp_arrays", "components_arrays",
           "RankResult"]


@dataclass
class RankResult:
    """What one partition returns: its slice of each result array, its step count, the bytes it
    sent in each step, its wall time per step and in all, and the size of each step's frontier
    over all partitions."""

    arrays: tuple[np.ndarray, ...]
    steps: int
    step_bytes: list[int] = field(default_factory=list)
    step_seconds: list[float] = field(default_factory=list)
    seconds: float = 0.0
    step_sizes: list[int] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)


def on_host(result: RankResult) -> RankResult:
    """A rank's result with its arrays in host memory (run on the worker, by the gather):
    the runs leave them where they computed them, in the device's memory on GPU workers."""
    return RankResult(tuple(device_arrays.on_host(a) for a in result.arrays), result.steps,
                      result.step_bytes, result.step_seconds, result.seconds, result.step_sizes,
                      result.facts)


def summarized(result: RankResult) -> RankResult:
    """What a rank sends the client after a run (run on the worker): its result without the
    arrays, which stay on the worker until gathered."""
    return RankResult((), result.steps, result.step_bytes, result.step_seconds, result.seconds,
                      result.step_sizes, result.facts)


def owned(v: int, lo: int, hi: int) -> bool:
    """``v`` is one of this partition's vertices."""
    return lo <= v and v < hi


def _target_name(target: str | Target | None) -> str | None:
    """Targets are resolved on the workers: pass a name. A name is checked here, before any
    work, as on one device (``"cuda"`` only by the workers, which hold the GPUs)."""
    if isinstance(target, Target):
        return target.name
    if target is not None and target != "cuda":
        resolve_target(target)
    return target


def _check_graph(graph: Any) -> None:
    if not isinstance(graph, DistributedGraph):
        raise TypeError(f"expected a frontier.distributed.DistributedGraph (from partition), "
                        f"got {type(graph).__name__}")


def _check_balancer(balancer: str | LoadBalancer | None) -> None:
    """The balancer (None: the default) checked on the client, as on one device."""
    if balancer is not None:
        get_balancer(balancer)


def _check_source(graph: DistributedGraph, source: int) -> None:
    _check_graph(graph)
    validate.vertex("source", source, graph.num_vertices)


def _starts(graph: DistributedGraph, source: int | None, sources: Any) -> np.ndarray:
    """The distinct start vertices of ``source`` or ``sources`` (exactly one of them given)."""
    if (source is None) == (sources is None):
        raise TypeError("pass a source vertex or sources=[...], exactly one of them")
    if source is not None:
        return np.asarray([validate.vertex("source", source, graph.num_vertices)], np.int64)
    listed = validate.vertices("sources", sources, graph.num_vertices)
    if listed.size == 0:
        raise ValueError("sources=[] is empty; expected at least one vertex")
    return np.unique(listed)


class _RankSteps:
    """The step loop's bookkeeping on one partition: what it is doing (the communicator's
    phase: for error reports and, in a timed run, the seconds of each phase), the bytes it sent
    and the time of each step."""

    def __init__(self, name: str, comm: Communicator) -> None:
        self.name, self.comm = name, comm
        self.step_bytes: list[int] = []
        self.step_seconds: list[float] = []
        self.start = time.perf_counter()
        self._bytes, self._time = comm.sent_bytes, self.start
        self._stepping = False  # a step ran since the last count
        self.sizes: list[int] = []

    def doing(self, what: str) -> None:
        self.comm.phase(what, f"{self.name} step {len(self.step_bytes)}: ")

    def left(self, frontier: Frontier) -> int:
        """Close the step just run; the number of frontier elements all partitions have left."""
        self.doing("counting the frontiers (all-reduce)")
        count = any_left(self.comm, frontier)
        now = time.perf_counter()
        if self._stepping:
            self.step_bytes.append(self.comm.sent_bytes - self._bytes)
            self.step_seconds.append(now - self._time)
        self._stepping = count > 0
        if count:
            self.sizes.append(count)
        self._bytes, self._time = self.comm.sent_bytes, now
        return count

    def mark(self, size: int) -> None:
        """Close a step whose end needs no vote (a step every rank runs once): its bytes and
        time, and ``size``, the elements it worked on over all ranks."""
        now = time.perf_counter()
        self.step_bytes.append(self.comm.sent_bytes - self._bytes)
        self.step_seconds.append(now - self._time)
        self.sizes.append(size)
        self._bytes, self._time = self.comm.sent_bytes, now

    def result(self, *arrays: np.ndarray, **facts: Any) -> RankResult:
        if self.comm.timed:
            self.comm.phase("")
            facts["phases"] = {what: s for what, s in self.comm.phases.items() if what}
        return RankResult(arrays, len(self.step_bytes), self.step_bytes, self.step_seconds,
                          time.perf_counter() - self.start, self.sizes, facts)


def _report(graph: DistributedGraph, algorithm: str, ranks: list[RankResult]) -> RunReport:
    steps = max(r.steps for r in ranks)
    sent = [sum(r.step_bytes[i] for r in ranks if i < len(r.step_bytes)) for i in range(steps)]
    report = RunReport(algorithm, steps, sent, [r.seconds for r in ranks], ranks[0].step_sizes,
                       [list(r.step_bytes) for r in ranks], graph.runner.round_trips,
                       [r.facts.get("phases", {}) for r in ranks])
    graph.runner.last_run = report
    return report


def _run_kept(graph: DistributedGraph, algorithm: str, fn: Any, *args: Any,
              what: str) -> tuple[RunReport, list[RankResult], Any]:
    """``fn`` on every partition, its arrays left on the workers: the run's report, every
    rank's summary and the handle on the full rank results, kept on the workers."""
    summaries, kept = graph.runner.run(fn, *args, what=what, summarize=summarized)
    return _report(graph, algorithm, summaries), summaries, kept


def _joined(ranks: list[RankResult], which: int) -> np.ndarray:
    return np.concatenate([r.arrays[which] for r in ranks])


def everywhere(v: int) -> bool:
    return True


def _propagate(piece: Piece, comm: Communicator, steps: _RankSteps, f: Frontier, op: Any,
               state: tuple, sends: Any, inboxes: Any, merge: Any, merge_state: Any, *,
               graph: Any = None, condition: Any = None, balancer: str | LoadBalancer,
               unique: bool) -> None:
    """The step loop of the module docstring, until no partition has a frontier left:
    ``advance`` with ``op`` (and ``condition``), the reached remote vertices with ``sends`` to
    their owners (into ``inboxes``), ``merge(v, *merge_state(step))`` on the received ones, the
    owned reached and merged vertices the next frontier (without repeats if ``unique``)."""
    g = graph if graph is not None else piece.graph
    while steps.left(f):
        f = _push_step(piece, comm, steps, g, f, op, state, sends, inboxes, merge,
                       merge_state, condition, balancer, unique)


def _push_step(piece: Piece, comm: Communicator, steps: _RankSteps, g: Any, f: Frontier, op: Any,
               state: tuple, sends: Any, inboxes: Any, merge: Any, merge_state: Any,
               condition: Any, balancer: str | LoadBalancer, unique: bool) -> Frontier:
    """One step of :func:`_propagate`; returns the next frontier."""
    step = len(steps.step_bytes)
    steps.doing("advance")
    out = advance(g, f, op, *state, condition=condition, balancer=balancer, output=f.kind)
    if unique:
        out = filter(g, out, everywhere, unique=True)
    steps.doing("exchange of the reached remote vertices")
    got = exchange(piece, comm, out, sends, inboxes)
    steps.doing("merging the received vertices")
    taken = filter(g, got, merge, *merge_state(step))
    return filter(g, out, owned, piece.lo, piece.hi).union(taken, unique=unique)


# BFS ------------------------------------------------------------------------------------------
def claim(v: int, distances: np.ndarray, predecessors: np.ndarray, inbox: np.ndarray,
          level: int) -> bool:
    """A vertex another partition reached: claim it for ``level`` if still unvisited, with the
    predecessor that partition sent."""
    if atomic_cas(distances, v, -1, level) == -1:
        predecessors[v] = inbox[v]
        return True
    return False


def claim_from(src: int, dst: int, eid: int, weight: int, distances: np.ndarray,
               predecessors: np.ndarray, level: int) -> bool:
    """Pull: an unvisited vertex with an in-neighbour in the (gathered) frontier joins
    ``level``; the in-neighbour's own distance may be unknown here (it lives elsewhere)."""
    if atomic_cas(distances, dst, -1, level) == -1:
        predecessors[dst] = src
        return True
    return False


def unclaimed(v: int, distances: np.ndarray, predecessors: np.ndarray, level: int) -> bool:
    return distances[v] == -1


def _bfs_rank(piece: Piece, comm: Communicator, starts: np.ndarray, target: str | None,
              balancer: str | LoadBalancer, kind: str, direction: str, alpha: float | None,
              beta: float | None) -> RankResult:
    g, tgt = piece.graph, resolve_target(target)
    n, lo, hi = g.num_vertices, piece.lo, piece.hi
    distances = tgt.full(n, -1, np.int32)
    predecessors = tgt.full(n, -1, np.int32)
    inbox = tgt.full(n, -1, np.int32)
    start = starts[(starts >= lo) & (starts < hi)]
    for v in start.tolist():
        tgt.write_scalar(distances, v, 0)
    # each vertex is claimed once (compare-and-swap), so |V| ids hold any level; the pool is
    # kept with the piece's graph and reused by later runs
    f = Frontier.from_vertices(g, start, kind=kind, target=tgt, capacity=n, shared=True)
    plan = Direction(direction, alpha, beta)  # every rank sees the same sizes: same choices
    steps = _RankSteps("bfs", comm)
    while size := steps.left(f):
        level = len(steps.step_bytes)
        if plan.choose(size, n) == "pull":
            steps.doing("all-gather of the frontier bitmaps")
            everyone = gather(comm, f, piece.in_graph)
            steps.doing("pull")
            out = advance(piece.in_graph, everyone, claim_from, distances, predecessors,
                          level + 1, condition=unclaimed, direction="pull")
            f = moved(out, g, kind)
        else:
            f = _push_step(piece, comm, steps, g, f, visit, (distances, predecessors),
                           predecessors, inbox, claim,
                           lambda step: (distances, predecessors, inbox, step + 1), unvisited,
                           balancer, unique=False)
    return steps.result(distances[lo:hi], predecessors[lo:hi])


def bfs(graph: DistributedGraph, source: int | None = None, *, sources: Any = None,
        balancer: str | LoadBalancer = "auto", target: str | Target | None = None,
        frontier: str = "sparse", fused: bool | None = None, direction: str | None = None,
        alpha: float | None = None, beta: float | None = None, out: str = "host",
        order: str = "ordered", cull: str = "none") -> Distributed:
    """:func:`algorithms.bfs` over the partitions of ``graph``: the same distances, number of
    levels and a valid shortest-path tree. Push levels exchange the reached remote vertices;
    pull levels (``direction="pull"`` or ``"auto"``) all-gather the frontier bitmaps and scan
    the owned vertices' in-arcs. ``direction`` defaults to ``"auto"`` where the pieces hold
    in-arcs (an undirected graph, or one partitioned with ``reverse=True``) and to ``"push"``
    otherwise. Levels are host loops of operator calls on every worker with collectives
    between them, so ``fused=True`` is refused. The level loop runs on the workers (one task
    per worker per call) and the distances and predecessors stay there: the call returns a
    :class:`~frontier.distributed.result.Distributed` whose ``gather()`` is the
    ``BFSResult`` (host arrays, ``out="host"``), and whose ``distances`` and ``predecessors``
    gather too. Levels are ordered (``order="ordered"``) and each partition sends a vertex
    once per level without culling (``cull="none"``). ``sources`` starts from several vertices,
    as on one device. ``graph.last_run`` gets the bytes exchanged per level. Every argument is
    checked on the client before any work, as on one device."""
    _check_graph(graph)
    starts = _starts(graph, source, sources)
    validate.one_of("order", order, ("ordered",), "BFS order over partitions")
    validate.one_of("cull", cull, ("none",), "duplicate culling over partitions")
    validate.one_of("frontier", frontier, Kind, "frontier kind")
    if check_out(out) != Out.HOST:
        raise ValueError(f"out={out!r}: the results of a run over partitions are gathered on "
                         "the client; leave out out or pass out='host'")
    if fused is not None and validate.flag("fused", fused):
        raise ValueError("fused=True: levels over partitions are separated by an exchange, so "
                         "they cannot run fused in one kernel; leave fused out")
    if direction is None:
        direction = "auto" if graph.has_reverse else "push"
    Direction(direction, alpha, beta)  # checks the mode and thresholds here, before any work
    if direction == "pull":
        validate.unused("direction='pull' (every level pulls; no push level runs)",
                        {"balancer": None if balancer == "auto" else balancer})
    if direction != "push" and not graph.has_reverse:
        raise ValueError(f"direction={direction!r} on a directed graph pulls over in-arcs: "
                         "partition it with partition(G, P, reverse=True)")
    _check_balancer(balancer)
    target = _target_name(target)
    what = f"bfs from vertex {source}" if source is not None else f"bfs from {starts.size} sources"
    report, ranks, kept = _run_kept(graph, "bfs", _bfs_rank, starts, target, balancer,
                                    frontier, direction, alpha, beta, what=what)
    seconds = [max(r.step_seconds[i] for r in ranks if i < len(r.step_seconds))
               for i in range(report.steps)]
    took = max(r.seconds for r in ranks)

    def build(full: list[RankResult]) -> BFSResult:
        return BFSResult(_joined(full, 0), _joined(full, 1), report.steps, took,
                         graph, seconds)  # type: ignore[arg-type]

    return Distributed(kept, {"iterations": report.steps, "seconds": took,
                              "level_seconds": seconds}, build, on_host)


# SSSP -----------------------------------------------------------------------------------------
def relax(src: int, dst: int, eid: int, weight: float, dist: np.ndarray) -> bool:
    """Bellman–Ford's relaxation: lower ``dst`` through ``src``; true if it dropped."""
    new = dist[src] + weight
    return atomic_min(dist, dst, new) > new


def improve(v: int, values: np.ndarray, inbox: np.ndarray) -> bool:
    """A value another partition sent (a distance, a label): keep it if it is smaller."""
    return atomic_min(values, v, inbox[v]) > inbox[v]


def tight_positive(src: int, dst: int, eid: int, weight: float, dist: np.ndarray,
                   pred: np.ndarray) -> bool:
    """An arc of positive weight ending a shortest path makes its tail the head's
    predecessor (any such arc will do: distances strictly rise along them, so no cycle)."""
    if weight > 0 and dist[src] < np.inf and dist[src] + weight == dist[dst]:
        pred[dst] = src
    return False


def tight_zero(src: int, dst: int, eid: int, weight: float, dist: np.ndarray,
               pred: np.ndarray, source: int) -> bool:
    """Zero-weight arcs between vertices at one distance: a BFS along them from the vertices
    that have a predecessor gives the others one, without cycles."""
    if weight == 0 and dist[src] == dist[dst] and dst != source:
        if atomic_cas(pred, dst, -1, src) == -1:
            return True
    return False


def without_predecessor(v: int, dist: np.ndarray, pred: np.ndarray, source: int) -> bool:
    return pred[v] == -1 and v != source


def take_predecessor(v: int, pred: np.ndarray, inbox: np.ndarray) -> bool:
    """A predecessor another partition found: take it if this vertex has none yet."""
    return atomic_cas(pred, v, -1, inbox[v]) == -1


def has_predecessor(v: int, pred: np.ndarray, source: int) -> bool:
    return pred[v] != -1 or v == source


def owned_with_predecessor(v: int, pred: np.ndarray, source: int, lo: int, hi: int) -> bool:
    return lo <= v and v < hi and (pred[v] != -1 or v == source)


def _every_vertex(g: Graph, tgt: Target) -> Frontier:
    """Every vertex of ``g``, in the calling thread's pooled buffers, filled on the device."""
    return Frontier.all_vertices(g, target=tgt, shared=True)


def extract(v: int, dist: np.ndarray, done: np.ndarray, low: float, theta: float, lo: int,
            hi: int) -> bool:
    """A stepping round's extraction: an owned (``lo <= v < hi``) queued vertex (its distance
    dropped below the one it was last extracted at) below the threshold ``theta``, or at the
    smallest queued distance ``low`` (every round makes progress, also with zero weights),
    leaves the queue."""
    d = dist[v]
    if lo <= v and v < hi and d < done[v] and (d < theta or d <= low):
        done[v] = d
        return True
    return False


#: The rules that pick a distributed stepping round's threshold θ from the smallest queued
#: distance ``low`` (all-reduced over the ranks) and Δ.
STEPPING_RULES = (SSSPMethod.NEAR_FAR, SSSPMethod.DELTA_STEPPING, SSSPMethod.BELLMAN_FORD)


def _threshold(rule: str, low: float, delta: float) -> float:
    if rule == "bellman_ford":
        return np.inf
    if rule == "near_far":
        return low + delta
    return (np.floor(low / delta) + 1) * delta  # delta_stepping: the end of low's bucket


def _delta(piece: Piece, comm: Communicator) -> float:
    """The single device's default Δ (:func:`algorithms.sssp.default_delta`: 32 · mean weight
    / mean out-degree) over the whole graph, from every rank's sums (two all-reduces)."""
    arcs = comm.allreduce(piece.num_arcs, "sum")
    weight = piece.graph.memo("sum of the weights", lambda: float(
        piece.weights.sum() if piece.weights is not None else piece.num_arcs))
    total = comm.allreduce(weight, "sum")
    if arcs == 0 or piece.num_vertices == 0:
        return 1.0
    delta = 32 * (total / arcs) / (arcs / piece.num_vertices)
    return float(delta) if np.isfinite(delta) and delta > 0 else 1.0


def _sssp_rank(piece: Piece, comm: Communicator, source: int, target: str | None,
               balancer: str | LoadBalancer, rule: str, delta: float | None) -> RankResult:
    """Stepping over partitions (the rounds of :mod:`operators.stepping`, Dong et al., SPAA
    2021, with the queue spread over the ranks): each outer round all-reduces the smallest
    queued distance and picks θ by ``rule``; each inner round extracts the owned queued
    vertices below θ, relaxes their arcs, sends the remote heads it lowered to their owners
    (which queue them if lower) and all-reduces the count extracted; zero ends the inner
    rounds, an empty queue everywhere the run."""
    g, tgt = piece.graph, resolve_target(target)
    n, lo, hi = g.num_vertices, piece.lo, piece.hi
    dist = tgt.full(n, np.inf, np.float64)
    done = tgt.full(n, np.inf, np.float64)  # the distance each vertex was last extracted at
    inbox = tgt.full(n, np.inf, np.float64)
    if piece.owns(source):
        tgt.write_scalar(dist, source, 0)
    steps = _RankSteps("sssp", comm)
    steps.doing("Δ (all-reduce of the weight sums)")
    delta = _delta(piece, comm) if delta is None else delta
    xp = comm.xp
    while True:
        steps.doing("the smallest queued distance (all-reduce)")
        d, last = _in_memory_of(xp, tgt, dist[lo:hi]), _in_memory_of(xp, tgt, done[lo:hi])
        low = comm.allreduce(float(xp.where(d < last, d, np.inf).min()) if hi > lo else np.inf,
                             "min")
        if low == np.inf:
            break
        theta = _threshold(rule, low, delta)
        while True:
            steps.doing("extraction below θ")
            f = filter(g, _every_vertex(g, tgt), extract, dist, done, low, theta, lo, hi)
            if not steps.left(f):
                break
            steps.doing("relaxation")
            out = advance(g, f, relax, dist, balancer=balancer, output=f.kind)
            out = filter(g, out, everywhere, unique=True)
            steps.doing("exchange of the lowered remote vertices")
            got = exchange(piece, comm, out, dist, inbox)
            steps.doing("merging the received distances")
            filter(g, got, improve, dist, inbox, output="none")
    pred = _predecessors(piece, comm, steps, tgt, dist, source, balancer)
    return steps.result(dist[lo:hi], pred[lo:hi], delta=delta)


def _predecessors(piece: Piece, comm: Communicator, steps: _RankSteps, tgt: Target, dist: Any,
                  source: int, balancer: str | LoadBalancer) -> Any:
    """The predecessors once the distances settled: tight arcs of positive weight (after every
    rank refreshed its view of the remote heads of its arcs), then a BFS along tight
    zero-weight arcs."""
    g = piece.graph
    n, lo, hi = g.num_vertices, piece.lo, piece.hi
    steps.doing("refreshing the distances of remote heads")
    refresh(piece, comm, dist)
    steps.doing("choosing predecessors")
    pred = tgt.full(n, -1, np.int32)
    theirs = tgt.full(n, -1, np.int32)
    # every frontier here is filtered from the thread's pooled all-vertex frontier, filled on
    # the device (a frontier from host ids would upload them, into a new pool of |E| ids)
    mine = filter(g, _every_vertex(g, tgt), owned, lo, hi)
    advance(g, mine, tight_positive, dist, pred, balancer=balancer, output="none")
    chosen = filter(g, _every_vertex(g, tgt), has_predecessor, pred, -1, output="sparse")
    got = exchange(piece, comm, chosen, pred, theirs)
    filter(g, got, take_predecessor, pred, theirs)
    f = filter(g, _every_vertex(g, tgt), owned_with_predecessor, pred, source, lo, hi)
    steps.doing("predecessors along zero-weight arcs")
    zero = _RankSteps("sssp predecessors", comm)
    _propagate(piece, comm, zero, f, tight_zero, (dist, pred, source), pred, theirs,
               take_predecessor, lambda step: (pred, theirs), condition=without_predecessor,
               balancer=balancer, unique=False)
    return pred


def _check_sssp(graph: DistributedGraph, source: int,
                balancer: str | LoadBalancer | None) -> None:
    _check_source(graph, source)
    if graph.min_weight < 0:
        raise ValueError(f"the graph has a negative weight ({graph.min_weight}); shortest paths "
                         "over partitions need weights >= 0")
    validate.path_sums(f"sssp over partitions of a graph of {graph.num_vertices} vertices",
                       graph.path_bound, np.float64)
    _check_balancer(balancer)


def sssp_arrays(graph: DistributedGraph, source: int, *,
                balancer: str | LoadBalancer | None = None,
                target: str | Target | None = None,
                method: str = "near_far") -> tuple[np.ndarray, np.ndarray, RunReport]:
    """:func:`sssp` gathered: distances (float64, ``inf`` unreachable; weight 1 on an
    unweighted graph), predecessors (int32, -1 for the source and unreachable vertices) and the
    run's report."""
    result = sssp(graph, source, method=method, balancer=balancer, target=target)
    gathered = result.gather()
    return gathered.distances, gathered.predecessors, graph.last_run  # type: ignore[return-value]


def sssp(graph: DistributedGraph, source: int, *, method: str = "auto",
         balancer: str | LoadBalancer | None = None, target: str | Target | None = None,
         delta: float | None = None) -> Distributed:
    """:func:`algorithms.sssp` over the partitions of ``graph``: stepping rounds synchronized
    by all-reduces (:func:`_sssp_rank`), with ``method`` ``"near_far"`` (``"auto"``: θ = the
    smallest queued distance + Δ, kept while a queued vertex is below it),
    ``"delta_stepping"`` (θ = the end of that distance's Δ-wide bucket) or ``"bellman_ford"``
    (θ = ∞). ``delta`` defaults to the single device's Δ over the whole graph. Weights must be
    >= 0 and must not sum past float64 along a path (ValueError before any work, as on one
    device). Returns a :class:`~frontier.distributed.result.Distributed` whose ``gather()`` is
    the ``SSSPResult``."""
    _check_sssp(graph, source, balancer)
    method = validate.one_of("method", method, (SSSPMethod.AUTO, *STEPPING_RULES),
                             "method over partitions")
    rule = "near_far" if method == "auto" else method
    if rule == "bellman_ford":
        validate.unused("Bellman–Ford over partitions", {"delta": delta})
    elif delta is not None and not (isinstance(delta, (int, float)) and np.isfinite(delta)
                                    and delta > 0):
        raise ValueError(f"delta={delta!r}; expected a positive finite number")
    target = _target_name(target)
    report, ranks, kept = _run_kept(
        graph, "sssp", _sssp_rank, int(source), target,
        "auto" if balancer is None else balancer, rule,
        None if delta is None else float(delta), what=f"sssp from vertex {source}")
    took = max(r.seconds for r in ranks)
    used = None if rule == "bellman_ford" else ranks[0].facts["delta"]
    stats = [SSSPStepStats(i, size, None) for i, size in enumerate(report.frontier_sizes)]

    def build(full: list[RankResult]) -> SSSPResult:
        return SSSPResult(_joined(full, 0), _joined(full, 1), report.steps, took, rule,
                          int(source), used, graph, stats)  # type: ignore[arg-type]

    return Distributed(kept, {"iterations": report.steps, "seconds": took, "method": rule,
                              "delta": used, "source": int(source)}, build, on_host)


# connected components -------------------------------------------------------------------------
def lower_label(src: int, dst: int, eid: int, weight: int, labels: np.ndarray) -> bool:
    """Label propagation: the head takes the tail's label if smaller; true if it dropped."""
    return atomic_min(labels, dst, labels[src]) > labels[src]


def _components_rank(piece: Piece, comm: Communicator, target: str | None,
                     balancer: str | LoadBalancer) -> RankResult:
    g, tgt = piece.symmetric_graph, resolve_target(target)
    n, lo, hi = g.num_vertices, piece.lo, piece.hi
    labels = tgt.to_device(np.arange(n, dtype=np.int32))
    inbox = tgt.full(n, n, np.int32)
    f = Frontier.from_vertices(g, np.arange(lo, hi), target=tgt, shared=True)
    steps = _RankSteps("connected components", comm)
    _propagate(piece, comm, steps, f, lower_label, (labels,), labels, inbox, improve,
               lambda step: (labels, inbox), graph=g, balancer=balancer, unique=True)
    steps.doing("counting the roots")
    return steps.result(labels[lo:hi], roots=_roots(comm.xp, _in_memory_of(comm.xp, tgt,
                                                                            labels[lo:hi]), lo))


def _in_memory_of(xp: Any, tgt: Target, array: Any) -> Any:
    """A target's array as an array of the communicator's module ``xp``: a host copy for
    NumPy, a view of the device array for CuPy (no copy)."""
    return tgt.to_host(array) if xp is np else xp.asarray(array)


def _afforest_arcs(piece: Piece, g: Graph, xp: Any) -> tuple[Graph, Any, Any]:
    """The piece's arcs as afforest uses them, built once per piece (kept in the memo of its
    symmetric graph, on its worker): the arcs between owned vertices as an undirected graph
    over the owned vertices (vertex ``v - lo``), and the remote arcs this rank takes (below),
    their tails (``v - lo``) and heads (global ids), int32, in ``xp``'s memory (the device's,
    with NCCL).

    Every edge between two ranks is an arc of both ranks' symmetric pieces; one of the two
    takes it: the rank of ``u`` takes ``u -> v`` when ``u + v`` is even and ``u < v``, or odd
    and ``u > v`` (the other arc of the pair then fails the test). Every rank so takes about
    half of its edges to the others, wherever they lie, where taking the arcs to higher ranks
    only would give the lowest rank most of the work and the highest none."""
    def build() -> tuple[Graph, Any, Any]:
        lo, hi = piece.lo, piece.hi
        rows = np.asarray(g.row_offsets[lo:hi + 1], dtype=np.int64)
        heads = np.asarray(g.col_indices[rows[0]:rows[-1]])
        inside = (heads >= lo) & (heads < hi)
        kept = np.zeros(heads.size + 1, dtype=np.int64)
        np.cumsum(inside, out=kept[1:])
        local = Graph._trusted(kept[rows - rows[0]], (heads[inside] - lo).astype(np.int32),
                               None, directed=False)
        remote = np.flatnonzero(~inside)
        tails = (np.searchsorted(rows, remote + rows[0], side="right") - 1).astype(np.int32)
        ends = heads[remote].astype(np.int64)
        starts = tails.astype(np.int64) + lo
        taken = ((starts + ends) % 2 == 0) == (starts < ends)
        return (local, xp.asarray(tails[taken]),
                xp.asarray(ends[taken].astype(np.int32)))

    return g.memo(f"afforest arcs {xp.__name__}", build)


def _afforest_rank(piece: Piece, comm: Communicator, target: str | None,
                   balancer: str | LoadBalancer) -> RankResult:
    """Afforest over partitions (Sutton, Ben-Nun & Barak, IPDPS 2018, run per partition):

    1. local sampling and linking: afforest on the arcs between owned vertices, each owned
       vertex labelled by the smallest owned vertex of its local component;
    2. the remote arcs, exchanged once: each rank takes, for every vertex of another rank
       its arcs reach (half of the edges between two ranks go to each: :func:`_afforest_arcs`),
       the smallest local label of those arcs' tails (a scatter-min), keeps
       a link between that label and the tail's label of each arc whose two differ, and
       sends the vertex with its smallest label to the vertex's owner, which turns it into
       a link between two labels; the links are all-gathered (two all-to-alls, the second
       sending every rank the same links);
    3. the final compress: every rank links the local labels along the links (afforest on the
       graph of the labels) and relabels its vertices by their component's smallest label,
       the smallest vertex of the component.

    The per-arc work of steps 1 and 2 runs in the communicator's memory (the GPU's with
    NCCL), without a sort of the remote arcs: after local linking most tails of a remote
    vertex share a label, so few arcs give a link of their own. The graphs of step 1 and the
    arcs of step 2 are built once per piece."""
    from algorithms.components import connected_components as one_device

    g, tgt = piece.symmetric_graph, resolve_target(target)
    n, lo, hi, xp = piece.num_vertices, piece.lo, piece.hi, comm.xp
    steps = _RankSteps("connected components (afforest)", comm)
    steps.doing("local sampling and linking")
    inner, tails, heads = _afforest_arcs(piece, g, xp)
    local = xp.asarray(one_device(inner, method="afforest", balancer=balancer, target=tgt,
                                  out="device").labels) + np.int32(lo)
    steps.mark(hi - lo)
    steps.doing("exchange of the remote arcs")
    label = local[tails]
    smallest = xp.full(n, n, dtype=np.int32)  # n: no arc reaches the vertex
    _scatter_min(xp, smallest, heads, label)
    other = smallest[heads]
    differ = xp.flatnonzero(label != other)
    # links between this rank's labels
    inside = xp.unique(label[differ].astype(np.int64) * n + other[differ])
    reached = xp.flatnonzero(smallest < n)  # ascending: buckets by owner
    cuts = device_arrays.on_host(xp.searchsorted(reached, xp.asarray(piece.bounds))).tolist()
    got = comm.alltoallv([(reached[cuts[r]:cuts[r + 1]].astype(np.int32),
                           smallest[reached[cuts[r]:cuts[r + 1]]])
                          for r in range(piece.parts)])
    mine = xp.concatenate([xp.asarray(b[0]) for b in got]).astype(np.int64)
    theirs = xp.concatenate([xp.asarray(b[1]) for b in got]).astype(np.int64)
    links = xp.unique(xp.concatenate([theirs * n + local[mine - lo], inside]))
    # an all-gather of arrays of different lengths: the same bucket to every rank
    shared = ((links // n).astype(np.int32), (links % n).astype(np.int32))
    everyone = comm.alltoallv([shared] * piece.parts)
    ends_a, ends_b = (xp.concatenate([xp.asarray(b[i]) for b in everyone]).astype(np.int64)
                      for i in (0, 1))
    steps.mark(int(ends_a.size))
    steps.doing("final compress")
    labels = local
    if ends_a.size:
        ends = xp.unique(xp.concatenate([ends_a, ends_b]))
        roots = _linked_roots(xp, xp.searchsorted(ends, ends_a), xp.searchsorted(ends, ends_b),
                              int(ends.size))
        at = xp.minimum(xp.searchsorted(ends, local), ends.size - 1)
        labels = xp.where(ends[at] == local, ends[roots[at]], local)
    steps.mark(hi - lo)
    steps.doing("counting the roots")
    labels = labels.astype(np.int32)
    return steps.result(labels, roots=_roots(xp, labels, lo))


def _roots(xp: Any, labels: Any, lo: int) -> int:
    """The vertices ``lo + i`` labelled by themselves (``labels[i] == lo + i``): one per
    component whose smallest vertex is this rank's."""
    return int((labels == xp.arange(lo, lo + labels.size, dtype=labels.dtype)).sum())


def _linked_roots(xp: Any, a: Any, b: Any, size: int) -> Any:
    """Each of ``size`` vertices mapped to the smallest vertex of its component in the
    undirected graph of the links ``a[i] - b[i]``, by hooking and pointer jumping (Shiloach &
    Vishkin) in ``xp``'s memory: every round hooks the larger root of each link's ends onto the
    smaller (a scatter-min), then jumps pointers until every vertex points at a root. A parent
    is never larger than its child, so a root is the smallest vertex of its tree."""
    parent = xp.arange(size, dtype=np.int64)
    while True:
        pa, pb = parent[a], parent[b]
        low, high = xp.minimum(pa, pb), xp.maximum(pa, pb)
        if not bool((low != high).any()):
            return parent
        _scatter_min(xp, parent, high, low)
        while True:
            up = parent[parent]
            if bool((up == parent).all()):
                break
            parent = up


def _scatter_min(xp: Any, array: Any, at: Any, values: Any) -> None:
    """``array[at[i]] = min(array[at[i]], values[i])`` for every ``i``, repeated indices
    included, in place (NumPy's ``minimum.at``; CuPy's ``cupyx.scatter_min``)."""
    if xp is np:
        np.minimum.at(array, at, values)
    else:
        import cupyx

        cupyx.scatter_min(array, at, values)


#: The methods of connected components over partitions.
COMPONENT_METHODS = (ComponentsMethod.AFFOREST, ComponentsMethod.LABEL_PROPAGATION)


def components_arrays(graph: DistributedGraph, *, balancer: str | LoadBalancer | None = None,
                      target: str | Target | None = None,
                      method: str = "afforest") -> tuple[np.ndarray, RunReport]:
    """:func:`connected_components` gathered: each vertex labelled by the smallest vertex id of
    its component (int32), and the run's report."""
    result = connected_components(graph, method=method, balancer=balancer, target=target)
    return result.gather().labels, graph.last_run  # type: ignore[return-value]


def connected_components(graph: DistributedGraph, *, method: str = "afforest",
                         balancer: str | LoadBalancer | None = None,
                         target: str | Target | None = None) -> Distributed:
    """:func:`algorithms.connected_components` over the partitions of ``graph`` (weak
    components): ``"afforest"`` (:func:`_afforest_rank`: local afforest, the remote arcs
    exchanged once, a final compress) or ``"label_propagation"`` (labels cross partitions
    like distances, one exchange per round). Labels are each component's smallest vertex id,
    as with every method. Returns a :class:`~frontier.distributed.result.Distributed` whose
    ``gather()`` is the ``ComponentsResult``."""
    _check_graph(graph)
    method = validate.one_of("method", method, COMPONENT_METHODS, "method over partitions")
    _check_balancer(balancer)
    target = _target_name(target)
    if graph.directed and not graph.has_reverse:
        raise ValueError("connected components of a directed graph follow arcs both ways: "
                         "partition it with partition(G, P, reverse=True)")
    if graph.num_vertices == 0:
        empty = ComponentsResult(np.zeros(0, np.int32), 0, 0, 0.0, method, graph)  # type: ignore[arg-type]
        graph.runner.last_run = RunReport("connected components", 0)
        return Distributed(None, {"num_components": 0, "iterations": 0, "seconds": 0.0,
                                  "method": method}, lambda full: empty, on_host)
    rank = _afforest_rank if method == "afforest" else _components_rank
    phase = "afforest" if method == "afforest" else "label propagation"
    report, ranks, kept = _run_kept(graph, "connected components", rank, target,
                                    "thread" if balancer is None else balancer,
                                    what=f"connected components ({method})")
    count = sum(r.facts["roots"] for r in ranks)
    took = max(r.seconds for r in ranks)
    stats = [ComponentsStepStats(i, phase, size, 0.0)
             for i, size in enumerate(report.frontier_sizes)]

    def build(full: list[RankResult]) -> ComponentsResult:
        return ComponentsResult(_joined(full, 0), count, report.steps, took, method,
                                graph, stats)  # type: ignore[arg-type]

    return Distributed(kept, {"num_components": count, "iterations": report.steps,
                              "seconds": took, "method": method}, build, on_host)


# algorithms.bfs, sssp and connected_components run these on a DistributedGraph
register_version("bfs", bfs)
register_version("sssp", sssp)
register_version("connected_components", connected_components)
