"""List ranking of a list given on the device against the same list given on the host.

A random list of ``--nodes`` nodes (a random permutation; each node links to the next, the last
to itself) is made on the target's device (CuPy on ``cuda``, which it needs; NumPy on ``cpu``,
whose device is the host), then ranked by ``algorithms.list_ranking(..., out="device")`` from
that array and from a NumPy copy of it: per input the median wall time of ``--runs`` calls
after a warm-up (synchronized before and after), the device time (the result's ``seconds``:
first launch to last kernel) and their ratio; the head's rank is checked. The goal for a device
input: wall at most twice the device time (``goal`` column; on the host input the copy to the
device is part of the wall).

``python -m bench device_inputs --out DIR [--target cuda] [--nodes 6.4e7] [--method
random_splitter]`` writes ``device_inputs.csv`` and ``device_inputs.md``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

import numpy as np

from algorithms import list_ranking
from bench import options, tables
from bench.timing import time_calls
from frontier.runtime.target import Target
from frontier.target import resolve_target

#: What the goal allows a device input's wall time, in multiples of its device time.
GOAL = 2.0


@dataclass
class Row:
    input: str
    nodes: int
    method: str
    target: str
    runs: int
    wall_ms: float
    device_ms: float
    wall_over_device: float
    goal: str
    checked: str


def random_list(n: int, target: Target) -> tuple[Any, np.ndarray, int]:
    """(the list on the target's device, the same on the host, its head)."""
    order = np.random.default_rng(1).permutation(n)
    succ = np.empty(n, dtype=np.int32)
    succ[order[:-1]] = order[1:]
    succ[order[-1]] = order[-1]
    if target.name != "cuda":
        return succ, succ.copy(), int(order[0])
    try:
        import cupy
    except ImportError:
        raise options.UsageError("the cuda target's device input is a CuPy array: "
                                 "install CuPy, or run --target cpu") from None
    return cupy.asarray(succ), succ, int(order[0])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    options.add_target(parser)
    options.add_runs(parser)
    parser.add_argument("--nodes", type=float, default=6.4e7,
                        help="nodes of the list (default 6.4e7)")
    parser.add_argument("--method", default="random_splitter",
                        choices=["random_splitter", "wylie"], help="default random_splitter")


def run(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    n = int(args.nodes)
    if n < 2:
        raise options.UsageError(f"--nodes {args.nodes}: a list of at least 2 nodes")
    device, host, head = random_list(n, target)
    rows = []
    for label, given in (("device", device), ("host", host)):
        timing = time_calls(lambda given=given: list_ranking(given, method=args.method,
                                                             target=target, out="device"),
                            runs=args.runs, target=target, own=lambda result: result.seconds)
        ranks = timing.result.ranks
        head_rank = int(np.asarray(target.to_host(ranks))[head])
        wall, spent = 1e3 * timing.wall_s, 1e3 * timing.own_s
        ratio = wall / spent if spent > 0 else float("inf")
        rows.append(Row(label, n, args.method, target.name, timing.runs, round(wall, 3),
                        round(spent, 3), round(ratio, 2),
                        ("met" if ratio <= GOAL else "not met") if label == "device" else "",
                        "yes" if head_rank == n - 1 else "NO"))
        tables.write(rows, args.out, "device_inputs")
    print(tables.markdown(rows))
    return 0 if all(r.checked == "yes" for r in rows) else 1
