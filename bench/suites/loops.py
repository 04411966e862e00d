"""A user's loop of operators fused by operators.loop, against the same loop run from the host,
the library's hand-fused traversal and scipy.

For each graph of ``--graphs``, one breadth-first search written four ways with the same functor
(``dist[dst] == -1`` and an ``atomic_cas`` of ``dist[src] + 1``), from vertex 0:

* ``loop``: ``operators.loop(G, F, body, dist)`` with the body one ``advance`` (defaults);
* ``host``: the same body with ``fused=False`` (a launch and a length read per round);
* ``traverse``: ``operators.traverse(G, F, visit, dist)``, the library's hand-fused
  traversal with the same balancer (``thread``, advance's default);
* ``bfs``: ``algorithms.bfs(G, 0)``, the library's default call;

then scipy's ``shortest_path(unweighted=True)`` from the same vertex on one core. Each is the
median wall time of ``--runs`` calls after a warm-up (compilation), state allocated inside the
call; the distances are checked against scipy's. Reported per way: ms, rounds, µs per round,
MTEPS (arcs / wall), and ``loop`` over ``traverse`` (the issue's goal: within 1.3x).

``python -m bench loops --out DIR [--target cuda] [--graphs luxembourg_osm,grid1000,rmat18]``
writes ``loops.csv`` and ``loops.md``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csgraph

from algorithms import bfs
from bench import options, tables
from bench.graphs import builder
from bench.progress import Progress
from bench.timing import time_calls
from frontier import Frontier, atomic_cas
from frontier.graph import Graph
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import advance, loop, traverse

WAYS = ("loop", "host", "traverse", "bfs")
#: Seconds of timed calls after which a configuration stops (with at least 3 calls).
BUDGET_S = 20.0


@dataclass
class Row:
    graph: str
    way: str
    vertices: int
    arcs: int
    rounds: int
    wall_ms: float
    us_per_round: float
    mteps: float
    x_scipy: float
    checked: str


def visit(src, dst, eid, weight, dist):
    return dist[dst] == -1 and atomic_cas(dist, dst, -1, dist[src] + 1) == -1


def _start(graph: Graph, target: Target) -> tuple[Frontier, object]:
    f = Frontier.from_vertices(graph, [0], target=target)
    dist = target.full(graph.num_vertices, -1, np.int32)
    target.write_scalar(dist, 0, 0)
    return f, dist


def _way(way: str, graph: Graph, target: Target):
    """A call running the search ``way``: returns (distances on the host, rounds)."""

    def body(front: Frontier, dist: object) -> Frontier:
        return advance(graph, front, visit, dist)

    def call() -> tuple[np.ndarray, int]:
        if way == "bfs":
            result = bfs(graph, 0, target=target)
            return np.asarray(result.distances), result.iterations
        f, dist = _start(graph, target)
        if way == "traverse":
            rounds = traverse(graph, f, visit, dist).steps
        else:
            rounds = loop(graph, f, body, dist, fused=way == "loop").rounds
        return target.to_host(dist), rounds

    return call


def measure(name: str, graph: Graph, target: Target, runs: int) -> list[Row]:
    matrix = graph.to_scipy(pattern=True)
    scipy = time_calls(lambda: csgraph.shortest_path(matrix, unweighted=True, indices=0),
                       runs=runs, budget_s=BUDGET_S, at_least=3)
    want = scipy.first
    want = np.where(np.isinf(want), -1, want).astype(np.int64)
    rows = []
    for way in WAYS:
        timing = time_calls(_way(way, graph, target), runs=runs, target=target,
                            budget_s=BUDGET_S, at_least=3)
        dist, rounds = timing.first
        got = np.where(np.asarray(dist) < 0, -1, np.asarray(dist)).astype(np.int64)
        wall = 1e3 * timing.wall_s
        rows.append(Row(name, way, graph.num_vertices, graph.num_edges, int(rounds),
                        round(wall, 3), round(1e3 * wall / max(int(rounds), 1), 2),
                        round(graph.num_edges / max(timing.wall_s, 1e-12) / 1e6, 1),
                        round(scipy.wall_s / max(timing.wall_s, 1e-12), 2),
                        "yes" if np.array_equal(got, want) else "NO"))
    return rows


def markdown(rows: list[Row]) -> str:
    by = {(r.graph, r.way): r for r in rows}
    head = ("| graph | way | \\|V\\| | arcs | rounds | wall ms | µs / round | MTEPS | × scipy | "
            "× traverse | checked |\n" + "|---" * 11 + "|\n")
    lines = []
    for r in rows:
        fused = by.get((r.graph, "traverse"))
        ratio = f"{r.wall_ms / fused.wall_ms:.2f}" if fused and fused.wall_ms else "—"
        lines.append(f"| {r.graph} | {r.way} | {r.vertices:,} | {r.arcs:,} | {r.rounds:,} | "
                     f"{r.wall_ms:,.3f} | {r.us_per_round:,.2f} | {r.mteps:,.1f} | "
                     f"{r.x_scipy:,.2f} | {ratio} | {r.checked} |")
    return head + "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_runs(parser)
    options.add_graphs(parser, "luxembourg_osm,grid1000,rmat18")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    progress = Progress(len(args.graphs), "loops")
    rows: list[Row] = []
    for name in args.graphs:
        graph = builder(name)()
        found = measure(name, graph, target, args.runs)
        rows += found
        progress.step(f"{name}: " + ", ".join(f"{r.way} {r.wall_ms:.2f} ms" for r in found))
        tables.write(rows, args.out, "loops", markdown(rows))
    print(markdown(rows))
    return 0 if all(r.checked == "yes" for r in rows) else 1
