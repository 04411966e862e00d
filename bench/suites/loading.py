"""Loading speed: ``frontier.load`` of each text format and of ``.npz`` against scipy.io.mmread.

``python -m bench loading [--arcs 10000000] [--vertices 1000000] [--dir /tmp/frontier-load]``
writes a random graph as a pattern Matrix Market file, a SNAP edge list and a DIMACS ``.gr``
(weighted), all three with the arcs in the same random order, converts it to ``.npz``, and
prints a Markdown table: for each file its size, the best of ``--runs`` wall times after one
warm-up, MB/s of text, and CPU seconds per load (the fast reader uses one thread per core, so
wall time alone hides a loaded machine). Writes ``loading.csv`` and ``loading.md``. The figures
in docs/io.md come from this suite.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

import frontier
from bench import options, tables
from bench.timing import time_calls


def _write(directory: Path, n: int, m: int) -> dict[str, Path]:
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    files = {"mtx": directory / f"g{m}.mtx", "snap": directory / f"g{m}.txt",
             "dimacs": directory / f"g{m}.gr"}
    if not files["mtx"].exists():
        scipy.io.mmwrite(files["mtx"], sp.coo_matrix((np.ones(m, np.int8), (src, dst)),
                                                     shape=(n, n)), field="pattern")
    if not files["snap"].exists():
        with open(files["snap"], "w") as f:
            f.write("# random graph\n# FromNodeId\tToNodeId\n")
            for lo in range(0, m, 1 << 20):
                hi = min(lo + (1 << 20), m)
                np.savetxt(f, np.stack([src[lo:hi], dst[lo:hi]], axis=1), fmt="%d\t%d")
    if not files["dimacs"].exists():
        weights = rng.integers(1, 1000, m)
        with open(files["dimacs"], "w") as f:
            f.write(f"c random graph\np sp {n} {m}\n")
            for lo in range(0, m, 1 << 20):
                hi = min(lo + (1 << 20), m)
                rows = np.stack([src[lo:hi] + 1, dst[lo:hi] + 1, weights[lo:hi]], axis=1)
                np.savetxt(f, rows, fmt="a %d %d %d")
    return files


def _time(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """(best wall seconds, mean CPU seconds) of ``runs`` calls after a warm-up."""
    cpu: list[float] = []

    def call() -> None:
        start = time.process_time()
        fn()
        cpu.append(time.process_time() - start)

    timing = time_calls(call, runs=runs)
    timed = cpu[1:]  # the warm-up's is not counted
    return timing.min_s, sum(timed) / len(timed)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_runs(parser)
    parser.add_argument("--arcs", type=int, default=10_000_000)
    parser.add_argument("--vertices", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/frontier-load"),
                        help="where the graph files are written (and kept for the next run)")


def run(args: argparse.Namespace) -> int:
    args.dir.mkdir(parents=True, exist_ok=True)
    files = _write(args.dir, args.vertices, args.arcs)
    npz = args.dir / f"g{args.arcs}.npz"
    frontier.save(frontier.load(files["mtx"]), npz)
    cases = [("scipy.io.mmread", files["mtx"], lambda: scipy.io.mmread(files["mtx"])),
             ("frontier.load", files["mtx"], lambda: frontier.load(files["mtx"])),
             ("frontier.load", files["snap"], lambda: frontier.load(files["snap"])),
             ("frontier.load", files["dimacs"], lambda: frontier.load(files["dimacs"])),
             ("frontier.load", npz, lambda: frontier.load(npz))]
    heading = (f"{args.arcs:,} arcs, {args.vertices:,} vertices; best of {args.runs} after a "
               f"warm-up; {os.cpu_count()} cores\n")
    lines = ["| reader | file | MB | wall s | MB/s | CPU s |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    print(heading)
    print("\n".join(lines))
    rows = []
    for name, path, fn in cases:
        wall, cpu = _time(fn, args.runs)
        mb = path.stat().st_size / 1e6
        rows.append({"reader": name, "file": path.name, "mb": mb, "wall_s": wall,
                     "mb_per_s": mb / wall, "cpu_s": cpu})
        lines.append(f"| {name} | {path.name} | {mb:.0f} | {wall:.3f} | {mb / wall:.0f} | "
                     f"{cpu:.3f} |")
        print(lines[-1], flush=True)
    tables.write(rows, args.out, "loading", heading + "\n" + "\n".join(lines) + "\n")
    return 0
