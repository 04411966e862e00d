"""The adaptive policy under variants of its thresholds, beside static balancers, in one run:
the default call of each catalog algorithm on each graph (target cuda, wall time, median of
three rounds of five calls, each round after a warm-up call, the configurations taking turns) with
``AutoBalancer(thresholds=...)`` for each variant, and with each static balancer named; the
launches and host reads of one call beside each.

Usage from the repository root (bench/device/env.sh sourced on a CUDA machine):
``python3 bench/device/adaptive_variants.py ALGORITHM[,...] GRAPH[,...] [NAME=FIELD:VALUE,...]
[BALANCER ...]``; a variant ``hub64=hub_edges:x64`` multiplies the device's ``hub_edges`` by 64,
``nob=block_frontier:1`` sets ``block_frontier`` to 1.
"""

from __future__ import annotations

import statistics
import sys

from algorithms.catalog import CATALOG
from bench.graphs import build, source_of
from bench.timing import time_calls
from frontier.target import resolve_target
from operators.adaptive import thresholds_for
from operators.balancers import AutoBalancer

#: Rounds of five timed calls of each configuration, in turn.
ROUNDS = 3


def variant(text: str, base):
    """``NAME=FIELD:VALUE[,FIELD:VALUE]`` as (NAME, thresholds)."""
    name, changes = text.split("=", 1)
    values = {}
    for change in changes.split(","):
        field, value = change.split(":")
        old = getattr(base, field)
        values[field] = (type(old)(old * float(value[1:])) if value.startswith("x")
                         else type(old)(float(value)))
    return name, base.with_values(values, name)


def main() -> None:
    algorithms, graphs = sys.argv[1].split(","), sys.argv[2].split(",")
    target = resolve_target("cuda")
    base = thresholds_for(target)
    configs = {"auto": AutoBalancer(base)}
    for text in sys.argv[3:]:
        if "=" in text:
            name, thresholds = variant(text, base)
            configs[name] = AutoBalancer(thresholds)
        else:
            configs[text] = text
    print(f"base thresholds: {base}")
    for graph_name in graphs:
        graph = build(graph_name)
        for algorithm in algorithms:
            entry = CATALOG[algorithm]
            source = source_of(graph) if entry.source else None
            calls, walls, counts = {}, {name: [] for name in configs}, {}
            for name, balancer in configs.items():
                def call(entry=entry, source=source, balancer=balancer, graph=graph):
                    return entry.invoke(graph, source, balancer=balancer, target=target)

                calls[name] = call
                call()  # compiles
                launches, reads = target.launches, target.host_reads
                call()
                counts[name] = (target.launches - launches, target.host_reads - reads)
            for _ in range(ROUNDS):  # the configurations alternate: the host's drift hits all
                for name, call in calls.items():
                    walls[name] += time_calls(call, runs=5, target=target).walls
            row = [f"{name} {1e3 * statistics.median(walls[name]):.3f} ({counts[name][0]}L "
                   f"{counts[name][1]}R)" for name in configs]
            print(f"{algorithm:9s} {graph_name:15s} " + " | ".join(row), flush=True)


if __name__ == "__main__":
    main()
