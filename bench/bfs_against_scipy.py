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
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scipy.sparse import csgraph

from algorithms import bfs
from bench.graphs import build, expand, source_of
from bench.tables import markdown, write


@dataclass(frozen=True)
class Row:
    graph: str
    round: int
    target: str
    bfs_wall_ms: float
    traversal_ms: float
    scipy_ms: float
    bfs_over_scipy: float


def _timed(call: Callable[[], Any], runs: int) -> list[tuple[float, float]]:
    """Wall seconds of each of ``runs`` calls after one warm-up, with the ``seconds`` of the
    call's result where it has them (a result is dropped at once, as a user's loop would)."""
    call()
    timed = []
    for _ in range(runs):
        began = time.perf_counter()
        result = call()
        timed.append((time.perf_counter() - began, getattr(result, "seconds", 0.0)))
    return timed


def measure(name: str, runs: int, rounds: int) -> list[Row]:
    graph = build(name)
    source, matrix = source_of(graph), graph.to_scipy()
    target = bfs(graph, source).target.name
    rows = []
    for k in range(rounds):
        ours = _timed(lambda: bfs(graph, source), runs)
        theirs = _timed(lambda: csgraph.breadth_first_order(matrix, source, directed=True),
                        runs)
        wall = statistics.median(t for t, _ in ours) * 1e3
        scipy = statistics.median(t for t, _ in theirs) * 1e3
        rows.append(Row(name, k, target, wall, statistics.median(s for _, s in ours) * 1e3,
                        scipy, wall / scipy))
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
    if args.runs < 5 or args.rounds < 1:
        parser.error("--runs must be at least 5 and --rounds at least 1")
    rows = [row for name in expand(args.graphs) for row in measure(name, args.runs, args.rounds)]
    print(markdown(rows), end="")
    write(rows, args.out, "bfs_against_scipy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
