"""Every algorithm of the catalog on the standard graphs, against scipy.

Each (graph, algorithm, balancer) is run once (the warm-up: it compiles) and checked against the
catalog's scipy reference, then timed: the median of ``--runs`` calls (fewer, at least 3, once
30 s are spent), ``ms`` the result's own ``seconds`` and ``wall ms`` the whole call; with scipy's
reference timed on the same machine for the ratio (the median of at least 3 after a warm-up),
launches and host reads per run, device memory per arc and Gunrock's BFS time on the same H100
where shared/anchors.md has it. The source is the vertex of largest degree.

``--target auto`` passes ``target="auto"`` to every call, and the ``target`` column says what
each call ran on (docs/adaptive.md, "Which target": the table of the default call against
scipy on one core).

``python -m bench catalog --out results/ [--graphs quick] [--algorithms bfs,bfs_do]
[--balancers thread,warp] [--target cuda|cpu|auto]``; writes ``catalog.csv`` and
``catalog.md``
(the former ``python -m bench all`` wrote the same columns to ``suite.csv`` and ``suite.md``).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from bench import baselines, options, tables
from bench.graphs import builder, source_of
from bench.progress import Progress
from bench.timing import time_calls
from frontier.graph import Graph
from frontier.runtime.target import Target
from frontier.target import resolve_target

#: Gunrock 2.1 BFS on the same H100 (shared/anchors.md, 2026-11-22), milliseconds.
GUNROCK_BFS_MS = {"rmat21": 3.65, "grid2000": 780.0, "luxembourg_osm": 160.0,
                  "delaunay_n16": 18.5}
#: Seconds of timed calls after which a configuration stops (with at least 3 calls).
BUDGET_S = 30.0


@dataclass
class Row:
    algorithm: str
    graph: str
    balancer: str
    target: str
    vertices: int
    arcs: int
    levels: int
    ms: float
    wall_ms: float
    mteps: float
    us_per_level: float
    launches_per_run: float
    host_reads_per_run: float
    scipy_ms: float
    speedup_vs_scipy: float
    gunrock_ms: float | None
    ratio_to_gunrock: float | None
    device_bytes_per_arc: float
    validated: bool


def device_bytes(graph: Graph) -> int:
    """Graph arrays + three frontier queues + distance/predecessor state, as BFS allocates."""
    graph_bytes = graph.row_offsets.nbytes + graph.col_indices.nbytes
    if graph.weights is not None:
        graph_bytes += graph.weights.nbytes
    frontier = 3 * 4 * max(graph.num_edges, graph.num_vertices, 1)
    return graph_bytes + frontier + 8 * graph.num_vertices


def measure(name: str, graph: Graph, algorithm: str, balancer: str, target: Target,
            runs: int, auto: bool = False) -> Row:
    """One row; ``auto``: every call gets ``target="auto"`` (``target`` is then the one that
    launches and reads are counted on, and synchronized around each call: the GPU where
    usable)."""
    source = source_of(graph)
    counts: list[tuple[int, int]] = []  # launches and host reads of each call

    def call() -> object:
        launches, reads = target.launches, target.host_reads
        result = baselines.run(algorithm, graph, source, balancer=balancer,
                               target="auto" if auto else target)
        counts.append((target.launches - launches, target.host_reads - reads))
        return result

    timing = time_calls(call, runs=runs, target=target, own=lambda result: result.seconds,
                        budget_s=BUDGET_S, at_least=3)
    timed = counts[1:]  # the warm-up's are not counted
    first = timing.first
    validated = baselines.check(algorithm, graph, source, first, where=name)
    ms = 1e3 * timing.own_s
    scipy_ms = 1e3 * time_calls(lambda: baselines.reference(algorithm, graph, source),
                                budget_s=BUDGET_S, at_least=3).wall_s
    gunrock = GUNROCK_BFS_MS.get(name) if algorithm == "bfs" else None
    levels = max(first.iterations, 1)
    ran = getattr(first, "target", None) or target
    shown = f"auto: {ran.name}" if auto else ran.name
    return Row(algorithm, name, balancer, shown, graph.num_vertices, graph.num_edges,
               first.iterations,
               round(ms, 3), round(1e3 * timing.wall_s, 3),
               round(first.edges_traversed / (ms / 1e3) / 1e6, 1) if ms else 0.0,
               round(ms * 1e3 / levels, 2), sum(c[0] for c in timed) / len(timed),
               sum(c[1] for c in timed) / len(timed), round(scipy_ms, 3),
               round(scipy_ms / ms, 2) if ms else 0.0, gunrock,
               round(ms / gunrock, 3) if gunrock else None,
               round(device_bytes(graph) / max(graph.num_edges, 1), 1), validated)


def markdown(rows: list[Row]) -> str:
    head = ("| algorithm | graph | balancer | target | \\|V\\| | arcs | levels | ms | wall ms | "
            "MTEPS | µs/level | launches/run | host reads/run | scipy ms | × scipy | Gunrock ms | "
            "ours/Gunrock | bytes/arc | valid |\n" + "|---" * 19 + "|\n")
    lines = [f"| {r.algorithm} | {r.graph} | {r.balancer} | {r.target} | {r.vertices:,} | "
             f"{r.arcs:,} | "
             f"{r.levels:,} | {r.ms:.3f} | {r.wall_ms:.1f} | {r.mteps:,.0f} | "
             f"{r.us_per_level:.1f} | "
             f"{r.launches_per_run:.0f} | {r.host_reads_per_run:.0f} | {r.scipy_ms:.1f} | "
             f"{r.speedup_vs_scipy:.1f} | {r.gunrock_ms if r.gunrock_ms else '—'} | "
             f"{r.ratio_to_gunrock if r.ratio_to_gunrock else '—'} | "
             f"{r.device_bytes_per_arc} | {'yes' if r.validated else 'NO'} |" for r in rows]
    return head + "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser, auto=True)
    options.add_runs(parser)
    options.add_graphs(parser, "standard")
    options.add_names(parser, "--algorithms", ",".join(baselines.names(suite_only=True)),
                      "catalog algorithms", baselines.names())
    options.add_names(parser, "--balancers", "auto", "balancers")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    progress = Progress(len(args.graphs) * len(args.algorithms) * len(args.balancers), "catalog")
    rows: list[Row] = []
    for name in args.graphs:
        clock = time.perf_counter()
        graph = builder(name)()
        progress.say(f"[{name}] {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs "
                     f"(built in {time.perf_counter() - clock:.1f} s)")
        for algorithm in args.algorithms:
            for balancer in args.balancers:
                row = measure(name, graph, algorithm, balancer, target, args.runs,
                              auto=args.target == "auto")
                rows.append(row)
                progress.step(f"{name} {algorithm} {balancer}: {row.ms:.3f} ms, "
                              f"{row.mteps:.0f} MTEPS, scipy {row.scipy_ms:.1f} ms, "
                              f"valid={row.validated}")
                tables.write(rows, args.out, "catalog", markdown(rows))
    print(markdown(rows))
    return 0 if all(r.validated for r in rows) else 1
