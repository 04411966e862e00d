"""Where the first call of a fresh process goes, kernel cache warm: the import, the device's
context, then the first call of ``ALGORITHM`` on a 30x30 grid under cProfile (cumulative time).

Usage on a CUDA machine: ``python3 bench/device/first_call_profile.py ALGORITHM [context]``;
``context`` makes the device's context before the call (its seconds printed apart). Run it
once to fill the cache (``FRONTIER_CACHE_DIR``), then again to see the warm call."""

import cProfile
import pstats
import sys
import time

start = time.perf_counter()
import algorithms  # noqa: E402
from frontier import generators, kernel_cache  # noqa: E402

print(f"import {time.perf_counter() - start:.3f} s")
name = sys.argv[1]
if "context" in sys.argv[2:]:
    from numba import cuda

    start = time.perf_counter()
    cuda.current_context()
    print(f"context {time.perf_counter() - start:.3f} s")
graph = generators.grid2d(30, 30, weights=(1, 9) if name == "sssp" else None)
call = {"bfs": lambda: algorithms.bfs(graph, 0), "sssp": lambda: algorithms.sssp(graph, 0),
        "cc": lambda: algorithms.connected_components(graph)}[name]
profile = cProfile.Profile()
start = time.perf_counter()
profile.enable()
call()
profile.disable()
print(f"first call {time.perf_counter() - start:.3f} s; {kernel_cache.stats()}")
pstats.Stats(profile).sort_stats("cumulative").print_stats(45)
pstats.Stats(profile).sort_stats("tottime").print_stats(25)
