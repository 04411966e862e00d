"""The cpu target on 1, 2, 4, ... cores: the default calls' speed-up and parallel efficiency.

For each graph of ``--graphs`` and each algorithm of ``--algorithms`` (BFS, connected
components, PageRank, SSSP; SSSP on the graph with integer weights 1..100, ``NAME_w1-100``),
the default call with ``target="cpu"`` at each thread count of ``--threads`` (default 1, 2, 4,
... up to the cores this process may use, and that count itself), each count in a fresh process
with ``FRONTIER_NUM_THREADS`` set: a warm-up call (it compiles), then the median of ``--runs``
timed calls. The results of every count must equal one thread's (a digest of the distances,
labels or ranks: these algorithms are deterministic); one thread's are checked against the
catalog's reference. Beside them, scipy on one core in this process, its matrix built off the
clock: BFS ``csgraph.breadth_first_order``, components ``csgraph.connected_components``, SSSP
``csgraph.dijkstra``, PageRank a power iteration of sparse matrix products with the same rule
(NetworkX's: tolerance ``N * 1e-6`` on the L1 change).

Columns: milliseconds per thread count, speed-up over one thread, parallel efficiency (speed-up
over threads), and scipy's time over ours (``x_scipy``, above 1: faster than scipy).

``python -m bench cores --out DIR [--graphs rmat21,luxembourg_osm] [--threads 1,2,4,16]
[--algorithms bfs,cc,pagerank,sssp] [--runs 5]`` writes ``cores.csv`` and ``cores.md``; the exit
status is 1 where a result differs from one thread's or from the reference.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

from bench import baselines, fresh, options, tables
from bench.graphs import build, builder, source_of
from bench.progress import Progress
from bench.timing import time_calls
from frontier.runtime.cpu_threads import VARIABLE, usable_cores

#: The algorithms of the suite: each one's result array, digested to compare thread counts.
RESULTS = {"bfs": "distances", "cc": "labels", "pagerank": "ranks", "sssp": "distances"}

#: The weights of the SSSP graph.
WEIGHTS = "_w1-100"

#: The child: one graph, the algorithms' default calls on the cpu target with the thread count
#: of its environment, timed; prints one JSON object per algorithm.
_CHILD = """
import hashlib, json, sys
import numpy as np
from bench import baselines
from bench.graphs import build, builder, source_of
from bench.timing import time_calls
from bench.suites.cores import RESULTS
names, graphs, runs, check = sys.argv[1].split(","), sys.argv[2].split(","), int(sys.argv[3]), \\
    sys.argv[4] == "1"
built = {}
out = {}
for name, graph_name in zip(names, graphs):
    graph = built.setdefault(graph_name, build(graph_name))
    source = source_of(graph) if baselines.takes_source(name) else None
    timing = time_calls(lambda: baselines.run(name, graph, source, target="cpu"), runs=runs)
    values = np.ascontiguousarray(getattr(timing.result, RESULTS[name]))
    out[name] = {"ms": 1e3 * timing.wall_s, "runs": timing.runs,
                 "digest": hashlib.sha1(values.tobytes()).hexdigest(),
                 "valid": baselines.check(name, graph, source, timing.result, graph_name)
                 if check else None}
print(json.dumps(out))
"""


@dataclass
class Row:
    graph: str
    algorithm: str
    threads: int
    ms: float
    speedup: float  #: one thread's ms over this count's
    efficiency: float  #: speedup / threads
    scipy_ms: float
    x_scipy: float  #: scipy_ms / ms
    runs: int
    same: bool  #: the result equals one thread's
    validated: bool | None  #: one thread's result agrees with the reference (None: not checked)


def thread_counts(cores: int) -> list[int]:
    """1, 2, 4, ... below ``cores``, then ``cores``."""
    counts = [1]
    while counts[-1] * 2 < cores:
        counts.append(counts[-1] * 2)
    return counts + ([cores] if cores > 1 else [])


def graph_of(algorithm: str, graph: str) -> str:
    """The graph an algorithm runs on: SSSP's weighted 1..100 (a name's own weights are
    replaced: ``rmat21_w1-5`` runs as ``rmat21_w1-100``)."""
    return re.sub(r"_w\d+-\d+$", "", graph) + WEIGHTS if algorithm == "sssp" else graph


def _counts(text: str) -> list[int]:
    try:
        counts = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected comma-separated positive thread "
                                         "counts (1,2,4)")
    return sorted(set(counts) | {1})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_runs(parser)
    options.add_graphs(parser, "rmat21,luxembourg_osm")
    options.add_names(parser, "--algorithms", ",".join(RESULTS), "algorithms", list(RESULTS))
    parser.add_argument("--threads", type=_counts, default=None,
                        help="comma-separated thread counts, 1 added (default 1, 2, 4, ... up "
                             f"to the usable cores, {usable_cores()} here)")


def scipy_ms(algorithm: str, name: str, runs: int) -> float:
    """scipy's median milliseconds for ``algorithm`` on graph ``name`` (one core)."""
    graph = build(name)
    source = source_of(graph)
    call = {"bfs": lambda: baselines.scipy_bfs(graph, source),
            "cc": lambda: baselines.scipy_components(graph),
            "pagerank": lambda: baselines.scipy_pagerank(graph),
            "sssp": lambda: baselines.scipy_dijkstra(graph, source)}[algorithm]()
    return 1e3 * time_calls(call, runs=runs).wall_s


def run(args: argparse.Namespace) -> int:
    counts = args.threads or thread_counts(usable_cores())
    for graph in args.graphs:  # a graph SSSP cannot weight is refused before any work
        for name in args.algorithms:
            builder(graph_of(name, graph))
    progress = Progress(len(args.graphs) * (len(counts) + 1), "cores")
    rows: list[Row] = []
    for graph in args.graphs:
        names = args.algorithms
        graphs = [graph_of(name, graph) for name in names]
        found = {}
        for threads in counts:
            progress.step(f"{graph}: {threads} thread{'s' * (threads > 1)}")
            found[threads] = fresh.run_json(_CHILD, ",".join(names), ",".join(graphs),
                                            str(args.runs), "1" if threads == 1 else "0",
                                            env={VARIABLE: str(threads)})
            print(f"{graph}, {threads} thread{'s' * (threads > 1)}: " + ", ".join(
                f"{name} {found[threads][name]['ms']:.3f} ms" for name in names), flush=True)
        progress.step(f"{graph}: scipy")
        for name, graph_name in zip(names, graphs, strict=True):
            one = found[1][name]
            reference = scipy_ms(name, graph_name, args.runs)
            for threads in counts:
                got = found[threads][name]
                speedup = one["ms"] / got["ms"]
                rows.append(Row(graph_name, name, threads, round(got["ms"], 3),
                                round(speedup, 2), round(speedup / threads, 2),
                                round(reference, 3), round(reference / got["ms"], 2),
                                got["runs"], got["digest"] == one["digest"], one["valid"]))
            tables.write(rows, args.out, "cores")  # what a run cut short has measured
    print(tables.markdown(rows))
    return 0 if all(row.same and row.validated is not False for row in rows) else 1
