"""Where the fixed cost of a call goes: the default BFS on a tiny graph, profiled.

Times the default ``bfs(G, s)`` on a 6-vertex path and on rmat 16 (median of ``--calls``
calls, a third as many on rmat 16, after five warm-up calls), then profiles the tiny call with
cProfile (the Python functions it spends its time in, by own time and by cumulative time), and
measures the floors it is made of on this machine (CUDA only; host time, no synchronization
beyond the operation's own): an empty kernel launch, a launch and a synchronize, a one-element
device allocation, a one-element device-to-host read and a host-to-device write.

``python -m bench call_profile [--target cuda] [--calls 300] [--out DIR]`` prints everything
and writes the medians to ``call_profile.csv`` and ``call_profile.md`` and the profile to
``call_profile.txt``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
from collections.abc import Callable

import numpy as np

from algorithms import bfs
from bench import options, tables
from bench.timing import Synchronized, time_calls
from frontier import Graph, generators, resolve_target

#: Untimed calls before the median.
WARMUPS = 5


def median_ms(fn: Callable[[], object], calls: int, target: Synchronized | None = None
              ) -> float:
    return time_calls(fn, runs=calls, warmups=WARMUPS, target=target).wall_s * 1e3


def floors(target_name: str, calls: int) -> dict[str, float]:
    """Milliseconds of the operations a call is built from (host time of each)."""
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser, "cuda")
    parser.add_argument("--calls", type=int, default=300,
                        help="timed calls of each median (a third on rmat 16; default 300)")


def run(args: argparse.Namespace) -> int:
    if args.calls < 15:
        raise options.UsageError(f"--calls {args.calls}: at least 15 (5 on rmat 16)")
    target = resolve_target(args.target)
    tiny = Graph.from_edges(np.arange(5), np.arange(1, 6), num_vertices=6, directed=False)
    rmat = generators.rmat(16)
    hub = int(np.argmax(rmat.out_degrees()))
    text = io.StringIO()
    text.write(f"target {target.name}, {args.calls} calls each, median ms\n")
    medians = {"bfs(path of 6, 0)": median_ms(lambda: bfs(tiny, 0, target=target), args.calls,
                                              target),
               "bfs(rmat16, hub)": median_ms(lambda: bfs(rmat, hub, target=target),
                                             args.calls // 3, target)}
    medians.update(floors(target.name, args.calls))
    for name, ms in medians.items():
        text.write(f"{name:<26} {ms:.4f}\n")
    launches, reads = target.launches, target.host_reads
    bfs(tiny, 0, target=target)
    text.write(f"one tiny call: {target.launches - launches} launches, "
               f"{target.host_reads - reads} host reads\n")
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(args.calls):
        bfs(tiny, 0, target=target)
    profile.disable()
    for order in ("tottime", "cumulative"):
        stats = pstats.Stats(profile, stream=text)
        stats.sort_stats(order).print_stats(35)
    print(text.getvalue())
    rows = [{"what": name, "median_ms": ms} for name, ms in medians.items()]
    tables.write(rows, args.out, "call_profile")
    tables.replace_text(args.out / "call_profile.txt", text.getvalue())
    return 0
