"""NetworkX with the frontier backend: each implemented function, NetworkX alone against the
backend with and without the conversion.

``python -m bench networkx [--edges 200000] [--nodes N] [--target cpu|cuda] [--functions ...]``
builds ``networkx.gnm_random_graph(nodes, edges, seed)`` (``--nodes`` defaults to a tenth of
``--edges``; several comma-separated ``--edges`` give one graph each, for the crossover of
``frontier_nx.interface.MIN_EDGES``), every edge with an integer ``weight`` in 1..100, and
times, for each function of :data:`frontier_nx.functions.FUNCTIONS` as
:data:`bench.networkx_calls.CALLS` says to call it (on the directed graph of the same size for
NetworkX's functions of directed graphs, on a graph of fewer nodes and the same mean degree for
a search from every node, Louvain and Floyd–Warshall): NetworkX's own implementation
(``backend="networkx"``), the backend with the conversion included (``G.__networkx_cache__``
cleared before each call, off the clock), the backend on the conversion NetworkX cached, and the
backend right after a mutation of the graph (an absent edge added and removed through NetworkX's
API before each call, off the clock: what a call costs once the user has changed the graph).
Median of ``--runs`` after a warm-up (it compiles), milliseconds, and NetworkX's time over each
backend time (above 1: the backend is faster). Generators are listed inside the timed call. Each
backend result (of the warm-up and of the last timed call) is compared with NetworkX's (floats
to 1e-9 relative, as PageRank's sums may differ in the last bits); the exit status is 1 where
one differs. A function without an entry in :data:`CALLS` is listed as not timed, and so is one
whose first NetworkX call took more than ``--limit`` seconds (its NetworkX time that call's).
The crossover, per function, is the fewest edges at which the backend with conversion beat
NetworkX. Writes ``networkx.csv`` and ``networkx.md``.

``--first-calls [--processes 3] [--limit 60]`` times instead each function's first call in a
fresh process (:mod:`bench.networkx_first_calls`) on ``gnm_random_graph(nodes, edges, seed)``
unweighted, as ``should_run`` decides it under ``backend_priority``, against NetworkX's: the
median of ``--processes`` each way, wall and CPU seconds, with where the call ran and the
machine's load; the kernel cache warm, or with ``--cold`` empty (each process a new empty
``FRONTIER_CACHE_DIR``: what is compiled is compiled in the call). Writes
``networkx_first_calls.csv`` and ``.md``.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import networkx as nx

from bench import networkx_first_calls, options, tables
from bench.networkx_calls import CALLS, Call, dispatchable, graph
from bench.timing import time_calls
from frontier.target import resolve_target
from frontier_nx.functions import FUNCTIONS
from frontier_nx.interface import BackendInterface  # noqa: F401  (registers every function)


@dataclass
class Row:
    nodes: int
    edges: int
    function: str
    networkx_ms: float | None
    backend_ms: float | None  #: conversion included
    cached_ms: float | None  #: on the cached conversion
    mutated_ms: float | None  #: right after a mutation of the graph (the cache cleared by it)
    speedup: float | None  #: networkx_ms / backend_ms
    cached_speedup: float | None  #: networkx_ms / cached_ms
    mutated_speedup: float | None  #: networkx_ms / mutated_ms
    runs: int
    same: bool | None  #: backend result equal to NetworkX's (None: not timed)


def same(expected: Any, got: Any) -> bool:
    """Equal, floats to 1e-9 relative (inside dicts and tuples)."""
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(same(v, got[k])
                                                       for k, v in expected.items())
    if isinstance(expected, tuple) and isinstance(got, tuple):  # hits: (hubs, authorities)
        return len(expected) == len(got) and all(map(same, expected, got))
    if isinstance(expected, float) or isinstance(got, float):
        return math.isclose(expected, got, rel_tol=1e-9, abs_tol=1e-12)
    return expected == got


def absent_edge(G: nx.Graph) -> tuple[Any, Any]:
    """An edge (arc, in a directed graph) ``G`` lacks between two of its nodes, no loop."""
    for u in G:
        for v in G:
            if v != u and v not in G[u]:
                return u, v
    raise ValueError("the graph is complete: no edge to add and remove")


def mutation(G: nx.Graph) -> Callable[[], None]:
    """A change NetworkX sees and that leaves ``G`` as it was: an absent edge added, then
    removed (each clears ``G.__networkx_cache__``, as any mutation through NetworkX's API)."""
    u, v = absent_edge(G)

    def mutate() -> None:
        G.add_edge(u, v)
        G.remove_edge(u, v)
    return mutate


def measure(G: nx.Graph, name: str, call: Call, runs: int, target: Any,
            limit: float = math.inf) -> Row:
    """The four timings of ``name`` on ``G``; only NetworkX's warm-up call where it took more
    than ``limit`` seconds (the row not timed, its NetworkX time that call's)."""
    function = dispatchable(name)

    def run(backend: str) -> Callable[[], Any]:
        return lambda: call.consume(function(G, **call.arguments, backend=backend))

    def uncached() -> None:
        G.__networkx_cache__.clear()

    started = time.perf_counter()
    run("networkx")()  # a probe: NetworkX's time decides whether the function is timed
    seconds = time.perf_counter() - started
    if seconds > limit:
        return replace(not_timed(G, name), networkx_ms=1e3 * seconds)
    alone = time_calls(run("networkx"), runs=runs)
    converted = time_calls(run("frontier"), runs=runs, target=target, prepare=uncached)
    cached = time_calls(run("frontier"), runs=runs, target=target)
    mutated = time_calls(run("frontier"), runs=runs, target=target, prepare=mutation(G))
    timings = alone, converted, cached, mutated
    ms = [1e3 * timing.wall_s for timing in timings]
    return Row(G.number_of_nodes(), G.number_of_edges(), name, *ms, ms[0] / ms[1],
               ms[0] / ms[2], ms[0] / ms[3], alone.runs,
               all(same(alone.first, t.first) and same(alone.first, t.result)
                   for t in timings[1:]))


def not_timed(G: nx.Graph, name: str) -> Row:
    return Row(G.number_of_nodes(), G.number_of_edges(), name, None, None, None, None, None,
               None, None, 0, None)


def crossovers(rows: list[Row]) -> dict[str, int | None]:
    """function -> the fewest edges at which the backend, conversion included, beat NetworkX
    (None: never)."""
    timed = sorted((r for r in rows if r.speedup is not None), key=lambda r: r.edges)
    return {name: next((r.edges for r in timed if r.function == name and r.speedup > 1), None)
            for name in dict.fromkeys(r.function for r in timed)}


def _ms(value: float | None) -> str:
    return "not timed" if value is None else f"{value:,.2f}"


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def line(r: Row) -> str:
    """One row of the Markdown table."""
    return (f"| {r.nodes:,} | {r.edges:,} | {r.function} | {_ms(r.networkx_ms)} | "
            f"{_ms(r.backend_ms)} | {_ms(r.cached_ms)} | {_ms(r.mutated_ms)} | "
            f"{_ratio(r.speedup)} | {_ratio(r.cached_speedup)} | {_ratio(r.mutated_speedup)} | "
            f"{r.runs} | "
            f"{'—' if r.same is None else 'yes' if r.same else 'NO'} |")


def markdown(rows: list[Row], heading: str) -> str:
    lines = [heading, "",
             "| nodes | edges | function | NetworkX ms | backend ms (conversion) | backend ms "
             "(cached) | backend ms (after a mutation) | × NetworkX | × NetworkX (cached) | "
             "× NetworkX (after a mutation) | runs | same |",
             "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|", *map(line, rows)]
    found = crossovers(rows)
    if len({r.edges for r in rows}) > 1 and found:
        lines += ["", "| function | fewest edges where the backend (conversion included) "
                  "beat NetworkX |", "|---|---:|"]
        lines += [f"| {name} | {'never' if edges is None else f'{edges:,}'} |"
                  for name, edges in found.items()]
    return "\n".join(lines) + "\n"


def _counts(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected comma-separated counts") from None
    if not values or min(values) < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected counts >= 0")
    return values


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_runs(parser)
    options.add_target(parser)
    parser.add_argument("--edges", type=_counts, default=[200_000],
                        help="comma-separated edge counts, one graph each (default 200000)")
    parser.add_argument("--nodes", type=_counts, default=None,
                        help="node counts, one per --edges (default a tenth of each)")
    parser.add_argument("--seed", type=int, default=1, help="the generator's seed (default 1)")
    options.add_names(parser, "--functions", ",".join(FUNCTIONS),
                      "functions (default every implemented one)", list(FUNCTIONS))
    parser.add_argument("--first-calls", action="store_true",
                        help="time each function's first call in a fresh process instead, "
                             "under backend_priority against NetworkX's")
    parser.add_argument("--cold", action="store_true",
                        help="with --first-calls: each process with a new empty kernel cache "
                             "(FRONTIER_CACHE_DIR) instead of a warm one")
    parser.add_argument("--processes", type=int, default=3,
                        help="with --first-calls: fresh processes each way (median; default 3)")
    parser.add_argument("--limit", type=float, default=60.0,
                        help="a function NetworkX takes longer for (its first call) is not "
                             "timed (seconds; default 60)")


class Graphs:
    """The suite's graphs of one size, each built on first use: the graph a call is timed on
    (:meth:`bench.networkx_calls.Call.size`, directed or not)."""

    def __init__(self, nodes: int, edges: int, seed: int) -> None:
        self.nodes, self.edges, self.seed = nodes, edges, seed
        self._built: dict[tuple[int, int, bool], nx.Graph] = {}

    def of(self, call: Call) -> nx.Graph:
        key = (*call.size(self.nodes, self.edges), call.directed)
        if key not in self._built:
            self._built[key] = graph(*key[:2], self.seed, call.directed)
        return self._built[key]


def run(args: argparse.Namespace) -> int:
    nodes = args.nodes or [max(edges // 10, 2) for edges in args.edges]
    if len(nodes) != len(args.edges):
        raise options.UsageError(f"{len(nodes)} --nodes for {len(args.edges)} --edges; "
                                 "expected one per graph")
    if args.first_calls:
        return _first_calls(args, nodes)
    if args.cold:
        raise options.UsageError("--cold is an option of --first-calls")
    target = resolve_target(args.target)
    heading = (f"gnm_random_graph(nodes, edges, seed={args.seed}), weights 1..100; target "
               f"{target.name}; median of {args.runs} after a warm-up")
    print(heading, flush=True)
    config = nx.config.backends.frontier
    before = config.target, set(nx.config.warnings_to_ignore)
    config.target = args.target
    nx.config.warnings_to_ignore.add("cache")  # each cached call would warn
    rows: list[Row] = []
    try:
        for n, m in zip(nodes, args.edges, strict=True):
            graphs = Graphs(n, m, args.seed)
            for name in args.functions:
                call = CALLS.get(name)
                rows.append(not_timed(graphs.of(Call()), name) if call is None
                            else measure(graphs.of(call), name, call, args.runs, target,
                                         args.limit))
                print(line(rows[-1]), flush=True)
                tables.write(rows, args.out, "networkx", markdown(rows, heading))
    finally:
        config.target, nx.config.warnings_to_ignore = before
    print(markdown(rows, heading))
    return 0 if all(r.same is not False for r in rows) else 1


def _first_calls(args: argparse.Namespace, nodes: list[int]) -> int:
    graphs = ", ".join(f"gnm_random_graph({n:,}, {m:,}, seed={args.seed})"
                       for n, m in zip(nodes, args.edges, strict=True))
    cache = ("empty (a new FRONTIER_CACHE_DIR per process)" if args.cold else "warm")
    heading = (f"First calls: {graphs}, a fresh process each, the kernel cache {cache}; median "
               f"of {args.processes}, wall seconds (CPU)")
    print(heading, flush=True)
    rows: list[networkx_first_calls.FirstCall] = []

    def report(row: networkx_first_calls.FirstCall) -> None:
        rows.append(row)
        print(networkx_first_calls.line(row), flush=True)
        tables.write(rows, args.out, "networkx_first_calls",
                     networkx_first_calls.markdown(rows, heading))

    for n, m in zip(nodes, args.edges, strict=True):
        networkx_first_calls.first_calls(n, m, args.seed, args.functions, args.processes,
                                         args.limit, report, cold=args.cold)
    print(networkx_first_calls.markdown(rows, heading))
    return 0
