"""neighbor_reduce: for every vertex of a frontier (or every vertex), combine a function of its
in- or out-edges into one value per vertex, without atomics.

This is the pull half of Ligra's ``edgeMap`` (Shun & Blelloch, PPoPP 2013) as a reduction, the
gather of Gunrock's and PowerGraph's gather-apply-scatter: pull PageRank sums ``rank[src] /
out_degree(src)`` over in-edges, k-core counts live neighbours, label propagation takes the
minimum label over neighbours. One thread owns each vertex and folds its edges in order, so the
result is written once per vertex and needs no atomics (and a float sum is deterministic).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from frontier.frontier import Frontier
from frontier.graph import Graph
from frontier.shared_cache import SharedCache
from operators.codegen import (
    NONE,
    GeneratedKernel,
    KernelSpec,
    build,
    for_each_input,
    id_at,
    indent,
)
from operators.common import EDGE_SETS, OperatorError, Plan, check_graph, launch_plan
from operators.compute import elements, reads
from operators.convention import scalar_arguments
from operators.functors import as_functor
from operators.reduce import FOLDS, combine, identity_of, op_named
from operators.shape import per_element

__all__ = ["neighbor_reduce", "NEIGHBOR_REDUCTIONS", "EDGE_SETS"]

#: The neighbour-reduction kernels, by everything they depend on (looked up once per call).
_KERNELS: SharedCache[GeneratedKernel] = SharedCache("neighbour reduction kernels")
#: The folds ``op=`` takes (:data:`operators.reduce.FOLDS`; the former ``"or"`` is
#: ``"logical_or"``).
NEIGHBOR_REDUCTIONS = ("sum", "min", "max", "logical_or", "bit_or")


def neighbor_plan(graph: Graph, where: Frontier | str, fn: Callable, num_state: int, op: str,
                  edges: str, out: Any) -> tuple[Plan, Any, dict[str, Any]]:
    op = op_named(op, NEIGHBOR_REDUCTIONS, "neighbor_reduce")
    if edges not in EDGE_SETS:
        raise OperatorError(f"edges={edges!r}; expected one of {EDGE_SETS}")
    if isinstance(where, Frontier) and where.domain != "vertices":
        raise OperatorError("neighbor_reduce runs over vertices: pass a vertex frontier or "
                            "'vertices'")
    if not isinstance(where, Frontier) and not (isinstance(where, str) and where == "vertices"):
        raise OperatorError(f"neighbor_reduce over {where!r:.80}; expected a vertex Frontier or "
                            "'vertices'")
    check_graph(graph)
    home = _target_of(out, graph.num_vertices)
    if out.dtype.kind not in FOLDS[op].kinds:
        raise OperatorError(f"neighbor_reduce: op={op!r} folds integers or booleans; out= has "
                            f"dtype {out.dtype}")
    tgt, kind, domain, io, work = elements(
        graph, where, None if isinstance(where, Frontier) else home, "neighbor_reduce")
    functor = as_functor(fn, "neighbour function", ("src", "dst", "eid", "weight"), num_state)
    weighted = graph.weighted

    def generate() -> GeneratedKernel:
        spec = KernelSpec("neighbors", kind, NONE, weighted, num_state, domain=domain,
                          graph_view=functor.wants_graph, csc=edges == "in",
                          variant=f"_{edges}_{op}", io=reads(kind))
        return build(tgt, per_element(tgt), spec, {"functor": functor},
                     lambda: for_each_input(spec, "v", _body(spec, edges, op)),
                     ("out", "identity"))

    kernel = _KERNELS.get((tgt.compile_key, kind, domain, weighted, num_state, edges, op,
                           functor), generate)
    plan = Plan([(kernel, kernel.shape.blocks(tgt, work))],
                {"out": out, "identity": identity_of(op, out.dtype),
                 **scalar_arguments({"functor": functor})})
    return plan, tgt, io


def _body(spec: KernelSpec, edges: str, op: str) -> str:
    """The statements folding vertex ``v``'s ``edges`` with ``op`` into ``out[v]``."""
    weight = spec.weight_of("e")
    tail, head = id_at("row_indices", "k"), id_at("col_indices", "e")
    if edges == "in":
        loop = ("for k in range(col_offsets[v], col_offsets[v + 1]):\n"
                "    e = edge_ids[k]\n"
                f"    x = {spec.call('functor', f'{tail}, v, e, {weight}')}\n")
    else:
        loop = ("for e in range(row_offsets[v], row_offsets[v + 1]):\n"
                f"    x = {spec.call('functor', f'v, {head}, e, {weight}')}\n")
    return "acc = identity\n" + loop + indent(combine(op, "acc", "x")) + "out[v] = acc\n"


def _target_of(out: Any, num_vertices: int) -> str:
    """The target ``out`` lives on (a NumPy array: cpu; a device array: cuda), after checking
    that it is a one-dimensional array of at least ``num_vertices`` numbers."""
    shape, dtype = getattr(out, "shape", None), getattr(out, "dtype", None)
    if (not isinstance(shape, tuple) or len(shape) != 1 or shape[0] < num_vertices
            or not isinstance(dtype, np.dtype) or dtype.kind not in "biuf"):
        got = (f"a {type(out).__name__} of shape {shape} and dtype {dtype}"
               if shape is not None else f"{out!r:.60} ({type(out).__name__})")
        raise OperatorError(f"neighbor_reduce: out= must be a one-dimensional array of at least "
                            f"|V| = {num_vertices} numbers (a NumPy array for the cpu target, a "
                            f"device array for cuda); got {got}")
    return "cpu" if isinstance(out, np.ndarray) else "cuda"


def neighbor_reduce(graph: Graph, where: Frontier | str, fn: Callable, *state: Any, out: Any,
                    op: str = "sum", edges: str = "in") -> None:
    """For every vertex ``v`` of ``where`` (a vertex Frontier or ``"vertices"``) set ``out[v]``
    to ``op`` of ``fn(src, dst, eid, weight, *state)`` over the edges entering ``v``
    (``edges="in"``: ``dst`` is ``v``, through the incoming-edge view) or leaving it
    (``edges="out"``: ``src`` is ``v``). ``op`` is ``"sum"``, ``"min"``, ``"max"``,
    ``"logical_or"`` (1, or True, when any value is true) or ``"bit_or"`` (the values' bits
    or-ed; integer or boolean ``out`` only); the former ``"or"`` still means ``"logical_or"``,
    with a DeprecationWarning. A vertex without such edges gets the identity (0, +inf / the
    dtype's maximum for min, -inf / its minimum for max, 0 for the ors). ``out`` is an array of
    at least |V| elements on the target (a NumPy array runs on the cpu target, a device array
    on cuda); its dtype is the accumulator's. Other entries of ``out`` are not touched. A
    frontier stays valid: this is not a step of its pool."""
    plan, tgt, io = neighbor_plan(graph, where, fn, len(state), op, edges, out)
    launch_plan(plan, graph, tgt, io, state)
