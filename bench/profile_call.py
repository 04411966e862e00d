"""Where the fixed cost of a call goes (issue 12, item 5: a call on a tiny graph <= 0.2 ms).

``python -m bench.profile_call [--target cuda] [--calls 300] [--out DIR]``

Times the default ``bfs(G, s)`` on a 6-vertex path and on rmat 16 (median of the calls after a
warm-up), then profiles the tiny call with cProfile (the Python functions it spends its time in,
by own time and by cumulative time), and measures the floors it is made of on this machine: an
empty kernel launch, a one-element device allocation, a one-element device-to-host read and a
host-to-device write. Prints everything; with ``--out``, writes the profile to
``DIR/profile_call.txt`` too.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from algorithms import bfs
from frontier import Graph, generators, resolve_target


def median_ms(fn: Callable[[], object], calls: int) -> float:
    for _ in range(5):
        fn()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def floors(target_name: str, calls: int) -> dict[str, float]:
    """Milliseconds of the operations a call is built from."""
    target = resolve_target(target_name)
    if target.name != "cuda":
        return {}
    from numba import cuda

    @cuda.jit
    def empty_kernel(a):
        pass

    one = target.empty(1, np.int32)
    host = np.zeros(1, np.int32)
    return {
        "empty kernel launch": median_ms(lambda: empty_kernel[1, 32](one), calls),
        "launch + synchronize": median_ms(lambda: (empty_kernel[1, 32](one), cuda.synchronize()),
                                          calls),
        "device_array(1)": median_ms(lambda: cuda.device_array(1, np.int32), calls),
        "1-element read to host": median_ms(lambda: one.copy_to_host(), calls),
        "1-element write to device": median_ms(lambda: one.copy_to_device(host), calls),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.profile_call")
    parser.add_argument("--target", default="cuda")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    tiny = Graph.from_edges(np.arange(5), np.arange(1, 6), num_vertices=6, directed=False)
    rmat = generators.rmat(16)
    hub = int(np.argmax(rmat.out_degrees()))
    text = io.StringIO()
    text.write(f"target {args.target}, {args.calls} calls each, median ms\n")
    small = median_ms(lambda: bfs(tiny, 0, target=args.target), args.calls)
    large = median_ms(lambda: bfs(rmat, hub, target=args.target), args.calls // 3)
    text.write(f"bfs(path of 6, 0)   {small:.3f}\nbfs(rmat16, hub)    {large:.3f}\n")
    for name, ms in floors(args.target, args.calls).items():
        text.write(f"{name:<26} {ms:.4f}\n")
    target = resolve_target(args.target)
    launches, reads = target.launches, target.host_reads
    bfs(tiny, 0, target=args.target)
    text.write(f"one tiny call: {target.launches - launches} launches, "
               f"{target.host_reads - reads} host reads\n")
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(args.calls):
        bfs(tiny, 0, target=args.target)
    profile.disable()
    for order in ("tottime", "cumulative"):
        stats = pstats.Stats(profile, stream=text)
        stats.sort_stats(order).print_stats(35)
    print(text.getvalue())
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "profile_call.txt").write_text(text.getvalue())


if __name__ == "__main__":
    main()
