"""reduce: combine ``fn(i, *state)`` over a frontier, the vertices, the edges or a range into one
Python scalar, with one device read (Gunrock's and Ligra's reductions; the convergence tests of
PageRank, "is anything left?" of label propagation, the minimum of ordered SSSP).

Each thread folds its elements into a private accumulator; on a GPU the 32 lanes of a warp then
combine theirs with shuffles and one lane per warp applies an atomic to the single result, so a
launch makes one atomic per warp instead of one per element.

The accumulator's type follows ``fn``'s return type (found by typing ``fn`` with Numba once per
functor and argument types): booleans and integers sum, min and max exactly in int64, floats in
float64. ``op="count"`` counts the elements for which ``fn`` is true.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from frontier.graph import OFFSET_DTYPE, Graph
from frontier.target import Target
from operators.balancers import ThreadMapped
from operators.codegen import NONE, KernelSpec, build, for_each_input, grid_blocks, indent
from operators.common import OperatorError, Plan, launch_plan, range_graph
from operators.compute import elements
from operators.functors import Functor, FunctorError, as_functor

__all__ = ["reduce", "REDUCTIONS", "combine", "identity_of"]

#: The reductions, by name.
REDUCTIONS = ("sum", "min", "max", "count")


def combine(op: str, acc: str, x: str) -> str:
    """Statements folding value ``x`` into accumulator ``acc`` with ``op``."""
    if op in ("sum", "count"):
        return f"{acc} += {x}\n"
    if op == "or":
        return f"if {x}:\n    {acc} = True\n"
    compare = "<" if op == "min" else ">"
    return f"if {x} {compare} {acc}:\n    {acc} = {x}\n"


def identity_of(op: str, dtype: Any) -> Any:
    """The value that leaves every element unchanged under ``op``, in ``dtype``."""
    dtype = np.dtype(dtype)
    if op in ("sum", "count", "or"):
        return dtype.type(0)
    if dtype.kind == "f":
        return dtype.type(np.inf if op == "min" else -np.inf)
    if dtype.kind == "b":
        return dtype.type(op == "min")
    info = np.iinfo(dtype)
    return dtype.type(info.max if op == "min" else info.min)


_ATOMIC = {"sum": "atomic_add", "count": "atomic_add", "min": "atomic_min", "max": "atomic_max"}
_RESULT_TYPES: dict[tuple, np.dtype] = {}
_RESULTS: dict[tuple, Any] = {}


def _numba_type(value: Any) -> Any:
    import numba
    from numba import types

    if hasattr(value, "dtype") and hasattr(value, "ndim") and value.ndim > 0:
        return types.Array(numba.from_dtype(value.dtype), value.ndim, "C")
    return numba.typeof(value)


def result_dtype(functor: Functor, graph: Graph, state: tuple) -> np.dtype:
    """int64 where ``functor`` returns a boolean or an integer, float64 where it returns a
    float (its return type, inferred by Numba on the host, cached)."""
    import numba
    from numba import types

    argtypes = (types.int64,) + tuple(_numba_type(s) for s in state)
    if functor.wants_graph:
        offsets = types.Array(numba.from_dtype(np.dtype(OFFSET_DTYPE)), 1, "C")
        argtypes += (types.Tuple((types.int64, types.int64, offsets, offsets)),)
    key = (functor.key, argtypes)
    found = _RESULT_TYPES.get(key)
    if found is None:
        dispatcher = numba.njit(functor.fn)
        try:
            dispatcher.compile(argtypes)
        except Exception as err:  # noqa: BLE001 - any typing failure is the functor's
            raise FunctorError(f"reduce function {functor.name} ({functor.location}) could not "
                               f"be typed for arguments {argtypes}: {err}") from err
        returned = dispatcher.overloads[argtypes].signature.return_type
        if isinstance(returned, (types.Boolean, types.Integer)):
            found = np.dtype(np.int64)
        elif isinstance(returned, types.Float):
            found = np.dtype(np.float64)
        else:
            raise FunctorError(f"reduce function {functor.name} ({functor.location}) returns "
                               f"{returned}; expected a number or a boolean")
        _RESULT_TYPES[key] = found
    return found


def reduce_plan(graph: Graph | None, where: Any, fn: Callable, state: tuple, op: str,
                target: str | Target | None) -> tuple[Plan, Target, dict[str, Any], np.dtype]:
    graph = range_graph(graph, where)
    if op not in REDUCTIONS:
        raise OperatorError(f"op={op!r}; expected one of {REDUCTIONS}")
    tgt, kind, domain, io, work = elements(graph, where, target, "reduce")
    functor = as_functor(fn, "reduce function", ("i",), len(state))
    dtype = np.dtype(np.int64) if op == "count" else result_dtype(functor, graph, state)
    spec = KernelSpec("reduce", kind, NONE, graph.weighted, len(state), domain=domain,
                      graph_view=functor.wants_graph, variant=f"_{op}")
    value = spec.call("functor", "v")
    fold = (f"if {value}:\n    acc += 1\n" if op == "count"
            else f"x = {value}\n" + combine(op, "acc", "x"))
    atomic = f"{_ATOMIC[op]}(result, 0, acc)\n"
    if tgt.runs_balancers:  # fold the warp's accumulators into lane 0 with shuffles
        atomic = ("lane = cuda.threadIdx.x & 31\n"
                  + "".join(f"other = shfl_idx(FULL, acc, lane + {d}, 32)\n"
                            + combine(op, "acc", "other") for d in (16, 8, 4, 2, 1))
                  + "if lane == 0:\n" + indent(atomic))
    body = "acc = identity\n" + for_each_input(spec, "v", fold) + atomic
    kernel = build(tgt, ThreadMapped(), spec, {"functor": functor}, lambda: body,
                   ("result", "identity"))
    return Plan([(kernel, grid_blocks(tgt, kernel.threads_per_block, work))]), tgt, io, dtype


def reduce(graph: Graph | None, where: Any, fn: Callable, *state: Any, op: str = "sum",
           target: str | Target | None = None) -> int | float:
    """Combine ``fn(i, *state)`` over the elements ``i`` of ``where`` (a Frontier, ``"vertices"``,
    ``"edges"`` or a count ``n``, where ``graph`` may be None) with ``op`` (``"sum"``,
    ``"min"``, ``"max"``, or ``"count"``: how many ``fn`` accepts) and return it as a Python
    int or float (the identity when there are no elements: 0, or +-inf / the int64 extremes for
    min / max). One launch, one device read. ``target`` applies to ranges (a frontier runs on
    its own target)."""
    graph = range_graph(graph, where)
    plan, tgt, io, dtype = reduce_plan(graph, where, fn, state, op, target)
    start = identity_of(op, dtype)
    result = _RESULTS.get((tgt.name, tgt.simulated, dtype))
    if result is None:
        result = tgt.empty(1, dtype)
        _RESULTS[(tgt.name, tgt.simulated, dtype)] = result
    tgt.write_scalar(result, 0, start)
    plan.buffers.update(result=result, identity=start)
    launch_plan(plan, graph, tgt, io, state)
    return tgt.read_scalar(result, 0)
