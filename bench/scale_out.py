"""Scale-out benchmark: BFS (push, and direction-optimizing ``bfs_do``) and connected
components on R-MAT graphs, one device against P Dask workers (one per GPU with NCCL, or cpu
workers over Dask's transport), the median wall time of the whole call over several runs after
a warm-up, and the bytes the workers exchanged per step.

    python -m bench.scale_out --workers gpu --parts 1,2 --scales 22,24,26 --out results/
    python -m bench.scale_out --workers cpu --parts 1,2,4 --scales 14,16 --out results/

Rows: ``single`` is the algorithm on one device in this process (no Dask); ``P=k`` runs over k
workers. Every distributed result is checked against the single-device one. Prints a Markdown
table and writes ``scale_out.csv`` to ``--out``. Every worker starts with NCCL_NVLS_ENABLE=0.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

os.environ["NCCL_NVLS_ENABLE"] = "0"  # before any NCCL or worker process starts

import algorithms  # noqa: E402
from algorithms import bfs  # noqa: E402
from algorithms.distributed import components_arrays  # noqa: E402
from frontier import generators  # noqa: E402
from frontier.distributed import DistributedGraph, partition, start_cluster  # noqa: E402
from frontier.distributed.cluster import worker_addresses  # noqa: E402


@dataclass
class Row:
    algorithm: str
    graph: str
    vertices: int
    arcs: int
    config: str
    workers: str
    transport: str
    runs: int
    median_s: float
    min_s: float
    steps: int | None
    edges_per_s: float
    exchanged_bytes: int
    bytes_per_step: str
    speedup_vs_p1: float | None
    agrees: bool


def _timed(call: Callable[[], Any], runs: int) -> tuple[list[float], Any]:
    call()  # warm-up: compiles the kernels on every worker
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return times, result


def _bfs(graph: Any, source: int, target: str) -> np.ndarray:
    return bfs(graph, source, target=target, direction="push").distances


def _bfs_do(graph: Any, source: int, target: str) -> np.ndarray:
    return bfs(graph, source, target=target, direction="auto").distances


def _components(graph: Any, source: int, target: str) -> np.ndarray | None:
    """Labels by smallest member; None where the single-device version is not available."""
    if isinstance(graph, DistributedGraph):
        return components_arrays(graph, target=target)[0]
    found = getattr(algorithms, "connected_components", None)
    return None if found is None else found(graph, target=target).labels


CALLS: dict[str, Callable[[Any, int, str], np.ndarray | None]] = {
    "bfs": _bfs, "bfs_do": _bfs_do, "cc": _components}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_out")
    parser.add_argument("--workers", choices=["gpu", "cpu"], default="gpu")
    parser.add_argument("--parts", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--scales", default="22,24,26", help="comma-separated R-MAT scales")
    parser.add_argument("--algorithms", default="bfs,bfs_do,cc",
                        help=f"comma-separated, of {','.join(CALLS)}")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    parts = [int(p) for p in args.parts.split(",")]
    wanted = args.algorithms.split(",")
    gpus = args.workers == "gpu"
    target, transport = ("cuda", "nccl") if gpus else ("cpu", "dask")
    client = start_cluster(max(parts), gpus=gpus)
    pool = worker_addresses(client)
    rows: list[Row] = []
    args.out.mkdir(parents=True, exist_ok=True)
    for scale in (int(s) for s in args.scales.split(",")):
        rows += _measure_scale(scale, wanted, parts, client, pool, target, transport, args.runs)
        _write(args.out, rows)  # after every scale: a run cut short keeps what it measured
    print(_markdown(rows))
    return 0 if all(r.agrees for r in rows) else 1


def _write(out: Path, rows: list[Row]) -> None:
    if not rows:
        return
    with open(out / "scale_out.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(asdict(rows[0])))
        writer.writeheader()
        writer.writerows(asdict(r) for r in rows)
    (out / "scale_out.md").write_text(_markdown(rows) + "\n")


def _measure_scale(scale: int, wanted: list[str], parts: list[int], client: Any,
                   pool: list[str], target: str, transport: str, runs: int) -> list[Row]:
    """The rows of one R-MAT scale: each algorithm on one device, then over each worker count.
    The graph and its partitions are dropped on return."""
    start = time.perf_counter()
    graph = generators.rmat(scale, seed=scale)
    name = f"rmat{scale}"
    print(f"{name}: {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs "
          f"(built in {time.perf_counter() - start:.1f} s)", file=sys.stderr, flush=True)
    source = int(np.argmax(graph.out_degrees()))
    rows: list[Row] = []
    expected: dict[str, np.ndarray] = {}
    baseline: dict[str, float] = {}
    for algorithm in wanted:
        if algorithm == "cc" and not hasattr(algorithms, "connected_components"):
            continue
        times, result = _timed(lambda a=algorithm: CALLS[a](graph, source, target), runs)
        expected[algorithm] = result
        rows.append(_row(algorithm, name, graph, "single", "this process", "-", times, None,
                         True))
    graph._device.clear()  # free the single-device copy before the workers load theirs
    for p in parts:
        dg = partition(graph, p, client=client, workers=pool[:p], transport=transport)
        for algorithm in wanted:
            times, result = _timed(lambda a=algorithm, dg=dg: CALLS[a](dg, source, target),
                                   runs)
            if p == parts[0]:
                baseline[algorithm] = statistics.median(times)
                expected.setdefault(algorithm, result)
            rows.append(_row(algorithm, name, graph, f"P={p}", ",".join(pool[:p]), transport,
                             times, dg.last_run, bool(np.array_equal(result, expected[algorithm])),
                             baseline[algorithm] / statistics.median(times)))
            print(_markdown(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
        client.cancel(dg.pieces)
    return rows


def _row(algorithm: str, name: str, graph: Any, config: str, workers: str, transport: str,
         times: list[float], report: Any, agrees: bool, speedup: float | None = None) -> Row:
    median = statistics.median(times)
    sent = report.exchanged_bytes if report is not None else []
    return Row(algorithm, name, graph.num_vertices, graph.num_edges, config, workers, transport,
               len(times), median, min(times), report.steps if report is not None else None,
               graph.num_edges / median, sum(sent), ";".join(str(b) for b in sent), speedup,
               agrees)


def _markdown(rows: list[Row]) -> str:
    lines = ["| algorithm | graph | arcs | config | median ms | min ms | steps | Garcs/s | "
             "exchanged MB | largest step MB | speedup vs P=1 | agrees |",
             "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        per = [int(b) for b in r.bytes_per_step.split(";") if b]
        lines.append(
            f"| {r.algorithm} | {r.graph} | {r.arcs:,} | {r.config} | {r.median_s * 1e3:.1f} | "
            f"{r.min_s * 1e3:.1f} | {'' if r.steps is None else r.steps} | "
            f"{r.edges_per_s / 1e9:.3f} | "
            f"{r.exchanged_bytes / 1e6:.2f} | {max(per, default=0) / 1e6:.2f} | "
            f"{'' if r.speedup_vs_p1 is None else f'{r.speedup_vs_p1:.2f}x'} | {r.agrees} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
