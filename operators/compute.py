"""compute: run a function on every element of a frontier, of the vertices, edges or a range
(Gunrock's compute operator)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from frontier import validate
from frontier.frontier import Frontier
from frontier.graph import Graph
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators.codegen import (
    NONE,
    RANGE,
    GeneratedKernel,
    KernelIO,
    KernelSpec,
    build,
    declare_work_items,
    element_items,
    for_each_input,
)
from operators.common import (
    OperatorError,
    check_frontier,
    input_arguments,
    range_graph,
    work_bound,
)
from operators.convention import kernel_arguments, scalar_arguments
from operators.functors import Functor, as_functor
from operators.shape import per_element
from operators.tracing import hands_over

#: The compute kernels, by everything they depend on (looked up once per call).
_KERNELS: SharedCache[GeneratedKernel] = SharedCache("compute kernels")
#: The largest count a range may have: the kernels index it with int64.
_MOST = int(np.iinfo(np.int64).max)

declare_work_items("compute", element_items)


def elements(graph: Graph, where: Frontier | str | int, target: str | Target | None,
             operator: str = "compute") -> tuple[Target, str, str, dict[str, Any], int]:
    """What an operator over ``where`` reads: a Frontier (on its own target), ``"vertices"``,
    ``"edges"`` or a count ``n`` (``range(n)``, on ``target``). Returns the target, the input
    form, the domain, the kernel's input arguments and a bound on the number of elements.
    Such an operator's kernel reads a frontier or a range: its I/O kind is
    :func:`reads` of the input form."""
    validate.graph(graph)
    if isinstance(where, Frontier):
        check_frontier(graph, where)
        return where.target, where.kind, where.domain, input_arguments(where), work_bound(where)
    if isinstance(where, str) and where in ("vertices", "edges"):
        count = graph.num_vertices if where == "vertices" else graph.num_edges
    elif validate.integer(where) and 0 <= where <= _MOST:
        count = int(where)
    else:
        raise OperatorError(f"{operator} over {where!r:.80}; expected a Frontier, 'vertices', "
                            "'edges' or a count 0 <= n < 2**63 (an integer)")
    domain = "edges" if where == "edges" else "vertices"
    return resolve_target(target, graph), RANGE, domain, {"count": count}, count


def reads(kind: str) -> KernelIO:
    """The I/O kind of a kernel that reads input of form ``kind`` and writes no frontier: a
    range, or a frontier (not a step of its pool)."""
    return KernelIO.RANGE if kind == RANGE else KernelIO.READ


def compute_plan(graph: Graph, where: Frontier | str | int, fn: Callable, num_state: int,
                 target: str | Target | None
                 ) -> tuple[GeneratedKernel, int, Target, dict[str, Any]]:
    """The one kernel of :func:`compute` over ``where`` on ``graph`` (:func:`range_graph` of
    the call's), its grid, its target and its arguments besides the graph's and the state (the
    input's, and the numbers the functor reads from its closure)."""
    tgt, kind, domain, io, work = elements(graph, where, target)
    functor = as_functor(fn, "compute function", ("i",), num_state)
    key = (tgt.compile_key, kind, domain, graph.weighted, num_state, functor)
    kernel = _KERNELS.find(key) or _KERNELS.get(key, partial(_generated, tgt, *key[1:]))
    if functor.scalars:
        io.update(scalar_arguments({"functor": functor}))
    return kernel, kernel.shape.blocks(tgt, work), tgt, io


def _generated(tgt: Target, kind: str, domain: str, weighted: bool, num_state: int,
               functor: Functor) -> GeneratedKernel:
    """The kernel of :func:`compute_plan` (made once per key; a module function, so that a
    call that finds it makes no closure)."""
    spec = KernelSpec("compute", kind, NONE, weighted, num_state, domain=domain,
                      graph_view=functor.wants_graph, io=reads(kind))
    return build(tgt, per_element(tgt), spec, {"functor": functor},
                 lambda: for_each_input(spec, "v", spec.call("functor", "v") + "\n"))


@hands_over
def compute(graph: Graph | None, where: Frontier | str | int, fn: Callable, *state: Any,
            target: str | Target | None = None) -> None:
    """Call ``fn(i, *state)`` for every element of ``where``: a Frontier, ``"vertices"``,
    ``"edges"`` or an int ``n`` (``range(n)``; ``graph`` may then be None, for work that no
    graph defines). ``target`` applies to ranges (a frontier runs on its own target). A
    frontier stays valid: compute is not a step of its pool."""
    graph = range_graph(graph, where)
    kernel, blocks, tgt, io = compute_plan(graph, where, fn, len(state), target)
    kernel.launch(tgt, blocks, kernel_arguments(kernel.params, graph, tgt, io, state))
