"""Each compilation of a cold first call, timed: what a fresh machine compiles, and how long.

For each algorithm of ``--algorithms``, in turn in one fresh process whose kernel cache folder is
empty (nothing compiled, nothing on disk), the first call on ``--graph`` (weighted for sssp) with
Numba's compilations wrapped: on the ``cuda`` target ``CUDADispatcher.compile`` (a kernel) and
``compile_device`` (a device function, nested in a kernel's time), on the ``cpu`` target
``Dispatcher.compile`` (which nested functions pass too, so their seconds overlap). One row a
call: its seconds, how many compilations and their seconds, and the slowest. The remedy a user
controls is the warm cache (``frontier warmup``).

``python -m bench cold_compiles --out DIR [--target cuda] [--algorithms bfs,sssp,cc]
[--graph grid30]`` writes ``cold_compiles.csv`` and ``cold_compiles.md``.
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass

from bench import baselines, fresh, options, tables
from bench.suites.calls import weighted_name
from frontier.target import resolve_target

#: The child: one first call per algorithm, each compilation logged; prints one JSON list.
_CHILD = """
import json, sys, time
target, names = sys.argv[1], sys.argv[2].split(",")
weighted = dict(zip(names, sys.argv[3].split(",")))
if target == "cuda":
    from numba.cuda import dispatcher
    owner, methods = dispatcher.CUDADispatcher, ("compile", "compile_device")
else:
    from numba.core import dispatcher
    owner, methods = dispatcher.Dispatcher, ("compile",)
log = []

def timed(method):
    original = getattr(owner, method)

    def wrapper(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            function = getattr(self, "py_func", None)
            name = f"{getattr(function, '__module__', '?')}.{getattr(function, '__name__', '?')}"
            log.append((method, name, time.perf_counter() - start))

    setattr(owner, method, wrapper)

for method in methods:
    timed(method)
from bench import baselines
from bench.graphs import build, source_of
out = []
for name in names:
    graph = build(weighted[name])
    source = source_of(graph) if baselines.takes_source(name) else None
    log.clear()
    start = time.perf_counter()
    baselines.run(name, graph, source, target=target)
    seconds = time.perf_counter() - start
    kernels = [row for row in log if row[0] == "compile"]
    nested = [row for row in log if row[0] == "compile_device"]
    slowest = max(log, key=lambda row: row[2], default=("", "", 0.0))
    out.append({"algorithm": name, "graph": weighted[name], "call_s": seconds,
                "compiled": len(kernels), "compile_s": sum(r[2] for r in kernels),
                "device_functions": len(nested), "device_functions_s": sum(r[2] for r in nested),
                "slowest": slowest[1], "slowest_s": slowest[2]})
print(json.dumps(out))
"""


@dataclass
class Row:
    algorithm: str
    graph: str
    target: str
    call_s: float
    compiled: int
    compile_s: float
    device_functions: int
    device_functions_s: float
    slowest: str
    slowest_s: float


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_names(parser, "--algorithms", "bfs,sssp,cc", "catalog algorithms",
                      baselines.names(any_graph_only=True))
    parser.add_argument("--graph", type=options.graph_name, default="grid30",
                        help="the graph of the first calls (default grid30; weighted for sssp)")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    graphs = [weighted_name(name, args.graph) for name in args.algorithms]
    with tempfile.TemporaryDirectory() as cache:
        found = fresh.run_json(_CHILD, target.name, ",".join(args.algorithms),
                               ",".join(graphs), env={"FRONTIER_CACHE_DIR": cache})
    rows = [Row(target=target.name, **{k: round(v, 4) if isinstance(v, float) else v
                                       for k, v in call.items()}) for call in found]
    tables.write(rows, args.out, "cold_compiles")
    print(tables.markdown(rows))
    return 0
