"""``frontier calibrate``: measure the adaptive runtime's thresholds on the current device and keep
them in the per-user cache that later runs read (:mod:`operators.adaptive`; Li & Becchi,
*Deploying Graph Algorithms on GPUs: an Adaptive Solution*, §VII.B tune T2 and T3 the same way,
by timing the competing implementations over working sets of growing size).

Two crossovers are measured, each from single push steps (one advance, host-timed with a
synchronization, median of ``runs``) whose functor marks the heads it reaches:

* **T2**: frontiers of ``s`` random vertices of a 4-neighbour grid (degree 4), ``thread``
  against ``warp``: T2 is the smallest ``s`` at which one thread per vertex is as fast as
  virtual warps;
* **hub_degree**: the hub of a star of degree ``d``, ``dynamic_warp`` (the best fused balancer
  for hubs, which gathers a hub with one block) against ``two_phase``: the smallest ``d`` at
  which splitting the edges evenly over all threads pays for two_phase's extra launches and
  host read.

T1 (32) and T3 (6 % of |V|) keep Li & Becchi's values. A crossover counts only where the
challenger wins by 10 % at two consecutive sizes (single steps are launch-bound: on an H100 every
grid step measured 150–210 µs whatever its size); otherwise the device's value stays.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from frontier import generators
from frontier.frontier import Frontier
from frontier.graph import Graph
from frontier.runtime.target import Target
from operators.adaptive import (
    Thresholds,
    check_calibration_output,
    device_thresholds,
    save_calibration,
)
from operators.advance import advance
from operators.balancers import Regime, serving

__all__ = ["Calibration", "calibrate", "FULL", "QUICK"]

#: The balancers whose crossovers set T2 (a small frontier's against a thin one's) and
#: ``hub_degree`` (the hub steps' against a heavy frontier's): those ``"auto"`` runs there.
THIN, SMALL = serving(Regime.THIN).name, serving(Regime.SMALL).name
HEAVY, HUBS = serving(Regime.HEAVY).name, serving(Regime.HUBS).name


@dataclass(frozen=True)
class Sizes:
    """What is measured: the grid's side and the frontier sizes for T2, the star degrees for
    ``hub_degree``."""

    grid_side: int
    frontier_sizes: tuple[int, ...]
    hub_degrees: tuple[int, ...]


FULL = Sizes(1024, tuple(1 << k for k in range(8, 19)), tuple(1 << k for k in range(8, 21, 2)))
QUICK = Sizes(16, (8, 32, 128), (16, 64))


@dataclass(frozen=True)
class Calibration:
    """The thresholds found and the step times (seconds) they come from."""

    thresholds: Thresholds
    t2_times: dict[int, dict[str, float]]
    hub_times: dict[int, dict[str, float]]

    def measured(self) -> dict[str, Any]:
        return {"t2_seconds": {str(k): v for k, v in self.t2_times.items()},
                "hub_seconds": {str(k): v for k, v in self.hub_times.items()},
                "date": time.strftime("%Y-%m-%d")}


def _mark(src: int, dst: int, eid: int, weight: int, marks: np.ndarray) -> bool:
    marks[dst] = 1
    return False


def step_seconds(graph: Graph, target: Target, vertices: np.ndarray, balancer: str,
                 runs: int) -> float:
    """Median wall time of one push advance of ``balancer`` over ``vertices`` (after a
    warm-up step that compiles its kernels)."""
    frontier = Frontier.from_vertices(graph, vertices, target=target)
    marks = target.zeros(graph.num_vertices, np.int8)
    times = []
    for i in range(runs + 1):
        target.synchronize()
        start = time.perf_counter()
        advance(graph, frontier, _mark, marks, balancer=balancer, output="none")
        target.synchronize()
        if i:
            times.append(time.perf_counter() - start)
    return statistics.median(times)


#: A crossover counts where the challenger is this much faster (time ratio) at two consecutive
#: sizes: single steps are launch-bound, and a noisy win must not move a threshold.
MARGIN = 0.9


def _crossover(times: dict[int, dict[str, float]], challenger: str, incumbent: str,
               default: int) -> int:
    """The smallest size from which ``challenger`` beats ``incumbent`` by :data:`MARGIN` at that
    size and the next one; ``default`` when no such size was measured."""
    sizes = sorted(times)
    wins = [times[s][challenger] <= MARGIN * times[s][incumbent] for s in sizes]
    for i in range(len(sizes) - 1):
        if wins[i] and wins[i + 1]:
            return sizes[i]
    return default


def calibrate(target: Target, sizes: Sizes = FULL, runs: int = 5,
              seed: int = 0) -> Calibration:
    """Measure T2 and ``hub_degree`` on ``target`` (see the module docstring)."""
    rng = np.random.default_rng(seed)
    grid = generators.grid2d(sizes.grid_side, sizes.grid_side)
    t2_times: dict[int, dict[str, float]] = {}
    for size in sizes.frontier_sizes:
        if size > grid.num_vertices:
            break
        vertices = rng.choice(grid.num_vertices, size, replace=False)
        t2_times[size] = {b: step_seconds(grid, target, vertices, b, runs)
                          for b in (THIN, SMALL)}
    hub_times: dict[int, dict[str, float]] = {}
    for degree in sizes.hub_degrees:
        star = generators.star(degree + 1)
        hub_times[degree] = {b: step_seconds(star, target, np.array([0]), b, runs)
                             for b in (HEAVY, HUBS)}
    base = device_thresholds(target)
    found = base.with_values({"t2": _crossover(t2_times, THIN, SMALL, base.t2),
                              "hub_degree": _crossover(hub_times, HUBS, HEAVY,
                                                       base.hub_degree)},
                             f"calibrated on {target.device_name}")
    return Calibration(found, t2_times, hub_times)


def calibrate_and_save(target: Target, sizes: Sizes = FULL, runs: int = 5) -> tuple[
        Calibration, Any]:
    """:func:`calibrate`, then store the result in the cache; returns it and the file. A cache
    that cannot be written is refused first (:func:`check_calibration_output`)."""
    check_calibration_output()
    result = calibrate(target, sizes, runs)
    return result, save_calibration(target.device_name, result.thresholds, result.measured())


def describe(result: Calibration, columns: Sequence[str] = (THIN, SMALL)) -> list[str]:
    """Lines of a report: the step times per size and the thresholds chosen."""
    lines = ["frontier size   " + "  ".join(f"{c:>12}" for c in columns)]
    lines += [f"{size:>13,}   " + "  ".join(f"{t[c] * 1e6:>10.1f}us" for c in columns)
              for size, t in sorted(result.t2_times.items())]
    lines.append("hub degree      " + "  ".join(f"{c:>12}" for c in (HEAVY,
                                                                    HUBS)))
    lines += [f"{size:>13,}   " + "  ".join(f"{t[c] * 1e6:>10.1f}us"
                                            for c in (HEAVY, HUBS))
              for size, t in sorted(result.hub_times.items())]
    th = result.thresholds
    lines.append(f"thresholds      t1={th.t1:g} t2={th.t2:,} t3={th.t3:g} "
                 f"hub_edges={th.hub_edges:,} hub_degree={th.hub_degree:,} "
                 f"host_edges={th.host_edges:,} sample_every={th.sample_every} "
                 f"hand_back_steps={th.hand_back_steps} blind_steps={th.blind_steps} ({th.source})")
    return lines
