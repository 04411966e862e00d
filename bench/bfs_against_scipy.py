"""The default ``bfs(G, s)`` call against scipy's ``breadth_first_order`` on one core of the
same host, in one process: the ratio of issue "Fast calls" item 4 (no default call slower than
1.2x scipy), measured the way a user meets it. Per graph and round: the call's wall time and its
traversal's own ``seconds``, scipy's ``breadth_first_order(A, s, directed=True)`` (the matrix
built once, off the clock), each the median of ``--runs`` after a warm-up, and wall / scipy.
The source is the vertex of largest degree.

``python -m bench.bfs_against_scipy [--graphs luxembourg_osm] [--runs 21] [--rounds 2]
[--out results]``: prints the table, writes ``OUT/bfs_against_scipy.csv`` and ``.md``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scipy.sparse import csgraph

from algorithms import bfs
from bench.graphs import build, expand, source_of
from bench.tables import markdown, write
from bench.timing import MIN_RUNS, time_calls


@dataclass(frozen=True)
class Row:
    graph: str
    round: int
    target: str
    bfs_wall_ms: float
    traversal_ms: float
    scipy_ms: float
    bfs_over_scipy: float


def measure(name: str, runs: int, rounds: int) -> list[Row]:
    graph = build(name)
    source, matrix = source_of(graph), graph.to_scipy()
    target = bfs(graph, source).target
    rows = []
    for k in range(rounds):
        ours = time_calls(lambda: bfs(graph, source), runs=runs, target=target,
                          own=lambda result: result.seconds)
        theirs = time_calls(lambda: csgraph.breadth_first_order(matrix, source, directed=True),
                            runs=runs)
        rows.append(Row(name, k, target.name, ours.wall_s * 1e3, ours.own_s * 1e3,
                        theirs.wall_s * 1e3, ours.wall_s / theirs.wall_s))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bfs_against_scipy",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", default="luxembourg_osm",
                        help="comma-separated graph names and sets (bench/graphs.py)")
    parser.add_argument("--runs", type=int, default=21, help="timed calls per median")
    parser.add_argument("--rounds", type=int, default=2, help="medians per graph")
    parser.add_argument("--out", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    if args.runs < MIN_RUNS or args.rounds < 1:
        parser.error(f"--runs must be at least {MIN_RUNS} and --rounds at least 1")
    rows = [row for name in expand(args.graphs) for row in measure(name, args.runs, args.rounds)]
    print(markdown(rows), end="")
    write(rows, args.out, "bfs_against_scipy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
