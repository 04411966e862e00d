"""SSSP benchmark: every method of :func:`algorithms.sssp` and scipy's Dijkstra in the same run.

``python -m bench.sssp --out DIR [--target cuda|cpu] [--runs 5] [--quick]``

Graphs (shared/anchors.md): luxembourg_osm with unit weights (its file has none; Gunrock ran it
so), rmat scale 21 and the 2000x2000 grid with integer weights 1..63 (``--quick``: rmat 16 and
a 200x200 grid). Each method runs once to warm up (compiling its kernels), is validated against
scipy.sparse.csgraph (distances equal, predecessors tight), then timed: the median of ``--runs``
(>= 5) wall times of the whole call. scipy's Dijkstra is timed the same way on the same machine.
A method whose warm-up run exceeds ``--budget`` seconds is stopped and reported as such.

Then every method is validated on every weighted dataset of :func:`frontier.testing.dataset_dir`
(rome99). Prints a Markdown table and writes ``DIR/sssp.csv``; exits 1 if any validation failed.
"""

from __future__ import annotations

import argparse
import csv
import signal
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from algorithms import CATALOG, sssp
from algorithms.sssp import METHODS
from frontier import generators
from frontier.graph import Graph
from frontier.io import load
from frontier.target import resolve_target
from frontier.testing import dataset_dir


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


def timed_graphs(quick: bool) -> dict[str, Callable[[], Graph]]:
    """Name -> builder of the timed graphs."""
    folder = dataset_dir()
    graphs: dict[str, Callable[[], Graph]] = {}
    if folder is not None and (folder / "luxembourg_osm.mtx.gz").exists():
        graphs["luxembourg_osm"] = lambda: load(folder / "luxembourg_osm.mtx.gz")
    scale, side = (16, 200) if quick else (21, 2000)
    graphs[f"rmat{scale}_w1-63"] = lambda: generators.rmat(scale, weights=(1, 63))
    graphs[f"grid{side}_w1-63"] = lambda: generators.grid2d(side, side, weights=(1, 63))
    return graphs


def weighted_datasets() -> dict[str, Callable[[], Graph]]:
    """Name -> loader of every weighted dataset (validated, not timed)."""
    folder = dataset_dir()
    found: dict[str, Callable[[], Graph]] = {}
    for path in sorted(folder.glob("*.gz")) if folder is not None else []:
        graph = load(path)
        if graph.weighted:
            found[path.name.split(".")[0]] = lambda graph=graph: graph
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


def _matrix(graph: Graph) -> sp.csr_matrix:
    weights = graph.weights if graph.weighted else np.ones(graph.num_edges)
    n = graph.num_vertices
    return sp.csr_matrix((weights.astype(np.float64), graph.col_indices, graph.row_offsets),
                         shape=(n, n))


def scipy_ms(graph: Graph, source: int, runs: int) -> float:
    """Median wall time of scipy's Dijkstra after one warm-up call (the CSR matrix prebuilt)."""
    matrix = _matrix(graph)
    csgraph.dijkstra(matrix, indices=source)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        csgraph.dijkstra(matrix, indices=source)
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def measure(name: str, graph: Graph, method: str, balancer: str, target: str | None,
            runs: int, budget: int, reference_ms: float) -> Row:
    tgt = resolve_target(target)
    source = int(np.argmax(graph.out_degrees())) if graph.num_edges else 0
    row = Row(name, graph.num_vertices, graph.num_edges, method, balancer, tgt.name, 0, None,
              None, None, round(reference_ms, 3), None, None, "")
    try:
        with _budget(budget):
            clock = time.perf_counter()
            first = sssp(graph, source, method=method, balancer=balancer, target=tgt)
            warm = time.perf_counter() - clock
    except _OverBudget:
        row.note = f"warm-up run stopped after {budget} s"
        return row
    try:
        CATALOG["sssp"].check(graph, source, first)
        row.validated = True
    except AssertionError as err:
        print(f"  VALIDATION FAILED: {method} on {name}: {str(err)[:200]}", file=sys.stderr)
        row.validated = False
    row.iterations = first.iterations
    walls, device = [], []
    for _ in range(runs if warm < budget / max(runs, 1) else 1):
        clock = time.perf_counter()
        result = sssp(graph, source, method=method, balancer=balancer, target=tgt)
        walls.append(time.perf_counter() - clock)
        device.append(result.seconds)
    row.runs = len(walls)
    row.wall_ms = round(1e3 * statistics.median(walls), 3)
    row.device_ms = round(1e3 * statistics.median(device), 3)
    row.speedup_vs_scipy = round(reference_ms / row.wall_ms, 3)
    if row.runs < runs:
        row.note = f"one timed run: the warm-up took {warm:.0f} s"
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


def write(rows: list[Row], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "sssp.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(asdict(rows[0])))
        writer.writeheader()
        writer.writerows(asdict(r) for r in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sssp")
    parser.add_argument("--out", type=Path, default=Path("results"))
    parser.add_argument("--target", default=None, choices=["cuda", "cpu"])
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated")
    parser.add_argument("--balancers", default="auto", help="comma-separated")
    parser.add_argument("--graphs", default=None, help="comma-separated names (default: all)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=int, default=120,
                        help="seconds a method's warm-up run may take on one graph")
    parser.add_argument("--quick", action="store_true", help="small generated graphs")
    args = parser.parse_args(argv)
    if args.runs < 5:
        parser.error("--runs must be >= 5 (medians of fewer runs are not reported)")
    methods = args.methods.split(",")
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        parser.error(f"unknown methods {unknown}; expected some of {METHODS}")
    builders = timed_graphs(args.quick)
    names = args.graphs.split(",") if args.graphs else list(builders)
    rows: list[Row] = []
    for name in names:
        if name not in builders:
            parser.error(f"unknown graph {name!r}; expected one of {list(builders)}")
        clock = time.perf_counter()
        graph = builders[name]()
        source = int(np.argmax(graph.out_degrees()))
        reference = scipy_ms(graph, source, args.runs)
        print(f"[{name}] {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs (built in "
              f"{time.perf_counter() - clock:.1f} s); scipy Dijkstra {reference:.1f} ms",
              flush=True)
        for method in methods:
            for balancer in args.balancers.split(","):
                row = measure(name, graph, method, balancer, args.target, args.runs,
                              args.budget, reference)
                rows.append(row)
                print(f"  {method:15s} {balancer:14s} wall {row.wall_ms} ms, device "
                      f"{row.device_ms} ms, {row.iterations} iterations, valid="
                      f"{row.validated} {row.note}", flush=True)
                write(rows, args.out)
    for name, build in weighted_datasets().items():
        graph = build()
        reference = scipy_ms(graph, int(np.argmax(graph.out_degrees())), args.runs)
        for method in methods:
            row = measure(name, graph, method, "auto", args.target, args.runs, args.budget,
                          reference)
            rows.append(row)
            print(f"  [{name}] {method:15s} wall {row.wall_ms} ms valid={row.validated}",
                  flush=True)
    write(rows, args.out)
    print(markdown(rows))
    return 0 if all(r.validated is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
