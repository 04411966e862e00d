"""Breadth-first search written with the operators (seed 004 §4.1; seed 002 §3.1).

The frontier-queue BFS: each level advances the frontier; an edge to an unvisited vertex claims
it with an atomic compare-and-swap on its distance, records its predecessor and puts it in the
next frontier. ``frontier="dense"`` is the seed 002 variant: the frontier is a bitmap over all
vertices (seed 000's bitmap working set), each level scanning every vertex for its bit.

``direction="auto"`` is direction-optimizing BFS (Beamer et al.; seed 004 §2.1): while the
frontier holds at most |V|/alpha vertices it pushes (top-down), in the fused kernel, which stops
on the device once the frontier outgrows that; then each unvisited vertex pulls (bottom-up),
looking for any parent in the frontier and stopping at the first, until the frontier shrinks
under |V|/beta and the fused push resumes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from frontier import Frontier, Graph, atomic_cas
from frontier.target import Target, resolve_target
from operators import LoadBalancer, advance, traverse

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
    """Claim ``dst`` for the next level if nobody has reached it yet."""
    if distances[dst] != -1:
        return False
    if atomic_cas(distances, dst, -1, distances[src] + 1) == -1:
        predecessors[dst] = src
        return True
    return False


def unvisited(v: int, distances: np.ndarray, predecessors: np.ndarray) -> bool:
    """Pull candidates: vertices no level has reached yet."""
    return distances[v] == -1


DIRECTIONS = ("push", "pull", "auto")


def bfs(graph: Graph, source: int, *, balancer: str | LoadBalancer = "thread",
        target: str | Target | None = None, frontier: str = "sparse",
        fused: bool = True, direction: str = "push", alpha: float = 64.0,
        beta: float = 24.0) -> BFSResult:
    """Distances and a shortest-path tree from ``source``, level by level.

    ``frontier`` is ``"sparse"`` (a queue) or ``"dense"`` (a bitmap, seed 002's variant).
    ``fused=True`` runs all levels in one persistent kernel (:func:`operators.traverse`);
    ``fused=False`` is the host loop of advances, which also times each level.
    ``direction`` is ``"push"``, ``"pull"`` or ``"auto"`` (direction-optimizing, switching at
    |V|/``alpha`` and |V|/``beta``); pull levels run one launch and one read each.
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction={direction!r}; expected one of {DIRECTIONS}")
    if direction != "push":
        return _bfs_directions(graph, source, balancer, target, direction, alpha, beta)
    tgt = resolve_target(target)
    _check_source(graph, source)
    distances = tgt.full(graph.num_vertices, -1, np.int32)
    predecessors = tgt.full(graph.num_vertices, -1, np.int32)
    tgt.write_scalar(distances, source, 0)
    f = Frontier.from_vertices(graph, [source], kind=frontier, target=tgt)

    start = time.perf_counter()
    times: list[float | None] = []
    if fused:
        levels = traverse(graph, f, visit, distances, predecessors, balancer=balancer).steps
        times = [None] * levels
    else:
        size = len(f)
        while size:
            level_start = time.perf_counter()
            f = advance(graph, f, visit, distances, predecessors, balancer=balancer,
                        output=frontier)
            size = len(f)
            times.append(time.perf_counter() - level_start)
    seconds = time.perf_counter() - start

    return BFSResult(tgt.to_host(distances), tgt.to_host(predecessors), len(times), seconds,
                     graph, times)


def _bfs_directions(graph: Graph, source: int, balancer: str | LoadBalancer,
                    target: str | Target | None, direction: str, alpha: float,
                    beta: float) -> BFSResult:
    """BFS that pulls (bottom-up) on every level, or on the large ones (Beamer's rule)."""
    tgt = resolve_target(target)
    _check_source(graph, source)
    distances = tgt.full(graph.num_vertices, -1, np.int32)
    predecessors = tgt.full(graph.num_vertices, -1, np.int32)
    tgt.write_scalar(distances, source, 0)
    f = Frontier.from_vertices(graph, [source], target=tgt)
    n = graph.num_vertices

    start = time.perf_counter()
    times: list[float | None] = []
    pulling, past_peak = direction == "pull", False
    size = len(f)
    while size:
        if not pulling:  # push, fused; before the peak, only until the frontier outgrows n/alpha
            run = traverse(graph, f if f.is_sparse else f.to_sparse(), visit, distances,
                           predecessors, balancer=balancer,
                           stop_above=None if past_peak else int(n / alpha))
            f, size = run.frontier, len(run.frontier)
            times += [None] * run.steps
            pulling = True
            continue
        level_start = time.perf_counter()
        f = advance(graph, f if f.kind == "dense" else f.to_dense(), visit, distances,
                    predecessors, direction="pull", candidate=unvisited, output="dense")
        grown, size = size, len(f)
        times.append(time.perf_counter() - level_start)
        if direction == "auto" and size < n / beta and size < grown:
            pulling, past_peak = False, True
    seconds = time.perf_counter() - start

    return BFSResult(tgt.to_host(distances), tgt.to_host(predecessors), len(times), seconds,
                     graph, times)


def _check_source(graph: Graph, source: int) -> None:
    if not isinstance(graph, Graph):
        raise TypeError(f"expected a frontier.Graph, got {type(graph).__name__}")
    if isinstance(source, bool) or not isinstance(source, (int, np.integer)):
        raise TypeError(f"source {source!r}; expected a vertex id (int)")
    if not 0 <= source < graph.num_vertices:
        raise ValueError(f"source {source} is out of range; the graph has "
                         f"{graph.num_vertices} vertices (ids 0..{graph.num_vertices - 1})")


def _level_stats(graph: Graph, distances: np.ndarray,
                 times: list[float | None]) -> list[LevelStats]:
    reached = distances >= 0
    levels = len(times)
    sizes = np.bincount(distances[reached], minlength=levels)
    edges = np.bincount(distances[reached], weights=graph.out_degrees()[reached],
                        minlength=levels).astype(np.int64)
    return [LevelStats(i, int(sizes[i]), int(edges[i]), t) for i, t in enumerate(times)]
