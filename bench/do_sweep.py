"""Direction-optimizing BFS on rmat: time against the switch thresholds alpha and beta.

``python bench/do_sweep.py [SCALE]`` prints one line per (alpha, beta).
"""

from __future__ import annotations

import statistics
import sys

import numpy as np

from algorithms import bfs
from frontier import generators


def main() -> None:
    scale = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    graph = generators.rmat(scale)
    source = int(np.argmax(graph.out_degrees()))
    for alpha in (4, 16, 64, 256):
        for beta in (8, 24, 96):
            times = []
            for _ in range(6):
                r = bfs(graph, source, balancer="cta_warp_scan", target="cuda",
                        direction="auto", alpha=alpha, beta=beta)
                times.append(r.seconds)
            pulls = ", ".join(str(s.frontier_size) for s in r.stats)
            print(f"rmat{scale} alpha={alpha:4d} beta={beta:3d} "
                  f"{statistics.median(times[1:]) * 1e3:7.3f} ms  levels: {pulls}", flush=True)


if __name__ == "__main__":
    main()
