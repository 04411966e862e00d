"""explain: the generated kernel source an operator call would run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from frontier.frontier import SPARSE
from frontier.graph import Graph
from operators.advance import advance, advance_kernel
from operators.balancers import get_balancer
from operators.common import OperatorError, check_frontier, for_target
from operators.compute import compute, compute_kernel
from operators.filter import filter, filter_kernel
from operators.traverse import traverse, traverse_kernel


def explain(operator: Callable, graph: Graph, where: Any, fn: Callable, *state: Any,
            **options: Any) -> str:
    """The source of the kernel ``operator(graph, where, fn, *state, **options)`` would run,
    for ``operator`` one of advance, filter, compute, traverse (nothing is launched)."""
    if operator is advance:
        kernel, bal, spec = advance_kernel(graph, where, fn, len(state),
                                           options.get("balancer", "thread"),
                                           options.get("output", SPARSE))
        return bal.helper_sources(spec, where.target) + kernel.source
    elif operator is filter:
        kernel = filter_kernel(graph, where, fn, len(state), options.get("output"),
                               options.get("unique", False))[0]
    elif operator is compute:
        kernel = compute_kernel(graph, where, fn, len(state), options.get("target"))[0]
    elif operator is traverse:
        check_frontier(graph, where)
        bal = for_target(where.target, get_balancer(options.get("balancer", "thread")), graph)
        kernel = traverse_kernel(graph, where, fn, len(state), bal)
    else:
        raise OperatorError(f"explain takes advance, filter, compute or traverse, not {operator!r}")
    return kernel.source
