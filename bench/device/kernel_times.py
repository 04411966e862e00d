"""Each kernel of one call (balancer auto, target cuda), timed: the call's launches in order,
with the device synchronized before and after each (so a row is the kernel's time plus one
launch and one synchronization, about 10-20 us), and the call's wall time without the
synchronizations.

Usage on a CUDA machine, from the repository root (bench/device/env.sh sourced):
``python3 bench/device/kernel_times.py ALGORITHM[,ALGORITHM...] GRAPH [GRAPH...]``, e.g.
``bfs,sssp star1000000``; launches of one kernel and shape are summed in one row.
"""

from __future__ import annotations

import statistics
import sys
import time

from algorithms.catalog import CATALOG
from bench.graphs import build, source_of
from frontier.target import resolve_target


def timed_launches(target, call) -> list[tuple[str, int, int, float]]:
    """Run ``call`` with every launch of ``target`` synchronized and timed."""
    rows, run = [], target._run

    def timed(kernel, blocks, threads, args, cooperative):
        target.synchronize()
        start = time.perf_counter()
        run(kernel, blocks, threads, args, cooperative)
        target.synchronize()
        rows.append((getattr(kernel, "__name__", str(kernel)), blocks, threads,
                     1e3 * (time.perf_counter() - start)))

    target._run = timed
    try:
        call()
    finally:
        del target._run
    return rows


def main() -> None:
    names, graphs = sys.argv[1].split(","), sys.argv[2:]
    cuda = resolve_target("cuda")
    for graph_name in graphs:
        graph = build(graph_name)
        for name in names:
            entry = CATALOG[name]
            source = source_of(graph) if entry.source else None

            def call(entry=entry, source=source, graph=graph):
                return entry.invoke(graph, source, balancer="auto", target=cuda)

            for _ in range(3):
                call()
            walls = []
            for _ in range(7):
                start = time.perf_counter()
                call()
                walls.append(1e3 * (time.perf_counter() - start))
            rows = timed_launches(cuda, call)
            print(f"{name} {graph_name}: wall {statistics.median(walls):.3f} ms (median of 7), "
                  f"{len(rows)} launches, {sum(r[3] for r in rows):.3f} ms synchronized")
            kernels: dict[tuple[str, int, int], list[float]] = {}
            for kernel, blocks, threads, ms in rows:
                kernels.setdefault((kernel, blocks, threads), []).append(ms)
            for (kernel, blocks, threads), times in kernels.items():
                print(f"  {sum(times):9.3f} ms  {len(times):5d} x  {blocks:6d} x {threads:4d}"
                      f"  {kernel}")


if __name__ == "__main__":
    main()
