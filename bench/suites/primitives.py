"""The neighbourhood primitives over every edge: common-neighbour enumeration beside counting.

For each graph of ``--graphs`` (default rmat18) and balancer of ``--balancers``, two advances
from every vertex with ``output="none"``, so each functor runs once per arc ``u -> v``:

* ``intersection_count``: ``counts[eid] = intersection_count(graph, u, v)``;
* ``common_neighbors``: every common neighbour of ``u`` and ``v`` with the arc ids of both
  sides, written into the arc's slots of three buffers laid out as a CSR by the counts
  (``offsets[eid] .. offsets[eid + 1]``, the prefix sum of the first advance's counts, made
  before the clock starts; common neighbours int32, arc ids int64), and the count returned into
  ``counts[eid]``.

Each is timed as :func:`bench.timing.time_calls` does (a warm-up that compiles, then the median
of ``--runs`` calls between synchronizations), and the ratio enumeration / count is the row's
``x_count`` (the goal of issue 49: at most 1.5 on rmat18 on a GPU). The enumeration is checked:
its counts equal ``intersection_count``'s, and for ``--check-arcs`` arcs drawn at random the
written entries equal the common neighbours and lowest arc ids NumPy finds in the CSR. A graph
whose buffers (20 bytes per common neighbour) do not fit the target's free memory is a row
saying so.

``python -m bench primitives --out DIR [--target cuda|cpu] [--graphs rmat18]
[--balancers auto] [--runs 5]`` prints a Markdown table and writes ``DIR/primitives.csv`` and
``DIR/primitives.md``; exits 1 if a check failed. On the cpu target, one core counts rmat18 in
about 80 s: ``--graphs rmat:10`` there.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

from bench import options, tables
from bench.graphs import builder
from bench.progress import Progress
from bench.timing import time_calls
from frontier import Frontier, common_neighbors, intersection_count
from frontier.graph import Graph
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import advance, available_balancers

#: Bytes of buffer per common neighbour: the vertex (int32) and the arc ids of both sides.
ENTRY_BYTES = 4 + 8 + 8


@dataclass
class Row:
    graph: str
    vertices: int
    arcs: int
    balancer: str
    target: str
    common: int
    count_ms: float | None
    enumerate_ms: float | None
    x_count: float | None
    runs: int
    checked: str


def count_common(src, dst, eid, weight, counts, graph):
    counts[eid] = intersection_count(graph, src, dst)
    return False


def list_common(src, dst, eid, weight, offsets, ws, arcs_u, arcs_v, counts, graph):
    first, last = offsets[eid], offsets[eid + 1]
    counts[eid] = common_neighbors(graph, src, dst, ws[first:last], arcs_u[first:last],
                                   arcs_v[first:last])
    return False


def expected_common(graph: Graph, arc: int) -> list[tuple[int, int, int]]:
    """``(w, lowest arc u -> w, lowest arc v -> w)`` of the arc ``u -> v``'s common
    neighbours, from the CSR with NumPy."""
    offs, cols = graph.row_offsets, graph.col_indices
    u, v = int(graph.coo().src[arc]), int(cols[arc])

    def lowest(x: int) -> tuple[np.ndarray, np.ndarray]:
        row = cols[offs[x]:offs[x + 1]]
        order = np.argsort(row, kind="stable")
        heads, first = np.unique(row[order], return_index=True)
        return heads, offs[x] + order[first]

    (hu, au), (hv, av) = lowest(u), lowest(v)
    common, iu, iv = np.intersect1d(hu, hv, assume_unique=True, return_indices=True)
    keep = (common != u) & (common != v)
    return list(zip(common[keep].tolist(), au[iu[keep]].tolist(), av[iv[keep]].tolist(),
                    strict=True))


def check(graph: Graph, counts: np.ndarray, listed: np.ndarray, offsets: np.ndarray,
          written: list[np.ndarray], arcs: int, seed: int = 0) -> str:
    """"yes", or what differs: the enumeration's counts against ``intersection_count``'s, and
    the entries of ``arcs`` random arcs against :func:`expected_common`."""
    if not np.array_equal(listed, counts):
        e = int(np.flatnonzero(listed != counts)[0])
        return f"NO: arc {e} listed {listed[e]} common neighbours, counted {counts[e]}"
    rng = np.random.default_rng(seed)
    for arc in rng.choice(graph.num_edges, min(arcs, graph.num_edges), replace=False):
        a, b = offsets[arc], offsets[arc + 1]
        got = list(zip(*(w[a:b].tolist() for w in written), strict=True))
        if got != expected_common(graph, int(arc)):
            return f"NO: arc {arc}'s common neighbours or arc ids differ"
    return "yes"


def measure(name: str, graph: Graph, balancer: str, target: Target,
            args: argparse.Namespace) -> Row:
    row = Row(name, graph.num_vertices, graph.num_edges, balancer, target.name, 0, None, None,
              None, 0, "")
    m = graph.num_edges
    counts = target.zeros(m, np.int64)

    def everyone() -> Frontier:
        return Frontier.all_vertices(graph, target=target, shared=True)

    counting = time_calls(lambda: advance(graph, everyone(), count_common, counts,
                                          balancer=balancer, output="none"),
                          runs=args.runs, target=target)
    counted = target.to_host(counts)
    offsets = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(counted, out=offsets[1:])
    row.common = int(offsets[-1])
    row.count_ms = round(1e3 * counting.wall_s, 3)
    free = target.free_bytes()
    if free is not None and row.common * ENTRY_BYTES > free:
        row.checked = (f"not run: {row.common:,} common neighbours need "
                       f"{row.common * ENTRY_BYTES / 2**30:.1f} GiB of buffers, "
                       f"{free / 2**30:.1f} GiB free")
        return row
    size = max(row.common, 1)
    bufs = (target.zeros(size, np.int32), target.zeros(size, np.int64),
            target.zeros(size, np.int64))
    listed = target.zeros(m, np.int64)
    on_target = target.to_device(offsets)
    listing = time_calls(lambda: advance(graph, everyone(), list_common, on_target, *bufs,
                                         listed, balancer=balancer, output="none"),
                         runs=args.runs, target=target)
    row.enumerate_ms = round(1e3 * listing.wall_s, 3)
    row.x_count = round(listing.wall_s / counting.wall_s, 2) if counting.wall_s else None
    row.runs = min(counting.runs, listing.runs)
    row.checked = check(graph, counted, target.to_host(listed), offsets,
                        [target.to_host(b) for b in bufs], args.check_arcs)
    return row


def markdown(rows: list[Row]) -> str:
    show = lambda x: "—" if x is None else f"{x:,.2f}"  # noqa: E731
    head = ("| graph | \\|V\\| | arcs | balancer | target | common neighbours | "
            "intersection_count ms | common_neighbors ms | × count | runs | checked |\n"
            + "|---" * 11 + "|\n")
    return head + "\n".join(
        f"| {r.graph} | {r.vertices:,} | {r.arcs:,} | {r.balancer} | {r.target} | "
        f"{r.common:,} | {show(r.count_ms)} | {show(r.enumerate_ms)} | {show(r.x_count)} | "
        f"{r.runs} | {r.checked} |" for r in rows) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_runs(parser)
    options.add_graphs(parser, "rmat18")
    options.add_names(parser, "--balancers", "auto", "balancers",
                      ["auto", *available_balancers()])
    parser.add_argument("--check-arcs", type=int, default=200,
                        help="random arcs whose listed entries are checked (default 200)")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    progress = Progress(len(args.graphs) * len(args.balancers), "primitives")
    rows: list[Row] = []
    for name in args.graphs:
        clock = time.perf_counter()
        graph = builder(name)()
        progress.say(f"[{name}] {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs "
                     f"(built in {time.perf_counter() - clock:.1f} s)")
        for balancer in args.balancers:
            row = measure(name, graph, balancer, target, args)
            rows.append(row)
            progress.step(f"{name} {balancer}: count {row.count_ms} ms, enumerate "
                          f"{row.enumerate_ms} ms ({row.x_count}x), checked {row.checked}")
            tables.write(rows, args.out, "primitives", markdown(rows))
    print(markdown(rows))
    return 0 if all(not r.checked.startswith("NO") for r in rows) else 1
