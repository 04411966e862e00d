"""The ``frontier`` command: run an algorithm on a graph file or a generated graph, or a demo.

``frontier run ALGO GRAPH [--source S] [--balancer B] [--target T] [--validate] [options]``
``frontier demo``
``frontier balancers``
``frontier explain ALGO [--balancer B] [--target T] [options]``

ALGO is any algorithm of :data:`algorithms.CATALOG`, whose entry gives its description, its
options, its summary lines and its explain text: adding an entry adds the commands. GRAPH is a
file (:func:`frontier.io.load`) or a generator spec (:func:`frontier.generators.from_spec`).

This module is the one place under ``frontier/`` that imports ``operators`` and ``algorithms``
(lazily, declared in the import-linter contracts of pyproject.toml): the command sits on top of
every layer.

Bad input (a missing file, a malformed graph, a bad generator spec, an out-of-range source)
prints one line on stderr and exits with status 2; a result that ``--validate`` finds different
from scipy's, one line and status 1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

import numpy as np

from frontier import generators
from frontier.graph import Graph
from frontier.io import load

if TYPE_CHECKING:
    from algorithms.catalog import Entry, Option

EXIT_BAD_INPUT = 2
EXIT_WRONG_RESULT = 1


class CommandError(Exception):
    """Bad input to the command line: reported as one line, exit status 2."""


def load_graph(graph: str) -> Graph:
    """The graph a generator spec (``rmat:18``, ``grid:1000x1000``) names, or a graph file."""
    if generators.is_spec(graph):
        return generators.from_spec(graph)
    return load(graph)


def _median_run(fn: Callable[[], object], runs: int) -> tuple[object, float]:
    fn()  # warm-up: compiles the kernels
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return result, statistics.median(times)


def _options(entry: Entry, args: argparse.Namespace, explained: bool = False) -> dict[str, str]:
    """The entry's options as given on the command line (those ``explain`` takes if
    ``explained``)."""
    return {o.name: getattr(args, o.name) for o in entry.options if not explained or o.explained}


def run_algorithm(args: argparse.Namespace) -> int:
    from algorithms import CATALOG
    from frontier.target import resolve_target

    entry = CATALOG[args.algorithm]
    graph = load_graph(args.graph)
    source = args.source if entry.source else None
    if entry.source and (not 0 <= source < graph.num_vertices):
        raise CommandError(f"source {args.source} is out of range: the graph has "
                           f"{graph.num_vertices} vertices")
    target = resolve_target(args.target)
    options = _options(entry, args)
    result, seconds = _median_run(
        lambda: entry.invoke(graph, source, balancer=args.balancer, target=target, **options),
        args.runs)
    edges = result.edges_traversed
    shown = "".join(f", {o.shown.format(options[o.name])}" for o in entry.options)
    print(f"graph       {args.graph}")
    print(f"|V|         {graph.num_vertices:,}")
    print(f"|E|         {graph.num_edges:,} arcs")
    print(f"target      {target.name}{' (simulator)' if target.simulated else ''}")
    print(f"balancer    {args.balancer if entry.balanced else '-'}{shown}")
    if entry.source:
        print(f"source      {source}")
    print(f"time        {seconds * 1e3:.3f} ms (median of {args.runs} after warm-up)")
    print(f"MTEPS       {edges / seconds / 1e6 if seconds > 0 else 0.0:.1f} "
          f"({edges:,} edges traversed)")
    for label, value in entry.report(result):
        print(f"{label:<12}{value}")
    print(f"iterations  {result.iterations}")
    if args.validate:
        try:
            entry.check(graph, source, result)
        except AssertionError as err:
            first = str(err).splitlines()[0] if str(err) else "no detail"
            print(f"frontier: error: {entry.name} disagrees with scipy: {first}",
                  file=sys.stderr)
            return EXIT_WRONG_RESULT
        print(f"validated   {entry.checks}")
    return 0


def run_demo(args: argparse.Namespace) -> int:
    from algorithms import bfs
    from frontier.data import demo_graph_path
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
    from algorithms import CATALOG
    from frontier.target import resolve_target

    entry = CATALOG[args.algorithm]
    options = _options(entry, args, explained=True)
    if entry.balanced:
        options["balancer"] = args.balancer
    print(entry.explain(generators.path(4), resolve_target(args.target), **options))
    return 0


def run_balancers(args: argparse.Namespace) -> int:
    from operators import available_balancers

    print("\n".join(available_balancers()))
    return 0


def _add_options(parser: argparse.ArgumentParser, options: Sequence[Option]) -> None:
    for option in options:
        parser.add_argument(f"--{option.name}", choices=option.choices, default=option.default,
                            help=f"{option.help} (default {option.default})")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"frontier: error: {message}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)


def _common(entry: Entry) -> argparse.ArgumentParser:
    """The arguments every algorithm's commands share: its target, and its balancer if it
    takes one."""
    common = _Parser(add_help=False)
    if entry.balanced:
        common.add_argument("--balancer", default="thread",
                            help="load balancer (frontier balancers)")
    else:
        common.set_defaults(balancer=None)
    common.add_argument("--target", choices=["cuda", "cpu"], default=None,
                        help="default: cuda when a GPU is usable, else cpu")
    return common


def build_parser() -> argparse.ArgumentParser:
    from algorithms import CATALOG

    parser = _Parser(prog="frontier", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run an algorithm on a graph")
    algorithms = run.add_subparsers(dest="algorithm", required=True, metavar="ALGO")
    for name, entry in CATALOG.items():
        algo = algorithms.add_parser(name, parents=[_common(entry)], help=entry.description,
                                     description=entry.description)
        algo.add_argument("graph", help="a graph file (.mtx, .gr, SNAP edge list; .gz too) or "
                          "a generator spec: " + ", ".join(f.usage for f in
                                                           generators.SPECS.values()))
        if entry.source:
            algo.add_argument("--source", type=int, default=0, help="source vertex (default 0)")
        _add_options(algo, entry.options)
        algo.add_argument("--runs", type=int, default=3, help="timed runs after one warm-up")
        algo.add_argument("--validate", action="store_true",
                          help=f"check against scipy: {entry.checks}")
        algo.set_defaults(handler=run_algorithm)

    demo = sub.add_parser("demo", help="BFS on a generated and a shipped road graph, validated")
    demo.add_argument("--target", choices=["cuda", "cpu"], default=None)
    demo.set_defaults(handler=run_demo)

    explain = sub.add_parser("explain", help="print the kernel an algorithm's step runs")
    explained = explain.add_subparsers(dest="algorithm", required=True, metavar="ALGO")
    for name, entry in CATALOG.items():
        algo = explained.add_parser(name, parents=[_common(entry)], help=entry.description,
                                    description=entry.description)
        _add_options(algo, [o for o in entry.options if o.explained])
        algo.set_defaults(handler=run_explain)

    balancers = sub.add_parser("balancers", help="list the load balancers")
    balancers.set_defaults(handler=run_balancers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from algorithms import APSPError, ListError
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
    except (CommandError, generators.SpecError, GraphFormatError, GraphError, FrontierError,
            TargetError, BalancerError, ListError, APSPError) as err:
        print(f"frontier: error: {err}", file=sys.stderr)
    return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
