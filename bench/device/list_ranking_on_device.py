"""The "Fast calls" goal for device inputs: list ranking of a list given on the GPU costs at
most twice its device time.

A random list of ``--nodes`` (default 6.4x10^7) nodes is made with CuPy on the device (a random
permutation; each node links to the next, the last to itself). For each input, the median of
``--runs`` calls after a warm-up: ``wall ms`` (the whole call, synchronized before and after)
and ``device ms`` (the result's ``seconds``: first launch to last kernel), for the successors
given on the device and, for comparison, the same successors as a host (NumPy) array. The ranks
come back to the host unless ``list_ranking`` takes ``out="device"`` (then passed). Prints one
line per input and whether the goal (device input: wall <= 2 x device) holds; exit status 1
when it does not.

Usage on a CUDA machine with CuPy, from the repository root:
``python -m bench.device.list_ranking_on_device [--nodes 64000000] [--runs 5]``
"""

from __future__ import annotations

import argparse
import inspect
import statistics
import sys
import time

import numpy as np


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=float, default=6.4e7)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--method", default="random_splitter")
    args = parser.parse_args()
    import cupy

    from algorithms import list_ranking
    from frontier.target import resolve_target

    n = int(args.nodes)
    order = cupy.random.RandomState(1).permutation(n)
    succ = cupy.empty(n, dtype=cupy.int32)
    succ[order[:-1]] = order[1:].astype(cupy.int32)
    succ[order[-1]] = order[-1]
    host = cupy.asnumpy(succ)
    target = resolve_target("cuda")
    extra = {"out": "device"} if "out" in inspect.signature(list_ranking).parameters else {}
    expected_head = n - 1
    lines, ok = [], True
    for label, given in (("device", succ), ("host", host)):
        walls, devices = [], []
        for k in range(args.runs + 1):
            cupy.cuda.runtime.deviceSynchronize()
            start = time.perf_counter()
            result = list_ranking(given, method=args.method, target=target, **extra)
            target.synchronize()
            wall = time.perf_counter() - start
            if k:  # the first call compiles
                walls.append(wall)
                devices.append(result.seconds)
        head = int(cupy.asarray(result.ranks)[order[0]])
        if head != expected_head:
            print(f"{label}: wrong ranks (head rank {head}, expected {expected_head})")
            return 1
        wall_ms, device_ms = 1e3 * statistics.median(walls), 1e3 * statistics.median(devices)
        lines.append(f"{label} input, n={n:,}, {args.method}{', out=device' if extra else ''}: "
                     f"wall {wall_ms:.1f} ms, device {device_ms:.1f} ms, "
                     f"ratio {wall_ms / device_ms:.2f} (median of {args.runs})")
        if label == "device":
            ok = wall_ms <= 2 * device_ms
    print("\n".join(lines))
    print(f"goal (device input: wall <= 2 x device): {'met' if ok else 'NOT met'}"
          + ("" if extra else "; list_ranking has no out= here, so the ranks (8 bytes a node) "
             "are copied back inside the wall time"))
    return 0 if ok else 1


if __name__ == "__main__":
    np.seterr(all="raise")
    sys.exit(main())
