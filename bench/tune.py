"""Grid size of the fused traversal: BFS levels per microsecond against the number of blocks of
the persistent kernel (fewer blocks: a cheaper grid barrier, less parallel work per level).

``python bench/tune.py`` (on a GPU) prints one line per (graph, blocks).
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from algorithms.bfs import visit
from frontier import Frontier, generators, resolve_target
from operators import traverse


def run(graph, blocks, balancer="thread", runs=5):
    gpu = resolve_target("cuda")
    source = int(np.argmax(graph.out_degrees()))
    times = []
    for _ in range(runs + 1):
        dist = gpu.full(graph.num_vertices, -1, np.int32)
        pred = gpu.full(graph.num_vertices, -1, np.int32)
        gpu.write_scalar(dist, source, 0)
        f = Frontier.from_vertices(graph, [source], target=gpu)
        gpu.synchronize()
        t = time.perf_counter()
        steps = traverse(graph, f, visit, dist, pred, balancer=balancer, blocks=blocks).steps
        times.append(time.perf_counter() - t)
    return steps, statistics.median(times[1:])


def main() -> None:
    graphs = (("grid2000", generators.grid2d(2000, 2000), ("thread",)),
              ("rmat21", generators.rmat(21), ("thread", "warp:32", "block", "cta_warp_scan")))
    for name, graph, balancers in graphs:
        for balancer in balancers:
            for blocks in (66, 132, 264, 528, 1056):
                steps, sec = run(graph, blocks, balancer)
                print(f"{name:9s} {balancer:14s} blocks={blocks:5d} levels={steps:5d} "
                      f"{sec * 1e3:9.2f} ms {sec / steps * 1e6:9.2f} us/level", flush=True)


if __name__ == "__main__":
    main()
