"""Breadth-first search written with the operators (Busato & Bombieri, *Graph Algorithms on
GPUs*, §2.1; Harish & Narayanan, *Accelerating Large Graph Algorithms on the GPU Using CUDA*,
§3.1).

The frontier-queue BFS: each level advances the frontier; an edge to an unvisited vertex (the
condition, Ligra's ``cond``) claims it with an atomic compare-and-swap on its distance, records
its predecessor and puts it in the next frontier. ``frontier="dense"`` is Harish & Narayanan's
variant: the frontier is a bitmap over all vertices (Li & Becchi's bitmap working set), each
level scanning every vertex for its bit.

``direction="auto"`` is direction-optimizing BFS (Beamer et al., SC 2012): the operators decide
per level between pushing from the frontier and letting every unvisited vertex pull from it
(:class:`operators.Direction`); the algorithm is the same one call to ``traverse``.

The defaults are ``balancer="auto"`` and ``direction="auto"``: the adaptive runtime
(:mod:`operators.adaptive`; Li & Becchi, §VI) picks the balancer, the frontier's form, the
direction and the kernel mode at every level, and ``BFSResult.stats`` records each choice.
A call reuses the graph's pooled frontier buffers of the calling thread (queues of |V| entries:
the compare-and-swap claims each vertex once) and, for host results on a GPU, its distance
buffers (per thread too, so calls from several threads on one graph do not share them); on
the cpu target the result arrays are made for the call and handed over without a copy
(:meth:`frontier.frontier.FrontierPool.results`); ``out="device"`` leaves the results on the target.

``order="unordered"`` is Li & Becchi's unordered BFS (*Deploying Graph Algorithms on GPUs: an
Adaptive Solution*, §IV.A, Figure 4): a vertex's level is lowered with an atomic min whenever a
shorter way reaches it, and it re-enters the working set each time; levels decrease
monotonically and converge to the same values. The ordered BFS claims each vertex once (a
compare-and-swap), so it never repeats work; the unordered one needs no "visited" test and, on a
fused traversal, may lower a level within the step it was set. Its predecessors are derived from
the final levels (:mod:`algorithms.tree`). ``cull`` removes repeated vertices from each push
step's queue (:mod:`operators.cull`).

``sources=[...]`` starts from several vertices at once: every source is at level 0, and a
vertex's distance is the least over the sources. With ``per_source=True`` each source has a
BFS of its own instead, one row of distances and predecessors per source (in the order given,
repeats allowed), each equal to a call from that source alone; the sources run together, one
traversal over one copy of the graph per source (:mod:`operators.sources`), so a batch of
sources costs the launches and reads of one BFS.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from algorithms.entry import Entry, Option, testing
from algorithms.output import check_out, on_host
from algorithms.tree import shortest_path_tree
from frontier import Frontier, Graph, atomic_cas, atomic_min, options, validate
from frontier.distributed.dispatch import scales_out
from frontier.frontier import split
from frontier.options import Cull, Kind, Way
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import Direction, LoadBalancer, compute, get_balancer, resolve_policy, traverse
from operators.adaptive import Decision
from operators.sources import Batch, batches, in_row

__all__ = ["bfs", "BFSResult", "LevelStats", "BFSOrder", "ENTRIES"]


class BFSOrder(options.Option):
    """``order=``: claim each vertex once, or lower levels as shorter ways are found."""

    ORDERED = "ordered"
    UNORDERED = "unordered"


_UNSET_LEVEL = np.iinfo(np.int32).max


@dataclass(frozen=True)
class LevelStats:
    """One BFS level: its frontier's size, the edges that frontier inspected, host wall time of
    the level (None when the levels ran fused in one kernel), and what ran it: the balancer,
    the frontier's representation (``"sparse"`` queue or ``"dense"`` bitmap), the direction
    (``"push"``/``"pull"``) and the mode (``"fused"``/``"host"``)."""

    level: int
    frontier_size: int
    edges: int
    seconds: float | None
    balancer: str = ""
    representation: str = ""
    direction: str = ""
    mode: str = ""


@dataclass(frozen=True)
class BFSResult:
    """``distances`` (int32, -1 unreachable), ``predecessors`` (int32, -1 for the source and
    unreachable vertices; with ``per_source=True`` both have one row per source), the number
    of levels (advance steps with a non-empty frontier; per source: the most of any batch),
    the time of the traversal on the device (first launch to the read that ends it), and,
    computed on first use, per-level statistics, and the ``target`` that ran it. With
    ``out="device"`` the two arrays are the target's (:mod:`algorithms.output`)."""

    distances: Any
    predecessors: Any
    iterations: int
    seconds: float
    graph: Graph = field(repr=False)
    level_seconds: Sequence[float | None] = field(repr=False, default_factory=list)
    choices: Sequence[Decision] = field(repr=False, default_factory=list)
    target: Target | None = field(repr=False, default=None)

    @cached_property
    def host_distances(self) -> np.ndarray:
        """``distances`` as a host array (a copy only when they live on a device)."""
        return on_host(self.distances)

    @cached_property
    def stats(self) -> list[LevelStats]:
        """Per level: frontier size, edges that frontier inspected, host time (None when the
        levels ran fused in one kernel), and the balancer, representation, direction and mode
        that ran it."""
        return _level_stats(self.graph, self.host_distances, self.level_seconds, self.choices)

    @cached_property
    def edges_traversed(self) -> int:
        """Out-edges of every reached vertex: the edges a BFS inspects (MTEPS counts these)."""
        degrees = np.broadcast_to(self.graph.out_degrees(), self.host_distances.shape)
        return int(degrees[self.host_distances >= 0].sum())


def visit(src: int, dst: int, eid: int, weight: int, distances: np.ndarray,
          predecessors: np.ndarray) -> bool:
    """Claim ``dst`` for the next level if nobody has claimed it yet (the condition
    :func:`unvisited` was true when the edge was reached; another thread may have won since)."""
    if atomic_cas(distances, dst, -1, distances[src] + 1) == -1:
        predecessors[dst] = src
        return True
    return False


def unvisited(v: int, distances: np.ndarray, predecessors: np.ndarray) -> bool:
    """Ligra's condition: ``v`` may still be claimed (no level has reached it yet)."""
    return distances[v] == -1


def lower_level(src: int, dst: int, eid: int, weight: int, distances: np.ndarray) -> bool:
    """Unordered BFS: lower ``dst``'s level if this edge gives a smaller one (Li & Becchi)."""
    new = distances[src] + 1
    return atomic_min(distances, dst, new) > new


@scales_out("bfs")
def bfs(graph: Graph, source: int | None = None, *, sources: Any = None,
        balancer: str | LoadBalancer = "auto",
        target: str | Target | None = None, frontier: str = "sparse",
        fused: bool | None = None, direction: str = "auto", alpha: float | None = None,
        beta: float | None = None, out: str = "host", order: str = "ordered",
        cull: str = "none", per_source: bool = False) -> BFSResult:
    """Distances and a shortest-path tree from ``source`` (or from every vertex of
    ``sources``: distances are the least over them), level by level.

    ``balancer`` is ``"auto"`` (the adaptive runtime chooses per level, :mod:`operators.adaptive`)
    or a static balancer. ``frontier`` is the form of the first frontier and, with a static
    balancer, of every push level: ``"sparse"`` (a queue) or ``"dense"`` (a bitmap, Harish &
    Narayanan's variant); with ``"auto"`` the runtime chooses it per level (pull levels always
    use a bitmap). ``fused`` (default True) runs push levels in one persistent kernel where the
    balancer allows (:func:`operators.traverse`); ``fused=False`` is a host loop of advances,
    which also times each level. ``direction`` is ``"push"``, ``"pull"`` or ``"auto"``
    (direction-optimizing: pull while the frontier holds more than |V|/``alpha`` vertices, back
    to push below |V|/``beta``; defaults 64 and 24; :class:`operators.Direction`).
    ``out="host"`` returns numpy arrays; ``out="device"`` leaves them on the target, with no
    copy (:mod:`algorithms.output`). ``target`` is ``"cuda"``, ``"cpu"`` or ``"auto"`` (None,
    the default: the cpu target for tiny and long thin graphs where a GPU is usable,
    :func:`frontier.target.resolve_target`). ``order`` is ``"ordered"`` or ``"unordered"`` and
    ``cull`` ``"none"``, ``"bitmap"`` or ``"hash"`` (see the module docstring).
    ``per_source=True`` (with ``sources=``) returns one row of distances and predecessors per
    source, each a BFS from that source alone, the sources run together (module docstring).
    A :class:`frontier.distributed.DistributedGraph` runs over its workers
    (:func:`algorithms.distributed.bfs`).

    Every argument is checked before any work (:mod:`frontier.validate`); an argument the
    chosen direction would ignore raises ``ValueError``: ``alpha`` and ``beta`` apply to
    ``"auto"`` only, a static ``balancer`` and ``fused`` to push levels (``"pull"`` runs none).
    """
    validate.flag("per_source", per_source)
    if per_source and sources is None:
        raise ValueError("per_source=True gives one row per vertex of sources=[...]; pass "
                         "sources, or per_source=False with a single source")
    starts = _starts(graph, source, sources, distinct=not per_source)
    validate.one_of("frontier", frontier, Kind, "frontier kind")
    validate.one_of("order", order, BFSOrder, "BFS order")
    validate.one_of("cull", cull, Cull, "duplicate culling")
    check_out(out)
    if fused is not None:
        validate.flag("fused", fused)
    plan = Direction(direction, alpha, beta)
    if direction == "pull":
        validate.unused("direction='pull' (every level pulls; no push level runs)",
                        {"balancer": None if balancer == "auto" else balancer, "fused": fused})
    bal = get_balancer(balancer)
    tgt = resolve_target(target, graph)
    if per_source:
        return _per_source(graph, starts, bal, tgt, frontier, fused, (direction, alpha, beta),
                           out, order, cull)
    policy = resolve_policy(bal, graph, tgt)
    n = graph.num_vertices
    unordered = order == "unordered"
    # a queue holds each vertex once a step, unless unordered levels drop twice in one step
    f = Frontier.from_vertices(graph, starts, kind=frontier, target=tgt,
                               capacity=None if unordered and cull != "bitmap" else n,
                               shared=not unordered or cull == "bitmap")
    # distances then predecessors in one buffer: one fill, at most one copy back
    if out == "device":
        both = tgt.empty(2 * n, np.int32)
        distances, predecessors = split(both, n, 2)
    else:
        both, distances, predecessors = f.pool.results("bfs.state", n, 2, np.int32)
    tgt.fill(both, -1)
    if unordered:
        tgt.fill(distances, _UNSET_LEVEL)
    for s in starts:
        tgt.write_scalar(both, int(s), 0)

    start = time.perf_counter()
    if unordered:
        run = traverse(graph, f, lower_level, distances, direction=plan, balancer=policy,
                       fused=fused is not False, cull=cull)
        shortest_path_tree(graph, starts, distances, _UNSET_LEVEL, True, tgt, policy,
                           hops=True, pred=predecessors)
    else:
        run = traverse(graph, f, visit, distances, predecessors, condition=unvisited,
                       direction=plan, balancer=policy, fused=fused is not False, cull=cull)
    seconds = time.perf_counter() - start
    if out == "host":
        distances, predecessors = split(tgt.hand_over(both), n, 2)
        if unordered:
            distances[distances == _UNSET_LEVEL] = -1
    elif unordered:
        _unset_to_minus_one(graph, distances, tgt)
    return BFSResult(distances, predecessors, run.steps, seconds, graph, run.step_seconds,
                     run.choices, tgt)


def unset_to_minus_one(v: int, distances: Any) -> None:
    if distances[v] == _UNSET_LEVEL_VALUE:
        distances[v] = -1


_UNSET_LEVEL_VALUE = int(_UNSET_LEVEL)


def _unset_to_minus_one(graph: Graph, distances: Any, target: Target) -> None:
    """Unreached levels of an unordered BFS become -1 on the device (``out="device"``)."""
    compute(graph, "vertices", unset_to_minus_one, distances, target=target)


def _start_rows(c: int, both: Any, starts: Any, n: int, rows: int, unset: Any) -> None:
    """Row ``c // n`` of the distances (``unset`` but 0 at its source) and of the predecessors
    (-1, in the second half of ``both``) before the traversal."""
    if c < rows * n:
        both[c] = 0 if starts[c // n] == c % n else unset
    else:
        both[c] = -1


def _per_source(graph: Graph, starts: np.ndarray, balancer: LoadBalancer, tgt: Target,
                frontier: str, fused: bool | None, way: tuple, out: str, order: str,
                cull: str) -> BFSResult:
    """One BFS per source, the sources of a batch run as one traversal of the graph's copies
    (:mod:`operators.sources`): distances and predecessors with one row per source. ``way``:
    the direction's arguments, a fresh :class:`Direction` (its switching state) per batch."""
    n, k = graph.num_vertices, starts.size
    unordered = order == "unordered"
    both = tgt.empty(2 * k * n, np.int32)
    distances, predecessors = split(both, k * n, 2)
    if k * n:
        compute(None, 2 * k * n, _start_rows, both, tgt.to_device(starts), n, k,
                _UNSET_LEVEL if unordered else -1, target=tgt)
    start = time.perf_counter()
    longest = None
    for batch in batches(graph, starts, target=tgt):
        run = _batch(batch, balancer, tgt, frontier, fused, Direction(*way), unordered, cull,
                     batch.rows(distances), batch.rows(predecessors))
        if longest is None or run.steps > longest.steps:
            longest = run
    seconds = time.perf_counter() - start
    if out == "host":
        distances, predecessors = split(tgt.hand_over(both), k * n, 2)
        if unordered:
            distances[distances == _UNSET_LEVEL] = -1
    elif unordered:
        _unset_to_minus_one(graph.copies(k), distances, tgt)
    if not unordered:  # the visit recorded the copies' vertices (the tree's are the graph's)
        in_row(predecessors, n, tgt)
    return BFSResult(distances.reshape(k, n), predecessors.reshape(k, n), longest.steps,
                     seconds, graph, longest.step_seconds, longest.choices, tgt)


def _batch(batch: Batch, balancer: LoadBalancer, tgt: Target, frontier: str,
           fused: bool | None, plan: Direction, unordered: bool, cull: str, distances: Any,
           predecessors: Any) -> Any:
    """The traversal of one batch of sources over its copies (their rows already set)."""
    g = batch.graph
    policy = batch.policy(balancer, tgt)
    plan = batch.direction(plan, tgt)
    f = Frontier.from_vertices(g, batch.starts, kind=frontier, target=tgt,
                               capacity=None if unordered and cull != "bitmap" else
                               g.num_vertices, shared=not unordered or cull == "bitmap")
    if unordered:
        run = traverse(g, f, lower_level, distances, direction=plan, balancer=policy,
                       fused=fused is not False, cull=cull)
        shortest_path_tree(g, batch.starts, distances, _UNSET_LEVEL, True, tgt, policy,
                           hops=True, pred=predecessors, row=batch.row)
        return run
    return traverse(g, f, visit, distances, predecessors, condition=unvisited, direction=plan,
                    balancer=policy, fused=fused is not False, cull=cull)


def _starts(graph: Graph, source: int | None, sources: Any, distinct: bool = True
            ) -> np.ndarray:
    """The start vertices of ``source`` or ``sources`` (exactly one of them given): distinct
    ones unless ``distinct=False`` (each source in the order given)."""
    validate.graph(graph)
    if (source is None) == (sources is None):
        raise TypeError("pass a source vertex or sources=[...], exactly one of them")
    if source is not None:
        return np.asarray([validate.source(graph, source)], dtype=np.int64)
    listed = validate.sources(graph, sources)
    if listed.size == 0:
        raise ValueError("sources=[] is empty; expected at least one vertex")
    return np.unique(listed) if distinct else listed.astype(np.int64)


def _level_stats(graph: Graph, distances: np.ndarray, times: Sequence[float | None],
                 choices: Sequence[Decision]) -> list[LevelStats]:
    reached = distances >= 0
    levels = len(times)
    degrees = np.broadcast_to(graph.out_degrees(), distances.shape)  # a row per source, or one
    sizes = np.bincount(distances[reached], minlength=levels)
    edges = np.bincount(distances[reached], weights=degrees[reached],
                        minlength=levels).astype(np.int64)
    return [LevelStats(i, int(sizes[i]), int(edges[i]), t, c.label, c.representation,
                       c.direction, c.mode)
            for i, (t, c) in enumerate(zip(times, choices, strict=True))]


# the catalog entries ------------------------------------------------------------------------
def _direction_optimizing(graph: Graph, source: int, **options: Any) -> BFSResult:
    """:func:`bfs` with ``direction="auto"`` (the ``bfs_do`` command)."""
    return bfs(graph, source, direction="auto", **options)


def _check(graph: Graph, source: int, result: BFSResult) -> None:
    testing.check_bfs(graph, source, result.host_distances, on_host(result.predecessors))


def _report(result: BFSResult) -> list[tuple[str, str]]:
    return [("reached", f"{int(np.count_nonzero(result.host_distances >= 0)):,} vertices")]


_FRONTIER = Option("frontier", Kind, Kind.SPARSE,
                   "the frontier's form: a vertex queue or a bitmap", shown="{} frontier")
_CHECKS = "distances equal scipy.sparse.csgraph; predecessors form a shortest-path tree"

ENTRIES = (
    Entry(name="bfs", description="breadth-first search: distances and a shortest-path tree",
          run=bfs, reference=testing.reference_bfs, check=_check, checks=_CHECKS,
          report=_report,
          options=(_FRONTIER,
                   Option("direction", Way, Way.AUTO, "auto: direction-optimizing BFS"),
                   Option("order", BFSOrder, BFSOrder.ORDERED,
                          "unordered: levels lowered by an atomic min (Li & Becchi)"),
                   Option("cull", Cull, Cull.NONE,
                          "remove repeated vertices from each push step's queue",
                          shown="cull {}")), traced=True),
    Entry(name="bfs_do", description="direction-optimizing BFS (Beamer et al., SC 2012): push "
          "while the frontier is small, pull while it is large",
          run=_direction_optimizing, reference=testing.reference_bfs, check=_check,
          checks=_CHECKS,
          report=_report, options=(_FRONTIER,), traced=True),
)
