"""The suites, registered here and only here: ``python -m bench SUITE`` runs one,
``python -m bench --help`` lists them.

A suite is a module of this package: its docstring (the first line is the summary ``--help``
shows; the rest, its description), ``add_arguments(parser)`` (its options, mostly the shared
ones of :mod:`bench.options`) and ``run(args) -> int`` (the exit status: 0, or 1 where a result
did not validate). It measures with :func:`bench.timing.time_calls`, builds its graphs with
:mod:`bench.graphs`, checks with :mod:`bench.baselines` and writes ``OUT/NAME.csv`` and
``OUT/NAME.md`` with :func:`bench.tables.write`. Adding a suite: a module here and a line in
:data:`SUITES`.
"""

from __future__ import annotations

import argparse
from typing import Protocol

from bench.suites import (
    adaptive,
    balancers,
    block_floor,
    call_profile,
    calls,
    catalog,
    cold_compiles,
    components,
    cores,
    device_inputs,
    direction_thresholds,
    forest_truss,
    fused_grid,
    kernel_times,
    kernels,
    listrank_apsp,
    loading,
    loops,
    memory,
    neighbor_counts,
    networkx,
    networkx_costs,
    primitives,
    profile_bfs,
    report,
    scale_limits,
    scale_out,
    small_frontier,
    soak,
    sssp,
    structure,
)


class Suite(Protocol):
    """What a suite module provides."""

    __doc__: str | None

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


#: Name -> suite, in the order ``--help`` lists them.
SUITES: dict[str, Suite] = {
    "catalog": catalog,
    "balancers": balancers,
    "adaptive": adaptive,
    "small_frontier": small_frontier,
    "block_floor": block_floor,
    "direction_thresholds": direction_thresholds,
    "fused_grid": fused_grid,
    "sssp": sssp,
    "components": components,
    "cores": cores,
    "listrank_apsp": listrank_apsp,
    "calls": calls,
    "call_profile": call_profile,
    "memory": memory,
    "loading": loading,
    "scale_limits": scale_limits,
    "scale_out": scale_out,
    "soak": soak,
    "profile_bfs": profile_bfs,
    "kernels": kernels,
    "kernel_times": kernel_times,
    "cold_compiles": cold_compiles,
    "device_inputs": device_inputs,
    "networkx": networkx,
    "networkx_costs": networkx_costs,
    "structure": structure,
    "neighbor_counts": neighbor_counts,
    "primitives": primitives,
    "forest_truss": forest_truss,
    "loops": loops,
    "report": report,
}


def summary(suite: Suite) -> str:
    """The first line of the suite's docstring."""
    return (suite.__doc__ or "").strip().splitlines()[0] if suite.__doc__ else ""
