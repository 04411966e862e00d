"""Graphs past 2^31 arcs and the largest R-MAT that fits.

``python -m bench scale_limits [--out DIR] [--cycle-arcs 2.2e9] [--rmat 26] [--runs 5]``
(writes ``scale_limits.csv`` and ``scale_limits.md``)

Two graphs, each timed with the default call ``bfs(G, s)`` (median of ``--runs`` after a
warm-up) and checked:

* ``cycle``: a directed cycle of 1,024 vertices in which every vertex has ``--cycle-arcs /
  1024`` parallel arcs to the next one, so the arc offsets pass 2^31 (int64 offsets in every
  kernel, a two_phase hub step of millions of edges per level). Built directly as a CSR (no
  generator), checked exactly: vertex ``v`` is at distance ``v`` from 0 with predecessor
  ``v - 1``.
* ``rmat``: ``rmat(--rmat)`` (undirected, edge factor 16), checked the Graph500 way (the
  distances of a BFS are the only labelling with ``dist[s] = 0``, ``dist[v] <= dist[u] + 1`` on
  every arc ``u -> v`` from a reached ``u``, and a predecessor one level up over an arc for
  every other reached vertex), by a parallel compiled pass over the arcs.

Also reported: the build time, the graph's bytes, and the device memory the graph and a call
take (free memory before the upload, after it and after the call, from the driver).
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from algorithms import bfs
from bench import options, tables
from bench.timing import time_calls
from frontier import Graph, generators, resolve_target
from frontier.runtime.cuda_support import cuda_usable
from frontier.runtime.target import Target

CYCLE_VERTICES = 1024


def cycle_graph(arcs: int) -> Graph:
    per = -(-arcs // CYCLE_VERTICES)
    offsets = np.arange(CYCLE_VERTICES + 1, dtype=np.int64) * per
    cols = np.empty(per * CYCLE_VERTICES, dtype=np.int32)
    for v in range(CYCLE_VERTICES):
        cols[v * per:(v + 1) * per] = (v + 1) % CYCLE_VERTICES
    return Graph.from_csr(offsets, cols, directed=True)


@numba.njit(parallel=True, cache=False)
def _violations(offsets, cols, dist, pred, source):  # pragma: no cover - compiled
    n = offsets.size - 1
    bad = 0
    for u in numba.prange(n):
        du = dist[u]
        if du < 0:
            if pred[u] != -1:
                bad += 1
            continue
        for k in range(offsets[u], offsets[u + 1]):
            dv = dist[cols[k]]
            if dv < 0 or dv > du + 1:
                bad += 1
        if u == source:
            if du != 0 or pred[u] != -1:
                bad += 1
            continue
        p = pred[u]
        if p < 0 or dist[p] != du - 1:
            bad += 1
            continue
        found = False
        for k in range(offsets[p], offsets[p + 1]):
            if cols[k] == u:
                found = True
                break
        if not found:
            bad += 1
    return bad


def check(graph: Graph, source: int, dist: np.ndarray, pred: np.ndarray) -> int:
    """Arcs and vertices that break the BFS labelling (0 for a correct result)."""
    return int(_violations(graph.row_offsets, graph.col_indices, dist, pred, source))


def free_bytes() -> int:
    """Free device memory (0 without a GPU)."""
    return (resolve_target("cuda").free_bytes() or 0) if cuda_usable() else 0


def measure(name: str, build, source_of, runs: int, target: Target, exact=None) -> dict:
    start = time.perf_counter()
    graph = build()
    built = time.perf_counter() - start
    source = source_of(graph)
    before = free_bytes()
    used: list[int] = []  # free memory after the warm-up (it uploads the graph)

    def call() -> object:
        result = bfs(graph, source, target=target)
        if not used:
            used.append(free_bytes())
        return result

    timing = time_calls(call, runs=runs, target=target)
    after_first, wall, result = used[0], timing.wall_s, timing.result
    reached = result.distances >= 0
    edges = int(graph.out_degrees()[reached].sum())
    if exact is not None:
        violations = exact(result)
    else:
        violations = check(graph, source, result.distances, result.predecessors)
    row = {"graph": name, "vertices": graph.num_vertices, "arcs": graph.num_edges,
           "build_s": round(built, 1),
           "graph_gb": round((graph.row_offsets.nbytes + graph.col_indices.nbytes) / 1e9, 2),
           "device_gb_used": round((before - after_first) / 1e9, 2),
           "wall_ms": round(wall * 1e3, 2), "traversal_ms": round(result.seconds * 1e3, 2),
           "levels": result.iterations, "mteps": round(edges / wall / 1e6),
           "violations": violations}
    print(row, flush=True)
    return row


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_runs(parser)
    options.add_target(parser)
    parser.add_argument("--cycle-arcs", type=float, default=2.2e9)
    parser.add_argument("--rmat", type=int, default=26, help="scale; 0 skips it")


def run(args: argparse.Namespace) -> int:
    rows = []
    target = resolve_target(args.target)

    def on_cycle(result) -> int:
        want = np.arange(CYCLE_VERTICES, dtype=np.int32)
        return int((result.distances != want).sum() + (result.predecessors[1:] != want[:-1]).sum())

    arcs = int(args.cycle_arcs)
    rows.append(measure(f"cycle of {CYCLE_VERTICES}, {arcs:,} arcs", lambda: cycle_graph(arcs),
                        lambda g: 0, args.runs, target, on_cycle))
    tables.write(rows, args.out, "scale_limits")
    if args.rmat:
        rows.append(measure(f"rmat{args.rmat}", lambda: generators.rmat(args.rmat),
                            lambda g: int(np.argmax(g.out_degrees())), args.runs, target))
        tables.write(rows, args.out, "scale_limits")
    return 0 if all(r["violations"] == 0 for r in rows) else 1
