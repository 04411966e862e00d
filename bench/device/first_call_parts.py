"""The parts of a fresh process's first call on the GPU, kernel cache warm: the seconds from the
start of the import to the end of the first call, split into the import, the wait for the
device's context (made early by ``import frontier`` unless ``FRONTIER_EARLY_CONTEXT=0``), and
the call; one JSON line. Run it twice with the same ``FRONTIER_CACHE_DIR`` (the first run
fills the cache). With ``profile``, the first call runs under cProfile, whose functions (by
cumulative and by own time) are printed before the JSON line.

Usage on a CUDA machine: ``python3 bench/device/first_call_parts.py bfs|sssp|cc [profile]``."""

import cProfile
import json
import pstats
import sys
import time

start = time.perf_counter()
import algorithms  # noqa: E402
from frontier import generators  # noqa: E402
from frontier.runtime import early_context  # noqa: E402

imported = time.perf_counter()
graph = generators.grid2d(30, 30, weights=(1, 9) if sys.argv[1] == "sssp" else None)
built = time.perf_counter()
early_context.wait()
from numba import cuda  # noqa: E402

cuda.current_context()
context = time.perf_counter()
call = {"bfs": lambda: algorithms.bfs(graph, 0, target="cuda"),
        "sssp": lambda: algorithms.sssp(graph, 0, target="cuda"),
        "cc": lambda: algorithms.connected_components(graph, target="cuda")}[sys.argv[1]]
profile = cProfile.Profile() if "profile" in sys.argv[2:] else None
if profile is not None:
    profile.enable()
call()
called = time.perf_counter()
if profile is not None:
    profile.disable()
    pstats.Stats(profile).sort_stats("cumulative").print_stats(45)
    pstats.Stats(profile).sort_stats("tottime").print_stats(25)
again_from = time.perf_counter()
call()
again = time.perf_counter()
print(json.dumps({"import_s": imported - start, "graph_s": built - imported,
                  "context_wait_s": context - built, "first_call_s": called - context,
                  "second_call_s": again - again_from, "total_s": called - start}))
