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
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from algorithms.scale_out import scales_out
from frontier import Frontier, Graph, atomic_cas, validate
from frontier.frontier import KINDS as FRONTIER_KINDS
from frontier.target import Target, resolve_target
from operators import Direction, LoadBalancer, get_balancer, traverse

__all__ = ["bfs", "BFSResult", "LevelStats"]


@dataclass(frozen=True)
class LevelStats:
    """One BFS level: its frontier's size, the edges that frontier inspected, and host wall
    time of the level (None when the levels ran fused in one kernel)."""

    level: int
    frontier_size: int
    edges: int
    seconds: float | None


@dataclass(frozen=True)
class BFSResult:
    """``distances`` (int32, -1 unreachable), ``predecessors`` (int32, -1 for the source and
    unreachable vertices), the number of levels (advance steps with a non-empty frontier),
    the time of the traversal on the device (first launch to the read that ends it), and,
    computed on first use, per-level statistics."""

    distances: np.ndarray
    predecessors: np.ndarray
    iterations: int
    seconds: float
    graph: Graph = field(repr=False)
    level_seconds: list[float | None] = field(repr=False, default_factory=list)

    @cached_property
    def stats(self) -> list[LevelStats]:
        """Per level: frontier size, edges that frontier inspected, host time (None when the
        levels ran fused in one kernel)."""
        return _level_stats(self.graph, self.distances, self.level_seconds)

    @cached_property
    def edges_traversed(self) -> int:
        """Out-edges of every reached vertex: the edges a BFS inspects (MTEPS counts these)."""
        return int(self.graph.out_degrees()[self.distances >= 0].sum())


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


@scales_out("algorithms.distributed:bfs")
def bfs(graph: Graph, source: int, *, balancer: str | LoadBalancer | None = None,
        target: str | Target | None = None, frontier: str = "sparse",
        fused: bool | None = None, direction: str = "push", alpha: float | None = None,
        beta: float | None = None) -> BFSResult:
    """Distances and a shortest-path tree from ``source``, level by level.

    ``frontier`` is the form of the push levels: ``"sparse"`` (a queue) or ``"dense"`` (a
    bitmap, Harish & Narayanan's variant); pull levels always use a bitmap. ``fused`` (default
    True) runs push levels in one persistent kernel (:func:`operators.traverse`); ``fused=False``
    is a host loop of advances, which also times each level. ``balancer`` (default
    ``"thread"``) maps push levels onto threads. ``direction`` is ``"push"``, ``"pull"`` or
    ``"auto"`` (direction-optimizing: pull while the frontier holds more than |V|/``alpha``
    vertices, back to push below |V|/``beta``; defaults 64 and 24; :class:`operators.Direction`).
    A :class:`frontier.distributed.DistributedGraph` runs over its workers
    (:func:`algorithms.distributed.bfs`).

    Every argument is checked before any work (:mod:`frontier.validate`); an argument the
    chosen direction would ignore raises ``ValueError``: ``alpha`` and ``beta`` apply to
    ``"auto"`` only, ``balancer`` and ``fused`` to push levels (``"pull"`` runs none).
    """
    _check_source(graph, source)
    validate.one_of("frontier", frontier, FRONTIER_KINDS, "frontier kind")
    if fused is not None:
        validate.flag("fused", fused)
    plan = Direction(direction, alpha, beta)
    if direction == "pull":
        validate.unused("direction='pull' (every level pulls; no push level runs)",
                        {"balancer": balancer, "fused": fused})
    bal = get_balancer("thread" if balancer is None else balancer)
    tgt = resolve_target(target)
    distances = tgt.full(graph.num_vertices, -1, np.int32)
    predecessors = tgt.full(graph.num_vertices, -1, np.int32)
    tgt.write_scalar(distances, source, 0)
    f = Frontier.from_vertices(graph, [source], kind=frontier, target=tgt)

    start = time.perf_counter()
    run = traverse(graph, f, visit, distances, predecessors, condition=unvisited,
                   direction=plan, balancer=bal, fused=fused is not False)
    seconds = time.perf_counter() - start
    return BFSResult(tgt.to_host(distances), tgt.to_host(predecessors), run.steps, seconds,
                     graph, run.step_seconds)


def _check_source(graph: Graph, source: int) -> None:
    if not isinstance(graph, Graph):
        raise TypeError(f"expected a frontier.Graph, got {type(graph).__name__}")
    validate.vertex("source", source, graph.num_vertices)


def _level_stats(graph: Graph, distances: np.ndarray,
                 times: list[float | None]) -> list[LevelStats]:
    reached = distances >= 0
    levels = len(times)
    sizes = np.bincount(distances[reached], minlength=levels)
    edges = np.bincount(distances[reached], weights=graph.out_degrees()[reached],
                        minlength=levels).astype(np.int64)
    return [LevelStats(i, int(sizes[i]), int(edges[i]), t) for i, t in enumerate(times)]
