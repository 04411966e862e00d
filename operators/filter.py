"""filter: keep the frontier elements a predicate accepts, optionally without repeats."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from frontier.frontier import SPARSE, Frontier
from frontier.graph import Graph
from operators.balancers import ThreadMapped
from operators.codegen import (
    STEP_PARAMS,
    GeneratedKernel,
    KernelSpec,
    build,
    clear_next_slot,
    for_each_input,
    grid_blocks,
    indent,
    push,
)
from operators.common import check_frontier, launch_step, work_bound


def filter_kernel(graph: Graph, frontier: Frontier, pred: Callable, num_state: int,
                  output: str | None, unique: bool) -> tuple[GeneratedKernel, KernelSpec]:
    out = output or frontier.kind
    check_frontier(graph, frontier, out)
    spec = KernelSpec("filter", frontier.kind, out, graph.weighted, num_state,
                      unique and out == SPARSE and frontier.kind == SPARSE)
    kernel = build(frontier.target, ThreadMapped(), spec, pred, lambda: _filter_body(spec),
                   STEP_PARAMS + ("stamps", "stamp"))
    return kernel, spec


def _filter_body(spec: KernelSpec) -> str:
    keep = f"if functor(v{spec.state}):\n"
    if spec.unique:
        keep += ("    if atomic_exch(stamps, v, stamp) != stamp:\n"
                 + indent(push(spec.output, "v"), 2))
    else:
        keep += indent(push(spec.output, "v"))
    return clear_next_slot() + for_each_input(spec, "v", keep)


def filter(graph: Graph, frontier: Frontier, pred: Callable, *state: Any,  # noqa: A001
           unique: bool = False, output: str | None = None) -> Frontier:
    """Keep the elements ``v`` of ``frontier`` for which ``pred(v, *state)`` is True.

    ``unique=True`` also drops repeated vertices (the first occurrence found stays). ``output``
    picks the result's form (default: the input's); a dense result never repeats a vertex.
    """
    kernel, spec = filter_kernel(graph, frontier, pred, len(state), output, unique)
    pool = frontier.pool
    stamps, stamp = pool.next_stamp() if spec.unique else (pool.placeholder, 0)
    blocks = grid_blocks(frontier.target, kernel.threads_per_block, work_bound(frontier))
    result = launch_step(frontier, kernel, blocks, (), (stamps, stamp) + state, spec.output)
    assert result is not None
    return result
