"""List ranking and all-pairs shortest paths on the GPU, against sequential and scipy baselines.

``python bench/listrank_apsp.py --out DIR`` (on a CUDA machine, from the repository root) times:

* list ranking of random lists (:func:`frontier.generators.random_list`) of 10^6, 10^7,
  6.4x10^7 and 10^8 nodes (the last where the GPU and the host have room) with every method
  (``wylie``; ``random_splitter``, packed and unpacked), against a sequential ranker compiled
  with ``numba.njit`` on the host (one walk from the head);
* APSP on a random directed graph of 4,096 vertices (16 arcs a vertex, integer weights 1..100):
  blocked Floyd–Warshall, plain Floyd–Warshall, repeated SSSP, against
  ``scipy.sparse.csgraph.floyd_warshall``.

Each GPU figure is the median of ``--runs`` (>= 5) after a warm-up: ``ms`` is the algorithm's own
``seconds`` (list ranking: on the device, transfers and input checks excluded; APSP: first launch
to the matrix on the host) and ``wall ms`` the whole call (upload, checks, download). Slow
baselines stop early after 60 s (at least one timed run, said in the ``runs`` column). Every
GPU result is checked against the baseline's. Writes ``listrank_apsp.csv`` and
``listrank_apsp.md`` (the table) to DIR and prints the table. Goals (H100): a 6.4x10^7-node list
in <= 30 ms, blocked Floyd–Warshall on 4,096 vertices in <= 250 ms.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from algorithms import apsp, list_ranking
from frontier import generators
from frontier.limits import host_limit_bytes
from frontier.target import resolve_target
from frontier.testing import reference_apsp

SIZES = (1_000_000, 10_000_000, 64_000_000, 100_000_000)
LIST_METHODS = (("wylie", {}), ("random_splitter", {}),
                ("random_splitter", {"packed": False}))
APSP_METHODS = ("blocked_floyd_warshall", "floyd_warshall", "repeated_sssp")


@dataclass
class Row:
    problem: str
    size: int
    method: str
    ms: float
    wall_ms: float
    runs: int
    iterations: int
    vs_baseline: float | None
    goal_ms: float | None
    validated: bool


def _median(fn: Callable[[], tuple[float, float]], runs: int, budget_s: float
            ) -> tuple[float, float, int]:
    """Medians of (own seconds, wall seconds) over ``runs`` calls after one warm-up call; stops
    after ``budget_s`` once one run is in."""
    fn()
    own, wall = [], []
    start = time.perf_counter()
    while len(own) < runs and (not own or time.perf_counter() - start < budget_s):
        a, b = fn()
        own.append(a)
        wall.append(b)
    return statistics.median(own), statistics.median(wall), len(own)


def _sequential_ranker() -> Callable[[np.ndarray], np.ndarray]:
    import numba

    @numba.njit(cache=False)
    def rank(succ: np.ndarray) -> np.ndarray:
        n = succ.size
        followed = np.zeros(n, np.bool_)
        for v in range(n):
            if succ[v] != v:
                followed[succ[v]] = True
        v = 0
        while followed[v]:
            v += 1
        ranks = np.empty(n, np.int64)
        r = n - 1
        while True:
            ranks[v] = r
            r -= 1
            if succ[v] == v:
                break
            v = succ[v]
        return ranks

    return rank


def _fits(n: int, target) -> bool:
    """Room for a list of n nodes: about 48 bytes a node on the device (succ, predecessor
    counts, two 64-bit buffers, the ranks) and 40 on the host."""
    free = target.free_bytes()
    host = host_limit_bytes()
    return (free is None or 48 * n < free) and 40 * n < host


def bench_lists(sizes: tuple[int, ...], runs: int, target) -> list[Row]:
    rows = []
    rank = _sequential_ranker()
    for n in sizes:
        if not _fits(n, target):
            print(f"list {n:,}: no room, skipped", flush=True)
            continue
        succ = generators.random_list(n, seed=1)

        def sequential(succ=succ) -> tuple[float, float]:
            t = time.perf_counter()
            rank(succ)
            seconds = time.perf_counter() - t
            return seconds, seconds

        want = rank(succ)
        base, _, count = _median(sequential, runs, 60.0)
        rows.append(Row("list ranking", n, "sequential (numba, host)", round(base * 1e3, 3),
                        round(base * 1e3, 3), count, 0, None, None, True))
        print(f"list {n:,}: sequential {base * 1e3:.1f} ms", flush=True)
        for method, options in LIST_METHODS:
            name = method + ("" if options.get("packed", True) else " (unpacked)")
            first = list_ranking(succ, method=method, target=target, **options)
            ok = bool(np.array_equal(first.ranks, want))

            def call(method=method, options=options, succ=succ) -> tuple[float, float]:
                t = time.perf_counter()
                result = list_ranking(succ, method=method, target=target, **options)
                return result.seconds, time.perf_counter() - t

            ms, wall, count = _median(call, runs, 60.0)
            goal = 30.0 if n == 64_000_000 and method == "random_splitter" else None
            rows.append(Row("list ranking", n, name, round(ms * 1e3, 3), round(wall * 1e3, 3),
                            count, first.iterations, round(base / ms, 1), goal, ok))
            print(f"list {n:,}: {name} {ms * 1e3:.2f} ms (wall {wall * 1e3:.1f} ms), "
                  f"valid={ok}", flush=True)
    return rows


def bench_apsp(vertices: int, runs: int, target) -> list[Row]:
    graph = generators.gnm(vertices, 16 * vertices, seed=3, directed=True, weights=(1, 100))
    t = time.perf_counter()
    want = reference_apsp(graph)
    base = time.perf_counter() - t
    rows = [Row("apsp", vertices, "scipy floyd_warshall (host)", round(base * 1e3, 1),
                round(base * 1e3, 1), 1, vertices, None, None, True)]
    print(f"apsp {vertices:,}: scipy {base * 1e3:.0f} ms (one run)", flush=True)
    for method in APSP_METHODS:
        first = apsp(graph, method=method, target=target)
        ok = bool(np.array_equal(first.distances, want))

        def call(method=method) -> tuple[float, float]:
            t = time.perf_counter()
            result = apsp(graph, method=method, target=target)
            return result.seconds, time.perf_counter() - t

        ms, wall, count = _median(call, runs, 60.0)
        goal = 250.0 if vertices == 4096 and method == "blocked_floyd_warshall" else None
        rows.append(Row("apsp", vertices, method, round(ms * 1e3, 3), round(wall * 1e3, 3),
                        count, first.iterations, round(base / ms, 1), goal, ok))
        print(f"apsp {vertices:,}: {method} {ms * 1e3:.1f} ms (wall {wall * 1e3:.1f} ms), "
              f"valid={ok}", flush=True)
    return rows


def markdown(rows: list[Row]) -> str:
    head = ("| problem | size | method | ms | wall ms | runs | iterations | × baseline | "
            "goal ms | valid |\n" + "|---" * 10 + "|\n")
    return head + "\n".join(
        f"| {r.problem} | {r.size:,} | {r.method} | {r.ms:,.3f} | {r.wall_ms:,.1f} | {r.runs} | "
        f"{r.iterations} | {r.vs_baseline if r.vs_baseline is not None else '—'} | "
        f"{r.goal_ms if r.goal_ms else '—'}"
        f"{'' if not r.goal_ms else (' met' if r.ms <= r.goal_ms else ' MISSED')} | "
        f"{'yes' if r.validated else 'NO'} |" for r in rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("results"))
    parser.add_argument("--target", default="cuda", choices=["cuda", "cpu"])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)),
                        help="list sizes, comma-separated")
    parser.add_argument("--vertices", type=int, default=4096, help="APSP graph size")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    target = resolve_target(args.target)
    sizes = tuple(int(float(s)) for s in args.sizes.split(",") if s)
    rows = bench_lists(sizes, args.runs, target) + bench_apsp(args.vertices, args.runs, target)
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "listrank_apsp.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(asdict(rows[0])))
        writer.writeheader()
        writer.writerows(asdict(r) for r in rows)
    table = markdown(rows)
    (args.out / "listrank_apsp.md").write_text(table)
    print(table)
    return 0 if all(r.validated for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
