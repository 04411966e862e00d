"""k-core's peeling rounds, one balancer beside another: per round its ``k``, advance steps,
host wall time, and what the traversal ran (each decision's label, mode and steps).

Usage from the repository root (bench/device/env.sh sourced on a CUDA machine):
``python3 bench/device/kcore_rounds.py GRAPH [BALANCER ...]`` (default ``auto two_phase``);
rounds whose times differ most between the first two balancers are listed first.
"""

from __future__ import annotations

import sys
from functools import partial

import algorithms.kcore as kcore
from bench.graphs import build
from bench.timing import time_calls
from frontier.target import resolve_target


def rounds_of(graph, balancer, target):
    """The rounds of one call, each with the decisions its traversal took."""
    walks = []
    traverse = kcore.traverse

    def kept(*args, **options):
        walk = traverse(*args, **options)
        walks.append(walk)
        return walk

    kcore.traverse = kept
    try:
        result = kcore.k_core(graph, balancer=balancer, target=target)
    finally:
        kcore.traverse = traverse
    described = []
    for (k, steps, seconds), walk in zip(result.rounds, walks, strict=True):
        runs = " ".join(f"{d.label}/{d.mode}x{n}" for d, n in walk.choices.runs())
        described.append((k, steps, 1e3 * seconds, runs))
    return described


def main() -> None:
    graph = build(sys.argv[1]).simple(directed=False)
    balancers = sys.argv[2:] or ["auto", "two_phase"]
    target = resolve_target("cuda")
    results = {}
    for balancer in balancers:
        timing = time_calls(partial(kcore.k_core, graph, balancer=balancer, target=target),
                            runs=5, target=target)
        results[balancer] = rounds_of(graph, balancer, target)
        print(f"{balancer}: {1e3 * timing.wall_s:.2f} ms (median of 5), "
              f"{len(results[balancer])} rounds")
    first, second = (results[b] for b in balancers[:2])
    order = sorted(range(len(first)), key=lambda i: first[i][2] - second[i][2], reverse=True)
    total = sum(first[i][2] - second[i][2] for i in order)
    print(f"rounds' time, {balancers[0]} minus {balancers[1]}: {total:.2f} ms")
    for i in order[:40]:
        (k, steps, ms, runs), (_, steps2, ms2, runs2) = first[i], second[i]
        print(f"k={k:4d} steps {steps:3d}/{steps2:3d} {ms:7.3f}/{ms2:7.3f} ms  {runs} | {runs2}")


if __name__ == "__main__":
    main()
