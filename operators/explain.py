"""explain: the source of exactly the kernels an operator call would run, launching nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from frontier.frontier import DENSE, EDGES, SPARSE
from frontier.graph import Graph
from frontier.kernels import conversion_source
from operators.advance import advance, edge_plan, pull_kernel_plan, push_plan
from operators.common import OperatorError, check_frontier
from operators.compute import compute, compute_plan
from operators.direction import AUTO, PULL, PUSH, Direction
from operators.filter import filter, filter_plan
from operators.neighbors import neighbor_plan, neighbor_reduce
from operators.phases import fused_kernel
from operators.policy import resolve_policy
from operators.reduce import reduce, reduce_plan
from operators.tiles import tile_update, tiles_source
from operators.traverse import traverse


def _section(title: str, source: str) -> str:
    return f"# --- {title} ---\n{source}\n"


def _advance_sources(graph: Graph, where: Any, fn: Callable, num_state: int,
                     options: dict[str, Any], in_traverse: bool) -> str:
    check_frontier(graph, where)
    condition = options.get("condition")
    balancer = options.get("balancer", "thread")
    output = options.get("output")
    if where.domain == EDGES:
        return _section("edge advance", edge_plan(graph, where, fn, condition, num_state,
                                                  output or SPARSE).source)
    mode = Direction.of(options.get("direction", PUSH)).mode
    push_out = where.kind if in_traverse else output or SPARSE
    pull_out = DENSE if in_traverse else output or DENSE
    text = ""
    if mode in (PUSH, AUTO):
        # the kernels of the first step's choice
        bal = resolve_policy(balancer, graph, where.target).push_balancer(where)
        if in_traverse and options.get("fused", True) and bal.fusable:
            kernel = fused_kernel(graph, where, fn, condition, num_state, bal,
                                  options.get("cull", "none") if where.kind == SPARSE else "none")
            text += _section("push steps, fused into one persistent kernel", kernel.source)
        else:
            plan = push_plan(graph, where, fn, condition, num_state, bal, push_out,
                             options.get("cull", "none"))
            text += _section("push step", plan.source)
    if mode in (PULL, AUTO):
        if where.kind != DENSE:
            text += _section("pull step: the queue converted to a bitmap first",
                             conversion_source(where.target, where.kind, DENSE))
        plan = pull_kernel_plan(graph, where.target, fn, condition, num_state, pull_out)
        text += _section("pull step", plan.source)
    return text


def explain(operator: Callable, graph: Graph, where: Any, fn: Callable, *state: Any,
            **options: Any) -> str:
    """The source of the kernels ``operator(graph, where, fn, *state, **options)`` would run,
    in launch order, for ``operator`` one of advance, filter, compute, reduce,
    neighbor_reduce or traverse; with ``direction="auto"`` both the push and the pull step's
    kernels, each under a heading. For ``tile_update`` pass ``graph=None`` and the matrix as
    ``where``. Nothing is launched."""
    num_state = len(state)
    if operator is tile_update:
        return tiles_source(where, fn, *state, **options)
    if operator is advance:
        return _advance_sources(graph, where, fn, num_state, options, in_traverse=False)
    if operator is traverse:
        return _advance_sources(graph, where, fn, num_state, options, in_traverse=True)
    if operator is filter:
        plan = filter_plan(graph, where, fn, num_state, options.get("output"),
                           options.get("unique", False))
    elif operator is compute:
        plan = compute_plan(graph, where, fn, num_state, options.get("target"))[0]
    elif operator is reduce:
        plan = reduce_plan(graph, where, fn, state, options.get("op", "sum"),
                           options.get("target"))[0]
    elif operator is neighbor_reduce:
        plan = neighbor_plan(graph, where, fn, num_state, options.get("op", "sum"),
                             options.get("edges", "in"), options["out"])[0]
    else:
        raise OperatorError("explain takes advance, filter, compute, reduce, neighbor_reduce, "
                            f"traverse or tile_update, not {operator!r}")
    return plan.source
