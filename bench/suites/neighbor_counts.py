"""Mode, histogram and segmented sort of each vertex's neighbour labels, beside a minimum.

For each graph of ``--graphs``, labels drawn in ``0 .. --bins - 1`` (seed 0), four calls over
every vertex's in-arcs, each the median wall time of ``--runs`` after a warm-up: the fold
``neighbor_reduce(op="min")`` of the tails' labels (one thread per vertex: the baseline),
``neighbor_reduce(op="mode")`` and ``op="histogram"`` (``--bins`` columns) of the same labels,
and ``sort_neighbors`` of every vertex's out-arcs by their heads' labels
(:mod:`operators.segmented_sort`: a thread per row of at most 32 arcs, a block per longer row).
Each result is checked against NumPy (a sort of all arcs by vertex and label) on graphs of at
most ``--check-arcs`` arcs.

``python -m bench neighbor_counts [--target cuda] [--graphs rmat18,rmat21] [--bins 16]``
writes ``neighbor_counts.csv`` and ``neighbor_counts.md``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np

from bench import options, tables
from bench.graphs import builder
from bench.timing import time_calls
from frontier.graph import Graph
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import neighbor_reduce, sort_neighbors

CALLS = ("min", "mode", "histogram", "sort")


def tail_label(src, dst, eid, weight, labels):
    return labels[src]


def head_label(src, dst, eid, weight, labels):
    return labels[dst]


def references(graph: Graph, labels: np.ndarray, bins: int) -> dict[str, np.ndarray]:
    """Each call's expected result (a vertex without in-arcs: min the int64 maximum, mode 0)."""
    n, coo = graph.num_vertices, graph.coo()
    owner, value = coo.dst.astype(np.int64), labels[coo.src]
    lowest = np.full(n, np.iinfo(np.int64).max)
    np.minimum.at(lowest, owner, value)
    order = np.lexsort((value, owner))
    o, x = owner[order], value[order]
    starts = np.flatnonzero(np.r_[True, (o[1:] != o[:-1]) | (x[1:] != x[:-1])])
    counts = np.diff(np.r_[starts, o.size])
    pick = np.lexsort((x[starts], -counts, o[starts]))
    first = np.r_[True, o[starts][pick][1:] != o[starts][pick][:-1]]
    mode = np.zeros(n, np.int64)
    mode[o[starts][pick][first]] = x[starts][pick][first]
    histogram = np.bincount(owner * bins + value, minlength=n * bins).reshape(n, bins)
    return {"min": lowest, "mode": mode, "histogram": histogram,
            "sort": np.lexsort((labels[coo.dst], coo.src))}


def calls(graph: Graph, target: Target, labels: Any, bins: int
          ) -> dict[str, tuple[Callable[[], None], Any]]:
    """Each call, with the array it writes."""
    n, m = graph.num_vertices, graph.num_edges
    outs = {"min": target.zeros(n, np.int64), "mode": target.zeros(n, np.int64),
            "histogram": target.to_device(np.zeros((n, bins), np.int64)),
            "sort": target.zeros(m, np.int64)}

    def reduce_by(op: str) -> Callable[[], None]:
        return lambda: neighbor_reduce(graph, "vertices", tail_label, labels, out=outs[op],
                                       op=op)

    made = {op: (reduce_by(op), outs[op]) for op in ("min", "mode", "histogram")}
    made["sort"] = (lambda: sort_neighbors(graph, "vertices", head_label, labels,
                                           out=outs["sort"]), outs["sort"])
    return made


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_runs(parser)
    options.add_graphs(parser, "rmat18,rmat21")
    parser.add_argument("--bins", type=int, default=16, help="labels 0 .. BINS - 1 (default 16)")
    parser.add_argument("--check-arcs", type=int, default=20_000_000,
                        help="check results on graphs of at most this many arcs")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    rows: list[dict] = []
    status = 0
    for name in args.graphs:
        graph = builder(name)()
        labels = np.random.default_rng(0).integers(0, args.bins, graph.num_vertices)
        want = (references(graph, labels, args.bins) if graph.num_edges <= args.check_arcs
                else None)
        for op, (call, out) in calls(graph, target, target.to_device(labels), args.bins).items():
            timing = time_calls(call, runs=args.runs, target=target)
            checked = "-"
            if want is not None:
                checked = "ok" if np.array_equal(target.to_host(out), want[op]) else "WRONG"
                status |= checked == "WRONG"
            rows.append({"graph": name, "vertices": graph.num_vertices, "arcs": graph.num_edges,
                         "call": op, "ms": timing.wall_s * 1e3, "runs": timing.runs,
                         "checked": checked})
            print(f"{name:10s} {op:10s} {timing.wall_s * 1e3:9.2f} ms  {checked}", flush=True)
            tables.write(rows, args.out, "neighbor_counts")
    return status
