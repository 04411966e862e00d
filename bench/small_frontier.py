"""The small-frontier mode against the grid-wide fused mode, on many-level graphs (issue 12).

``python -m bench.small_frontier [--graphs path1000000,luxembourg_osm,grid2000,rmat21] [--runs 5]``

For each graph: the default call ``bfs(G, s)`` (s the vertex of largest degree) with the
small-frontier mode (the default) and without it (``block_frontier`` and ``block_edges`` set to
1, so every fused level is grid-wide), median of ``--runs`` after a warm-up (one run for the
path with the mode off: ~4.7 s), each checked equal to scipy's BFS distances; prints ms per
call and per level.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

import numpy as np
import scipy.sparse.csgraph as csgraph

from algorithms import bfs
from bench.adaptive import load_graph
from frontier.target import resolve_target
from operators.adaptive import thresholds_for
from operators.balancers import AutoBalancer


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.small_frontier")
    parser.add_argument("--graphs", default="path1000000,luxembourg_osm,grid2000,rmat21")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    device = thresholds_for(resolve_target("cuda"))
    off = AutoBalancer(replace(device, block_frontier=1, block_edges=1,
                               source="no small-frontier mode"))
    print("| graph | levels | mode on ms | per level µs | mode off ms | per level µs | on/off |")
    print("|---|---|---|---|---|---|---|")
    for name in args.graphs.split(","):
        graph = load_graph(name)
        source = int(np.argmax(graph.out_degrees()))
        expected = csgraph.shortest_path(graph.to_scipy(), unweighted=True, indices=source)
        expected = np.where(np.isinf(expected), -1, expected).astype(np.int32)
        row = []
        for balancer in ("auto", off):
            runs = 1 if name.startswith("path") and balancer is off else args.runs
            result = bfs(graph, source, balancer=balancer)
            assert np.array_equal(result.distances, expected), name
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                result = bfs(graph, source, balancer=balancer)
                times.append(time.perf_counter() - start)
            ms = statistics.median(times) * 1e3
            row.append((ms, ms * 1e3 / max(result.iterations, 1), result.iterations))
        (on, on_level, levels), (off_ms, off_level, _) = row
        print(f"| {name} | {levels:,} | {on:.2f} | {on_level:.2f} | {off_ms:.2f} | "
              f"{off_level:.2f} | {on / off_ms:.2f} |", flush=True)


if __name__ == "__main__":
    main()
