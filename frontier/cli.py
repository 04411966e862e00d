"""The ``frontier`` command: run an algorithm on a graph file or a generated graph, or a demo.

``frontier run bfs GRAPH [--source S] [--balancer B] [--target T] [--validate]``
``frontier demo``
``frontier balancers``
``frontier explain bfs [--balancer B] [--target T]``

Bad input (a missing file, a malformed graph, a bad generator spec, an out-of-range source)
prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from frontier.graph import Graph

EXIT_BAD_INPUT = 2

GENERATOR_SPECS = {
    "rmat": "rmat:SCALE[:EDGE_FACTOR]",
    "grid": "grid:ROWSxCOLS",
    "gnm": "gnm:N:M",
    "path": "path:N",
    "star": "star:N",
    "tree": "tree:N",
    "chunglu": "chunglu:N:AVG_DEGREE",
}


class CommandError(Exception):
    """Bad input to the command line: reported as one line, exit status 2."""


def _ints(spec: str, parts: Sequence[str], low: int, high: int) -> list[int]:
    if not low <= len(parts) <= high:
        raise CommandError(f"graph spec {spec!r}: expected {GENERATOR_SPECS[spec.split(':')[0]]}")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise CommandError(f"graph spec {spec!r}: expected whole numbers, "
                           f"as in {GENERATOR_SPECS[spec.split(':')[0]]}") from None
    if any(v < 0 for v in values):
        raise CommandError(f"graph spec {spec!r}: sizes must be >= 0")
    return values


def graph_from_spec(spec: str) -> Graph:
    """A graph file path, or a generator spec such as ``rmat:18``, ``grid:1000x1000``."""
    from frontier import generators

    kind, sep, rest = spec.partition(":")
    if sep and kind in GENERATOR_SPECS:
        builders: dict[str, Callable[[], Graph]] = {
            "rmat": lambda: generators.rmat(*_ints(spec, rest.split(":"), 1, 2)),
            "grid": lambda: generators.grid2d(*_ints(spec, rest.lower().split("x"), 2, 2)),
            "gnm": lambda: generators.gnm(*_ints(spec, rest.split(":"), 2, 2)),
            "path": lambda: generators.path(*_ints(spec, rest.split(":"), 1, 1)),
            "star": lambda: generators.star(*_ints(spec, rest.split(":"), 1, 1)),
            "tree": lambda: generators.binary_tree(*_ints(spec, rest.split(":"), 1, 1)),
            "chunglu": lambda: generators.chung_lu(*_ints(spec, rest.split(":"), 2, 2)),
        }
        try:
            return builders[kind]()
        except ValueError as err:
            raise CommandError(f"graph spec {spec!r}: {err}") from None
    from frontier.io import load

    return load(spec)


def _median_run(fn: Callable[[], object], runs: int) -> tuple[object, float]:
    fn()  # warm-up: compiles the kernels
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return result, statistics.median(times)


def run_bfs(args: argparse.Namespace) -> int:
    from algorithms import bfs
    from frontier.target import resolve_target

    graph = graph_from_spec(args.graph)
    if not 0 <= args.source < max(graph.num_vertices, 1) or graph.num_vertices == 0:
        raise CommandError(f"source {args.source} is out of range: the graph has "
                           f"{graph.num_vertices} vertices")
    target = resolve_target(args.target)
    result, seconds = _median_run(
        lambda: bfs(graph, args.source, balancer=args.balancer, target=target,
                    frontier=args.frontier, direction=args.direction), args.runs)
    edges = result.edges_traversed
    reached = int(np.count_nonzero(result.distances >= 0))
    print(f"graph       {args.graph}")
    print(f"|V|         {graph.num_vertices:,}")
    print(f"|E|         {graph.num_edges:,} arcs")
    print(f"target      {target.name}{' (simulator)' if target.simulated else ''}")
    print(f"balancer    {args.balancer}, {args.frontier} frontier, {args.direction}")
    print(f"source      {args.source}")
    print(f"time        {seconds * 1e3:.3f} ms (median of {args.runs} after warm-up)")
    print(f"MTEPS       {edges / seconds / 1e6 if seconds > 0 else 0.0:.1f} "
          f"({edges:,} edges traversed)")
    print(f"reached     {reached:,} vertices")
    print(f"iterations  {result.iterations}")
    if args.validate:
        from frontier.testing import check_bfs

        check_bfs(graph, args.source, result.distances, result.predecessors)
        print("validated   distances equal scipy.sparse.csgraph; predecessors form a "
              "shortest-path tree")
    return 0


def run_demo(args: argparse.Namespace) -> int:
    from algorithms import bfs
    from frontier import generators
    from frontier.data import demo_graph_path
    from frontier.io import load
    from frontier.target import resolve_target
    from frontier.testing import check_bfs

    target = resolve_target(args.target)
    print(f"Frontier demo on target {target.name}"
          f"{' (simulator)' if target.simulated else ''}")
    path = demo_graph_path()
    cases = [("grid2d(64, 64), road-like", generators.grid2d(64, 64)),
             (f"{path.name} (OpenStreetMap road network, shipped)", load(path))]
    for name, graph in cases:
        source = int(np.argmax(graph.out_degrees()))
        start = time.perf_counter()
        result = bfs(graph, source, target=target)
        seconds = time.perf_counter() - start
        check_bfs(graph, source, result.distances, result.predecessors)
        reached = int(np.count_nonzero(result.distances >= 0))
        print(f"  BFS on {name}: {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs, "
              f"source {source}: reached {reached:,} in {result.iterations} levels, "
              f"{seconds * 1e3:.1f} ms (first run, compile included); "
              "equal to scipy.sparse.csgraph")
    return 0


def run_explain(args: argparse.Namespace) -> int:
    from algorithms.bfs import visit
    from frontier import Frontier, generators
    from frontier.target import resolve_target
    from operators import advance, explain

    graph = generators.path(4)
    target = resolve_target(args.target)
    f = Frontier.from_vertices(graph, [0], target=target)
    state = target.zeros(graph.num_vertices, np.int32)
    print(explain(advance, graph, f, visit, state, state, balancer=args.balancer,
                  output=args.frontier))
    return 0


def run_balancers(args: argparse.Namespace) -> int:
    from frontier import available_balancers

    print("\n".join(available_balancers()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="frontier", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run an algorithm on a graph")
    run.add_argument("algorithm", choices=["bfs"])
    run.add_argument("graph", help="a graph file (.mtx, .gr, SNAP edge list; .gz too) or a "
                     "generator spec: " + ", ".join(GENERATOR_SPECS.values()))
    run.add_argument("--source", type=int, default=0, help="source vertex (default 0)")
    run.add_argument("--balancer", default="thread", help="load balancer (frontier balancers)")
    run.add_argument("--target", choices=["cuda", "cpu"], default=None,
                     help="default: cuda when a GPU is usable, else cpu")
    run.add_argument("--frontier", choices=["sparse", "dense"], default="sparse")
    run.add_argument("--direction", choices=["push", "pull", "auto"], default="push",
                     help="auto: direction-optimizing BFS")
    run.add_argument("--runs", type=int, default=3, help="timed runs after one warm-up")
    run.add_argument("--validate", action="store_true", help="check against scipy")
    run.set_defaults(handler=run_bfs)

    demo = sub.add_parser("demo", help="BFS on a generated and a shipped road graph, validated")
    demo.add_argument("--target", choices=["cuda", "cpu"], default=None)
    demo.set_defaults(handler=run_demo)

    explain = sub.add_parser("explain", help="print the kernel an algorithm's advance runs")
    explain.add_argument("algorithm", choices=["bfs"])
    explain.add_argument("--balancer", default="thread")
    explain.add_argument("--target", choices=["cuda", "cpu"], default=None)
    explain.add_argument("--frontier", choices=["sparse", "dense"], default="sparse")
    explain.set_defaults(handler=run_explain)

    balancers = sub.add_parser("balancers", help="list the load balancers")
    balancers.set_defaults(handler=run_balancers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from frontier.frontier import FrontierError
    from frontier.graph import GraphError
    from frontier.io import GraphFormatError
    from frontier.target import TargetError
    from operators.balancers import BalancerError

    args = build_parser().parse_args(argv)
    if getattr(args, "runs", 1) < 1:
        print("frontier: error: --runs must be >= 1", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return args.handler(args)
    except FileNotFoundError as err:
        print(f"frontier: error: no such file: {err.filename or err}", file=sys.stderr)
    except (CommandError, GraphFormatError, GraphError, FrontierError, TargetError,
            BalancerError) as err:
        print(f"frontier: error: {err}", file=sys.stderr)
    return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
