"""The floors of copying a result back: a device array of N MB copied to the host as a fresh
pageable NumPy array (what ``copy_to_host()`` does), into a reused pinned buffer, and the cost
of allocating that pinned buffer, for a few sizes (median of 9, synchronous copies).
Usage on a CUDA machine, from the repository root: python3 bench/device/host_copy.py
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from numba import cuda


def median_ms(fn: Callable[[], object], runs: int = 9) -> float:
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return sorted(times)[runs // 2] * 1e3


def main() -> None:
    print("| MB | pageable copy_to_host | np.empty + copy into it | pinned alloc | "
          "into reused pinned | pinned then np.copy |")
    print("|---:|---:|---:|---:|---:|---:|")
    for mb in (1, 4, 8, 16, 64):
        n = mb * (1 << 20) // 4
        dev = cuda.to_device(np.arange(n, dtype=np.int32))
        pinned = cuda.pinned_array(n, np.int32)
        fresh = median_ms(lambda: dev.copy_to_host())  # noqa: B023
        into = median_ms(lambda: dev.copy_to_host(np.empty(n, np.int32)))  # noqa: B023
        alloc = median_ms(lambda: cuda.pinned_array(n, np.int32))  # noqa: B023
        reused = median_ms(lambda: dev.copy_to_host(pinned))  # noqa: B023
        both = median_ms(lambda: dev.copy_to_host(pinned).copy())  # noqa: B023
        assert np.array_equal(pinned, np.arange(n, dtype=np.int32))
        print(f"| {mb} | {fresh:.3f} | {into:.3f} | {alloc:.3f} | {reused:.3f} | {both:.3f} |")


if __name__ == "__main__":
    main()
