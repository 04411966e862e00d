"""The small-frontier mode's thresholds on many-level graphs, in one run.

For each graph (default: the ``many_levels`` set) and each ``FRONTIERxEDGES`` configuration
(``Thresholds.block_frontier`` and ``block_edges``; ``1x1`` turns the mode off, so every fused
level is grid-wide; ``default`` is the thresholds a default call uses): the call ``bfs(G, s)``
with those thresholds (s the vertex of largest degree), median of ``--runs`` after a warm-up,
each checked equal to scipy's BFS distances; prints ms per call and µs per level and the levels
run in one block. A configuration whose first timed call takes longer than ``--slow`` seconds
is timed once.

``python -m bench small_frontier [--graphs many_levels]
[--configs default,1x1,64x512,256x1024,1024x4096,2048x8192] [--runs 5] [--out DIR]`` writes
``small_frontier.csv`` and ``small_frontier.md``.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from functools import partial

import numpy as np

from algorithms import bfs
from bench import baselines, options, tables
from bench.graphs import builder, source_of
from bench.timing import time_calls
from frontier.options import Mode
from frontier.target import resolve_target
from operators.adaptive import Thresholds, thresholds_for
from operators.balancers import AutoBalancer


def _balancer(config: str, device: Thresholds) -> AutoBalancer | str:
    if config == "default":
        return "auto"
    frontier, edges = (int(x) for x in config.split("x"))
    return AutoBalancer(replace(device, block_frontier=frontier, block_edges=edges,
                                source=f"bench {config}"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_runs(parser)
    options.add_graphs(parser, "many_levels")
    parser.add_argument("--configs", default="default,1x1,64x512,256x1024,1024x4096,2048x8192")
    parser.add_argument("--slow", type=float, default=1.0,
                        help="seconds: a configuration whose first timed call takes longer is "
                             "timed once (default 1)")


def run(args: argparse.Namespace) -> int:
    target = resolve_target("cuda")
    device = thresholds_for(target)
    print(f"thresholds {device}")
    head = ("| graph | config | levels | in one block | ms | µs per level |\n"
            "|---|---|---|---|---|---|\n")
    print(head, end="")
    rows: list[dict] = []
    lines: list[str] = []
    for name in args.graphs:
        graph = builder(name)()
        source = source_of(graph)
        expected = baselines.bfs_distances(graph, source)
        for config in args.configs.split(","):
            balancer = _balancer(config, device)
            timing = time_calls(partial(bfs, graph, source, balancer=balancer),
                                runs=args.runs, target=target, slow_s=args.slow)
            result = timing.result
            assert np.array_equal(result.distances, expected), (name, config)
            ms = timing.wall_s * 1e3
            levels = result.iterations
            blocks = sum(c.mode == Mode.BLOCK for c in result.choices)
            rows.append({"graph": name, "config": config, "levels": levels,
                         "block_levels": blocks, "ms": ms, "runs": timing.runs,
                         "us_per_level": ms * 1e3 / max(levels, 1)})
            lines.append(f"| {name} | {config} | {levels:,} | {blocks:,} | {ms:.3f} | "
                         f"{ms * 1e3 / max(levels, 1):.2f} |")
            print(lines[-1], flush=True)
            tables.write(rows, args.out, "small_frontier", head + "\n".join(lines) + "\n")
    return 0
