"""Load-balancer benchmark: BFS with every balancer on graphs of opposite shapes (Busato & Bombieri,
*Graph Algorithms on GPUs*, §5's comparison: regular low-degree graphs, where the plain thread
mapping wins, against hub-heavy ones, where the dynamic mappings do).

``python -m bench.balancers --out balancers.csv`` times, after one warm-up, the median of
``--runs`` BFS traversals (``BFSResult.seconds``: from the first launch to the synchronizing read
that ends the traversal; ``wall_ms`` adds the allocations and the copy of the results to the
host) for each balancer on: a road network file, a social graph file, an
rmat graph (scale 22 by default), a star with a million leaves, and a 2-D grid (regular, degree
at most 4). It prints a table of milliseconds and MTEPS (edges traversed by the BFS, per second)
and writes the same rows as CSV.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from frontier.graph import Graph

REPO = Path(__file__).resolve().parents[1]
DATASETS = Path(os.environ.get("FRONTIER_DATASETS", REPO.parent / "shared" / "datasets"))


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


def graph_builders(args: argparse.Namespace) -> dict[str, Callable[[], Graph]]:
    """Name -> builder of every graph asked for (generators and loaders imported lazily)."""
    def load(path: Path, **kw) -> Callable[[], Graph]:
        def build() -> Graph:
            from frontier.io import load as load_file

            return load_file(path, **kw)
        return build

    def generated(name: str, *params: int) -> Callable[[], Graph]:
        def build() -> Graph:
            from frontier import generators

            return getattr(generators, name)(*params)
        return build

    builders: dict[str, Callable[[], Graph]] = {}
    if args.road:
        builders[Path(args.road).name.split(".")[0]] = load(Path(args.road))
    if args.social:
        builders[Path(args.social).name.split(".")[0]] = load(Path(args.social))
    if args.rmat_scale:
        builders[f"rmat{args.rmat_scale}"] = generated("rmat", args.rmat_scale)
    if args.star_leaves:
        builders[f"star{args.star_leaves}"] = generated("star", args.star_leaves + 1)
    if args.grid:
        builders[f"grid{args.grid}"] = generated("grid2d", args.grid, args.grid)
    return builders


def measure(name: str, graph: Graph, balancer: str, args: argparse.Namespace) -> Result:
    """Median time of ``args.runs`` BFS runs from the highest-degree vertex, after a warm-up."""
    from algorithms import bfs
    from frontier.target import resolve_target

    target = resolve_target(args.target)
    source = int(np.argmax(graph.out_degrees())) if graph.num_vertices else 0
    fused = not args.host_loop

    def run():
        return bfs(graph, source, balancer=balancer, target=target, frontier=args.frontier,
                   fused=fused)

    result = run()
    if args.validate:
        from frontier.testing import check_bfs

        check_bfs(graph, source, result.distances, result.predecessors)
    times, walls = [], []
    for _ in range(args.runs):
        target.synchronize()
        start = time.perf_counter()
        result = run()
        walls.append(time.perf_counter() - start)
        times.append(result.seconds)
    median = statistics.median(times)
    edges = result.edges_traversed
    return Result(name, graph.num_vertices, graph.num_edges, balancer, args.frontier, fused,
                  args.runs, median * 1e3, min(times) * 1e3, statistics.median(walls) * 1e3,
                  edges / median / 1e6 if median > 0 else 0.0, edges, result.iterations)


def failed(name: str, graph: Graph, balancer: str, args: argparse.Namespace,
           err: Exception) -> Result:
    return Result(name, graph.num_vertices, graph.num_edges, balancer, args.frontier,
                  not args.host_loop, 0, float("nan"), float("nan"), float("nan"), float("nan"),
                  0, 0,
                  f"{type(err).__name__}: {err}".splitlines()[0])


def table(results: Sequence[Result]) -> str:
    lines = [f"{'graph':<18}{'balancer':<16}{'ms':>12}{'MTEPS':>10}{'wall ms':>10}"
             f"{'levels':>8}  note"]
    for r in results:
        lines.append(f"{r.graph:<18}{r.balancer:<16}{r.median_ms:>12.3f}{r.mteps:>10.1f}"
                     f"{r.wall_ms:>10.1f}{r.levels:>8}  {r.error}")
    return "\n".join(lines)


def write_csv(results: Sequence[Result], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[field.name for field in fields(Result)])
        writer.writeheader()
        writer.writerows(asdict(r) for r in results)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    from frontier import available_balancers

    parser = argparse.ArgumentParser(prog="python -m bench.balancers", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="CSV file to write")
    parser.add_argument("--balancers", default=",".join(available_balancers()),
                        help="comma-separated names, parameters allowed (warp:8)")
    parser.add_argument("--road", default=str(DATASETS / "luxembourg_osm.mtx.gz"),
                        help="road network file ('' to skip)")
    parser.add_argument("--social", default=str(DATASETS / "email-Enron.txt.gz"),
                        help="social graph file ('' to skip)")
    parser.add_argument("--rmat-scale", type=int, default=22, help="0 to skip")
    parser.add_argument("--star-leaves", type=int, default=1_000_000, help="0 to skip")
    parser.add_argument("--grid", type=int, default=2000, help="side of the grid; 0 to skip")
    parser.add_argument("--runs", type=int, default=5, help="timed runs after the warm-up")
    parser.add_argument("--frontier", choices=["sparse", "dense"], default="sparse")
    parser.add_argument("--host-loop", action="store_true",
                        help="one launch per level (bfs fused=False) for every balancer")
    parser.add_argument("--target", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--validate", action="store_true",
                        help="check each warm-up BFS against scipy")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    balancers = [b for b in args.balancers.split(",") if b]
    results: list[Result] = []
    for name, build in graph_builders(args).items():
        start = time.perf_counter()
        graph = build()
        print(f"# {name}: {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs "
              f"({time.perf_counter() - start:.1f} s to build)", file=sys.stderr, flush=True)
        for balancer in balancers:
            try:
                results.append(measure(name, graph, balancer, args))
            except Exception as err:  # noqa: BLE001 - a failing balancer is a row of the table
                results.append(failed(name, graph, balancer, args, err))
            print(table(results[-1:]).splitlines()[1], file=sys.stderr, flush=True)
    print(table(results))
    write_csv(results, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
