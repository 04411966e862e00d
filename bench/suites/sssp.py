"""Every method of :func:`algorithms.sssp` and scipy's Dijkstra in the same run.

Graphs (``--graphs``, default the ``weighted`` set of shared/anchors.md: luxembourg_osm with
unit weights (its file has none; Gunrock ran it so), rmat scale 21 and the 2000x2000 grid with
integer weights 1..63; ``--quick``: the ``weighted_quick`` set, rmat 16 and a 200x200 grid).
Each method runs once to warm up (compiling its kernels), is validated against
scipy.sparse.csgraph (distances equal, predecessors tight), then timed: the median of ``--runs``
wall times of the whole call (one, when the first timed call takes longer than
``--budget`` / ``--runs`` seconds). scipy's Dijkstra is timed the same way on the same machine,
its matrix built beforehand. A method whose warm-up run exceeds ``--budget`` seconds is stopped
and reported as such.

Then every method is validated on every weighted dataset here (rome99), and the calls a user
meets beside the big graphs are timed (``--calls``): the default call on a 7-vertex path, and
all-pairs shortest paths of rome99 by ``apsp(method="repeated_sssp")`` (one stepping traversal
per source, through ``sssp(sources=...)``) and by its default method, beside scipy's all-pairs
Dijkstra, in ``DIR/sssp_calls.md``.

``python -m bench sssp --out DIR [--target cuda|cpu] [--runs 5] [--quick]`` prints a Markdown
table and writes ``DIR/sssp.csv`` and ``DIR/sssp.md``; exits 1 if any validation failed.
"""

from __future__ import annotations

import argparse
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from algorithms import sssp
from algorithms.sssp import SSSPMethod
from bench import baselines, options, tables
from bench.graphs import builder, datasets, expand, source_of
from bench.timing import time_calls
from frontier.graph import Graph
from frontier.io import load
from frontier.target import resolve_target


@dataclass
class Row:
    graph: str
    vertices: int
    arcs: int
    method: str
    balancer: str
    target: str
    runs: int
    wall_ms: float | None
    device_ms: float | None
    iterations: int | None
    scipy_ms: float
    speedup_vs_scipy: float | None
    validated: bool | None
    note: str


def weighted_datasets() -> dict[str, Graph]:
    """Name -> every weighted dataset here (validated, not timed)."""
    found: dict[str, Graph] = {}
    for name, path in datasets().items():
        graph = load(path)
        if graph.weighted:
            found[name] = graph
    return found


class _OverBudget(BaseException):  # not an Exception: operators re-raise those as FunctorError
    pass


@contextmanager
def _budget(seconds: int) -> Iterator[None]:
    """Raise :class:`_OverBudget` in the calling thread after ``seconds`` (between operator
    calls: every method returns to Python after each step)."""
    def stop(signum: int, frame: object) -> None:
        raise _OverBudget

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def scipy_ms(graph: Graph, source: int, runs: int) -> float:
    """Median wall time of scipy's Dijkstra after one warm-up call (the CSR matrix prebuilt)."""
    return 1e3 * time_calls(baselines.scipy_dijkstra(graph, source), runs=runs).wall_s


def measure(name: str, graph: Graph, method: str, balancer: str, target: str | None,
            runs: int, budget: int, reference_ms: float) -> Row:
    tgt = resolve_target(target)
    source = source_of(graph)
    row = Row(name, graph.num_vertices, graph.num_edges, method, balancer, tgt.name, 0, None,
              None, None, round(reference_ms, 3), None, None, "")
    calls = 0

    def call() -> object:
        nonlocal calls
        calls += 1
        if calls == 1:  # the warm-up: stopped after the budget
            with _budget(budget):
                return sssp(graph, source, method=method, balancer=balancer, target=tgt)
        return sssp(graph, source, method=method, balancer=balancer, target=tgt)

    try:
        timing = time_calls(call, runs=runs, target=tgt, own=lambda result: result.seconds,
                            slow_s=budget / runs)
    except _OverBudget:
        row.note = f"warm-up run stopped after {budget} s"
        return row
    row.validated = baselines.check("sssp", graph, source, timing.first,
                                    where=f"{method} on {name}")
    row.iterations = timing.first.iterations
    row.runs = timing.runs
    row.wall_ms = round(1e3 * timing.wall_s, 3)
    row.device_ms = round(1e3 * timing.own_s, 3)
    row.speedup_vs_scipy = round(reference_ms / row.wall_ms, 3)
    if row.runs < runs:
        row.note = f"one timed run: it took {timing.walls[0]:.0f} s"
    return row


def markdown(rows: list[Row]) -> str:
    head = ("| graph | method | balancer | target | wall ms (median) | device ms | iterations "
            "| scipy Dijkstra ms | x scipy | valid | note |\n" + "|---" * 11 + "|\n")
    return head + "".join(
        f"| {r.graph} | {r.method} | {r.balancer} | {r.target} | "
        f"{'—' if r.wall_ms is None else f'{r.wall_ms:.1f}'} | "
        f"{'—' if r.device_ms is None else f'{r.device_ms:.1f}'} | "
        f"{'—' if r.iterations is None else r.iterations} | {r.scipy_ms:.1f} | "
        f"{'—' if r.speedup_vs_scipy is None else f'{r.speedup_vs_scipy:.2f}'} | "
        f"{'—' if r.validated is None else r.validated} | {r.note} |\n" for r in rows)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_runs(parser)
    parser.add_argument("--graphs", type=str, default=None,
                        help="comma-separated graph names and sets (default: the weighted set; "
                             "with --quick, weighted_quick)")
    methods = [m.value for m in SSSPMethod if m is not SSSPMethod.AUTO]
    options.add_names(parser, "--methods", ",".join(methods), "methods", methods)
    options.add_names(parser, "--balancers", "auto", "balancers")
    parser.add_argument("--budget", type=int, default=120,
                        help="seconds a method's warm-up run may take on one graph")
    parser.add_argument("--quick", action="store_true", help="small generated graphs")
    parser.add_argument("--no-datasets", action="store_true",
                        help="do not validate on the weighted datasets")
    parser.add_argument("--calls", action="store_true",
                        help="also time a tiny call and the all-pairs runs on rome99")


@dataclass
class CallRow:
    call: str
    target: str
    runs: int
    wall_ms: float
    scipy_ms: float | None


def calls(target: str | None, runs: int) -> list[CallRow]:
    """The tiny call and rome99's all-pairs runs (ours and scipy's), median of ``runs``."""
    import scipy.sparse.csgraph as csgraph

    from algorithms import apsp
    from frontier import generators

    tgt = resolve_target(target)
    tiny = generators.path(7, weights=(1, 5))
    rows = [CallRow("sssp(path of 7 vertices, 0)", tgt.name, runs,
                    1e3 * time_calls(lambda: sssp(tiny, 0, target=tgt), runs=runs).wall_s,
                    None)]
    found = datasets()
    if "rome99" in found:
        rome = load(found["rome99"])
        matrix = rome.to_scipy()
        ref = 1e3 * time_calls(lambda: csgraph.dijkstra(matrix), runs=runs).wall_s
        for method in ("repeated_sssp", "blocked_floyd_warshall"):
            wall = time_calls(lambda m=method: apsp(rome, method=m, target=tgt), runs=runs)
            rows.append(CallRow(f"apsp(rome99, method={method!r})", tgt.name, runs,
                                1e3 * wall.wall_s, ref))
    return rows


def calls_markdown(rows: list[CallRow]) -> str:
    head = "| call | target | runs | wall ms (median) | scipy ms |\n" + "|---" * 5 + "|\n"
    return head + "".join(f"| {r.call} | {r.target} | {r.runs} | {r.wall_ms:.3f} | "
                          f"{'—' if r.scipy_ms is None else f'{r.scipy_ms:.1f}'} |\n"
                          for r in rows)


def run(args: argparse.Namespace) -> int:
    names = expand(args.graphs or ("weighted_quick" if args.quick else "weighted"))
    rows: list[Row] = []
    for name in names:
        clock = time.perf_counter()
        graph = builder(name)()
        source = source_of(graph)
        reference = scipy_ms(graph, source, args.runs)
        print(f"[{name}] {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs (built in "
              f"{time.perf_counter() - clock:.1f} s); scipy Dijkstra {reference:.1f} ms",
              flush=True)
        for method in args.methods:
            for balancer in args.balancers:
                row = measure(name, graph, method, balancer, args.target, args.runs,
                              args.budget, reference)
                rows.append(row)
                print(f"  {method:15s} {balancer:14s} wall {row.wall_ms} ms, device "
                      f"{row.device_ms} ms, {row.iterations} iterations, valid="
                      f"{row.validated} {row.note}", flush=True)
                tables.write(rows, args.out, "sssp", markdown(rows))
    for name, graph in ({} if args.no_datasets else weighted_datasets()).items():
        reference = scipy_ms(graph, source_of(graph), args.runs)
        for method in args.methods:
            row = measure(name, graph, method, "auto", args.target, args.runs, args.budget,
                          reference)
            rows.append(row)
            print(f"  [{name}] {method:15s} wall {row.wall_ms} ms valid={row.validated}",
                  flush=True)
    tables.write(rows, args.out, "sssp", markdown(rows))
    print(markdown(rows))
    if args.calls:
        found = calls(args.target, args.runs)
        tables.write(found, args.out, "sssp_calls", calls_markdown(found))
        print(calls_markdown(found))
    return 0 if all(r.validated is not False for r in rows) else 1
