"""One warm-up and one profiled BFS on a named graph, for Nsight Compute (bench/profile.sh).

``python bench/profile_bfs.py GRAPH BALANCER [DIRECTION]`` with GRAPH ``grid2000`` or ``rmat21``.
"""

from __future__ import annotations

import sys

import numpy as np

from algorithms import bfs
from frontier import generators

GRAPHS = {"grid2000": lambda: generators.grid2d(2000, 2000), "rmat21": lambda: generators.rmat(21)}


def main() -> None:
    name, balancer = sys.argv[1], sys.argv[2]
    direction = sys.argv[3] if len(sys.argv) > 3 else "push"
    graph = GRAPHS[name]()
    source = int(np.argmax(graph.out_degrees()))
    for _ in range(2):
        result = bfs(graph, source, balancer=balancer, target="cuda", direction=direction)
    print(f"{name} {balancer} {direction}: {result.seconds * 1e3:.2f} ms, "
          f"{result.iterations} levels")


if __name__ == "__main__":
    main()
