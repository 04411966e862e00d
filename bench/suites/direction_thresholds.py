"""Direction-optimizing BFS on rmat: time against the switch thresholds alpha and beta.

For each (alpha, beta) of ``--alphas`` x ``--betas``: ``bfs(G, s, balancer="cta_warp_scan",
direction="auto", alpha=..., beta=...)`` from the vertex of largest degree, the median of the
result's own ``seconds`` over ``--runs`` after a warm-up, with the frontier size of each level.

``python -m bench direction_thresholds [--graphs rmat21] [--target cuda]`` writes
``direction_thresholds.csv`` and ``direction_thresholds.md``.
"""

from __future__ import annotations

import argparse
from functools import partial

from algorithms import bfs
from bench import options, tables
from bench.graphs import builder, source_of
from bench.timing import time_calls
from frontier.target import resolve_target


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser, "cuda")
    options.add_runs(parser)
    options.add_graphs(parser, "rmat21")
    parser.add_argument("--balancer", default="cta_warp_scan")
    parser.add_argument("--alphas", type=_ints, default="4,16,64,256")
    parser.add_argument("--betas", type=_ints, default="8,24,96")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    rows: list[dict] = []
    for name in args.graphs:
        graph = builder(name)()
        source = source_of(graph)
        for alpha in args.alphas:
            for beta in args.betas:
                timing = time_calls(
                    partial(bfs, graph, source, balancer=args.balancer, target=target,
                            direction="auto", alpha=alpha, beta=beta),
                    runs=args.runs, target=target, own=lambda result: result.seconds)
                sizes = ", ".join(str(s.frontier_size) for s in timing.result.stats)
                rows.append({"graph": name, "balancer": args.balancer, "alpha": alpha,
                             "beta": beta, "ms": timing.own_s * 1e3, "runs": timing.runs,
                             "frontier_sizes": sizes})
                print(f"{name} alpha={alpha:4d} beta={beta:3d} {timing.own_s * 1e3:7.3f} ms  "
                      f"levels: {sizes}", flush=True)
                tables.write(rows, args.out, "direction_thresholds")
    return 0
