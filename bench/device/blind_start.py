"""A traversal from a queue only the device knows, started blind and measured: BFS written as
``traverse`` from a one-vertex queue made by a filter (as k-core's rounds and strongly connected
components' passes make theirs), with the default adaptive policy, once as it runs (a blind
first phase, ``operators.adaptive.blind``) and once with the first length and degree sum read
and measured (the schedule told to read), in turns; wall ms of filter and traversal (median
of five after a warm-up, per turn) and each run's phases (balancer, mode, range, steps).

Usage from the repository root (bench/device/env.sh sourced on a CUDA machine):
``python3 bench/device/blind_start.py TURNS GRAPH [GRAPH ...]``
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import operators
from bench.graphs import build, source_of
from frontier import Frontier
from frontier.target import resolve_target
from operators import policy as policy_module
from operators import resolve_policy, traverse


def visit(src, dst, eid, weight, dist):
    if dist[dst] < 0:
        dist[dst] = dist[src] + 1
        return True
    return False


def unvisited(v, dist):
    return dist[v] < 0


def is_source(v, dist):
    return dist[v] == 0


def measured(schedule, frontier) -> bool:
    return True


def main() -> None:
    turns, names = int(sys.argv[1]), sys.argv[2:]
    blind = policy_module.AdaptiveSchedule.reads_size
    target = resolve_target("cuda")
    for name in names:
        graph = build(name)
        source = source_of(graph)
        policy = resolve_policy("auto", graph, target)
        times: dict[str, list[float]] = {}
        for mode in ["blind", "measured"] * turns:
            policy_module.AdaptiveSchedule.reads_size = blind if mode == "blind" else measured
            runs = []
            for _ in range(6):
                dist = target.full(graph.num_vertices, -1, np.int32)
                target.write_scalar(dist, source, 0)
                target.synchronize()
                began = time.perf_counter()
                everyone = Frontier.all_vertices(graph, target=target, shared=True)
                start = operators.filter(graph, everyone, is_source, dist, output="sparse")
                run = traverse(graph, start, visit, dist, condition=unvisited, balancer=policy)
                target.synchronize()
                runs.append(time.perf_counter() - began)
            times.setdefault(mode, []).append(statistics.median(runs[1:]) * 1e3)
            phases = [(d.label, str(d.mode), d.until, n) for d, n in run.choices.runs()]
            print(f"  {mode}: {phases[:12]}", flush=True)
        policy_module.AdaptiveSchedule.reads_size = blind
        print(f"{name:16s} blind {' '.join(f'{t:.2f}' for t in times['blind'])} ms | "
              f"measured {' '.join(f'{t:.2f}' for t in times['measured'])} ms | "
              f"steps {run.steps}", flush=True)


if __name__ == "__main__":
    main()
