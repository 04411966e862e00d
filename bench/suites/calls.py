"""What a call costs beyond its traversal, per algorithm: first calls, tiny calls, wall and device.

Three parts (``--parts``, default all), for each algorithm of ``--algorithms`` (default: those
the catalog suite runs):

* ``first``: the first call in a fresh process (a subprocess per algorithm, on ``--first-graph``):
  the seconds to import the library, of the first call (compilation included) and of a second
  call, with the kernel cache folder (``FRONTIER_CACHE_DIR``) empty (``cold``) and then as the
  cold process left it (``warm``);
* ``tiny``: the fixed cost of a call, for each algorithm of ``--tiny-algorithms`` (default:
  every catalog entry): the median wall time of ``--tiny-calls`` calls on a 7-vertex path
  (weighted 1..5 for the algorithms of :data:`WEIGHTED`; a 7-element list for list ranking,
  whose entry takes its own kind of graph) from vertex 0 after a warm-up;
* ``device``: wall time against the result's own ``seconds`` (device time) on ``--graphs``
  (default rmat21, the 2000x2000 grid and luxembourg_osm), the median of ``--runs`` after a
  warm-up, and the difference: what the call spends on the host. A graph an algorithm refuses
  (betweenness's path counts overflow float64 on the grid) is a row saying why.

The source is the vertex of largest degree. ``python -m bench calls --out DIR [--target cuda]``
writes ``calls.csv`` (one row per measurement, ``part`` saying which) and ``calls.md`` (a table
per part).
"""

from __future__ import annotations

import argparse
import re
import tempfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from bench import baselines, fresh, options, tables
from bench.graphs import build, source_of
from bench.progress import Progress
from bench.timing import time_calls
from frontier.runtime.target import Target
from frontier.target import resolve_target

#: Algorithms timed on a weighted graph in the tiny and first-call parts.
WEIGHTED = ("sssp",)
PARTS = ("first", "tiny", "device")
#: The vertices of the tiny part's graph.
TINY = 7
#: The child of the ``first`` part: prints the seconds of the import and of two calls as JSON.
_CHILD = """
import json, sys, time
start = time.perf_counter()
import algorithms
imported = time.perf_counter() - start
from bench import baselines
from bench.graphs import build, source_of
name, graph_name, target = sys.argv[1:4]
graph = build(graph_name)
source = source_of(graph) if baselines.takes_source(name) else None
seconds = []
for _ in range(2):
    start = time.perf_counter()
    baselines.run(name, graph, source, target=target)
    seconds.append(time.perf_counter() - start)
print(json.dumps({"import_s": imported, "first_s": seconds[0], "second_s": seconds[1]}))
"""


@dataclass
class Row:
    part: str
    algorithm: str
    graph: str
    target: str
    cache: str
    runs: int
    import_ms: float | None
    first_ms: float | None
    wall_ms: float | None
    device_ms: float | None
    host_ms: float | None
    refused: str = ""


def weighted_name(algorithm: str, graph: str) -> str:
    """The weighted form of a generated graph's name for the algorithms of :data:`WEIGHTED`."""
    plain = re.fullmatch(r"(rmat|grid|star|path)\d+", graph) is not None
    return f"{graph}_w1-5" if algorithm in WEIGHTED and plain else graph


def tiny_graph(algorithm: str) -> str:
    """The name of the tiny part's graph for ``algorithm``: a 7-vertex path (weighted for the
    algorithms of :data:`WEIGHTED`), or the algorithm's own kind of input of that size."""
    example = baselines.example(algorithm)
    return (weighted_name(algorithm, f"path{TINY}") if example is None
            else f"{example.partition(':')[0]}:{TINY}")


def first_call(algorithm: str, graph: str, target: str, cache: Path) -> dict[str, float]:
    """The child's seconds, in a fresh process with ``cache`` as its kernel cache folder."""
    try:
        return fresh.run_json(_CHILD, algorithm, graph, target,
                              env={"FRONTIER_CACHE_DIR": str(cache)})
    except RuntimeError as err:
        raise RuntimeError(f"first call of {algorithm} in a fresh process: {err}") from None


def first_rows(algorithms: list[str], graph: str, target: Target, progress: Progress
               ) -> list[Row]:
    rows = []
    for algorithm in algorithms:
        name = weighted_name(algorithm, graph)
        with tempfile.TemporaryDirectory(prefix="frontier-calls-") as cache:
            for state in ("cold", "warm"):
                seconds = first_call(algorithm, name, target.name, Path(cache))
                rows.append(Row("first", algorithm, name, target.name, state, 1,
                                1e3 * seconds["import_s"], 1e3 * seconds["first_s"],
                                1e3 * seconds["second_s"], None, None))
                progress.step(f"first call {algorithm} ({state} cache): "
                              f"{seconds['first_s']:.2f} s")
    return rows


def tiny_rows(algorithms: list[str], target: Target, calls: int, progress: Progress
              ) -> list[Row]:
    rows = []
    for algorithm in algorithms:
        name = tiny_graph(algorithm)
        graph = build(name)
        source = 0 if baselines.takes_source(algorithm) else None
        timing = time_calls(partial(baselines.run, algorithm, graph, source, target=target),
                            runs=calls, target=target)
        rows.append(Row("tiny", algorithm, name, target.name, "", timing.runs, None, None,
                        1e3 * timing.wall_s, None, None))
        progress.step(f"tiny call {algorithm}: {1e3 * timing.wall_s:.3f} ms")
    return rows


def device_rows(algorithms: list[str], graphs: list[str], target: Target, runs: int,
                progress: Progress) -> list[Row]:
    rows = []
    for name in graphs:
        graph = build(name)
        for algorithm in algorithms:
            source = source_of(graph) if baselines.takes_source(algorithm) else None
            try:
                timing = time_calls(partial(baselines.run, algorithm, graph, source,
                                            target=target),
                                    runs=runs, target=target, own=lambda result: result.seconds)
            except ValueError as err:  # the algorithm refuses this graph: a row that says why
                rows.append(Row("device", algorithm, name, target.name, "", 0, None, None,
                                None, None, None, f"{type(err).__name__}: {err}"))
                progress.step(f"{algorithm} on {name}: refused ({type(err).__name__})")
                continue
            wall, device = 1e3 * timing.wall_s, 1e3 * timing.own_s
            rows.append(Row("device", algorithm, name, target.name, "", timing.runs, None, None,
                            wall, device, wall - device))
            progress.step(f"{algorithm} on {name}: wall {wall:.3f} ms, device {device:.3f} ms")
    return rows


def markdown(rows: list[Row]) -> str:
    parts = []
    first = [r for r in rows if r.part == "first"]
    if first:
        parts.append("First call in a fresh process\n\n| algorithm | graph | target | cache | "
                     "import ms | first call ms | second call ms |\n|---|---|---|---|---|---|---|\n"
                     + "".join(f"| {r.algorithm} | {r.graph} | {r.target} | {r.cache} | "
                               f"{r.import_ms:,.0f} | {r.first_ms:,.1f} | {r.wall_ms:,.3f} |\n"
                               for r in first))
    tiny = [r for r in rows if r.part == "tiny"]
    if tiny:
        parts.append("Tiny call (median)\n\n| algorithm | graph | target | calls | ms |\n"
                     "|---|---|---|---|---|\n"
                     + "".join(f"| {r.algorithm} | {r.graph} | {r.target} | {r.runs} | "
                               f"{r.wall_ms:.3f} |\n" for r in tiny))
    device = [r for r in rows if r.part == "device"]
    if device:
        parts.append("Wall against device (median)\n\n| algorithm | graph | target | runs | "
                     "wall ms | device ms | host ms |\n|---|---|---|---|---|---|---|\n"
                     + "".join(f"| {r.algorithm} | {r.graph} | {r.target} | {r.runs} | "
                               + (f"{r.wall_ms:,.3f} | {r.device_ms:,.3f} | {r.host_ms:,.3f} |\n"
                                  if not r.refused else f"refused: {r.refused[:80]} | | |\n")
                               for r in device))
    return "\n".join(parts) or "(no rows)\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_runs(parser)
    options.add_graphs(parser, "rmat21,grid2000,luxembourg_osm")
    options.add_names(parser, "--algorithms", ",".join(baselines.names(suite_only=True)),
                      "catalog algorithms", baselines.names(any_graph_only=True))
    options.add_names(parser, "--parts", ",".join(PARTS), "parts", PARTS)
    parser.add_argument("--first-graph", type=options.graph_name, default="grid30",
                        help="the graph of the first calls (default grid30)")
    options.add_names(parser, "--tiny-algorithms", ",".join(baselines.names()),
                      "catalog algorithms of the tiny part", baselines.names())
    parser.add_argument("--tiny-calls", type=options.runs_count, default=200,
                        help="calls of the tiny-call median (default 200)")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    count = (len(args.algorithms) * (2 * ("first" in args.parts)
                                     + len(args.graphs) * ("device" in args.parts))
             + len(args.tiny_algorithms) * ("tiny" in args.parts))
    progress = Progress(count, "calls")
    rows: list[Row] = []
    if "first" in args.parts:
        rows += first_rows(args.algorithms, args.first_graph, target, progress)
        tables.write(rows, args.out, "calls", markdown(rows))
    if "tiny" in args.parts:
        rows += tiny_rows(args.tiny_algorithms, target, args.tiny_calls, progress)
        tables.write(rows, args.out, "calls", markdown(rows))
    if "device" in args.parts:
        rows += device_rows(args.algorithms, args.graphs, target, args.runs, progress)
    tables.write(rows, args.out, "calls", markdown(rows))
    print(markdown(rows))
    return 0
