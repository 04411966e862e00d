"""``balancer="auto"`` against every static choice and against a CuPy BFS, in one run.

For each graph (default: the ``goals`` set): the default call ``bfs(G, s)`` (balancer and
direction ``auto``; s the vertex of largest degree), every static balancer with
``direction="auto"`` (the best static configurations of docs/performance.md were
direction-optimizing), and, when CuPy is installed, a 15-line CuPy BFS (one sparse
matrix-vector product per level). Every timed result is checked against scipy's BFS distances.
Time = wall time of the whole call, median of ``--runs`` after a warm-up (JIT compile
excluded); "traversal" is the result's own ``seconds``. A configuration whose first timed call
takes longer than ``--slow`` seconds is timed once (its ``runs`` says so). Also measured: the
graph inspector's cost on each graph and, with ``--tiny``, the fixed cost of a call on a
7-vertex graph (median of 200 calls).

``python -m bench adaptive --out DIR [--graphs a,b] [--runs 5] [--slow 3] [--tiny]`` (GPU
machine); prints a Markdown table last and writes ``DIR/adaptive.csv`` and ``DIR/adaptive.md``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from algorithms import bfs
from bench import baselines, options, tables
from bench.graphs import builder, source_of
from bench.progress import Progress
from bench.timing import time_calls
from frontier.generators import path
from frontier.graph import Graph
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import available_balancers
from operators.adaptive import inspect, thresholds_for

#: The issue's goals for the default call on an H100, milliseconds of wall time.
GOALS_MS = {"rmat21": 4.0, "grid2000": 15.0, "luxembourg_osm": 2.0, "star1000000": 0.5,
            "path1000000": 1500.0}
#: Calls of the tiny-call measurement (``--tiny``).
TINY_CALLS = 200


def cupy_bfs_factory(graph: Graph) -> Callable[[int], np.ndarray] | None:
    """The CuPy BFS of the issue: one SpMV of the transposed adjacency per level."""
    try:
        import cupy as cp
        import cupyx.scipy.sparse as csp
    except ImportError:
        return None
    n = graph.num_vertices
    a = csp.csr_matrix((cp.ones(graph.num_edges, cp.float32), cp.asarray(graph.col_indices),
                        cp.asarray(graph.row_offsets)), shape=(n, n))
    at = a.T.tocsr()

    def run(source: int) -> np.ndarray:
        dist = cp.full(n, -1, cp.int32)
        dist[source] = 0
        f = cp.zeros(n, cp.float32)
        f[source] = 1
        level = 0
        while True:
            mask = (at @ f > 0) & (dist < 0)
            if not bool(mask.any()):
                return cp.asnumpy(dist)
            level += 1
            dist[mask] = level
            f = mask.astype(cp.float32)

    return run


def bench_graph(name: str, target: Target, runs: int, slow: float, skip: set[str],
                progress: Progress) -> list[dict]:
    graph = builder(name)()
    source = source_of(graph)
    start = time.perf_counter()
    inspect(graph)
    inspector_ms = (time.perf_counter() - start) * 1e3
    expected = baselines.bfs_distances(graph, source)
    rows = []
    configs: list[tuple[str, Callable[[], object]]] = [
        ("auto (default)", lambda: bfs(graph, source, target=target))]
    configs += [(f"{b}, direction auto", lambda b=b: bfs(graph, source, target=target,
                                                          balancer=b))
                for b in available_balancers() if f"{name}:{b}" not in skip]
    for label, fn in configs:
        timing = time_calls(fn, runs=runs, target=target, slow_s=slow)
        result = timing.result
        ok = bool(np.array_equal(result.distances, expected))
        choices = sorted({(s.balancer, s.direction, s.mode) for s in result.stats})
        rows.append({"graph": name, "config": label, "wall_ms": timing.wall_s * 1e3,
                     "traversal_ms": result.seconds * 1e3, "runs": timing.runs, "levels":
                     result.iterations, "validated": ok, "inspector_ms": inspector_ms,
                     "choices": "; ".join("/".join(c) for c in choices)})
        progress.step(f"{name:15} {label:32} {timing.wall_s * 1e3:10.3f} ms  traversal "
                      f"{result.seconds * 1e3:10.3f} ms  runs {timing.runs}  ok {ok}  "
                      f"{rows[-1]['choices']}")
        if label.startswith("auto") and result.iterations <= 12:
            for level in result.stats:
                progress.say(f"    level {level.level}: {level.frontier_size:,} vertices, "
                             f"{level.edges:,} edges, {level.balancer}/{level.representation}/"
                             f"{level.direction}/{level.mode}")
    cupy_run = cupy_bfs_factory(graph) if f"{name}:cupy" not in skip else None
    if cupy_run is not None:
        timing = time_calls(lambda: cupy_run(source), runs=runs, slow_s=slow)
        ok = bool(np.array_equal(np.asarray(timing.result, np.int64), expected))
        rows.append({"graph": name, "config": "CuPy BFS (SpMV per level)",
                     "wall_ms": timing.wall_s * 1e3, "traversal_ms": None, "runs": timing.runs,
                     "levels": None, "validated": ok, "inspector_ms": inspector_ms,
                     "choices": ""})
        progress.say(f"{name:15} {'CuPy BFS':32} {timing.wall_s * 1e3:10.3f} ms  "
                     f"runs {timing.runs}  ok {ok}")
    return rows


def tiny_call_ms(target: Target) -> float:
    """Median wall milliseconds of the default ``bfs`` on a 7-vertex path."""
    g = path(7)
    return time_calls(lambda: bfs(g, 0, target=target), runs=TINY_CALLS,
                      target=target).wall_s * 1e3


def markdown(rows: list[dict]) -> str:
    lines = ["| graph | goal ms | auto wall ms | best static (wall ms) | auto / best static | "
             "CuPy ms | auto's choices |", "|---|---|---|---|---|---|---|"]
    for name in dict.fromkeys(r["graph"] for r in rows):
        mine = [r for r in rows if r["graph"] == name]
        auto = next(r for r in mine if r["config"].startswith("auto"))
        static = [r for r in mine if "direction auto" in r["config"] and r["validated"]]
        best = min(static, key=lambda r: r["wall_ms"]) if static else None
        cupy = next((r for r in mine if r["config"].startswith("CuPy")), None)
        lines.append(
            f"| {name} | {GOALS_MS.get(name, '')} | {auto['wall_ms']:.3f} | "
            + (f"{best['config'].split(',')[0]} ({best['wall_ms']:.3f}) | "
               f"{auto['wall_ms'] / best['wall_ms']:.2f} | " if best else "— | — | ")
            + (f"{cupy['wall_ms']:.3f} | " if cupy else "— | ") + f"{auto['choices']} |")
    return "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_runs(parser)
    options.add_graphs(parser, "goals")
    parser.add_argument("--slow", type=float, default=3.0,
                        help="seconds: a configuration whose first timed call takes longer is "
                             "timed once (default 3)")
    parser.add_argument("--skip", default="", help="graph:config pairs not to run "
                        "(e.g. path1000000:two_phase,path1000000:cupy)")
    parser.add_argument("--tiny", action="store_true", help="also time a call on 7 vertices")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    print(f"target {target.name} {target.device_name}; thresholds {thresholds_for(target)}",
          flush=True)
    rows: list[dict] = []
    skip = set(filter(None, args.skip.split(",")))
    progress = Progress(0, "adaptive")
    for name in args.graphs:
        rows += bench_graph(name, target, args.runs, args.slow, skip, progress)
        tables.write(rows, args.out, "adaptive", markdown(rows))  # after every graph
    if args.tiny:
        print(f"tiny call (path of 7 vertices, default bfs): {tiny_call_ms(target):.3f} ms "
              f"median of {TINY_CALLS}", flush=True)
    print(markdown(rows))
    return 0 if all(r["validated"] for r in rows) else 1
