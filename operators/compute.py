"""compute: run a function on every element of a frontier, of the vertices, edges or a range."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from frontier.frontier import SPARSE, Frontier
from frontier.graph import Graph
from frontier.target import Target, resolve_target
from operators.balancers import ThreadMapped
from operators.codegen import (
    COMPUTE_PARAMS,
    NONE,
    RANGE,
    GeneratedKernel,
    KernelSpec,
    build,
    for_each_input,
    grid_blocks,
)
from operators.common import OperatorError, check_frontier, check_graph, work_bound


def compute_kernel(graph: Graph, where: Frontier | str | int, fn: Callable, num_state: int,
                   target: str | Target | None) -> tuple[GeneratedKernel, tuple, int, Target]:
    check_graph(graph)
    if isinstance(where, Frontier):
        check_frontier(graph, where)
        tgt, pool, kind = where.target, where.pool, where.kind
        head = ((pool.ids(where.slot), pool.lengths, where.slot) if kind == SPARSE
                else (graph.num_vertices, pool.words(where.slot)))
        work = work_bound(where)
    else:
        count = {"vertices": graph.num_vertices, "edges": graph.num_edges}.get(where, where)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise OperatorError(f"compute over {where!r}; expected a Frontier, 'vertices', "
                                "'edges' or a count >= 0")
        tgt, kind, head, work = resolve_target(target), RANGE, (count,), count
    spec = KernelSpec("compute", kind, NONE, graph.weighted, num_state)
    kernel = build(tgt, ThreadMapped(), spec, fn,
                   lambda: for_each_input(spec, "v", f"functor(v{spec.state})\n"),
                   COMPUTE_PARAMS[kind])
    return kernel, head, work, tgt


def compute(graph: Graph, where: Frontier | str | int, fn: Callable, *state: Any,
            target: str | Target | None = None) -> None:
    """Call ``fn(i, *state)`` for every element of ``where``: a Frontier, ``"vertices"``,
    ``"edges"`` or an int ``n`` (``range(n)``). ``target`` applies to ranges (a frontier
    runs on its own target)."""
    kernel, head, work, tgt = compute_kernel(graph, where, fn, len(state), target)
    kernel.launch(tgt, grid_blocks(tgt, kernel.threads_per_block, work), head + state)
