"""``frontier check-cuda ALGO|module:function [GRAPH]``: whether an algorithm's functors build for
a GPU, checked without one (:mod:`frontier.runtime.cudacheck`).

ALGO is an algorithm of :data:`algorithms.CATALOG`: it runs on GRAPH (default: the small graphs
of :data:`GRAPHS`, or the entry's example graph) once with its default options and once more for
each other choice of each of its options, from vertex 0 where it takes a source, so that every
functor any variant runs is compiled. ``module:function`` names a function of an importable
module (the current directory is on the search path, as with ``python -m``): without GRAPH it is
called with no arguments and makes its own operator or algorithm calls on the cpu target; with
GRAPH it is called as ``function(graph, target="cpu")``, with the source first after the graph
where ``--source`` is given.

:func:`calls` turns the arguments into the calls to check; :func:`check_calls` runs them under one
check. The command line's own module (:mod:`frontier_cli.commands`) reports the result: exit 0
when every functor compiles, 1 when one does not (each named with its file and line, and
Numba's message), 2 for bad input or where the check cannot run here (no numba-cuda or CUDA
compiler wheels). Under the simulator (``NUMBA_ENABLE_CUDASIM=1``, which replaces Numba's CUDA
compiler) the command runs itself again without it (:func:`without_simulator`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from algorithms.entry import Entry
from frontier import generators
from frontier.graph import Graph
from frontier.runtime.cudacheck import CudaReport, check
from frontier.runtime.simulator import SIMULATOR_VARIABLE
from frontier_cli import algorithm_spec
from operators import FunctorError

__all__ = ["GRAPHS", "Call", "Checked", "calls", "check_calls", "without_simulator"]

#: The graphs a catalog algorithm is checked on (an entry with an example graph runs on that
#: instead): small, since the functors run as Python; undirected, weighted and directed, so
#: that the paths each kind takes run (the directed one at scale 5: at scale 4 a functor of
#: connected components and one of strong components that depend on the data never run).
GRAPHS: dict[str, Callable[[], Graph]] = {
    "rmat:4": lambda: generators.rmat(4),
    "rmat:4 weighted": lambda: generators.rmat(4, weights=(1, 9)),
    "rmat:5 directed": lambda: generators.rmat(5, directed=True),
}


@dataclass(frozen=True)
class Call:
    """One call to check: what it is (shown), and the call."""

    label: str
    run: Callable[[], Any]
    #: Whether a ValueError or TypeError that is no FunctorError means the algorithm does not
    #: take the graph (a catalog variant, skipped), rather than bad input.
    may_refuse: bool = False


@dataclass(frozen=True)
class Checked:
    """A check's outcome: the report, the calls run and those skipped (with the reason)."""

    report: CudaReport
    ran: tuple[str, ...]
    skipped: tuple[str, ...] = field(default=())


def calls(spec: str, graph: str | None, source: int | None) -> list[Call]:
    """The calls ``check-cuda SPEC [GRAPH] [--source S]`` checks (see the module docstring);
    :class:`frontier_cli.algorithm_spec.AlgorithmSpecError` (a ValueError) for a name that
    names nothing that can be run (the one resolution of ``ALGO`` that ``run`` and ``explain``
    use)."""
    found = algorithm_spec.load(spec)
    if isinstance(found, Entry):
        return _catalog_calls(found, graph, source)
    if graph is None:
        if source is not None:
            raise ValueError("--source is for a call on GRAPH: give GRAPH too")
        return [Call(f"{spec}()", found)]
    built = _graph(graph)
    given = () if source is None else (source,)
    shown = "" if source is None else f", {source}"
    return [Call(f"{spec}({graph}{shown}, target='cpu')",
                 lambda: found(built, *given, target="cpu"))]


def _catalog_calls(entry: Entry, graph: str | None, source: int | None) -> list[Call]:
    names = [graph] if graph is not None else [entry.example] if entry.example else list(GRAPHS)
    variants: list[dict[str, str]] = [{}] + [
        {option.name: choice} for option in entry.options for choice in option.choices
        if choice != option.default]
    found = []
    for name in names:
        built = GRAPHS[name]() if name in GRAPHS else _graph(name)
        start = (source if source is not None else 0) if entry.source else None
        for options in variants:
            shown = "".join(f" --{k} {v}" for k, v in options.items())
            found.append(Call(
                f"{entry.name} on {name}{shown}",
                lambda built=built, start=start, options=options: entry.invoke(
                    built, start, balancer="auto", target="cpu", **options),
                may_refuse=True))
    return found


def _graph(spec: str) -> Graph:
    from frontier.io import load

    return generators.from_spec(spec) if generators.is_spec(spec) else load(spec)


def check_calls(found: Sequence[Call], arch: str | tuple[int, int]) -> Checked:
    """Run ``found`` under one CUDA compile check for ``arch``: every functor any of them ran,
    compiled once per argument types. A catalog variant whose algorithm refuses the graph is
    skipped, with its reason; skipping every one is a ValueError."""
    ran: list[str] = []
    skipped: list[str] = []

    def run_all() -> None:
        for call in found:
            try:
                call.run()
            except (ValueError, TypeError) as err:
                if not call.may_refuse or isinstance(err, FunctorError):
                    raise
                skipped.append(f"{call.label}: {str(err).splitlines()[0][:160]}")
                continue
            ran.append(call.label)

    report = check(run_all, arch=arch)
    if not ran:
        raise ValueError("no call could run: " + "; ".join(skipped))
    return Checked(report, tuple(ran), tuple(skipped))


def without_simulator(argv: Sequence[str]) -> int:
    """``frontier ARGV`` run again in a process without the simulator; its exit status."""
    environment = {k: v for k, v in os.environ.items() if k != SIMULATOR_VARIABLE}
    return subprocess.run([sys.executable, "-m", "frontier_cli", *argv], env=environment,
                          check=False).returncode
