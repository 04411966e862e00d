"""Scale-out: BFS, connected components and SSSP on R-MAT graphs, one device against P workers.

BFS (push, and direction-optimizing ``bfs_do``), connected components (afforest) and SSSP
(near-far, weights 1..100), one device against P Dask workers (one per GPU with NCCL, or cpu
workers over Dask's transport): the median wall time of the default call over several runs
after a warm-up, the workers' own time, the bytes the workers exchanged per step, and the time
to gather the result, and where a call's time goes on the ranks (one more call, each rank
timing its phases: ``scale_out_phases.csv``). A call over partitions returns with its arrays
still on the workers; the gather (``result.gather()``) is timed apart, once, on the last timed
call's result, whose array is then compared with the single device's.

    python -m bench scale_out --workers gpu --parts 1,2,4 --scales 24,25 --budget 420 --out OUT
    python -m bench scale_out --workers cpu --parts 1,2,4 --scales 14,16 --out results/

Rows: ``single`` is the algorithm on one device in this process (no Dask); ``P=k`` runs over k
workers. Every distributed result is checked against the single-device one. Rows come in the
order of ``--scales`` (most valuable first), and for each scale by algorithm (``single``, then
each ``P``): ``scale_out.csv`` and ``scale_out.md`` in ``--out`` are rewritten after every row,
so a run cut short keeps what it measured. ``--budget`` seconds bounds the whole run: a scale
whose estimated time (generation, partitions, runs) does not fit in what is left is skipped,
and said so.

Where the time goes is printed to stderr (and ``phases.log``) as it happens, with the seconds
since the start: cluster start, the warm-up that compiles the kernels in every process (on a
small graph, in the client and on all workers at once, so that no measured scale pays it),
each graph's generation, each partition (cut on the client and scattered to the workers), each
row's first (untimed) call and its timed runs. Every worker starts with NCCL_NVLS_ENABLE=0.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

os.environ["NCCL_NVLS_ENABLE"] = "0"  # before any NCCL or worker process starts

from algorithms import bfs, connected_components, sssp  # noqa: E402
from bench import options, tables  # noqa: E402
from bench.timing import Timing, time_calls  # noqa: E402
from frontier import generators  # noqa: E402
from frontier.distributed import DistributedGraph, partition, start_cluster  # noqa: E402
from frontier.distributed.cluster import worker_addresses  # noqa: E402
from frontier.distributed.result import Distributed  # noqa: E402
from frontier.target import resolve_target  # noqa: E402

#: The graph of the warm-up that compiles every kernel before the first measured scale.
WARM_UP_SCALE = 12
#: Seconds per generated edge of ``generators.rmat`` on the client (rmat25, weighted: 537M
#: edges in 48 s on the 32 cores of the 2 x H200 host), until a generation in this run
#: measures it.
EDGE_SECONDS = 9e-8
#: A scale takes about this many times its generation (partitions, copies, runs).
SCALE_OVER_GENERATION = 2.0


@dataclass
class Row:
    algorithm: str
    graph: str
    vertices: int
    arcs: int
    config: str
    workers: str
    transport: str
    runs: int
    median_s: float
    min_s: float
    ranks_median_s: float | None
    first_s: float
    steps: int | None
    edges_per_s: float
    exchanged_bytes: int
    bytes_per_step: str
    speedup_vs_p1: float | None
    ranks_speedup_vs_p1: float | None
    speedup_vs_single: float | None
    gather_s: float | None
    agrees: bool


@dataclass
class PhaseRow:
    """A phase of a call over partitions, from one more call with the ranks timing their
    phases: its seconds on the slowest and the fastest rank."""

    algorithm: str
    graph: str
    config: str
    phase: str
    slowest_rank_ms: float
    fastest_rank_ms: float


class Clock:
    """Seconds since the start, printed with each phase to stderr and ``phases.log``."""

    def __init__(self, out: Path, budget: float | None) -> None:
        self.start = time.perf_counter()
        self.deadline = None if budget is None else self.start + budget
        self.path = out / "phases.log"
        self.path.write_text("")
        self._lock = threading.Lock()

    def now(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> float:
        return float("inf") if self.deadline is None else self.deadline - time.perf_counter()

    def log(self, phase: str, detail: str = "") -> None:
        line = f"[{self.now():8.1f} s] {phase}{': ' + detail if detail else ''}"
        with self._lock:
            print(line, file=sys.stderr, flush=True)
            with open(self.path, "a") as f:
                f.write(line + "\n")


@dataclass(frozen=True)
class Call:
    """One benchmarked algorithm: ``run(graph, source, target)`` is the default call (a
    single-device result, or a :class:`~frontier.distributed.result.Distributed` over
    partitions), ``array`` the result's attribute compared between configurations, ``weighted``
    whether it needs arc weights."""

    run: Callable[[Any, int, str], Any]
    array: str
    weighted: bool = False


CALLS: dict[str, Call] = {
    "bfs": Call(lambda g, s, t: bfs(g, s, target=t, direction="push"), "distances"),
    "bfs_do": Call(lambda g, s, t: bfs(g, s, target=t, direction="auto"), "distances"),
    "cc": Call(lambda g, s, t: connected_components(g, target=t), "labels"),
    "sssp": Call(lambda g, s, t: sssp(g, s, target=t), "distances", weighted=True),
}
#: Arc weights of the graphs when an algorithm needs them (SSSP): integers in this range.
WEIGHTS = (1, 100)


def _arrays(result: Any, array: str) -> tuple[np.ndarray, float | None]:
    """The compared array of a result and the seconds its gather took (None for a
    single-device result, whose arrays are on the client already)."""
    if isinstance(result, Distributed):
        return np.asarray(getattr(result.gather(), array)), result.gather_seconds
    return np.asarray(getattr(result, array)), None


def _timed(call: Callable[[], Any], runs: int, target: str,
           report: Callable[[], Any] | None) -> Timing:
    """A first call (it copies the graph to the device and compiles what the warm-up did not),
    then ``runs`` timed calls; with ``report``, the slowest rank's own time of each run (the
    Timing's ``own``)."""
    return time_calls(call, runs=runs, target=resolve_target(target),
                      own=None if report is None else
                      lambda result: max(report().rank_seconds, default=0.0))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workers", choices=["gpu", "cpu"], default="gpu")
    parser.add_argument("--parts", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--scales", default="24,22,26",
                        help="comma-separated R-MAT scales, in the order they are measured")
    options.add_names(parser, "--algorithms", "bfs,cc,sssp,bfs_do",
                      "algorithms, in the order measured", list(CALLS))
    options.add_runs(parser)
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds for the whole run: scales that would not fit are skipped")
    parser.add_argument("--fit-demo", type=int, default=None, metavar="SCALE",
                        help="after SCALE's rows: BFS with each device limited (FRONTIER_MAX_"
                             "DEVICE_BYTES) to less than the graph's arrays and more than the "
                             "larger half's: one device refuses it, P=2 runs it")
    options.add_out(parser)


def run(args: argparse.Namespace) -> int:
    parts = [int(p) for p in args.parts.split(",")]
    wanted = args.algorithms
    gpus = args.workers == "gpu"
    target, transport = ("cuda", "nccl") if gpus else ("cpu", "dask")
    args.out.mkdir(parents=True, exist_ok=True)
    clock = Clock(args.out, args.budget)
    clock.log("start", f"workers {args.workers}, parts {parts}, scales {args.scales}, "
                       f"algorithms {wanted}, runs {args.runs}, budget {args.budget} s")
    client = start_cluster(max(parts), gpus=gpus)
    pool = worker_addresses(client)
    clock.log("cluster started", f"{len(pool)} workers")
    _warm_up(wanted, parts, client, pool, target, transport, clock)
    bench = Bench(args.out, clock, wanted, parts, client, pool, target, transport, args.runs)
    bench.fit_demo = args.fit_demo
    for scale in (int(s) for s in args.scales.split(",")):
        bench.measure_scale(scale)
    clock.log("done", f"{len(bench.rows)} rows, {len(bench.notes)} notes")
    print(_markdown(bench.rows))
    for note in bench.notes:
        print(f"* {note}")
    return 0 if bench.rows and all(r.agrees for r in bench.rows) and not bench.failed else 1


def _warm_up(wanted: list[str], parts: list[int], client: Any, pool: list[str], target: str,
             transport: str, clock: Clock) -> None:
    """Compile every kernel the rows use, on a small R-MAT graph: over all workers (in a
    thread, the calls wait on Dask) while this process compiles its own (in the main thread,
    where Numba's CUDA context lives)."""
    graph = generators.rmat(WARM_UP_SCALE, seed=1, weights=_weights(wanted))
    source = int(np.argmax(graph.out_degrees()))
    errors: list[str] = []

    def workers() -> None:
        try:
            for p in sorted(set(parts), reverse=True):
                dg = partition(graph, p, client=client, workers=pool[:p], transport=transport)
                for algorithm in wanted:
                    CALLS[algorithm].run(dg, source, target)
                client.cancel(dg.pieces)
        except Exception as e:  # noqa: BLE001 - reported, the rows say what failed
            errors.append(f"{type(e).__name__}: {e}")

    thread = threading.Thread(target=workers, name="warm-up of the workers")
    thread.start()
    for algorithm in wanted:
        CALLS[algorithm].run(graph, source, target)
    clock.log("warm-up: this process compiled", f"rmat{WARM_UP_SCALE}, {', '.join(wanted)}")
    thread.join()
    clock.log("warm-up: workers compiled", f"P in {sorted(set(parts), reverse=True)}"
              + (f"; FAILED: {errors[0]}" if errors else ""))


class Bench:
    """The rows measured so far and how to add a scale's."""

    def __init__(self, out: Path, clock: Clock, wanted: list[str], parts: list[int],
                 client: Any, pool: list[str], target: str, transport: str, runs: int) -> None:
        self.out, self.clock, self.wanted, self.parts = out, clock, wanted, parts
        self.client, self.pool, self.target, self.transport = client, pool, target, transport
        self.runs = runs
        self.rows: list[Row] = []
        self.notes: list[str] = []
        self.failed = False
        self.edge_seconds = EDGE_SECONDS
        self.over_generation = SCALE_OVER_GENERATION
        self.fit_demo: int | None = None
        self.expected: dict[str, np.ndarray] = {}
        self.phase_rows: list[PhaseRow] = []

    def note(self, text: str) -> None:
        self.notes.append(text)
        self.clock.log("note", text)
        self.write()

    def measure_scale(self, scale: int) -> None:
        """The rows of one R-MAT scale: per algorithm, one device, then each worker count.
        The graph and its partitions are dropped on return."""
        name = f"rmat{scale}"
        estimate = self.over_generation * self.edge_seconds * 16 * 2 ** scale
        if estimate > self.clock.left():
            self.note(f"{name} skipped: about {estimate:.0f} s needed (generation "
                      f"{self.edge_seconds * 16 * 2 ** scale:.0f} s), {self.clock.left():.0f} s "
                      "left of the budget")
            return
        self.clock.log(f"{name}: generating", f"about {self.edge_seconds * 16 * 2 ** scale:.0f}"
                       f" s, the scale about {estimate:.0f} s")
        start = began = time.perf_counter()
        try:
            graph = generators.rmat(scale, seed=scale, weights=_weights(self.wanted))
        except Exception as e:  # noqa: BLE001 - too large for this host: said, next scale
            self.note(f"{name} not generated: {type(e).__name__}: {e}")
            return
        took = time.perf_counter() - start
        self.edge_seconds = took / (16 * 2 ** scale)
        self.clock.log(f"{name}: generated", f"{graph.num_vertices:,} vertices, "
                       f"{graph.num_edges:,} arcs in {took:.1f} s")
        source = int(np.argmax(graph.out_degrees()))
        graphs: dict[int, DistributedGraph] = {}
        for p in self.parts:
            start = time.perf_counter()
            try:
                graphs[p] = partition(graph, p, client=self.client, workers=self.pool[:p],
                                      transport=self.transport)
            except Exception as e:  # noqa: BLE001 - said, the other worker counts go on
                self.failed = True
                self.note(f"{name} P={p} not partitioned: {type(e).__name__}: {e}")
                continue
            self.clock.log(f"{name}: P={p} partitioned and scattered",
                           f"{time.perf_counter() - start:.1f} s")
        for algorithm in self.wanted:
            if self.clock.left() <= 0:
                self.note(f"{algorithm} {name} and what follows skipped: the budget is spent")
                break
            self._algorithm(algorithm, name, graph, source, graphs)
        if scale == self.fit_demo and self.clock.left() > 0 and 2 in self.parts:
            self._fit_demo(name, graph, source)
        # the next scale's estimate: this one's time over its generation's
        self.over_generation = max(1.2, (time.perf_counter() - began) / max(took, 1e-3))
        for dg in graphs.values():
            self.client.cancel(dg.pieces)
        del graph, graphs  # the client's copies (host and device) go with the graph
        gc.collect()
        self.clock.log(f"{name}: done")

    def _algorithm(self, algorithm: str, name: str, graph: Any, source: int,
                   graphs: dict[int, DistributedGraph]) -> None:
        """The single-device call, then each worker count's: the call timed without the
        gather of its result (the arrays stay on the workers), the gather of the last timed
        call's result timed apart, and its array compared with the single device's."""
        call = CALLS[algorithm]
        expected, single, baseline = None, None, None
        try:
            timing = _timed(lambda: call.run(graph, source, self.target), self.runs,
                            self.target, None)
        except Exception as e:  # noqa: BLE001 - said, the distributed rows go on
            self.note(f"{algorithm} {name} single failed: {type(e).__name__}: {e}")
        else:
            expected, _ = _arrays(timing.result, call.array)
            single = timing.wall_s
            self._add(algorithm, name, graph, "single", "this process", "-", timing, None,
                      True, None, single, None)
        for p, dg in graphs.items():
            try:
                timing = _timed(lambda dg=dg: call.run(dg, source, self.target), self.runs,
                                self.target, lambda dg=dg: dg.last_run)
                got, gather_s = _arrays(timing.result, call.array)
            except Exception as e:  # noqa: BLE001 - said, the next worker count goes on
                self.failed = True
                self.note(f"{algorithm} {name} P={p} failed: {type(e).__name__}: {e}")
                continue
            if expected is None:
                expected = got
            self.expected[algorithm] = expected
            if baseline is None:
                baseline = (timing.wall_s, timing.own_s)
            self._add(algorithm, name, graph, f"P={p}", ",".join(self.pool[:p]),
                      self.transport, timing, dg.last_run, bool(np.array_equal(got, expected)),
                      baseline, single, gather_s)
            self._phases(algorithm, name, f"P={p}", dg, lambda dg=dg: call.run(dg, source,
                                                                                self.target))

    def _phases(self, algorithm: str, name: str, config: str, dg: DistributedGraph,
                run: Callable[[], Any]) -> None:
        """One more call, with the ranks timing their phases (``Runner.timed``: the device
        synchronized at every change of phase): each phase's seconds on the slowest and the
        fastest rank, in ``scale_out_phases.csv`` and ``phases.log``."""
        dg.runner.timed = True
        try:
            run()
        except Exception as e:  # noqa: BLE001 - said, the rows stand
            self.note(f"{algorithm} {name} {config} timed phases failed: {type(e).__name__}: {e}")
            return
        finally:
            dg.runner.timed = False
        ranks = dg.last_run.phase_seconds
        phases = sorted({p for r in ranks for p in r},
                        key=lambda p: -max(r.get(p, 0.0) for r in ranks))
        rows = [PhaseRow(algorithm, name, config, p, 1e3 * max(r.get(p, 0.0) for r in ranks),
                         1e3 * min(r.get(p, 0.0) for r in ranks)) for p in phases]
        self.phase_rows += rows
        tables.write(self.phase_rows, self.out, "scale_out_phases")
        self.clock.log(f"{name} {algorithm} {config} phases (slowest rank, ms)",
                       "; ".join(f"{r.phase} {r.slowest_rank_ms:.1f}" for r in rows))

    def _fit_demo(self, name: str, graph: Any, source: int) -> None:
        """BFS on devices limited to ``cap`` bytes for a graph's arrays: less than the whole
        graph's (8 B per vertex offset, 4 B per arc), more than the larger half's (every piece
        holds all |V|+1 offsets): the single device and one worker refuse the graph with
        GraphTooLargeError, two workers run it. A stand-in for a graph larger than one GPU,
        which this run cannot generate in its time (docs/scale-out.md)."""
        from frontier.distributed.partition import boundaries
        from frontier.graph import Graph

        n, m = graph.num_vertices, graph.num_edges
        offsets = graph.row_offsets
        cuts = boundaries(graph, 2, "arcs")
        half = 8 * (n + 1) + 4 * int(np.diff(offsets[cuts]).max()) + 4
        whole = 8 * (n + 1) + 4 * m + 4
        cap = (half + whole) // 2
        self.clock.log(f"{name} fit demo", f"device limit {cap / 1e9:.3f} GB: graph arrays "
                       f"{whole / 1e9:.3f} GB, larger half {half / 1e9:.3f} GB")
        _set_env(LIMIT, str(cap))
        self.client.run(_set_env, LIMIT, str(cap))
        graphs = []
        try:
            fresh = Graph(offsets, graph.col_indices, graph.weights, graph.directed)
            for config, run in (
                    ("single", lambda: CALLS["bfs"].run(fresh, source, self.target)),
                    ("P=1", lambda: _arrays(CALLS["bfs"].run(graphs[-1], source,
                                                             self.target), "distances"))):
                if config == "P=1":
                    graphs.append(partition(graph, 1, client=self.client, workers=self.pool[:1],
                                            transport=self.transport))
                try:
                    run()
                except Exception as e:  # noqa: BLE001 - the refusal is the point
                    self.note(f"fit demo {name}, devices limited to {cap:,} B: {config} refused "
                              f"({type(e).__name__}: {str(e).splitlines()[0][:300]})")
                else:
                    self.failed = True
                    self.note(f"fit demo {name}: {config} ran under a {cap:,} B limit")
            dg = partition(graph, 2, client=self.client, workers=self.pool[:2],
                           transport=self.transport)
            graphs.append(dg)
            timing = _timed(lambda: CALLS["bfs"].run(dg, source, self.target), self.runs,
                            self.target, lambda: dg.last_run)
            got, gather_s = _arrays(timing.result, "distances")
            expected = self.expected.get("bfs", got)
            self._add("bfs", name, graph, f"P=2, devices limited to {cap / 1e9:.3f} GB",
                      ",".join(self.pool[:2]), self.transport, timing, dg.last_run,
                      bool(np.array_equal(got, expected)), None, None, gather_s)
        except Exception as e:  # noqa: BLE001 - said
            self.failed = True
            self.note(f"fit demo {name} failed: {type(e).__name__}: {e}")
        finally:
            _set_env(LIMIT, None)
            self.client.run(_set_env, LIMIT, None)
            for dg in graphs:
                self.client.cancel(dg.pieces)

    def _add(self, algorithm: str, name: str, graph: Any, config: str, workers: str,
             transport: str, timing: Timing, report: Any, agrees: bool,
             baseline: tuple[float, float] | None, single: float | None,
             gather_s: float | None) -> None:
        median = timing.wall_s
        ranks = timing.own_s if timing.own else None
        sent = report.exchanged_bytes if report is not None else []
        row = Row(algorithm, name, graph.num_vertices, graph.num_edges, config, workers,
                  transport, timing.runs, median, timing.min_s, ranks,
                  timing.first_s, report.steps if report is not None else None,
                  graph.num_edges / median, sum(sent), ";".join(str(b) for b in sent),
                  None if baseline is None else baseline[0] / median,
                  None if baseline is None or not ranks else baseline[1] / ranks,
                  None if single is None or report is None else single / median, gather_s,
                  agrees)
        self.rows.append(row)
        self.write()
        self.clock.log(f"{name} {algorithm} {config}",
                       f"first call {timing.first_s:.2f} s; runs ms "
                       f"{' '.join(f'{t * 1e3:.1f}' for t in timing.walls)}"
                       + (f"; ranks ms {' '.join(f'{t * 1e3:.1f}' for t in timing.own)}"
                          if timing.own else "") + ("" if agrees else "; DISAGREES"))

    def write(self) -> None:
        """The CSV and the Markdown table of every row so far (and the notes)."""
        notes = "".join(f"\n* {n}" for n in self.notes)
        tables.write(self.rows, self.out, "scale_out", _markdown(self.rows) + "\n" + notes + "\n")


LIMIT = "FRONTIER_MAX_DEVICE_BYTES"


def _set_env(key: str, value: str | None) -> None:
    """Set (or, with None, remove) an environment variable of this process (run on the
    workers through ``Client.run``)."""
    if value is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = value


def _weights(wanted: list[str]) -> tuple[int, int] | None:
    """The graphs' arc weights: :data:`WEIGHTS` when a wanted algorithm needs them."""
    return WEIGHTS if any(CALLS[a].weighted for a in wanted) else None


def _ms(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds * 1e3:.1f}"


def _x(ratio: float | None) -> str:
    return "" if ratio is None else f"{ratio:.2f}x"


def _markdown(rows: list[Row]) -> str:
    lines = ["| algorithm | graph | arcs | config | median ms | min ms | ranks ms | first s | "
             "steps | Garcs/s | exchanged MB | largest step MB | speedup vs P=1 | "
             "ranks speedup vs P=1 | speedup vs single | gather ms | agrees |",
             "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        per = [int(b) for b in r.bytes_per_step.split(";") if b]
        lines.append(
            f"| {r.algorithm} | {r.graph} | {r.arcs:,} | {r.config} | {_ms(r.median_s)} | "
            f"{_ms(r.min_s)} | {_ms(r.ranks_median_s)} | {r.first_s:.2f} | "
            f"{'' if r.steps is None else r.steps} | {r.edges_per_s / 1e9:.3f} | "
            f"{r.exchanged_bytes / 1e6:.2f} | {max(per, default=0) / 1e6:.2f} | "
            f"{_x(r.speedup_vs_p1)} | {_x(r.ranks_speedup_vs_p1)} | "
            f"{_x(r.speedup_vs_single)} | {_ms(r.gather_s)} | {r.agrees} |")
    return "\n".join(lines)
