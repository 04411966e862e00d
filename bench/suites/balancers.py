"""BFS with every load balancer on graphs of opposite shapes.

The comparison of Busato & Bombieri, *Graph Algorithms on GPUs*, §5: regular low-degree graphs,
where the plain thread mapping wins, against hub-heavy ones, where the dynamic mappings do.
For each graph (default: the ``shapes`` set: a road network, a social graph, rmat22, a star with
a million leaves, the 2000x2000 grid) and each balancer: one warm-up BFS from the vertex of
largest degree, then the median of ``--runs`` BFS traversals (``median_ms``: the result's
``seconds``, from the first launch to the synchronizing read that ends the traversal;
``wall_ms`` adds the allocations and the copy of the results to the host); MTEPS are the edges
the BFS traversed per second. A balancer that fails is a row with its error.

``python -m bench balancers --out DIR --runs 5 --validate`` writes ``balancers.csv`` and
``balancers.md``; ``--plot PNG`` draws MTEPS per balancer and graph (needs matplotlib), and
``--replot CSV --plot PNG`` draws an earlier run's CSV without measuring.
"""

from __future__ import annotations

import argparse
import csv
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from algorithms import bfs
from bench import baselines, options, tables
from bench.graphs import builder, source_of
from bench.progress import Progress
from bench.timing import time_calls
from frontier.graph import Graph
from frontier.target import resolve_target
from operators import available_balancers


@dataclass
class Result:
    """One balancer on one graph."""

    graph: str
    vertices: int
    arcs: int
    balancer: str
    frontier: str
    fused: bool
    runs: int
    median_ms: float
    min_ms: float
    wall_ms: float
    mteps: float
    edges_traversed: int
    levels: int
    error: str = ""


def measure(name: str, graph: Graph, balancer: str, args: argparse.Namespace) -> Result:
    """Median time of ``args.runs`` BFS runs from the highest-degree vertex, after a warm-up."""
    target = resolve_target(args.target)
    source = source_of(graph)
    fused = not args.host_loop
    timing = time_calls(
        lambda: bfs(graph, source, balancer=balancer, target=target, frontier=args.frontier,
                    fused=fused),
        runs=args.runs, target=target, own=lambda result: result.seconds)
    if args.validate:
        baselines.check("bfs", graph, source, timing.first, where=name)
    median = timing.own_s
    edges = timing.result.edges_traversed
    return Result(name, graph.num_vertices, graph.num_edges, balancer, args.frontier, fused,
                  timing.runs, median * 1e3, min(timing.own) * 1e3, timing.wall_s * 1e3,
                  edges / median / 1e6 if median > 0 else 0.0, edges, timing.result.iterations)


def failed(name: str, graph: Graph, balancer: str, args: argparse.Namespace,
           err: Exception) -> Result:
    return Result(name, graph.num_vertices, graph.num_edges, balancer, args.frontier,
                  not args.host_loop, 0, float("nan"), float("nan"), float("nan"), float("nan"),
                  0, 0, f"{type(err).__name__}: {err}".splitlines()[0])


def table(results: Sequence[Result]) -> str:
    lines = [f"{'graph':<18}{'balancer':<16}{'ms':>12}{'MTEPS':>10}{'wall ms':>10}"
             f"{'levels':>8}  note"]
    for r in results:
        lines.append(f"{r.graph:<18}{r.balancer:<16}{r.median_ms:>12.3f}{r.mteps:>10.1f}"
                     f"{r.wall_ms:>10.1f}{r.levels:>8}  {r.error}")
    return "\n".join(lines)


def plot(csv_path: Path, png: Path) -> None:
    """One group of bars per graph, MTEPS per balancer (log scale), from a balancers CSV."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open() as handle:
        rows = list(csv.DictReader(handle))
    graphs = list(dict.fromkeys(r["graph"] for r in rows))
    names = list(dict.fromkeys(r["balancer"] for r in rows))
    mteps: dict[tuple[str, str], float] = defaultdict(float)
    for r in rows:
        mteps[r["graph"], r["balancer"]] = float(r["mteps"] or "nan")
    width = 0.8 / len(names)
    fig, ax = plt.subplots(figsize=(11, 4.5))
    for k, balancer in enumerate(names):
        xs = [g + k * width for g in range(len(graphs))]
        ax.bar(xs, [mteps[name, balancer] for name in graphs], width, label=balancer)
    ax.set_xticks([g + 0.4 - width / 2 for g in range(len(graphs))], graphs)
    ax.set_yscale("log")
    ax.set_ylabel("MTEPS (BFS, median of 5; log scale)")
    ax.set_title("BFS by load balancer, NVIDIA H100")
    ax.legend(ncol=4, fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser, "cuda")
    options.add_runs(parser)
    options.add_graphs(parser, "shapes")
    options.add_names(parser, "--balancers", ",".join(available_balancers()),
                      "balancers, parameters allowed (warp:8)", available_balancers())
    parser.add_argument("--frontier", choices=["sparse", "dense"], default="sparse")
    parser.add_argument("--host-loop", action="store_true",
                        help="one launch per level (bfs fused=False) for every balancer")
    parser.add_argument("--validate", action="store_true",
                        help="check each warm-up BFS against scipy")
    parser.add_argument("--plot", type=Path, default=None, help="PNG of MTEPS to draw")
    parser.add_argument("--replot", type=Path, default=None,
                        help="draw --plot from this CSV of an earlier run; measure nothing")


def run(args: argparse.Namespace) -> int:
    if args.replot is not None:
        if args.plot is None:
            raise options.UsageError("--replot needs --plot PNG")
        plot(args.replot, args.plot)
        return 0
    results: list[Result] = []
    progress = Progress(len(args.graphs) * len(args.balancers), "balancers")
    for name in args.graphs:
        start = time.perf_counter()
        graph = builder(name)()
        progress.say(f"# {name}: {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs "
                     f"({time.perf_counter() - start:.1f} s to build)")
        for balancer in args.balancers:
            try:
                results.append(measure(name, graph, balancer, args))
            except Exception as err:  # noqa: BLE001 - a failing balancer is a row of the table
                results.append(failed(name, graph, balancer, args, err))
            progress.step(table(results[-1:]).splitlines()[1])
            tables.write(results, args.out, "balancers")
    print(table(results))
    if args.plot is not None:
        plot(args.out / "balancers.csv", args.plot)
    return 0
