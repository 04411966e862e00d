"""Which result copies of a bench-like session go into pinned blocks: bfs, cc, sssp and pagerank
on rmat21 timed as the ``calls`` suite times them (one process, median of 7 after a warm-up),
each device-to-host copy of a megabyte or more traced (size, into a pinned block or not, ms:
the time includes waiting for the device's work before it), then the pinned pool's blocks.
Usage on a CUDA machine, from the repository root: python3 bench/device/pinned_copies.py [GRAPH]
"""

from __future__ import annotations

import sys
import time
from functools import partial
from typing import Any

from bench import baselines
from bench.graphs import build, source_of
from bench.timing import time_calls
from frontier.runtime.target import CudaTarget
from frontier.target import resolve_target

COPIES: list[tuple[int, bool, float]] = []
_TO_HOST = CudaTarget.to_host


def traced(target: CudaTarget, array: Any) -> Any:
    start = time.perf_counter()
    host = _TO_HOST(target, array)
    if array.nbytes >= 1 << 20:
        pinned = type(host.base).__name__ == "_Lease"
        COPIES.append((array.nbytes, pinned, time.perf_counter() - start))
    return host


def main() -> None:
    CudaTarget.to_host = traced  # type: ignore[method-assign]
    cuda = resolve_target("cuda")
    graph = build(sys.argv[1] if len(sys.argv) > 1 else "rmat21")
    for algorithm in ("bfs", "cc", "sssp", "pagerank"):
        COPIES.clear()
        source = source_of(graph) if baselines.takes_source(algorithm) else None
        timing = time_calls(partial(baselines.run, algorithm, graph, source, target=cuda),
                            runs=7, target=cuda)
        print(f"{algorithm}: wall ms {[round(w * 1e3, 2) for w in timing.walls]}")
        print("  copies (MB, pinned, ms):",
              [(n >> 20, p, round(t * 1e3, 2)) for n, p, t in COPIES])
    pool = cuda._pinned  # what the pool made and holds: its own counters
    print(f"pinned {pool.pinned_bytes >> 20} MB; blocks made by class (MB): "
          f"{ {k >> 20: v for k, v in pool._made.items()} }; free: "
          f"{ {k >> 20: len(v) for k, v in pool._free.items()} }")


if __name__ == "__main__":
    main()
