"""The benchmark suite: every algorithm in the catalog on the standard graphs, timed after a
warm-up (median of several runs), with scipy on the same machine for the ratio, launches and
host reads per level, device memory per edge, and validation against scipy.
"""

from __future__ import annotations

import csv
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from algorithms import CATALOG
from frontier.generators import from_spec
from frontier.graph import Graph
from frontier.io import load
from frontier.target import resolve_target
from frontier.testing import dataset_dir

#: Gunrock 2.1 BFS on the same H100 (shared/anchors.md, 2026-11-22), milliseconds.
GUNROCK_BFS_MS = {"rmat21": 3.65, "grid2000": 780.0, "luxembourg_osm": 160.0,
                  "delaunay_n16": 18.5}


def generated_graphs(quick: bool = False) -> dict[str, str]:
    """Name -> generator spec of the suite's generated graphs."""
    scales = (16,) if quick else (20, 21, 22)
    sides = (200,) if quick else (2000, 4000)
    leaves = 10_000 if quick else 1_000_000
    return {**{f"rmat{s}": f"rmat:{s}" for s in scales},
            **{f"grid{side}": f"grid:{side}x{side}" for side in sides},
            f"star{leaves}": f"star:{leaves + 1}", f"path{leaves}": f"path:{leaves}"}


def standard_graphs(quick: bool = False) -> dict[str, Callable[[], Graph]]:
    """Name -> builder, in the order the suite runs them: the generated graphs, then every
    dataset of :func:`frontier.testing.dataset_dir`."""
    graphs: dict[str, Callable[[], Graph]] = {
        name: lambda spec=spec: from_spec(spec) for name, spec in generated_graphs(quick).items()}
    folder = dataset_dir()
    if folder is not None:
        for path in sorted(folder.glob("*.gz")):
            name = path.name.split(".")[0]
            graphs[name] = lambda path=path, name=name: load(
                path, symmetrize=name == "facebook_combined")
    return graphs


@dataclass
class Row:
    algorithm: str
    graph: str
    balancer: str
    vertices: int
    arcs: int
    levels: int
    ms: float
    wall_ms: float
    mteps: float
    us_per_level: float
    launches_per_run: float
    host_reads_per_run: float
    scipy_ms: float
    speedup_vs_scipy: float
    gunrock_ms: float | None
    ratio_to_gunrock: float | None
    device_bytes_per_arc: float
    validated: bool


def _median(fn: Callable[[], float], runs: int, budget_s: float = 30.0) -> tuple[float, int]:
    """Median of ``runs`` calls (at least 3, fewer than ``runs`` once ``budget_s`` is spent)."""
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < runs and (len(times) < 3 or time.perf_counter() - start < budget_s):
        times.append(fn())
    return statistics.median(times), len(times)


def device_bytes(graph: Graph) -> int:
    """Graph arrays + three frontier queues + distance/predecessor state, as BFS allocates."""
    graph_bytes = graph.row_offsets.nbytes + graph.col_indices.nbytes
    if graph.weights is not None:
        graph_bytes += graph.weights.nbytes
    frontier = 3 * 4 * max(graph.num_edges, graph.num_vertices, 1)
    return graph_bytes + frontier + 8 * graph.num_vertices


def measure(name: str, graph: Graph, algorithm: str, balancer: str, target: str,
            runs: int) -> Row:
    entry = CATALOG[algorithm]
    tgt = resolve_target(target)
    source = int(np.argmax(graph.out_degrees())) if graph.num_edges else 0
    clock = time.perf_counter()
    first = entry.invoke(graph, source, balancer=balancer, target=tgt)
    warm = time.perf_counter() - clock
    validated = True
    try:
        entry.check(graph, source, first)
    except AssertionError as err:
        print(f"  VALIDATION FAILED on {name}: {str(err)[:200]}", file=sys.stderr)
        validated = False
    print(f"    ({algorithm} {balancer}: first run with compile {warm:.1f} s, validation "
          f"{time.perf_counter() - clock - warm:.1f} s)", file=sys.stderr, flush=True)
    launches, reads = tgt.launches, tgt.host_reads
    walls: list[float] = []

    def timed_run() -> float:
        clock = time.perf_counter()
        result = entry.invoke(graph, source, balancer=balancer, target=tgt)
        walls.append(time.perf_counter() - clock)
        return result.seconds

    seconds, count = _median(timed_run, runs)
    ms = 1e3 * seconds
    launches = (tgt.launches - launches) / count
    reads = (tgt.host_reads - reads) / count

    def scipy_once() -> float:
        t = time.perf_counter()
        entry.reference(graph, source)
        return time.perf_counter() - t

    scipy_ms = 1e3 * _median(scipy_once, 3)[0]
    gunrock = GUNROCK_BFS_MS.get(name) if algorithm == "bfs" else None
    levels = max(first.iterations, 1)
    return Row(algorithm, name, balancer, graph.num_vertices, graph.num_edges, first.iterations,
               round(ms, 3), round(1e3 * statistics.median(walls), 3),
               round(first.edges_traversed / (ms / 1e3) / 1e6, 1),
               round(ms * 1e3 / levels, 2), launches, reads, round(scipy_ms, 3),
               round(scipy_ms / ms, 2), gunrock, round(ms / gunrock, 3) if gunrock else None,
               round(device_bytes(graph) / max(graph.num_edges, 1), 1), validated)


def write(rows: list[Row], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "suite.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(asdict(rows[0])))
        writer.writeheader()
        writer.writerows(asdict(r) for r in rows)
    (out / "suite.md").write_text(markdown(rows))


def markdown(rows: list[Row]) -> str:
    head = ("| algorithm | graph | balancer | \\|V\\| | arcs | levels | ms | wall ms | MTEPS | "
            "µs/level | launches/run | host reads/run | scipy ms | × scipy | Gunrock ms | "
            "ours/Gunrock | bytes/arc | valid |\n" + "|---" * 18 + "|\n")
    lines = [f"| {r.algorithm} | {r.graph} | {r.balancer} | {r.vertices:,} | {r.arcs:,} | "
             f"{r.levels:,} | {r.ms:.3f} | {r.wall_ms:.1f} | {r.mteps:,.0f} | "
             f"{r.us_per_level:.1f} | "
             f"{r.launches_per_run:.0f} | {r.host_reads_per_run:.0f} | {r.scipy_ms:.1f} | "
             f"{r.speedup_vs_scipy:.1f} | {r.gunrock_ms if r.gunrock_ms else '—'} | "
             f"{r.ratio_to_gunrock if r.ratio_to_gunrock else '—'} | "
             f"{r.device_bytes_per_arc} | {'yes' if r.validated else 'NO'} |" for r in rows]
    return head + "\n".join(lines) + "\n"
