"""What a level of one-block BFS costs, part by part (the small-frontier mode's floors).

Plain Numba-CUDA kernels, no project code beyond loading the graphs: one block of 1,024 threads
runs every level of a BFS from the vertex of largest degree, the frontier in two shared-memory
queues, block barriers between levels (the floors of ``shared/anchors.md``). Variants switch
on, one at a time, what the project's small-frontier kernel does beyond the floor:

* ``gather``: the level's edges spread over the block by a prefix sum of the degrees and a
  binary search per edge (else each thread walks its vertex's edges in turn);
* ``preds``: BFS's functor as the library runs it: the condition ``dist[dst] == -1`` read
  before the compare-and-swap, ``dist[src] + 1`` read for the value, the predecessor written
  (else one compare-and-swap with the level);
* ``degree``: a pushed vertex's out-degree read and added to the next level's edge count with a
  shared int32 atomic (an int64 counter, as the mode first had, measured 2-3x slower per level
  on luxembourg_osm and the grid: a 64-bit shared atomic is a compare-and-swap loop).

``python -m bench block_floor [--graphs luxembourg_osm,grid2000,path:100000] [--runs 5]``
(CUDA only) prints ms per call (kernel and a synchronize, median of ``--runs`` after a
warm-up) and µs per level, each checked against scipy's BFS levels; writes
``block_floor.csv`` and ``block_floor.md``.
"""

from __future__ import annotations

import argparse
import itertools
from functools import partial

import numpy as np
from numba import cuda, int32, int64

from bench import baselines, options, tables
from bench.graphs import builder, source_of
from bench.timing import time_calls

THREADS = 1024
CAPACITY = 4096


def make_kernel(gather: bool, preds: bool, degree: bool):  # noqa: C901 - one kernel, flags
    """The one-block BFS kernel with the chosen parts (compile-time constants)."""

    @cuda.jit(device=True)
    def visit(src, dst, level, dist, pred):
        if preds:
            if dist[dst] != -1:
                return False
            if cuda.atomic.cas(dist, dst, -1, dist[src] + 1) == -1:
                pred[dst] = src
                return True
            return False
        return cuda.atomic.cas(dist, dst, -1, level + 1) == -1

    @cuda.jit(device=True)
    def push(dst, cur, q0, q1, qlen, edges, offsets):
        pos = cuda.atomic.add(qlen, 1 - cur, 1)
        if degree:
            cuda.atomic.add(edges, 1 - cur, offsets[dst + 1] - offsets[dst])
        if pos < CAPACITY:
            if cur == 0:
                q1[pos] = dst
            else:
                q0[pos] = dst

    @cuda.jit
    def kernel(offsets, cols, dist, pred, source, levels_out):
        q0 = cuda.shared.array(CAPACITY, int32)
        q1 = cuda.shared.array(CAPACITY, int32)
        qlen = cuda.shared.array(2, int32)
        edges = cuda.shared.array(2, int32)
        ranks = cuda.shared.array(THREADS, int32)
        begs = cuda.shared.array(THREADS, int64)
        srcs = cuda.shared.array(THREADS, int32)
        sums = cuda.shared.array(32, int32)
        t = cuda.threadIdx.x
        lane = t & 31
        warp = t >> 5
        if t == 0:
            q0[0] = source
            qlen[0] = 1
            qlen[1] = 0
        cuda.syncthreads()
        cur = 0
        level = 0
        while True:
            n = qlen[cur]
            if n == 0 or n > CAPACITY:
                break
            if t == 0:
                qlen[1 - cur] = 0
                edges[1 - cur] = 0
            cuda.syncthreads()
            for base in range(0, n, THREADS):
                i = base + t
                v = 0
                beg = int64(0)
                deg = int32(0)
                if i < n:
                    v = q0[i] if cur == 0 else q1[i]
                    beg = offsets[v]
                    deg = int32(offsets[v + 1] - beg)
                if gather:
                    x = deg
                    for d in (1, 2, 4, 8, 16):
                        up = cuda.shfl_up_sync(0xFFFFFFFF, x, d)
                        if lane >= d:
                            x += up
                    if lane == 31:
                        sums[warp] = x
                    cuda.syncthreads()
                    if warp == 0:
                        w = sums[lane]
                        for d in (1, 2, 4, 8, 16):
                            up = cuda.shfl_up_sync(0xFFFFFFFF, w, d)
                            if lane >= d:
                                w += up
                        sums[lane] = w
                    cuda.syncthreads()
                    rank = x - deg + (sums[warp - 1] if warp > 0 else 0)
                    total = sums[31]
                    ranks[t] = rank
                    begs[t] = beg
                    srcs[t] = v
                    cuda.syncthreads()
                    last = min(n - base, THREADS) - 1
                    for k in range(t, total, THREADS):
                        lo = 0
                        hi = last
                        while lo < hi:
                            mid = (lo + hi + 1) >> 1
                            if ranks[mid] <= k:
                                lo = mid
                            else:
                                hi = mid - 1
                        src = srcs[lo]
                        dst = cols[begs[lo] + (k - ranks[lo])]
                        if visit(src, dst, level, dist, pred):
                            push(dst, cur, q0, q1, qlen, edges, offsets)
                else:
                    for e in range(beg, beg + deg):
                        dst = cols[e]
                        if visit(v, dst, level, dist, pred):
                            push(dst, cur, q0, q1, qlen, edges, offsets)
                cuda.syncthreads()
            cur = 1 - cur
            level += 1
        if t == 0:
            levels_out[0] = level

    return kernel


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_runs(parser)
    options.add_graphs(parser, "luxembourg_osm,grid2000,path:100000")


def run(args: argparse.Namespace) -> int:
    head = ("| graph | gather | preds | degree | levels | ms | µs per level |\n"
            "|---|---|---|---|---|---|---|\n")
    print(head, end="")
    rows: list[dict] = []
    lines: list[str] = []
    for name in args.graphs:
        graph = builder(name)()
        source = source_of(graph)
        expected = baselines.bfs_distances(graph, source)
        offsets = cuda.to_device(graph.row_offsets.astype(np.int64))
        cols = cuda.to_device(graph.col_indices.astype(np.int32))
        n = graph.num_vertices
        start_dist = np.full(n, -1, np.int32)
        start_dist[source] = 0
        dist = cuda.to_device(start_dist)
        pred = cuda.device_array(n, np.int32)
        levels = cuda.device_array(1, np.int32)
        for gather, preds, degree in itertools.product((False, True), repeat=3):
            kernel = make_kernel(gather, preds, degree)
            timing = time_calls(
                partial(kernel[1, THREADS], offsets, cols, dist, pred, source, levels),
                runs=args.runs, target=cuda, prepare=partial(dist.copy_to_device, start_dist))
            ok = bool(np.array_equal(dist.copy_to_host(), expected))
            level_count = int(levels.copy_to_host()[0])
            ms = timing.wall_s * 1e3
            rows.append({"graph": name, "gather": gather, "preds": preds, "degree": degree,
                         "levels": level_count, "ms": ms, "runs": timing.runs,
                         "us_per_level": ms * 1e3 / max(level_count, 1), "validated": ok})
            lines.append(f"| {name} | {gather} | {preds} | {degree} | {level_count:,} | "
                         f"{ms:.3f} | {ms * 1e3 / max(level_count, 1):.2f} |"
                         f"{'' if ok else ' WRONG'}")
            print(lines[-1], flush=True)
            tables.write(rows, args.out, "block_floor", head + "\n".join(lines) + "\n")
    return 0 if all(r["validated"] for r in rows) else 1
