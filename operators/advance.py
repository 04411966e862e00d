"""advance: visit every edge leaving a frontier (seed 004 §2.1; Gunrock's advance operator).

Two directions. *Push* (top-down) expands the frontier's out-edges, mapped onto threads by a load
balancer. *Pull* (bottom-up; Beamer et al., seed 004 §2.1) gives one thread to every candidate
vertex, which scans its in-edges (the CSC view) for a source in the frontier and stops at the
first the functor accepts: on low-diameter graphs, once the frontier is large, most candidates
find a parent within a few edges instead of the frontier expanding all of its edges.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from frontier.frontier import DENSE, SPARSE, Frontier
from frontier.graph import Graph
from operators.balancers import LoadBalancer, ThreadMapped, get_balancer
from operators.codegen import (
    GRAPH_PARAMS,
    STEP_PARAMS,
    GeneratedKernel,
    KernelSpec,
    build,
    clear_next_slot,
    grid_blocks,
    indent,
    is_active,
    push,
)
from operators.common import OperatorError, check_frontier, for_target, launch_step, work_bound

DIRECTIONS = ("push", "pull")
CSC_PARAMS = ("col_offsets", "row_indices", "edge_ids", "weights")


def every_vertex(v: int) -> bool:
    """The default pull candidate test: every vertex is a candidate."""
    return True


def advance_kernel(graph: Graph, frontier: Frontier, op: Callable, num_state: int,
                   balancer: str | LoadBalancer, output: str
                   ) -> tuple[GeneratedKernel, LoadBalancer, KernelSpec]:
    check_frontier(graph, frontier, output)
    bal = for_target(frontier.target, get_balancer(balancer), graph)
    spec = KernelSpec("advance", frontier.kind, output, graph.weighted, num_state)
    params = GRAPH_PARAMS + STEP_PARAMS + bal.extra_params(spec)
    kernel = build(frontier.target, bal, spec, op,
                   lambda: clear_next_slot() + bal.advance_body(spec), params)
    return kernel, bal, spec


def pull_kernel(graph: Graph, frontier: Frontier, op: Callable, num_state: int,
                candidate: Callable, output: str) -> tuple[GeneratedKernel, KernelSpec]:
    check_frontier(graph, frontier, output)
    if frontier.kind != DENSE:
        raise OperatorError("a pull advance tests frontier membership: pass a dense frontier "
                            "(frontier.to_dense())")
    spec = KernelSpec("pull", DENSE, output, graph.weighted, num_state)
    kernel = build(frontier.target, ThreadMapped(), spec, op, lambda: _pull_body(spec),
                   CSC_PARAMS + STEP_PARAMS, {"candidate": candidate})
    return kernel, spec


def _pull_body(spec: KernelSpec) -> str:
    """Each candidate ``dst`` scans its in-edges for a frontier source the functor accepts."""
    scan = ("for k in range(col_offsets[dst], col_offsets[dst + 1]):\n"
            "    src = row_indices[k]\n"
            f"    if {is_active('in_words', 'src')}:\n"
            "        e = edge_ids[k]\n"
            f"        if functor(src, dst, e, {spec.weight_of('e')}{spec.state}):\n"
            + indent(push(spec.output, "dst"), 3)
            + "            break\n")
    return (clear_next_slot()
            + "for dst in range(tid, num_vertices, nthreads):\n"
            + f"    if candidate(dst{spec.state}):\n" + indent(scan, 2))


def advance(graph: Graph, frontier: Frontier, op: Callable, *state: Any,
            balancer: str | LoadBalancer = "thread", output: str = SPARSE,
            direction: str = "push", candidate: Callable | None = None) -> Frontier | None:
    """Call ``op(src, dst, eid, weight, *state) -> bool`` for every edge leaving ``frontier``.

    ``dst`` enters the output frontier when ``op`` returns True (once per True: a sparse output
    may repeat a vertex; a dense one cannot). ``output`` is ``"sparse"``, ``"dense"`` or
    ``"none"`` (side effects only; returns None). ``weight`` is 1 on an unweighted graph.
    ``state`` are arrays on the frontier's target (or scalars) passed through to ``op``.

    ``direction="pull"`` visits the same edges from the other end: every vertex ``dst`` for
    which ``candidate(dst, *state)`` is True scans its in-edges and calls ``op`` on those whose
    source is in the (dense) frontier, stopping at the first True; so ``op`` runs on a subset of
    the frontier's edges, at most one of them accepted per ``dst``. One thread per candidate
    (``balancer`` applies to push).
    """
    if direction not in DIRECTIONS:
        raise OperatorError(f"direction={direction!r}; expected one of {DIRECTIONS}")
    if direction == "pull":
        kernel, spec = pull_kernel(graph, frontier, op, len(state), candidate or every_vertex,
                                   output)
        csc, ga = graph.device_csc(frontier.target), graph.device_arrays(frontier.target)
        blocks = grid_blocks(frontier.target, kernel.threads_per_block, graph.num_vertices)
        return launch_step(frontier, kernel, blocks,
                           (csc.col_offsets, csc.row_indices, csc.edge_ids, ga.weights),
                           state, output)
    if candidate is not None:
        raise OperatorError("candidate= applies to direction='pull' only")
    kernel, bal, spec = advance_kernel(graph, frontier, op, len(state), balancer, output)
    ga = graph.device_arrays(frontier.target)
    return launch_step(frontier, kernel, bal.blocks(frontier.target, work_bound(frontier)),
                       (ga.row_offsets, ga.col_indices, ga.weights),
                       bal.extra_args(spec, frontier) + state, output)
