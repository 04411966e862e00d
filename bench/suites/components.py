"""Connected components and spanning forest: every method against scipy, in one run.

Times the whole call of :func:`algorithms.connected_components` for each method (and each
balancer given, for the methods that advance) and of :func:`algorithms.spanning_forest`, median
of ``--runs`` after a warm-up that compiles the kernels, next to scipy's
``connected_components`` (weak; its matrix built beforehand) on one core of the same machine;
validates every result with the catalog's checks (labels are scipy's components, each labelled
by its smallest id; the forest spans them). Graphs (``--graphs``): rmat21 and the 2000x2000 grid
of ``shared/anchors.md``, then every dataset (``--quick``: rmat16 and grid200, then the
datasets).

GPU run, from the repository root::

    python -m bench components --target cuda --out results/cc

(``--balancers thread,warp,...`` to sweep the balancers.) Writes ``components.csv`` and
``components.md``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from algorithms.components import ComponentsMethod, connected_components, spanning_forest
from bench import baselines, options, tables
from bench.graphs import builder, expand
from bench.progress import Progress
from bench.timing import time_calls
from frontier.graph import Graph
from frontier.options import values
from frontier.runtime.target import Target
from frontier.target import resolve_target

#: The issue's goals on the H100, milliseconds.
GOALS_MS = {"rmat21": 10.0, "grid2000": 10.0}
BALANCED = ("label_propagation", "afforest")


@dataclass
class Row:
    graph: str
    vertices: int
    arcs: int
    components: int
    method: str
    balancer: str
    iterations: int
    ms: float
    min_ms: float
    scipy_ms: float
    speedup_vs_scipy: float
    goal_ms: float | None
    validated: bool


def bench_graph(name: str, graph: Graph, target: Target, runs: int, balancers: list[str],
                methods: list[str], progress: Progress) -> list[Row]:
    scipy_call = baselines.scipy_components(graph)
    count = scipy_call()[0]
    scipy_ms = 1e3 * time_calls(scipy_call, runs=runs).wall_s
    rows = []

    def row(method: str, balancer: str, call: Callable[[], object], algorithm: str) -> Row:
        timing = time_calls(call, runs=runs, target=target)
        valid = baselines.check(algorithm, graph, None, timing.first, where=name)
        ms, best = 1e3 * timing.wall_s, 1e3 * timing.min_s
        progress.step(f"{name} {method:18s} {balancer:14s} {ms:10.3f} ms (min {best:.3f})  "
                      f"scipy {scipy_ms:9.1f} ms  x{scipy_ms / ms:7.1f}  iterations "
                      f"{timing.first.iterations}  valid={valid}")
        return Row(name, graph.num_vertices, graph.num_edges, int(count), method, balancer,
                   timing.first.iterations, round(ms, 3), round(best, 3), round(scipy_ms, 3),
                   round(scipy_ms / ms, 2), GOALS_MS.get(name), valid)

    for method in [m.value for m in ComponentsMethod if m in methods]:
        for balancer in balancers if method in BALANCED else balancers[:1]:
            rows.append(row(method, balancer, lambda method=method, balancer=balancer:
                            connected_components(graph, method=method, balancer=balancer,
                                                 target=target), "cc"))
    if "spanning_forest" in methods:
        rows.append(row("spanning_forest", "-", lambda: spanning_forest(graph, target=target),
                        "forest"))
    return rows


def markdown(rows: list[Row]) -> str:
    head = ("| graph | \\|V\\| | arcs | components | method | balancer | iterations | ms "
            "(median) | min ms | scipy ms | × scipy | goal ms | valid |\n" + "|---" * 13 + "|\n")
    return head + "\n".join(
        f"| {r.graph} | {r.vertices:,} | {r.arcs:,} | {r.components:,} | {r.method} | "
        f"{r.balancer} | {r.iterations} | {r.ms:.3f} | {r.min_ms:.3f} | {r.scipy_ms:.1f} | "
        f"{r.speedup_vs_scipy:.2f} | {r.goal_ms if r.goal_ms else '—'} | "
        f"{'yes' if r.validated else 'NO'} |" for r in rows) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_runs(parser)
    options.add_names(parser, "--balancers", "thread", "balancers")
    parser.add_argument("--graphs", default=None,
                        help="comma-separated graph names and sets (default rmat21,grid2000,"
                             "datasets; with --quick rmat16,grid200,datasets)")
    names = (*values(ComponentsMethod), "spanning_forest")
    options.add_names(parser, "--methods", ",".join(names),
                      "methods of connected_components, and spanning_forest", names)
    parser.add_argument("--quick", action="store_true", help="rmat16 and grid200 (smoke test)")


def run(args: argparse.Namespace) -> int:
    default = "rmat16,grid200,datasets" if args.quick else "rmat21,grid2000,datasets"
    names = expand(args.graphs or default)
    target = resolve_target(args.target)
    print(f"target {target.name}{' (simulator)' if target.simulated else ''}", flush=True)
    rows: list[Row] = []
    per_graph = sum(len(args.balancers) if m in BALANCED else 1 for m in args.methods)
    progress = Progress(len(names) * per_graph, "components")
    for name in names:
        graph = builder(name)()
        progress.say(f"[{name}] {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs")
        rows += bench_graph(name, graph, target, args.runs, args.balancers, args.methods,
                            progress)
        tables.write(rows, args.out, "components", markdown(rows))
    print(markdown(rows))
    return 0 if all(r.validated for r in rows) else 1
