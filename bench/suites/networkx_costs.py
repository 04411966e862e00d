"""The costs behind the NetworkX backend's ``should_run`` (:mod:`frontier_nx.costs`), measured.

``python -m bench networkx_costs [--edges 500000] [--nodes N] [--runs 7] [--processes 5]``
builds ``networkx.gnm_random_graph(nodes, edges, seed=1)`` (``--nodes`` defaults to a fifth of
``--edges``) and times, per arc of its adjacency (an undirected edge counts twice), the best of
``--runs`` after a warm-up: NetworkX's ordered searches (``bfs_layers``,
``single_source_shortest_path_length``) and its connected components; the backend's ordered
searches and its components on arrays read before (components on the cpu target, the kernels
loaded). Then, in ``--processes`` fresh interpreters each (median): the backend reading the
adjacency into arrays (the graph built there, numpy imported before the clock), importing numpy
after NetworkX, and importing the library and labelling a small graph's components (its
kernels loaded from the warm cache).
Every figure is CPU time (the work is single-threaded): on a machine other work shares, wall
times stretch with the load while CPU times, and their ratios, hold.
Prints each measured figure beside the constant ``frontier_nx.costs`` holds, and the number of
arcs above which an ordered search pays for reading the graph and importing numpy. Writes
``networkx_costs.csv`` and ``networkx_costs.md``; docs/networkx.md has the run behind the
constants.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import networkx as nx

from bench import options, tables
from bench.fresh import run_json
from bench.timing import time_calls
from frontier_nx import components, convert, costs, traversal

_NUMPY = """
import json, time
import networkx
start = time.process_time()
import numpy
print(json.dumps(time.process_time() - start))
"""

_LIBRARY = """
import json, time
import networkx as nx, numpy
from frontier_nx import components, convert
G = convert.from_networkx(nx.path_graph(100), None)
G.heads
start = time.process_time()
list(components.connected_components(G))
print(json.dumps(time.process_time() - start))
"""


_READ = """
import json, sys, time
import networkx as nx, numpy
from frontier_nx import convert
G = nx.gnm_random_graph(int(sys.argv[1]), int(sys.argv[2]), seed=1)
start = time.process_time()
arcs = convert.from_networkx(G, None).heads.size
print(json.dumps((time.process_time() - start) / arcs))
"""


def _best(call: Callable[[], Any], runs: int) -> float:
    """The least CPU seconds of ``runs`` calls after a warm-up."""
    cpu: list[float] = []

    def timed() -> None:
        start = time.process_time()
        call()
        cpu.append(time.process_time() - start)

    time_calls(timed, runs=runs)
    return min(cpu[1:])  # the warm-up's not counted


def _fresh(code: str, processes: int, *args: str) -> float:
    return statistics.median(run_json(code, *args) for _ in range(processes))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_runs(parser, default=7)
    parser.add_argument("--edges", type=int, default=500_000)
    parser.add_argument("--nodes", type=int, default=None,
                        help="nodes of the graph (default: a fifth of --edges)")
    parser.add_argument("--processes", type=int, default=5,
                        help="fresh interpreters for each import time (median)")


def run(args: argparse.Namespace) -> int:
    nodes = args.nodes or max(args.edges // 5, 2)
    G = nx.gnm_random_graph(nodes, args.edges, seed=1)
    read = convert.from_networkx(G, None)
    arcs = read.heads.size  # read now, before the clock
    source = next(iter(G))
    section = nx.config.backends.frontier
    before, section.target = section.target, "cpu"
    try:
        list(components.connected_components(read))  # the kernels loaded before the clock
        per_arc = {
            "NETWORKX_SEARCH": min(
                _best(lambda: list(nx.bfs_layers(G, source, backend="networkx")), args.runs),
                _best(lambda: nx.single_source_shortest_path_length(G, source,
                                                                     backend="networkx"),
                      args.runs)),
            "NETWORKX_COMPONENTS": _best(
                lambda: list(nx.connected_components(G, backend="networkx")), args.runs),
            "READ": _fresh(_READ, args.processes, str(nodes), str(args.edges)) * arcs,
            "SEARCH": max(
                _best(lambda: list(traversal.bfs_layers(read, source)), args.runs),
                _best(lambda: traversal.single_source_shortest_path_length(read, source),
                      args.runs)),
            "COMPONENTS_HERE": _best(lambda: list(components.connected_components(read)),
                                     args.runs),
        }
    finally:
        section.target = before
    rows = [{"constant": name, "measured": seconds / arcs, "held": getattr(costs, name),
             "unit": "s per arc"} for name, seconds in per_arc.items()]
    rows += [{"constant": "NUMPY_IMPORT", "measured": _fresh(_NUMPY, args.processes),
              "held": costs.NUMPY_IMPORT, "unit": "s"},
             {"constant": "LIBRARY_LOAD", "measured": _fresh(_LIBRARY, args.processes),
              "held": costs.LIBRARY_LOAD, "unit": "s"}]
    measured = {row["constant"]: row["measured"] for row in rows}
    gain = measured["NETWORKX_SEARCH"] - measured["READ"] - measured["SEARCH"]
    crossing = measured["NUMPY_IMPORT"] / gain if gain > 0 else float("inf")
    heading = (f"gnm_random_graph({nodes:,}, {args.edges:,}): {arcs:,} arcs; CPU time, best "
               f"of {args.runs} in this process, median of {args.processes} fresh processes"
               "\n\n"
               f"An ordered search read to its end pays for reading the graph and importing "
               f"numpy above {crossing:,.0f} arcs (measured; {_crossing():,.0f} with the "
               "constants held)\n")
    lines = ["| constant | measured | held | unit |", "| --- | ---: | ---: | --- |"]
    lines += [f"| {r['constant']} | {r['measured']:.3g} | {r['held']:.3g} | {r['unit']} |"
              for r in rows]
    print(heading)
    print("\n".join(lines))
    tables.write(rows, args.out, "networkx_costs", heading + "\n" + "\n".join(lines) + "\n")
    return 0


def _crossing() -> float:
    gain = costs.NETWORKX_SEARCH - costs.READ - costs.SEARCH
    return costs.NUMPY_IMPORT / gain if gain > 0 else float("inf")
