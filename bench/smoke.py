"""Quick GPU smoke check: BFS fused and host-loop on cuda vs cpu; per-level cost on thin graphs."""

import time

import numpy as np

from algorithms import bfs
from frontier import Graph


def timed(graph, **kw):
    bfs(graph, 0, **kw)
    best = []
    for _ in range(3):
        t = time.perf_counter()
        r = bfs(graph, 0, **kw)
        best.append(time.perf_counter() - t)
    return r, float(np.median(best))


rng = np.random.default_rng(0)
n, m = 200_000, 2_000_000
G = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n, directed=False)
side = 1000
ids = np.arange(side * side).reshape(side, side)
grid = Graph.from_edges(np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()]),
                        np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()]), directed=False)
for name, g in (("random 200K/4M", G), ("grid 1000x1000", grid)):
    ref = bfs(g, 0, target="cpu")
    for kind in ("sparse", "dense"):
        for fused in (True, False):
            r, dt = timed(g, target="cuda", frontier=kind, fused=fused)
            print(f"{name:16s} {kind:6s} fused={fused!s:5s} equal={np.array_equal(ref.distances, r.distances)} "
                  f"levels={r.iterations} {dt * 1e3:9.2f} ms {dt / r.iterations * 1e6:8.1f} us/level "
                  f"{r.edges_traversed / dt / 1e6:8.0f} MTEPS", flush=True)
