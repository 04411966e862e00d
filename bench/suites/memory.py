"""Memory of one algorithm call per vertex and per arc, measured.

For graphs of several shapes and sizes (the ``memory`` set: paths, grids, R-MAT), each built
fresh so that nothing is cached on the target yet, one call of the catalog entry (after a
warm-up on another graph, so compilation is not counted) is measured two ways:

* *target bytes*: every array the call allocates on the target (``empty``, ``zeros``, ``full``,
  ``to_device``), the graph's own copy on a device included: on ``cuda`` this is device memory;
* *host peak* (``tracemalloc``, which sees NumPy's allocations): the most host memory the call
  held at once beyond what existed before it; on the ``cpu`` target the target's arrays are host
  arrays, so this includes them.

A least-squares fit ``bytes = a |V| + b |E| + c`` over the graphs gives the per-vertex and per-arc
figures docs/reliability.md quotes; the graph itself (CSR: 8 bytes per vertex, 4 per arc, 8 more
per arc if weighted) is listed apart.

``python -m bench memory [--target cpu|cuda] [--algorithm bfs]`` writes ``memory.csv`` (a row per
graph) and ``memory.md`` (the rows and the fits).
"""

from __future__ import annotations

import argparse
import tracemalloc
from typing import Any

import numpy as np

from bench import baselines, options, tables
from bench.graphs import builder
from frontier import generators
from frontier.runtime.target import Target
from frontier.target import resolve_target

ALLOCATORS = ("empty", "zeros", "full", "to_device")


class Tally:
    """Bytes of the arrays a target allocates while installed (nested calls counted once)."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.bytes = 0
        self.depth = 0
        self.saved: dict[str, Any] = {}

    def __enter__(self) -> Tally:
        for name in ALLOCATORS:
            original = getattr(self.target, name)
            self.saved[name] = original
            setattr(self.target, name, self._counting(original))
        return self

    def __exit__(self, *exc: object) -> None:
        for name in ALLOCATORS:
            delattr(self.target, name)

    def _counting(self, original: Any) -> Any:
        def allocate(*args: Any, **kwargs: Any) -> Any:
            self.depth += 1
            try:
                array = original(*args, **kwargs)
            finally:
                self.depth -= 1
            if self.depth == 0:
                self.bytes += int(np.prod(array.shape)) * array.dtype.itemsize
            return array
        return allocate


def measure(algorithm: str, target: Target, names: list[str]) -> list[dict[str, Any]]:
    source = 0 if baselines.takes_source(algorithm) else None
    baselines.run(algorithm, generators.grid2d(20, 20), source, target=target)  # compile first
    rows = []
    for name in names:
        graph = builder(name)()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        with Tally(target) as tally:
            baselines.run(algorithm, graph, source, target=target)
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        csr = graph.row_offsets.nbytes + graph.col_indices.nbytes
        rows.append({"graph": name, "V": graph.num_vertices, "E": graph.num_edges,
                     "target_bytes": tally.bytes, "host_peak": peak, "csr_bytes": csr})
    return rows


def fit(rows: list[dict[str, Any]], key: str) -> tuple[float, float, float]:
    a = np.array([[r["V"], r["E"], 1.0] for r in rows], dtype=float)
    y = np.array([r[key] for r in rows], dtype=float)
    per_vertex, per_arc, fixed = np.linalg.lstsq(a, y, rcond=None)[0]
    return float(per_vertex), float(per_arc), float(fixed)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_graphs(parser, "memory")
    parser.add_argument("--algorithm", default="bfs", choices=baselines.names())


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    rows = measure(args.algorithm, target, args.graphs)
    where = f"{target.name}{' (simulator)' if target.simulated else ''}"
    lines = [f"{args.algorithm} on {where}: bytes allocated on the target and host peak per "
             "call",
             f"{'graph':<14}{'|V|':>10}{'|E|':>11}{'target B':>14}{'host peak B':>14}"
             f"{'CSR B':>12}"]
    for r in rows:
        lines.append(f"{r['graph']:<14}{r['V']:>10,}{r['E']:>11,}{r['target_bytes']:>14,}"
                     f"{r['host_peak']:>14,}{r['csr_bytes']:>12,}")
    fits = []
    for key, label in (("target_bytes", "target"), ("host_peak", "host peak")):
        v, e, c = fit(rows, key)
        lines.append(f"fit {label:<10} {v:6.1f} B per vertex + {e:6.1f} B per arc + {c:,.0f} B")
        fits.append(f"* fit {label}: {v:.1f} B per vertex + {e:.1f} B per arc + {c:,.0f} B")
    print("\n".join(lines))
    tables.write(rows, args.out, "memory",
                 f"{lines[0]}\n\n{tables.markdown(rows)}\n" + "\n".join(fits) + "\n")
    return 0
