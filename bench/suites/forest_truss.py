"""Minimum spanning forests, k-trusses and label-propagation communities against one CPU core.

For each case of ``--cases`` (``ALGORITHM:GRAPH``, the catalog names ``msf``, ``ktruss`` and
``communities``; by default the goals of issue 48: Borůvka on luxembourg_osm with weights
1..100 and on rmat21 with weights 1..100, the 5-truss of rmat18), the default call
``entry.invoke(graph, balancer="auto")`` (``k=--k`` for the truss): the median wall time of
``--runs`` calls after a warm-up (compilation), beside the result's own ``seconds``; then, in the
same run on the same host, one CPU core: the catalog's sequential reference
(:mod:`frontier.testing`, compiled with Numba: Kruskal's algorithm, Cohen's truss peeling, the
semi-synchronous label propagation; each call includes the reference's own preparation, a sort
of the edges), and for ``msf`` scipy's ``minimum_spanning_tree`` (its matrix built off the
clock). The result is checked against the reference (``msf``: also its weight against scipy's).

``python -m bench forest_truss --out DIR [--target cuda] [--cases msf:rmat21_w1-100,...]
[--k 5]`` writes ``forest_truss.csv`` and ``forest_truss.md``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from bench import baselines, options, tables
from bench.graphs import builder
from bench.progress import Progress
from bench.timing import time_calls
from frontier.graph import Graph
from frontier.target import resolve_target
from frontier.testing import reference_k_truss

ALGORITHMS = ("msf", "ktruss", "communities")
CASES = "msf:luxembourg_osm_w1-100,msf:rmat21_w1-100,ktruss:rmat18"
#: Seconds of timed calls after which a configuration stops (with at least 3 calls).
BUDGET_S = 20.0


@dataclass
class Row:
    graph: str
    algorithm: str
    vertices: int
    arcs: int
    rounds: int
    wall_ms: float
    device_ms: float
    runs: int
    reference_ms: float
    scipy_ms: float | None
    x_reference: float | None
    x_scipy: float | None
    checked: str


def _undirected(graph: Graph) -> Graph:
    return graph.simple(directed=False) if graph.directed else graph


def _reference(algorithm: str, graph: Graph, k: int) -> Any:
    """The one-core reference call (the truss's at ``k``, the catalog's reference otherwise)."""
    if algorithm == "ktruss":
        simple = graph.simple(directed=False)
        return lambda: reference_k_truss(simple, k)
    return lambda: baselines.reference(algorithm, graph, None)


def _scipy(algorithm: str, graph: Graph) -> Any:
    """scipy's minimum spanning tree of the graph's simple graph, its matrix built now."""
    if algorithm != "msf":
        return None
    simple = _undirected(graph).simple()
    weights = simple.weights if simple.weighted else np.ones(simple.num_edges)
    matrix = sp.csr_matrix((weights.astype(np.float64), simple.col_indices, simple.row_offsets),
                           shape=(graph.num_vertices,) * 2)
    return lambda: csgraph.minimum_spanning_tree(matrix)


def _ratio(baseline: float | None, ours: float) -> float | None:
    return round(baseline / ours, 2) if baseline is not None and ours else None


def measure(name: str, graph: Graph, algorithm: str, target: Any, args: argparse.Namespace
            ) -> Row:
    extra = {"k": args.k} if algorithm == "ktruss" else {}
    timing = time_calls(lambda: baselines.run(algorithm, graph, None, target=target, **extra),
                        runs=args.runs, target=target, own=lambda r: r.seconds,
                        budget_s=BUDGET_S, at_least=3)
    wall = 1e3 * timing.wall_s
    reference_ms = 1e3 * time_calls(_reference(algorithm, graph, args.k), budget_s=BUDGET_S,
                                    at_least=3, slow_s=10.0).wall_s
    scipy_call = _scipy(algorithm, graph)
    scipy_ms = (1e3 * time_calls(scipy_call, budget_s=BUDGET_S, at_least=3).wall_s
                if scipy_call is not None else None)
    checked = "yes" if baselines.check(algorithm, graph, None, timing.first, where=name) else "NO"
    return Row(name, algorithm, graph.num_vertices, graph.num_edges, timing.first.iterations,
               round(wall, 3), round(1e3 * timing.own_s, 3), timing.runs,
               round(reference_ms, 3), None if scipy_ms is None else round(scipy_ms, 3),
               _ratio(reference_ms, wall), _ratio(scipy_ms, wall), checked)


def markdown(rows: list[Row]) -> str:
    show = lambda x: "—" if x is None else f"{x:,.2f}"  # noqa: E731
    head = ("| graph | algorithm | \\|V\\| | arcs | rounds | wall ms | device ms | runs | "
            "reference ms (1 core) | scipy ms (1 core) | × reference | × scipy | checked |\n"
            + "|---" * 13 + "|\n")
    return head + "\n".join(
        f"| {r.graph} | {r.algorithm} | {r.vertices:,} | {r.arcs:,} | {r.rounds:,} | "
        f"{r.wall_ms:,.2f} | {r.device_ms:,.2f} | {r.runs} | {show(r.reference_ms)} | "
        f"{show(r.scipy_ms)} | {show(r.x_reference)} | {show(r.x_scipy)} | {r.checked} |"
        for r in rows) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_runs(parser)
    options.add_names(parser, "--cases", CASES, "ALGORITHM:GRAPH cases", ALGORITHMS)
    parser.add_argument("--k", type=int, default=5, help="the k of the k-truss (default 5)")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    cases = [(*case.partition(":")[::2], builder(case.partition(":")[2]))  # names checked now
             for case in args.cases]
    progress = Progress(len(cases), "forest_truss")
    rows: list[Row] = []
    for algorithm, name, build in cases:
        clock = time.perf_counter()
        graph = build()
        progress.say(f"[{name}] {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs "
                     f"(built in {time.perf_counter() - clock:.1f} s)")
        row = measure(name, graph, algorithm, target, args)
        rows.append(row)
        progress.step(f"{name} {algorithm}: {row.wall_ms:.2f} ms wall, reference "
                      f"{row.reference_ms} ms, scipy {row.scipy_ms} ms")
        tables.write(rows, args.out, "forest_truss", markdown(rows))
    print(markdown(rows))
    return 0 if all(r.checked != "NO" for r in rows) else 1
