"""What every operator shares: argument checks, the kernels of one call and how they run.

An operator call is a :class:`Plan`: the generated kernels it launches, in order, with their
grids, and the buffers they share. :func:`run_step` runs a plan as one step of the frontier ring
(it reads the input frontier's slot and writes the next); :func:`launch_plan` runs one that
produces no frontier.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frontier import validate
from frontier.frontier import DENSE, EDGES, SPARSE, Frontier
from frontier.graph import OFFSET_DTYPE, VERTEX_DTYPE, Graph
from frontier.options import Mode
from frontier.runtime.target import Target
from operators.codegen import NONE, GeneratedKernel
from operators.convention import kernel_arguments

OUTPUTS = (SPARSE, DENSE, NONE)


class OperatorError(ValueError):
    """An operator was called with arguments that do not fit together."""


@dataclass
class Plan:
    """The kernels of one operator call, in launch order, with their grids; ``buffers`` are the
    extra arguments (by parameter name) they share; ``cooperative``: its kernels wait at grid
    barriers (each launched with all its blocks resident at once, where it has several)."""

    kernels: list[tuple[GeneratedKernel, int]]
    buffers: dict[str, Any] = field(default_factory=dict)
    cooperative: bool = False


#: The graph of work over a range of indices that no graph defines (list ranking, dense
#: matrices): ``compute`` and ``reduce`` over a count take ``graph=None`` and run with this one,
#: which has no vertices and no edges.
NO_GRAPH = Graph._trusted(np.zeros(1, OFFSET_DTYPE), np.zeros(0, VERTEX_DTYPE), None, True)


def range_graph(graph: Graph | None, where: Any) -> Any:
    """``graph``, or :data:`NO_GRAPH` where ``graph`` is None and ``where`` is meant as a count
    (neither a Frontier nor ``"vertices"`` / ``"edges"``, which need the graph): the count is
    then checked as such, so that ``compute(None, 2.5, ...)`` is told the count is not an
    integer rather than that the graph is missing."""
    if graph is None and not (isinstance(where, Frontier)
                              or (isinstance(where, str) and where in ("vertices", "edges"))):
        return NO_GRAPH
    return graph


def vector_flaw(value: Any, size: int, kinds: str) -> str | None:
    """What is wrong with ``value`` as a one-dimensional array of at least ``size`` elements
    of a dtype of kind in ``kinds`` (``"iu"``, ``"biuf"``), said as "a ... of shape ... and
    dtype ..."; None when nothing is."""
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if (isinstance(shape, tuple) and len(shape) == 1 and shape[0] >= size
            and isinstance(dtype, np.dtype) and dtype.kind in kinds):
        return None
    if shape is None:
        return f"{value!r:.60} ({type(value).__name__})"
    return f"a {type(value).__name__} of shape {shape} and dtype {dtype}"


#: Which edges of a vertex an operator visits: those entering it or those leaving it.
EDGE_SETS = ("in", "out")


def oriented(graph: Graph, frontier: Frontier, edges: str) -> Graph:
    """The graph whose out-edges are ``graph``'s ``edges`` (``"out"``: ``graph`` itself;
    ``"in"``: its transpose, :meth:`frontier.Graph.transpose`) for a step from ``frontier``
    (checked on ``graph`` already), after checking ``edges`` and, before the transpose is
    built, that ``frontier`` is valid on it."""
    if not isinstance(edges, str) or edges not in EDGE_SETS:
        raise OperatorError(f"edges={edges!r}; expected 'out' (the edges leaving the "
                            "frontier's vertices) or 'in' (the edges entering them: a step over "
                            "graph.transpose())")
    if edges == "out" or not graph.directed:
        return graph
    if frontier.domain == EDGES:
        raise OperatorError("edges='in' steps over graph.transpose(), whose edge ids differ "
                            "from the graph's; expected a vertex frontier with it (an edge "
                            "frontier advances over edges='out')")
    return graph.transpose()


def check_frontier(graph: Graph, frontier: Any, output: str | None = None) -> None:
    validate.graph(graph)
    if not isinstance(frontier, Frontier):
        raise OperatorError(f"expected a Frontier, got {type(frontier).__name__}")
    if frontier.graph is not graph:
        if frontier.domain == EDGES and graph.same_vertices(frontier.graph):
            raise OperatorError("an edge frontier of a graph used on its transpose: edge ids "
                                "differ between the two; expected the edge frontier's own graph")
        if not graph.same_vertices(frontier.graph):
            raise OperatorError("the frontier belongs to another graph; expected a frontier of "
                                "this graph or of its transpose (Graph.transpose())")
    if output is not None and output not in OUTPUTS:
        raise OperatorError(f"output={output!r}; expected one of {OUTPUTS}")
    frontier.check_current()


def work_bound(frontier: Frontier) -> int:
    """Upper bound on the frontier's length known without a device read."""
    return frontier.universe if frontier.kind == DENSE else frontier.pool.capacity


def input_arguments(frontier: Frontier) -> dict[str, Any]:
    """The input-frontier arguments of a kernel that reads a frontier without producing one."""
    return frontier.pool.input_arguments(frontier, frontier.slot)


class _Buffers(threading.local):
    """The calling thread's operator temporaries, by name, target and dtype (a dict made when
    the thread first asks)."""

    def __init__(self) -> None:
        self.buffers: dict[tuple, Any] = {}


_THREAD = _Buffers()


def thread_buffer(name: str, target: Target, size: int, dtype: Any) -> Any:
    """This thread's buffer ``name`` of at least ``size`` elements of ``dtype`` on ``target``,
    grown as needed and reused by the thread's next call: an operator's temporaries, allocated
    once per thread instead of once per call, and never shared by two threads."""
    buffers = _THREAD.buffers
    key = (name, target.name, target.simulated, dtype)  # the dtype as given: no np.dtype made
    found = buffers.get(key)
    if found is None or found.shape[0] < size:
        found = buffers[key] = target.empty(max(size, 64), dtype)
    return found


def launch_plan(plan: Plan, graph: Graph, target: Target, io: dict[str, Any],
                state: tuple) -> None:
    """Launch every kernel of ``plan`` with the convention's arguments."""
    if plan.buffers:
        io = {**io, **plan.buffers}
    for kernel, blocks in plan.kernels:
        kernel.launch(target, blocks, kernel_arguments(kernel.params, graph, target, io, state),
                      cooperative=plan.cooperative and blocks > 1, mode=Mode.HOST)


def run_step(graph: Graph, frontier: Frontier, plan: Plan, state: tuple, output: str,
             operator: str) -> Frontier | None:
    """Run ``plan``, a call of ``operator``, on ``graph`` (the frontier's graph or its
    transpose) as the next step of the frontier's ring and wrap its output. A step whose kernel
    fails leaves the ring as it was before it (its partial output is discarded)."""
    pool = frontier.pool
    out_kind = None if output == NONE else output
    step = pool.begin_step(frontier.slot, out_kind, f"{operator}(output={output!r})")
    try:
        launch_plan(plan, graph, pool.target,
                    pool.ring_arguments(frontier, step, out_kind),
               state)
    except BaseException:
        pool.abort_step(step, out_kind)
        raise
    token = pool.end_step(step, out_kind)
    return None if out_kind is None else Frontier(pool, step.out_slot, out_kind, token)
