"""advance: visit every edge leaving a frontier (seed 004 §2.1; Gunrock's advance operator)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from frontier.frontier import SPARSE, Frontier
from frontier.graph import Graph
from operators.balancers import LoadBalancer, get_balancer
from operators.codegen import (
    GRAPH_PARAMS,
    STEP_PARAMS,
    GeneratedKernel,
    KernelSpec,
    build,
    clear_next_slot,
)
from operators.common import check_frontier, for_target, launch_step, work_bound


def advance_kernel(graph: Graph, frontier: Frontier, op: Callable, num_state: int,
                   balancer: str | LoadBalancer, output: str
                   ) -> tuple[GeneratedKernel, LoadBalancer, KernelSpec]:
    check_frontier(graph, frontier, output)
    bal = for_target(frontier.target, get_balancer(balancer), graph)
    spec = KernelSpec("advance", frontier.kind, output, graph.weighted, num_state)
    body = clear_next_slot() + bal.advance_body(spec)
    params = GRAPH_PARAMS + STEP_PARAMS + bal.extra_params(spec)
    return build(frontier.target, bal, spec, op, body, params), bal, spec


def advance(graph: Graph, frontier: Frontier, op: Callable, *state: Any,
            balancer: str | LoadBalancer = "thread", output: str = SPARSE) -> Frontier | None:
    """Call ``op(src, dst, eid, weight, *state) -> bool`` for every edge leaving ``frontier``.

    ``dst`` enters the output frontier when ``op`` returns True (once per True: a sparse output
    may repeat a vertex; a dense one cannot). ``output`` is ``"sparse"``, ``"dense"`` or
    ``"none"`` (side effects only; returns None). ``weight`` is 1 on an unweighted graph.
    ``state`` are arrays on the frontier's target (or scalars) passed through to ``op``.
    """
    kernel, bal, spec = advance_kernel(graph, frontier, op, len(state), balancer, output)
    ga = graph.device_arrays(frontier.target)
    return launch_step(frontier, kernel, bal.blocks(frontier.target, work_bound(frontier)),
                       (ga.row_offsets, ga.col_indices, ga.weights),
                       bal.extra_args(spec, frontier) + state, output)
