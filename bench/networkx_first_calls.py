"""First calls in fresh processes, for ``python -m bench networkx --first-calls``: each function
of :data:`bench.networkx_calls.CALLS`, called once in a new interpreter under
``nx.config.backend_priority`` (``algos`` and ``generators``: NetworkX asks ``should_run``), the
kernels compiled into the cache before (every function called with ``backend="frontier"`` in a
process of their own first), against NetworkX's own call in another new interpreter,
alternating; or, ``cold``, each interpreter (NetworkX's too) with a new empty kernel cache
(``FRONTIER_CACHE_DIR``, a temporary directory removed after it), nothing compiled before, so
the backend's call compiles what it runs. Each interpreter builds the graph before its clock
starts (a graph loaded from a pickle would not do: its nodes' ints are other objects than its
neighbours', which slows NetworkX's lookups). A function whose first NetworkX call takes more
than ``limit`` CPU seconds is not timed; a backend call killed past that limit (or failing) is
noted."""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import tempfile
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

from bench.fresh import run_json
from frontier.runtime.cache_dir import CACHE_DIR_VARIABLE

__all__ = ["FirstCall", "first_calls", "line", "markdown"]

_CALL = """
import json, resource, sys, time
import networkx as nx
from bench.networkx_calls import CALLS, dispatchable
name, where, nodes, edges, seed, limit = sys.argv[1:7]
call, function = CALLS[name], dispatchable(name)
G = nx.gnm_random_graph(int(nodes), int(edges), seed=int(seed), directed=call.directed)
hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
resource.setrlimit(resource.RLIMIT_CPU, (int(time.process_time() + float(limit)) + 1, hard))
start, cpu = time.perf_counter(), time.process_time()
if where == "networkx":
    call.consume(function(G, **call.arguments))
elif where == "priority":
    with nx.config.backend_priority(algos=["frontier"], generators=["frontier"]):
        call.consume(function(G, **call.arguments))
else:
    call.consume(function(G, **call.arguments, backend="frontier"))
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
converted = (G.__networkx_cache__ or {}).get("backends", {}).get("frontier", {})
print(json.dumps([wall, cpu, bool(converted)]))
"""

_WARM = """
import json, sys
import networkx as nx
from bench.networkx_calls import CALLS, dispatchable
names, nodes, edges, seed = json.loads(sys.argv[1]), *map(int, sys.argv[2:5])
graphs = {}
failed = []
for name in names:
    call = CALLS[name]
    if call.directed not in graphs:
        graphs[call.directed] = nx.gnm_random_graph(nodes, edges, seed=seed,
                                                    directed=call.directed)
    try:
        call.consume(dispatchable(name)(graphs[call.directed], **call.arguments,
                                        backend="frontier"))
    except Exception as error:
        failed.append(f"{name}: {error}")
print(json.dumps(failed))
"""

#: seconds an interpreter may take beyond the call's limit (its imports, building the graph)
_START = 120.0


@dataclass
class FirstCall:
    nodes: int
    edges: int
    function: str
    networkx_s: float | None  #: median wall seconds of NetworkX's first calls
    backend_s: float | None  #: ... of the first calls under backend_priority
    networkx_cpu_s: float | None
    backend_cpu_s: float | None
    speedup: float | None  #: networkx_s / backend_s
    extra_s: float | None  #: backend_s - networkx_s
    ran_here: bool | None  #: whether the backend ran the call (or a call inside it)
    runs: int
    load: float  #: the machine's load average (1 minute) when the function's runs began
    note: str = ""


def _once(name: str, where: str, size: tuple[str, str, str], limit: float, cold: bool = False
          ) -> tuple[float, float, bool]:
    """One first call in a fresh interpreter (with a new empty kernel cache where ``cold``),
    killed past ``limit`` CPU seconds in the call (RuntimeError) or past a wall-clock bound
    (``subprocess.TimeoutExpired``)."""
    with tempfile.TemporaryDirectory(prefix="frontier-cold-") if cold else nullcontext() as empty:
        env = {CACHE_DIR_VARIABLE: empty} if cold else None
        return tuple(run_json(_CALL, name, where, *size, str(limit), env=env,
                              timeout=3 * limit + _START))


def _failure(who: str, error: Exception, limit: float) -> str:
    """The note for a first call that did not finish."""
    if isinstance(error, subprocess.TimeoutExpired) or str(error).startswith(
            f"exit -{signal.SIGXCPU}"):
        return f"{who} over {limit:g} s: not timed"
    return f"{who} failed: {error}"


def first_calls(nodes: int, edges: int, seed: int, functions: list[str], processes: int,
                limit: float, report: Callable[[FirstCall], object], cold: bool = False
                ) -> list[FirstCall]:
    """The first calls of ``functions`` on ``gnm_random_graph(nodes, edges, seed)`` (its
    directed twin for a function NetworkX defines on directed graphs), ``processes``
    interpreters each way, the kernel cache warm or (``cold``) empty in each; ``report(row)``
    after each function."""
    size = str(nodes), str(edges), str(seed)
    rows: list[FirstCall] = []
    timed: list[tuple[str, tuple[float, float, bool]]] = []
    for name in functions:  # NetworkX first: which functions are timed at all
        load = os.getloadavg()[0]
        note = f"NetworkX over {limit:g} s: not timed"
        try:
            first = _once(name, "networkx", size, limit, cold)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            first, note = None, _failure("NetworkX", error, limit)
        if first is None or first[1] > limit:
            rows.append(_untimed(nodes, edges, name, load, note))
            report(rows[-1])
        else:
            timed.append((name, first))
    failed = [] if cold else run_json(_WARM, json.dumps([name for name, _ in timed]), *size)
    for name, first in timed:
        load = os.getloadavg()[0]
        theirs, ours = [first], []
        try:
            while len(ours) < processes:
                ours.append(_once(name, "priority", size, limit, cold))
                if len(theirs) < processes:
                    theirs.append(_once(name, "networkx", size, limit, cold))
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            rows.append(_untimed(nodes, edges, name, load, _failure("backend", error, limit)))
            report(rows[-1])
            continue
        walls = [statistics.median(t[0] for t in runs) for runs in (theirs, ours)]
        cpus = [statistics.median(t[1] for t in runs) for runs in (theirs, ours)]
        here = {t[2] for t in ours}
        note = "ran here in some" if len(here) > 1 else ""
        note += "; ".join(f for f in failed if f.startswith(f"{name}:"))
        rows.append(FirstCall(nodes, edges, name, walls[0], walls[1], cpus[0], cpus[1],
                              walls[0] / walls[1], walls[1] - walls[0],
                              here.pop() if len(here) == 1 else None, processes, load, note))
        report(rows[-1])
    return rows


def _untimed(nodes: int, edges: int, name: str, load: float, note: str) -> FirstCall:
    return FirstCall(nodes, edges, name, None, None, None, None, None, None, None, 0, load,
                     note)


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def line(r: FirstCall) -> str:
    """One row of the Markdown table."""
    where = {True: "here", False: "NetworkX", None: "—"}[r.ran_here]
    ratio = "—" if r.speedup is None else f"{r.speedup:.2f}"
    return (f"| {r.function} | {_seconds(r.networkx_s)} ({_seconds(r.networkx_cpu_s)}) | "
            f"{_seconds(r.backend_s)} ({_seconds(r.backend_cpu_s)}) | {ratio} | "
            f"{'—' if r.extra_s is None else f'{r.extra_s:+.3f}'} | {where} | "
            f"{r.load:.1f} | {r.note} |")


def markdown(rows: list[FirstCall], heading: str) -> str:
    lines = [heading, "",
             "| function | NetworkX s (CPU) | backend_priority s (CPU) | × NetworkX | "
             "backend − NetworkX s | ran | load | note |", "|---|---:|---:|---:|---:|---|---:|---|",
             *map(line, rows)]
    return "\n".join(lines) + "\n"
