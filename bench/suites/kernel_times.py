"""Each kernel of a call, timed: where a default call's device time goes, launch by launch.

For each algorithm of ``--algorithms`` on each graph of ``--graphs``, the default call
(``balancer="auto"``) is warmed up, its wall time taken (median of ``--runs``), then one more
call runs with the device synchronized before and after every launch of the target, so each
launch's time is the kernel's plus one launch and one synchronization (tens of µs on a GPU).
Launches of one kernel with one shape are summed into one row: the call's kernels, slowest
first, with the call's wall time and the sum of its synchronized launches beside them.

``python -m bench kernel_times --out DIR [--target cuda] [--algorithms bfs,sssp]
[--graphs star1000000]`` writes ``kernel_times.csv`` and ``kernel_times.md``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from bench import baselines, options, tables
from bench.graphs import build, source_of
from bench.progress import Progress
from bench.timing import time_calls
from frontier.runtime.target import Target
from frontier.target import resolve_target


@dataclass
class Row:
    algorithm: str
    graph: str
    target: str
    kernel: str
    blocks: int
    threads: int
    launches: int
    ms: float
    call_wall_ms: float
    call_launches_ms: float


def timed_launches(target: Target, call: Callable[[], object]
                   ) -> list[tuple[str, int, int, float]]:
    """Run ``call`` with every launch of ``target`` (plain and cooperative) synchronized and
    timed: (kernel, blocks, threads, ms) per launch, in order."""
    launches: list[tuple[str, int, int, float]] = []

    def timing(run: Callable) -> Callable:
        def timed(kernel: Callable, blocks: int, threads: int, args: tuple) -> None:
            target.synchronize()
            start = time.perf_counter()
            run(kernel, blocks, threads, args)
            target.synchronize()
            launches.append((getattr(kernel, "__name__", str(kernel)), blocks, threads,
                             1e3 * (time.perf_counter() - start)))
        return timed

    target._launch = timing(target._launch)
    target._launch_cooperative = timing(target._launch_cooperative)
    try:
        call()
    finally:
        del target._launch, target._launch_cooperative
    return launches


def measure(algorithm: str, name: str, target: Target, runs: int) -> list[Row]:
    graph = build(name)
    source = source_of(graph) if baselines.takes_source(algorithm) else None
    call = partial(baselines.run, algorithm, graph, source, target=target)
    wall = 1e3 * time_calls(call, runs=runs, target=target).wall_s
    launches = timed_launches(target, call)
    kernels: dict[tuple[str, int, int], list[float]] = {}
    for kernel, blocks, threads, ms in launches:
        kernels.setdefault((kernel, blocks, threads), []).append(ms)
    total = sum(ms for *_, ms in launches)
    rows = [Row(algorithm, name, target.name, kernel, blocks, threads, len(times),
                round(sum(times), 4), round(wall, 4), round(total, 4))
            for (kernel, blocks, threads), times in kernels.items()]
    return sorted(rows, key=lambda r: -r.ms)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_runs(parser)
    options.add_graphs(parser, "star1000000")
    options.add_names(parser, "--algorithms", "bfs,sssp", "catalog algorithms",
                      baselines.names(any_graph_only=True))


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    progress = Progress(len(args.algorithms) * len(args.graphs), "kernel_times")
    rows: list[Row] = []
    for name in args.graphs:
        for algorithm in args.algorithms:
            found = measure(algorithm, name, target, args.runs)
            rows += found
            progress.step(f"{algorithm} on {name}: {len(found)} kernels, "
                          f"wall {found[0].call_wall_ms if found else 0:.3f} ms")
            tables.write(rows, args.out, "kernel_times")
    print(tables.markdown(rows))
    return 0
