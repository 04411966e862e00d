"""The out-weight neighbor_reduce PageRank ran once per call (it is now a pass of
operators.iterate), timed on the star of 10^6 leaves, whose hub has a million out-edges: one
thread folds them (median of 5 after 2 warm-ups, synchronized).
Usage on a CUDA machine, from the repository root: python3 bench/device/neighbor_reduce_star.py
"""

from __future__ import annotations

import time

import numpy as np

from bench.graphs import build
from frontier.target import resolve_target
from operators import neighbor_reduce


def out_weight(src, dst, eid, weight, weighted):
    return weight * 1.0 if weighted else 1.0


def main() -> None:
    graph, cuda = build("star1000000"), resolve_target("cuda")
    out = cuda.zeros(graph.num_vertices, np.float64)
    seconds = []
    for _ in range(7):
        start = time.perf_counter()
        neighbor_reduce(graph, "vertices", out_weight, False, out=out, edges="out")
        cuda.synchronize()
        seconds.append(time.perf_counter() - start)
    print(f"neighbor_reduce out_weight, star1000000, cuda: {sorted(seconds[2:])[2] * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
