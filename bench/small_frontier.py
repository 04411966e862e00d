"""The small-frontier mode's thresholds on many-level graphs (issue 12), in one run.

``python -m bench.small_frontier [--graphs luxembourg_osm,grid2000,rmat21,path1000000]
[--configs 1x1,64x512,256x1024,1024x4096,2048x8192] [--runs 5] [--csv FILE]``

For each graph and each ``FRONTIERxEDGES`` configuration (``Thresholds.block_frontier`` and
``block_edges``; ``1x1`` turns the mode off, so every fused level is grid-wide; ``default`` is
the thresholds a default call uses): the call ``bfs(G, s)`` with those thresholds (s the vertex
of largest degree), median of ``--runs`` after a warm-up, each checked equal to scipy's BFS
distances; prints ms per call and µs per level, the levels run in one block, and writes a CSV.
A configuration whose call takes longer than ``--slow`` seconds is timed once.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from dataclasses import replace

import numpy as np

from algorithms import bfs
from bench.adaptive import load_graph, scipy_levels
from frontier.options import Mode
from frontier.target import resolve_target
from operators.adaptive import thresholds_for
from operators.balancers import AutoBalancer


def _balancer(config: str, device: object) -> AutoBalancer | str:
    if config == "default":
        return "auto"
    frontier, edges = (int(x) for x in config.split("x"))
    return AutoBalancer(replace(device, block_frontier=frontier, block_edges=edges,
                                source=f"bench {config}"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.small_frontier")
    parser.add_argument("--graphs", default="luxembourg_osm,grid2000,rmat21,path1000000")
    parser.add_argument("--configs", default="default,1x1,64x512,256x1024,1024x4096,2048x8192")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--slow", type=float, default=1.0)
    parser.add_argument("--csv", default=None)
    args = parser.parse_args(argv)
    device = thresholds_for(resolve_target("cuda"))
    print(f"thresholds {device}")
    print("| graph | config | levels | in one block | ms | µs per level |")
    print("|---|---|---|---|---|---|")
    rows = []
    for name in args.graphs.split(","):
        graph = load_graph(name)
        source = int(np.argmax(graph.out_degrees()))
        expected = scipy_levels(graph, source)
        for config in args.configs.split(","):
            balancer = _balancer(config, device)
            start = time.perf_counter()
            result = bfs(graph, source, balancer=balancer)  # warm-up: compiles
            runs = args.runs if time.perf_counter() - start < args.slow * 3 else 1
            assert np.array_equal(result.distances.astype(np.int64), expected), (name, config)
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                result = bfs(graph, source, balancer=balancer)
                times.append(time.perf_counter() - start)
                if times[-1] > args.slow:
                    break
            ms = statistics.median(times) * 1e3
            levels = result.iterations
            blocks = sum(c.mode == Mode.BLOCK for c in result.choices)
            rows.append({"graph": name, "config": config, "levels": levels,
                         "block_levels": blocks, "ms": ms, "runs": len(times),
                         "us_per_level": ms * 1e3 / max(levels, 1)})
            print(f"| {name} | {config} | {levels:,} | {blocks:,} | {ms:.3f} | "
                  f"{ms * 1e3 / max(levels, 1):.2f} |", flush=True)
            if args.csv:
                with open(args.csv, "w", newline="") as stream:
                    writer = csv.DictWriter(stream, fieldnames=list(rows[0]))
                    writer.writeheader()
                    writer.writerows(rows)


if __name__ == "__main__":
    main()
