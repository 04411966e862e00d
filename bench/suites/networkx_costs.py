"""The costs behind the NetworkX backend's ``should_run`` (:mod:`frontier_nx.costs`), measured.

``python -m bench networkx_costs [--edges 1000000] [--nodes N] [--runs 5] [--processes 3]
[--functions ...]`` builds ``networkx.gnm_random_graph(nodes, edges, seed=1)`` with weights
1..100 as ``python -m bench networkx`` does (``--nodes`` defaults to a tenth of ``--edges``;
fresh interpreters build it as well),
and measures, in CPU seconds (the work is single-threaded: on a machine other work shares, wall
times stretch with the load while CPU times, and their ratios, hold less badly):

- for each function of :data:`frontier_nx.costs.COSTS` (``--functions``: some of them), called
  as :data:`bench.networkx_calls.CALLS` says on the graph it names (directed, or of fewer nodes
  and the same mean degree): NetworkX's call and the backend's on the conversion read before
  with its kernels loaded, the least of ``--runs`` after a warm-up (one timed call where the
  first took over ``--slow`` seconds), each over the units of its family's work
  (:data:`frontier_nx.costs.WORK`) on that graph;
- in fresh interpreters, for each of those functions: what NetworkX's first call and the
  backend's load (:data:`frontier_nx.costs.LOADS`, on a small graph), beside what the table
  says;
- in fresh interpreters, the median of ``--processes``: reading the adjacency into arrays, and
  an edge attribute's values with it, per arc; importing numpy after NetworkX, and scipy's
  sparse matrices after numpy; loading the library (the first call of a few of its functions,
  ``--loaders``, on the graph read before, less their second);
- NetworkX's ordered searches and the backend's on the arrays, per arc, for
  :func:`frontier_nx.costs.hand_over`.

Prints each constant beside the one held, and the constants and the lines of
:data:`frontier_nx.costs.COSTS` as measured, as the module writes them (rerun it after a change
to what a call loads or costs, and paste them). Writes ``networkx_costs.csv`` (the constants),
``networkx_costs_functions.csv`` and ``networkx_costs.md`` (both tables and the lines);
docs/networkx.md has the run behind the constants.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any
from unittest import mock

import networkx as nx

from bench import options, tables
from bench.fresh import run_json
from bench.networkx_calls import CALLS, Call, dispatchable
from bench.suites.networkx import Graphs
from bench.timing import time_calls
from frontier_nx import convert, costs, interface, registry, traversal

#: the library's functions whose first call, less their second, is its load (``--loaders``)
LOADERS = ("connected_components", "core_number", "pagerank", "triangles",
           "single_source_dijkstra_path_length")

_NUMPY = """
import json, time
import networkx
start = time.process_time()
import numpy
print(json.dumps(time.process_time() - start))
"""

_SCIPY = """
import json, time
import networkx, numpy
start = time.process_time()
import scipy.sparse
print(json.dumps(time.process_time() - start))
"""

_READ = """
import json, sys, time
import numpy
from bench.networkx_calls import graph
from frontier_nx import convert
G = graph(int(sys.argv[1]), int(sys.argv[2]), 1)
attributes = {"weight": 1} if sys.argv[3] == "values" else None
start = time.process_time()
arcs = convert.from_networkx(G, attributes).heads.size
print(json.dumps((time.process_time() - start) / arcs))
"""

_LIBRARY = """
import json, sys, time
import numpy
from bench.networkx_calls import CALLS, graph
from frontier_nx import convert, registry
G = graph(int(sys.argv[1]), int(sys.argv[2]), 1)
name = sys.argv[3]
call, function = CALLS[name], registry.implementation(name)
converted = convert.from_networkx(G, {"weight": 1})
converted.heads  # read before the clock
seconds = []
for _ in range(2):
    start = time.process_time()
    call.consume(function(converted, **call.arguments))
    seconds.append(time.process_time() - start)
print(json.dumps(seconds[0] - seconds[1]))
"""

_LOADED = """
import json, random, sys
import networkx as nx
from bench.networkx_calls import CALLS, dispatchable
from frontier_nx.costs import LOADS
name, backend = sys.argv[1:3]
call = CALLS[name]
G = nx.gnm_random_graph(200, 1000, seed=1, directed=call.directed)
draw = random.Random(1)
for _, _, data in G.edges(data=True):
    data["weight"] = draw.randint(1, 100)
def loaded():
    return {need for need, (modules, _) in LOADS.items()
            if all(module in sys.modules for module in modules)}
before = loaded()
try:
    call.consume(dispatchable(name)(G, **call.arguments, backend=backend))
except nx.NetworkXException:
    pass  # what the call loaded is loaded all the same
print(json.dumps(sorted(loaded() - before)))
"""


def _cpu(call: Callable[[], Any], runs: int, slow: float) -> float:
    """The least CPU seconds of ``call()``'s timed calls after a warm-up (one timed call where
    the warm-up took over ``slow`` seconds)."""
    cpu: list[float] = []

    def timed() -> None:
        start = time.process_time()
        call()
        cpu.append(time.process_time() - start)

    time_calls(timed, runs=runs, slow_s=slow)
    return min(cpu[1:])  # the warm-up's not counted


def _fresh(code: str, processes: int, *args: str) -> float:
    return statistics.median(run_json(code, *args) for _ in range(processes))


def _loading(size: tuple[str, str], name: str, processes: int) -> float:
    """The library's load by ``name``'s first call on the suite's graph of ``size`` (nodes,
    edges): a first process compiles what the cache lacks, the median of ``processes`` after
    it."""
    run_json(_LIBRARY, *size, name)
    return _fresh(_LIBRARY, processes, *size, name)


def _arcs(G: nx.Graph) -> int:
    return sum(map(len, G._adj.values()))


def units(name: str, G: nx.Graph, call: Call) -> float:
    """The units of ``name``'s work (:data:`frontier_nx.costs.WORK`) in the call on ``G``."""
    bound = registry.arguments(name, (G,), call.arguments)
    c0, c1, c2 = costs.WORK[costs.COSTS[name].work](len(G), bound)
    arcs = _arcs(G)
    return c0 + arcs * (c1 + arcs * c2)


def per_unit(name: str, G: nx.Graph, call: Call, runs: int, slow: float) -> tuple[float, float]:
    """NetworkX's seconds per unit of ``name``'s work and the backend's on the conversion read
    before (its warm-up reads it and loads the kernels)."""
    function = dispatchable(name)
    work = units(name, G, call)
    theirs = _cpu(lambda: call.consume(function(G, **call.arguments, backend="networkx")),
                  runs, slow)
    ours = _cpu(lambda: call.consume(function(G, **call.arguments, backend="frontier")),
                runs, slow)
    return theirs / work, ours / work


def pays_from(name: str, G: nx.Graph, call: Call) -> int | None:
    """The fewest edges (on a graph of ``G``'s mean degree, called as ``call``) from which the
    held costs estimate a first call here faster than NetworkX's, nothing loaded and nothing
    read before; None where none up to 10**11 is."""
    bound = registry.arguments(name, (G,), call.arguments)
    values = interface.edge_attribute(name, bound) is not None
    degree = _arcs(G) / max(len(G), 1)
    per_edge = 1 if G.is_directed() else 2
    with mock.patch.object(costs, "loaded", lambda module: False):
        for step in range(400):
            edges = int(1000 * 1.05 ** step)
            if edges > 10**11:
                return None
            nodes = max(int(per_edge * edges / degree), 2)
            estimate = costs.estimate(name, nodes, bound, False, values)
            if estimate.margin(per_edge * edges) < 0:
                return edges
    return None


def _names(needs: frozenset[str] | list[str]) -> str:
    return "+".join(sorted(needs)) or "nothing"


def _line(name: str, cost: costs.Cost, networkx: float, here: float) -> str:
    """``name``'s line of :data:`frontier_nx.costs.COSTS` with the measured figures."""
    needs = {costs.NUMPY: "NUMPY", costs.SCIPY: "SCIPY", costs.LIBRARY: "LIBRARY"}
    loads = needs.get(cost.needs, repr(cost.needs))
    theirs = {costs.NOTHING: "", costs.NUMPY: ", NUMPY", costs.SCIPY: ", SCIPY"}.get(
        cost.networkx_needs, f", {cost.networkx_needs!r}")
    return f'    "{name}": Cost("{cost.work}", {networkx:.3g}, {here:.3g}, {loads}{theirs}),'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_runs(parser)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--nodes", type=int, default=None,
                        help="nodes of the graph (default: a tenth of --edges)")
    parser.add_argument("--processes", type=int, default=3,
                        help="fresh interpreters for each fixed cost (median)")
    parser.add_argument("--slow", type=float, default=2.0,
                        help="a call whose warm-up takes longer (seconds) is timed once")
    options.add_names(parser, "--functions", ",".join(costs.COSTS),
                      "functions of frontier_nx.costs.COSTS (default all)", list(costs.COSTS))
    library = [name for name, cost in costs.COSTS.items() if "library" in cost.needs]
    options.add_names(parser, "--loaders", ",".join(LOADERS),
                      "the library's functions whose first call less their second is its "
                      f"load, the median (default {','.join(LOADERS)})", library)


def run(args: argparse.Namespace) -> int:
    nodes = args.nodes or max(args.edges // 10, 2)
    graphs = Graphs(nodes, args.edges, seed=1)
    G = graphs.of(Call())
    arcs = _arcs(G)
    section = nx.config.backends.frontier
    before = section.target, set(nx.config.warnings_to_ignore)
    section.target = "cpu"
    nx.config.warnings_to_ignore.add("cache")
    functions: list[dict[str, Any]] = []
    lines: list[str] = []
    try:
        for name in args.functions:
            cost, call = costs.COSTS[name], CALLS[name]
            graph = graphs.of(call)
            networkx, here = per_unit(name, graph, call, args.runs, args.slow)
            loads = run_json(_LOADED, name, "frontier")
            theirs = run_json(_LOADED, name, "networkx")
            functions.append({
                "function": name, "work": cost.work, "networkx": networkx,
                "networkx_held": cost.networkx, "here": here, "here_held": cost.here,
                "loads": _names(loads), "loads_held": _names(cost.needs),
                "networkx_loads": _names(theirs),
                "networkx_loads_held": _names(cost.networkx_needs),
                "pays_from": pays_from(name, graph, call)})
            lines.append(_line(name, cost, networkx, here))
            print(lines[-1], flush=True)
        read = convert.from_networkx(G, None)
        source = next(iter(G))
        list(traversal.bfs_layers(read, source))  # read before the clock
        search = {
            "NETWORKX_SEARCH": min(
                _cpu(lambda: list(nx.bfs_layers(G, source, backend="networkx")), args.runs,
                     args.slow),
                _cpu(lambda: nx.single_source_shortest_path_length(G, source,
                                                                    backend="networkx"),
                     args.runs, args.slow)),
            "SEARCH": max(
                _cpu(lambda: list(traversal.bfs_layers(read, source)), args.runs, args.slow),
                _cpu(lambda: traversal.single_source_shortest_path_length(read, source),
                     args.runs, args.slow)),
        }
    finally:
        section.target, nx.config.warnings_to_ignore = before
    size = str(nodes), str(args.edges)
    read = _fresh(_READ, args.processes, *size, "plain")
    fixed = {
        "READ": read,
        "READ_VALUES": _fresh(_READ, args.processes, *size, "values") - read,
        "NUMPY_IMPORT": _fresh(_NUMPY, args.processes),
        "SCIPY_IMPORT": _fresh(_SCIPY, args.processes),
        "LIBRARY_LOAD": statistics.median(_loading(size, name, args.processes)
                                          for name in args.loaders),
    }
    rows = [{"constant": name, "measured": seconds / arcs, "held": getattr(costs, name),
             "unit": "s per arc"} for name, seconds in search.items()]
    rows += [{"constant": name, "measured": value, "held": getattr(costs, name),
              "unit": "s per arc" if name.startswith("READ") else "s"}
             for name, value in fixed.items()]
    heading = (f"gnm_random_graph({nodes:,}, {args.edges:,}), weights 1..100: {arcs:,} arcs; "
               f"CPU time, least of {args.runs} in this process, median of {args.processes} "
               "fresh processes\n")
    table = ["| constant | measured | held | unit |", "| --- | ---: | ---: | --- |"]
    table += [f"| {r['constant']} | {r['measured']:.3g} | {r['held']:.3g} | {r['unit']} |"
              for r in rows]
    table += ["", "| function | work | NetworkX per unit (held) | backend per unit (held) | "
              "backend loads (held) | NetworkX loads (held) | a first call pays from, edges "
              "(held) |", "| --- | --- | ---: | ---: | --- | --- | ---: |"]
    table += [f"| {f['function']} | {f['work']} | {f['networkx']:.3g} "
              f"({f['networkx_held']:.3g}) | {f['here']:.3g} ({f['here_held']:.3g}) | "
              f"{f['loads']} ({f['loads_held']}) | {f['networkx_loads']} "
              f"({f['networkx_loads_held']}) | "
              f"{'never' if f['pays_from'] is None else format(f['pays_from'], ',')} |"
              for f in functions]
    constants = [f"{r['constant']} = {r['measured']:.3g}" for r in rows]
    text = heading + "\n" + "\n".join(table) + "\n\nAs frontier_nx.costs holds them:\n\n"
    text += "\n".join(constants + lines) + "\n"
    print(text)
    tables.write(rows, args.out, "networkx_costs", text)
    if functions:
        tables.write(functions, args.out, "networkx_costs_functions")
    return 0
