"""List ranking and all-pairs shortest paths, against sequential and scipy baselines.

On a CUDA machine, times:

* list ranking of random lists (:func:`frontier.generators.random_list`) of 10^6, 10^7,
  6.4x10^7 and 10^8 nodes (the last where the GPU and the host have room) with every method
  (``wylie``; ``random_splitter``, packed and unpacked), against a sequential ranker compiled
  with ``numba.njit`` on the host (one walk from the head);
* APSP on a random directed graph of 4,096 vertices (16 arcs a vertex, integer weights 1..100):
  blocked Floyd–Warshall, plain Floyd–Warshall, repeated SSSP, against
  ``scipy.sparse.csgraph.floyd_warshall``.

Each figure is the median of ``--runs`` after a warm-up: ``ms`` is the algorithm's own
``seconds`` (list ranking: on the device, transfers and input checks excluded; APSP: first launch
to the matrix on the host) and ``wall ms`` the whole call (upload, checks, download). Slow
configurations stop early after 60 s of timed runs (at least one, said in the ``runs`` column).
Every GPU result is checked against the baseline's. Goals (H100): a 6.4x10^7-node list in
<= 30 ms, blocked Floyd–Warshall on 4,096 vertices in <= 250 ms.

``python -m bench listrank_apsp --out DIR [--sizes 1e6,1e7] [--vertices 4096]`` writes
``listrank_apsp.csv`` and ``listrank_apsp.md`` (the table) and prints the table.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from algorithms import apsp, list_ranking
from bench import options, tables
from bench.timing import time_calls
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


#: Seconds of timed runs after which a configuration stops (with at least one run).
BUDGET_S = 60.0


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

        want = rank(succ)
        timing = time_calls(lambda succ=succ: rank(succ), runs=runs, budget_s=BUDGET_S,
                            at_least=1)
        base, count = timing.wall_s, timing.runs
        rows.append(Row("list ranking", n, "sequential (numba, host)", round(base * 1e3, 3),
                        round(base * 1e3, 3), count, 0, None, None, True))
        print(f"list {n:,}: sequential {base * 1e3:.1f} ms", flush=True)
        for method, extra in LIST_METHODS:
            name = method + ("" if extra.get("packed", True) else " (unpacked)")
            timing = time_calls(
                lambda method=method, extra=extra, succ=succ: list_ranking(
                    succ, method=method, target=target, **extra),
                runs=runs, target=target, own=lambda result: result.seconds, budget_s=BUDGET_S,
                at_least=1)
            ms, wall, count = timing.own_s, timing.wall_s, timing.runs
            first = timing.first
            ok = bool(np.array_equal(first.ranks, want))
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
        timing = time_calls(lambda method=method: apsp(graph, method=method, target=target),
                            runs=runs, target=target, own=lambda result: result.seconds,
                            budget_s=BUDGET_S, at_least=1)
        ms, wall, count = timing.own_s, timing.wall_s, timing.runs
        first = timing.first
        ok = bool(np.array_equal(first.distances, want))
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser, "cuda")
    options.add_runs(parser)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)),
                        help="list sizes, comma-separated")
    parser.add_argument("--vertices", type=int, default=4096, help="APSP graph size")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    sizes = tuple(int(float(s)) for s in args.sizes.split(",") if s)
    rows = bench_lists(sizes, args.runs, target) + bench_apsp(args.vertices, args.runs, target)
    table = markdown(rows)
    tables.write(rows, args.out, "listrank_apsp", table)
    print(table)
    return 0 if all(r.validated for r in rows) else 1
