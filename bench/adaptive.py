"""``balancer="auto"`` against every static choice and against a CuPy BFS, in one run.

For each graph: the default call ``bfs(G, s)`` (balancer and direction ``auto``; s the vertex of
largest degree), every static balancer with ``direction="auto"`` (the best static
configurations of docs/performance.md were direction-optimizing), and, when CuPy is
installed, a 15-line CuPy BFS (one sparse matrix-vector product per level). Every timed result
is checked against scipy's BFS distances. Time = wall time of the whole call, median of
``--runs`` after a warm-up (JIT compile excluded); "traversal" is the result's own ``seconds``.
A configuration whose warm-up takes longer than ``--slow`` seconds is timed once and marked.
Also measured: the graph inspector's cost on each graph and the fixed cost of a call on a
7-vertex graph (median of 200 calls).

Usage (repository root, GPU machine): ``python -m bench.adaptive --out DIR [--graphs a,b]
[--runs 5] [--slow 3]``; prints a Markdown table last and writes ``DIR/adaptive.csv``.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from algorithms import bfs
from frontier.generators import from_spec, path
from frontier.graph import Graph
from frontier.io import load
from frontier.target import resolve_target
from frontier.testing import dataset_dir
from operators import available_balancers
from operators.adaptive import inspect, thresholds_for

GRAPHS = {"rmat21": "rmat:21", "grid2000": "grid:2000x2000", "luxembourg_osm": None,
          "star1000000": "star:1000001", "path1000000": "path:1000000",
          "delaunay_n16": None, "email-Enron": None}

#: The issue's goals for the default call on an H100, milliseconds of wall time.
GOALS_MS = {"rmat21": 4.0, "grid2000": 15.0, "luxembourg_osm": 2.0, "star1000000": 0.5,
            "path1000000": 1500.0}


def load_graph(name: str) -> Graph:
    spec = GRAPHS[name]
    if spec is not None:
        return from_spec(spec)
    folder = dataset_dir()
    if folder is None:
        raise SystemExit(f"{name}: no datasets folder found")
    found = sorted(folder.glob(f"{name}.*"))
    if not found:
        raise SystemExit(f"{name}: not in {folder}")
    return load(found[0])


def scipy_levels(graph: Graph, source: int) -> np.ndarray:
    import scipy.sparse as sp
    from scipy.sparse.csgraph import shortest_path

    n = graph.num_vertices
    a = sp.csr_matrix((np.ones(graph.num_edges), graph.col_indices, graph.row_offsets),
                      shape=(n, n))
    d = shortest_path(a, method="D", unweighted=True, indices=source)
    d[np.isinf(d)] = -1
    return d.astype(np.int64)


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


def timed(fn: Callable[[], object], runs: int, slow: float) -> tuple[object, float, int]:
    """Warm up (compiles), then the median wall time of ``runs`` calls, or of one call when
    that call took longer than ``slow`` seconds."""
    fn()
    times: list[float] = []
    while len(times) < runs and (len(times) != 1 or times[0] <= slow):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return result, statistics.median(times), len(times)


def bench_graph(name: str, target: object, runs: int, slow: float, skip: set[str]
                ) -> list[dict]:
    graph = load_graph(name)
    source = int(np.argmax(graph.out_degrees()))
    start = time.perf_counter()
    inspect(graph)
    inspector_ms = (time.perf_counter() - start) * 1e3
    expected = scipy_levels(graph, source)
    rows = []
    configs: list[tuple[str, Callable[[], object]]] = [
        ("auto (default)", lambda: bfs(graph, source, target=target))]
    configs += [(f"{b}, direction auto", lambda b=b: bfs(graph, source, target=target,
                                                          balancer=b))
                for b in available_balancers() if f"{name}:{b}" not in skip]
    for label, fn in configs:
        result, wall, done = timed(fn, runs, slow)
        ok = bool(np.array_equal(result.distances.astype(np.int64), expected))
        choices = sorted({(s.balancer, s.direction, s.mode) for s in result.stats})
        rows.append({"graph": name, "config": label, "wall_ms": wall * 1e3,
                     "traversal_ms": result.seconds * 1e3, "runs": done, "levels":
                     result.iterations, "validated": ok, "inspector_ms": inspector_ms,
                     "choices": "; ".join("/".join(c) for c in choices)})
        print(f"{name:15} {label:32} {wall * 1e3:10.3f} ms  traversal "
              f"{result.seconds * 1e3:10.3f} ms  runs {done}  ok {ok}  {rows[-1]['choices']}",
              flush=True)
        if label.startswith("auto") and result.iterations <= 12:
            for level in result.stats:
                print(f"    level {level.level}: {level.frontier_size:,} vertices, "
                      f"{level.edges:,} edges, {level.balancer}/{level.representation}/"
                      f"{level.direction}/{level.mode}", flush=True)
    cupy_run = cupy_bfs_factory(graph) if f"{name}:cupy" not in skip else None
    if cupy_run is not None:
        dist, wall, done = timed(lambda: cupy_run(source), runs, slow)
        ok = bool(np.array_equal(np.asarray(dist, np.int64), expected))
        rows.append({"graph": name, "config": "CuPy BFS (SpMV per level)", "wall_ms": wall * 1e3,
                     "traversal_ms": None, "runs": done, "levels": None, "validated": ok,
                     "inspector_ms": inspector_ms, "choices": ""})
        print(f"{name:15} {'CuPy BFS':32} {wall * 1e3:10.3f} ms  runs {done}  ok {ok}",
              flush=True)
    return rows


def tiny_call_ms(target: object, calls: int = 200) -> float:
    g = path(7)
    bfs(g, 0, target=target)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        bfs(g, 0, target=target)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def markdown(rows: list[dict]) -> list[str]:
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
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="results")
    parser.add_argument("--graphs", default=",".join(GOALS_MS))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--slow", type=float, default=3.0)
    parser.add_argument("--skip", default="", help="graph:config pairs not to run "
                        "(e.g. path1000000:two_phase,path1000000:cupy)")
    parser.add_argument("--target", default=None)
    parser.add_argument("--tiny", action="store_true", help="also time a call on 7 vertices")
    args = parser.parse_args(argv)
    target = resolve_target(args.target)
    print(f"target {target.name} {target.device_name}; thresholds {thresholds_for(target)}",
          flush=True)
    rows: list[dict] = []
    skip = set(filter(None, args.skip.split(",")))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in filter(None, args.graphs.split(",")):
        rows += bench_graph(name, target, args.runs, args.slow, skip)
        with open(out / "adaptive.csv", "w", newline="") as stream:  # after every graph
            writer = csv.DictWriter(stream, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    if args.tiny:
        print(f"tiny call (path of 7 vertices, default bfs): {tiny_call_ms(target):.3f} ms "
              "median of 200", flush=True)
    print("\n".join(markdown(rows)))
    return 0 if all(r["validated"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
