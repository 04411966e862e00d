"""One warm-up and one BFS on a named graph, for Nsight Compute (bench/device/ncu_bfs.sh).

``python -m bench profile_bfs --graphs grid2000 --balancer thread [--direction auto]`` runs the
BFS from the vertex of largest degree twice (the first compiles; the profiler picks the kernel
launches to keep with ``--launch-skip``) and writes the second's time to ``profile_bfs.csv`` and
``profile_bfs.md``. Not a median: a profiler's run, not a measurement.
"""

from __future__ import annotations

import argparse

from algorithms import bfs
from bench import options, tables
from bench.graphs import builder, source_of


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser, "cuda")
    options.add_graphs(parser, "grid2000")
    parser.add_argument("--balancer", default="thread")
    parser.add_argument("--direction", default="push", choices=["push", "pull", "auto"])


def run(args: argparse.Namespace) -> int:
    rows = []
    for name in args.graphs:
        graph = builder(name)()
        source = source_of(graph)
        for _ in range(2):
            result = bfs(graph, source, balancer=args.balancer, target=args.target,
                         direction=args.direction)
        rows.append({"graph": name, "balancer": args.balancer, "direction": args.direction,
                     "ms": result.seconds * 1e3, "levels": result.iterations})
        print(f"{name} {args.balancer} {args.direction}: {result.seconds * 1e3:.2f} ms, "
              f"{result.iterations} levels")
    tables.write(rows, args.out, "profile_bfs")
    return 0
