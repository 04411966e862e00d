"""Where a cold first call's seconds go: a fresh process with an empty kernel cache profiles the
first call of bfs, sssp, connected_components, pagerank and k_core in turn (30x30 grids,
as ``first_calls.sh``) on TARGET (default ``cuda``: the default target, ``auto``, runs graphs
this small on the cpu target), printing each call's time, the kernels it compiled, and its
profile by cumulative and by own time (Numba's typing and lowering, NVVM, the link, the
driver's module load).
Usage on a CUDA machine, from the repository root:
``python3 bench/device/cold_profile.py [ROWS] [TARGET]``
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import sys
import tempfile
import time

os.environ["FRONTIER_CACHE_DIR"] = tempfile.mkdtemp()

from algorithms import bfs, connected_components, k_core, pagerank, sssp  # noqa: E402
from frontier import generators  # noqa: E402
from frontier.runtime import kernel_cache  # noqa: E402


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    target = sys.argv[2] if len(sys.argv) > 2 else "cuda"
    grid, weighted = generators.grid2d(30, 30), generators.grid2d(30, 30, weights=(1, 9))
    for name, call in (("bfs", lambda: bfs(grid, 0, target=target)),
                       ("sssp", lambda: sssp(weighted, 0, target=target)),
                       ("cc", lambda: connected_components(grid, target=target)),
                       ("pagerank", lambda: pagerank(grid, target=target)),
                       ("kcore", lambda: k_core(grid, target=target))):
        before = kernel_cache.stats().compiled
        profile = cProfile.Profile()
        start = time.perf_counter()
        profile.runcall(call)
        seconds = time.perf_counter() - start
        print(f"\n=== {name} cold {seconds:.3f} s on {target}, "
              f"{kernel_cache.stats().compiled - before} kernels compiled")
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(rows)
        print(text.getvalue())
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(rows // 2)
        print(text.getvalue())


if __name__ == "__main__":
    main()
