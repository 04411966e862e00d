"""Triangles, independent sets, colourings and strong components against NetworkX and scipy.

For each graph of ``--graphs`` and each algorithm of ``--algorithms`` (catalog names: triangles,
mis, coloring, scc; on a directed graph only scc, the others count on its undirected simple graph
and take no directed input), the default call ``entry.invoke(graph, balancer="auto")``: the
median wall time of ``--runs`` calls after a warm-up (compilation), beside the result's own
``seconds`` (device time); then, in the same run on the same host, one CPU core: the catalog's
sequential reference (``frontier.testing``, compiled with Numba), NetworkX's function on the
same graph (``triangles``, ``maximal_independent_set``, ``greedy_color`` with its default
``largest_first``, ``strongly_connected_components``) where the graph has at most
``--networkx-arcs`` arcs, and scipy's strong components (``connected_components(...,
connection="strong")``). The result is checked against the reference where the reference ran
(graphs of at most ``--reference-arcs`` arcs: merging the sorted rows of every edge takes minutes
on R-MAT's hubs).

``python -m bench structure --out DIR [--target cuda] [--graphs rmat21,luxembourg_osm,
rmat21_directed]`` writes ``structure.csv`` and ``structure.md``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any

import networkx as nx
from scipy.sparse import csgraph

from bench import baselines, options, tables
from bench.graphs import builder
from bench.progress import Progress
from bench.timing import time_calls
from frontier.graph import Graph
from frontier.target import resolve_target

ALGORITHMS = ("triangles", "mis", "coloring", "scc")
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
    reference_ms: float | None
    networkx_ms: float | None
    scipy_ms: float | None
    x_reference: float | None
    x_networkx: float | None
    x_scipy: float | None
    checked: str


def _networkx_graph(graph: Graph, directed: bool) -> nx.Graph:
    h = nx.DiGraph() if directed else nx.Graph()
    h.add_nodes_from(range(graph.num_vertices))
    h.add_edges_from(zip(graph.coo().src.tolist(), graph.col_indices.tolist(), strict=True))
    return h


NETWORKX = {
    "triangles": nx.triangles,
    "mis": lambda h: nx.maximal_independent_set(h, seed=1),
    "coloring": nx.greedy_color,
    "scc": lambda h: list(nx.strongly_connected_components(h)),
}


def _scipy(algorithm: str, graph: Graph) -> Any:
    if algorithm != "scc":
        return None
    matrix = graph.to_scipy(pattern=True)  # strong components hang on repeated entries
    return lambda: csgraph.connected_components(matrix, directed=True, connection="strong")


def _ratio(baseline: float | None, ours: float) -> float | None:
    return round(baseline / ours, 2) if baseline is not None and ours else None


def measure(name: str, graph: Graph, algorithm: str, target: Any, args: argparse.Namespace,
            networkx_graph: Any) -> Row:
    timing = time_calls(lambda: baselines.run(algorithm, graph, None, target=target),
                        runs=args.runs, target=target, own=lambda r: r.seconds,
                        budget_s=BUDGET_S, at_least=3)
    wall = 1e3 * timing.wall_s
    reference_ms = networkx_ms = None
    checked = f"not checked (over {args.reference_arcs:,} arcs)"
    if graph.num_edges <= args.reference_arcs:
        reference_ms = 1e3 * time_calls(lambda: baselines.reference(algorithm, graph, None),
                                        budget_s=BUDGET_S, at_least=3, slow_s=5.0).wall_s
        checked = "yes" if baselines.check(algorithm, graph, None, timing.first,
                                           where=name) else "NO"
    if networkx_graph is not None:
        h = networkx_graph()
        run = NETWORKX[algorithm]
        networkx_ms = 1e3 * time_calls(lambda: run(h), budget_s=BUDGET_S, at_least=1,
                                       slow_s=2.0).wall_s
    scipy_call = _scipy(algorithm, graph)
    scipy_ms = (1e3 * time_calls(scipy_call, budget_s=BUDGET_S, at_least=3).wall_s
                if scipy_call is not None else None)
    rnd = lambda x: None if x is None else round(x, 3)  # noqa: E731
    return Row(name, algorithm, graph.num_vertices, graph.num_edges, timing.first.iterations,
               round(wall, 3), round(1e3 * timing.own_s, 3), timing.runs, rnd(reference_ms),
               rnd(networkx_ms), rnd(scipy_ms), _ratio(reference_ms, wall),
               _ratio(networkx_ms, wall), _ratio(scipy_ms, wall), checked)


def markdown(rows: list[Row]) -> str:
    show = lambda x: "—" if x is None else f"{x:,.1f}"  # noqa: E731
    times = lambda x: "—" if x is None else f"{x:,.2f}"  # noqa: E731
    head = ("| graph | algorithm | \\|V\\| | arcs | rounds | wall ms | device ms | runs | "
            "reference ms (1 core) | NetworkX ms | scipy ms | × reference | × NetworkX | "
            "× scipy | checked |\n" + "|---" * 15 + "|\n")
    return head + "\n".join(
        f"| {r.graph} | {r.algorithm} | {r.vertices:,} | {r.arcs:,} | {r.rounds:,} | "
        f"{r.wall_ms:,.2f} | {r.device_ms:,.2f} | {r.runs} | {show(r.reference_ms)} | "
        f"{show(r.networkx_ms)} | {show(r.scipy_ms)} | {times(r.x_reference)} | "
        f"{times(r.x_networkx)} | {times(r.x_scipy)} | {r.checked} |" for r in rows) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_runs(parser)
    options.add_graphs(parser, "luxembourg_osm,rmat21,rmat21_directed")
    options.add_names(parser, "--algorithms", ",".join(ALGORITHMS), "algorithms", ALGORITHMS)
    parser.add_argument("--networkx-arcs", type=int, default=2_000_000,
                        help="NetworkX runs on graphs of at most this many arcs (default 2e6)")
    parser.add_argument("--reference-arcs", type=int, default=10_000_000,
                        help="the reference runs, and checks, on graphs of at most this many "
                             "arcs (default 1e7)")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    progress = Progress(len(args.graphs) * len(args.algorithms), "structure")
    rows: list[Row] = []
    for name in args.graphs:
        clock = time.perf_counter()
        graph = builder(name)()
        progress.say(f"[{name}] {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs "
                     f"(built in {time.perf_counter() - clock:.1f} s)")
        built: dict[bool, nx.Graph] = {}

        def networkx_graph(directed: bool, graph: Graph = graph,
                           built: dict = built) -> nx.Graph:
            if directed not in built:
                simple = graph if directed else graph.simple(directed=False)
                built[directed] = _networkx_graph(simple, directed)
            return built[directed]

        for algorithm in args.algorithms:
            if graph.directed and algorithm != "scc":
                progress.step(f"{name} {algorithm}: skipped (directed graph)")
                continue
            small = graph.num_edges <= args.networkx_arcs
            directed = algorithm == "scc"
            row = measure(name, graph, algorithm, target, args,
                          (lambda d=directed: networkx_graph(d)) if small else None)
            rows.append(row)
            progress.step(f"{name} {algorithm}: {row.wall_ms:.2f} ms wall, reference "
                          f"{row.reference_ms} ms, NetworkX {row.networkx_ms} ms")
            tables.write(rows, args.out, "structure", markdown(rows))
    print(markdown(rows))
    return 0 if all(r.checked != "NO" for r in rows) else 1



