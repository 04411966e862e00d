"""Grid size of the fused traversal: BFS time per level against the persistent kernel's blocks.

Fewer blocks: a cheaper grid barrier, less parallel work per level.

For each graph, balancer and ``--blocks`` count: ``operators.traverse`` of BFS's functor from
the vertex of largest degree with that many blocks, the median wall time of ``--runs`` after a
warm-up (the state reset before each call, off the clock).

``python -m bench fused_grid [--target cuda]`` (default graphs and balancers: grid2000 with
thread; rmat21 with thread, warp:32, block, cta_warp_scan) writes ``fused_grid.csv`` and
``fused_grid.md``.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from algorithms.bfs import visit
from bench import options, tables
from bench.graphs import builder, source_of
from bench.timing import time_calls
from frontier import Frontier
from frontier.graph import Graph
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import traverse

#: Graph -> the balancers run on it by default.
DEFAULT = {"grid2000": ("thread",), "rmat21": ("thread", "warp:32", "block", "cta_warp_scan")}


def measure(graph: Graph, target: Target, blocks: int, balancer: str, runs: int
            ) -> tuple[int, float, int]:
    """(levels, median seconds, timed calls) of the fused BFS with ``blocks`` blocks."""
    source = source_of(graph)
    state: dict[str, Any] = {}

    def prepare() -> None:
        state["dist"] = target.full(graph.num_vertices, -1, np.int32)
        state["pred"] = target.full(graph.num_vertices, -1, np.int32)
        target.write_scalar(state["dist"], source, 0)
        state["frontier"] = Frontier.from_vertices(graph, [source], target=target)

    timing = time_calls(
        lambda: traverse(graph, state["frontier"], visit, state["dist"], state["pred"],
                         balancer=balancer, blocks=blocks).steps,
        runs=runs, target=target, prepare=prepare)
    return timing.result, timing.wall_s, timing.runs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser, "cuda")
    options.add_runs(parser)
    options.add_graphs(parser, ",".join(DEFAULT))
    options.add_names(parser, "--balancers", "",
                      "balancers for every graph (default: those of DEFAULT per graph)")
    parser.add_argument("--blocks", default="66,132,264,528,1056",
                        help="comma-separated block counts")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    rows: list[dict] = []
    for name in args.graphs:
        graph = builder(name)()
        for balancer in args.balancers or DEFAULT.get(name, ("thread",)):
            for blocks in (int(b) for b in args.blocks.split(",")):
                steps, sec, runs = measure(graph, target, blocks, balancer, args.runs)
                rows.append({"graph": name, "balancer": balancer, "blocks": blocks,
                             "levels": steps, "ms": sec * 1e3, "runs": runs,
                             "us_per_level": sec / max(steps, 1) * 1e6})
                print(f"{name:9s} {balancer:14s} blocks={blocks:5d} levels={steps:5d} "
                      f"{sec * 1e3:9.2f} ms {sec / max(steps, 1) * 1e6:9.2f} us/level",
                      flush=True)
                tables.write(rows, args.out, "fused_grid")
    return 0
