"""Where the fixed cost of a call goes: each catalog algorithm's call on a tiny graph, profiled.

For each algorithm of ``--algorithms`` (default: every catalog entry), on the tiny graph of the
``calls`` suite (a 7-vertex path, weighted for the weighted algorithms; list ranking's own
7-element list), or on ``--graph`` (from its vertex of largest degree; the host work of a call
on a large graph): the median wall time of ``--calls`` default calls (after five warm-up calls),
the kernel launches and device-to-host reads one call makes, and a cProfile of the calls (the
Python functions it spends its time in, by own time and by cumulative time). BFS on rmat 16 (a
third as many calls) shows the same cost under a real traversal. On CUDA it also measures the
floors a call is made of on this machine (host time, no synchronization beyond the
operation's own): an empty kernel launch, a launch and a synchronize, a one-element device
allocation, a one-element device-to-host read and a host-to-device write.

``python -m bench call_profile [--target cuda] [--calls 300] [--algorithms bfs,cc] [--graph G]
[--out DIR]``
prints everything and writes the medians to ``call_profile.csv`` and ``call_profile.md`` and the
profiles to ``call_profile.txt``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
from collections.abc import Callable
from functools import partial

import numpy as np

from algorithms import bfs
from bench import baselines, options, tables
from bench.graphs import build, source_of
from bench.suites.calls import tiny_graph, weighted_name
from bench.timing import Synchronized, time_calls
from frontier import generators, resolve_target

#: Untimed calls before the median.
WARMUPS = 5
#: Functions printed per profile and order.
PROFILE_ROWS = 25


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


def profiled(call: Callable[[], object], calls: int, text: io.StringIO) -> None:
    """Profile ``calls`` runs of ``call`` into ``text``, by own and by cumulative time."""
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(calls):
        call()
    profile.disable()
    for order in ("tottime", "cumulative"):
        pstats.Stats(profile, stream=text).sort_stats(order).print_stats(PROFILE_ROWS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser, "cuda")
    parser.add_argument("--calls", type=int, default=300,
                        help="timed calls of each median (a third on rmat 16; default 300)")
    options.add_names(parser, "--algorithms", ",".join(baselines.names()), "catalog algorithms",
                      baselines.names())
    parser.add_argument("--graph", type=options.graph_name, default=None,
                        help="profile the calls on this graph (default: the tiny graph of each "
                             "algorithm)")


def run(args: argparse.Namespace) -> int:
    if args.calls < 15:
        raise options.UsageError(f"--calls {args.calls}: at least 15 (5 on rmat 16)")
    target = resolve_target(args.target)
    text = io.StringIO()
    text.write(f"target {target.name}, {args.calls} calls each, median ms\n")
    rows = []
    profiles = io.StringIO()
    for algorithm in args.algorithms:
        name = (tiny_graph(algorithm) if args.graph is None
                else weighted_name(algorithm, args.graph))
        graph = build(name)
        source = ((0 if args.graph is None else source_of(graph))
                  if baselines.takes_source(algorithm) else None)
        call = partial(baselines.run, algorithm, graph, source, target=target)
        ms = median_ms(call, args.calls, target)
        launches, reads = target.launches, target.host_reads
        call()
        rows.append({"what": f"{algorithm}({name})", "median_ms": ms,
                     "launches": target.launches - launches,
                     "host_reads": target.host_reads - reads})
        profiles.write(f"\n=== {algorithm} on {name}: {ms:.4f} ms a call ===\n")
        profiled(call, args.calls, profiles)
    rmat = generators.rmat(16)
    hub = int(np.argmax(rmat.out_degrees()))
    rows.append({"what": "bfs(rmat16, hub)",
                 "median_ms": median_ms(lambda: bfs(rmat, hub, target=target),
                                        args.calls // 3, target)})
    rows.extend({"what": what, "median_ms": ms}
                for what, ms in floors(target.name, args.calls).items())
    for row in rows:
        counts = (f"  {row['launches']} launches, {row['host_reads']} host reads"
                  if "launches" in row else "")
        text.write(f"{row['what']:<28} {row['median_ms']:.4f}{counts}\n")
    print(text.getvalue())
    text.write(profiles.getvalue())
    tables.write(rows, args.out, "call_profile")
    tables.replace_text(args.out / "call_profile.txt", text.getvalue())
    return 0
