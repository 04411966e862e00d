"""reduce: combine ``fn(i, *state)`` over a frontier, the vertices, the edges or a range into one
Python scalar, with one device read (Gunrock's and Ligra's reductions; the convergence tests of
PageRank, "is anything left?" of label propagation, the minimum of ordered SSSP).

Each thread folds its elements into a private accumulator; on a GPU the 32 lanes of a warp then
combine theirs with shuffles and one lane per warp applies an atomic to the single result, so a
launch makes one atomic per warp instead of one per element.

The accumulator's type follows ``fn``'s return type (found by typing ``fn`` with Numba once per
functor and argument types): floats sum, min and max in float64; booleans and integers exactly,
whatever the size of the result. An integer sum runs in int64 with wrapping additions and counts
every carry out of 64 bits (each addition that wraps, up or down, and each unsigned value above
2**63 that the int64 view makes negative); the result is the wrapped sum plus the carries times
2**64, a Python int of any size: ``reduce`` never returns a sum that overflowed. Unsigned
minima and maxima compare with the sign bit flipped, so values above 2**63 keep their order.
``op="count"`` counts the elements for which ``fn`` is true.

Safe from several threads: each thread has its own result buffer per target and type (kept
per thread, not per graph: reductions over ranges have none), so concurrent reductions, on one
graph or on different ones, never read each other's result.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numba
import numpy as np
from numba import types
from numba.core import compiler, typed_passes
from numba.core.registry import cpu_target

from frontier.graph import Graph
from frontier.graphview import view_type
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target
from operators.codegen import (
    NONE,
    GeneratedKernel,
    KernelSpec,
    build,
    declare_work_items,
    element_items,
    for_each_input,
    indent,
)
from operators.common import OperatorError, Plan, launch_plan, range_graph
from operators.compute import elements, reads
from operators.convention import scalar_arguments
from operators.functors import Functor, FunctorError, as_functor
from operators.shape import per_element
from operators.tracing import hands_over

__all__ = ["reduce", "REDUCTIONS", "FOLDS", "RENAMED", "Fold", "combine", "identity_of", "op_named"]

#: The reductions, by name.
REDUCTIONS = ("sum", "min", "max", "count")

declare_work_items("reduce", element_items)


def _zero(dtype: np.dtype) -> Any:
    return dtype.type(0)


def _highest(dtype: np.dtype) -> Any:
    """+inf, True, or the integer maximum: what a minimum starts from."""
    if dtype.kind == "f":
        return dtype.type(np.inf)
    return dtype.type(True) if dtype.kind == "b" else dtype.type(np.iinfo(dtype).max)


def _lowest(dtype: np.dtype) -> Any:
    """-inf, False, or the integer minimum: what a maximum starts from."""
    if dtype.kind == "f":
        return dtype.type(-np.inf)
    return dtype.type(False) if dtype.kind == "b" else dtype.type(np.iinfo(dtype).min)


@dataclass(frozen=True)
class Fold:
    """One way of combining values: the statement folding ``{x}`` into ``{acc}``, the value
    that leaves every element unchanged (given the accumulator's dtype), and the dtype kinds
    the accumulator may have."""

    statement: str
    identity: Callable[[np.dtype], Any]
    kinds: str = "biuf"
    #: The statement of a loop that may stop at a value after which nothing changes the
    #: accumulator (a true value for ``logical_or``): it folds the value and leaves the loop.
    stopping: str | None = None


#: Every fold, by the name ``op=`` takes: the one table the reductions' code comes from.
#: ``logical_or`` is true when any value is (like ``any``); ``bit_or`` ors the bits of integers
#: (like ``atomic_or``).
FOLDS: dict[str, Fold] = {
    "sum": Fold("{acc} += {x}\n", _zero),
    "count": Fold("{acc} += {x}\n", _zero),
    "min": Fold("if {x} < {acc}:\n    {acc} = {x}\n", _highest),
    "max": Fold("if {x} > {acc}:\n    {acc} = {x}\n", _lowest),
    "logical_or": Fold("if {x}:\n    {acc} = True\n", _zero,
                       stopping="if {x}:\n    {acc} = True\n    break\n"),
    "bit_or": Fold("{acc} |= {x}\n", _zero, "biu"),
}

#: Former spellings of ``op=``, each with its name now; still accepted, with a
#: DeprecationWarning.
RENAMED = {"or": "logical_or"}


def op_named(op: Any, choices: Sequence[str], operator: str) -> str:
    """``op`` checked against ``choices`` (names of :data:`FOLDS`) for ``operator``; a former
    spelling (:data:`RENAMED`) gives its name now, with a DeprecationWarning pointing at the
    caller of ``operator`` (past its :func:`operators.tracing.hands_over` wrapper). Raises
    OperatorError for anything else."""
    renamed = RENAMED.get(op) if isinstance(op, str) else None
    if renamed in choices:
        warnings.warn(f"{operator}(op={op!r}) is deprecated: write op={renamed!r} (a logical "
                      "or, true when any value is; op='bit_or' ors the bits)",
                      DeprecationWarning, stacklevel=5)
        return renamed
    if not isinstance(op, str) or op not in choices:
        raise OperatorError(f"{operator}: op={op!r}; expected one of {tuple(choices)}")
    return op


def combine(op: str, acc: str, x: str, stops: bool = False) -> str:
    """Statements folding value ``x`` into accumulator ``acc`` with ``op``; with ``stops``
    (inside a loop over the values), leaving the loop where no later value can change
    ``acc`` (:attr:`Fold.stopping`)."""
    fold = FOLDS[op]
    return (fold.stopping if stops and fold.stopping else fold.statement).format(acc=acc, x=x)


def identity_of(op: str, dtype: Any) -> Any:
    """The value that leaves every element unchanged under ``op``, in ``dtype`` (worked out
    once per fold and dtype: a NumPy number, which nothing changes)."""
    found = _IDENTITIES.get((op, dtype))
    if found is None:
        found = _IDENTITIES.setdefault((op, dtype), FOLDS[op].identity(np.dtype(dtype)))
    return found


#: :func:`identity_of` per fold and dtype (as given: a dtype or a NumPy type).
_IDENTITIES: dict[tuple[str, Any], Any] = {}


_ATOMIC = {"sum": "atomic_add", "count": "atomic_add", "min": "atomic_min", "max": "atomic_max"}
#: The functor's return type, per functor and argument types: int64 (booleans and signed
#: integers), uint64 (unsigned integers) or float64.
_RESULT_TYPES: SharedCache[np.dtype] = SharedCache("reduce result types")
#: The same per functor and :func:`_classes` of its arguments (found without Numba's typing).
_RESULT_BY_CLASS: SharedCache[np.dtype] = SharedCache("reduce result types by class")


class _Results(threading.local):
    """Each thread's result buffers (two elements: the value and, for integer sums, the
    carries), by target and dtype (a dict made when the thread first asks)."""

    def __init__(self) -> None:
        self.buffers: dict[tuple, Any] = {}


_THREAD = _Results()
_SIGN = -(2**63)


def _numba_type(value: Any) -> Any:
    if hasattr(value, "dtype") and hasattr(value, "ndim") and value.ndim > 0:
        return types.Array(numba.from_dtype(value.dtype), value.ndim, "C")
    return numba.typeof(value)


def _return_type(fn: Callable, argtypes: tuple) -> Any:
    """The type Numba infers for ``fn``'s result on the host: type inference only, without
    generating code (a few times cheaper than compiling, which a reduction on a warm disk
    cache would otherwise pay on the first call of every process)."""
    typing, context = cpu_target.typing_context, cpu_target.target_context
    typing.refresh()
    context.refresh()
    ir = compiler.run_frontend(fn)
    return typed_passes.type_inference_stage(typing, context, ir, argtypes, None).return_type


def result_dtype(functor: Functor, graph: Graph, state: tuple, arcs: bool = False) -> np.dtype:
    """int64 where ``functor`` returns a boolean or a signed integer, uint64 where it returns
    an unsigned integer, float64 where it returns a float (its return type, inferred by Numba
    on the host, cached). ``functor`` takes an index ``i``, or with ``arcs`` an arc of
    ``graph``'s, ``(src, dst, eid, weight)``, before ``state``."""
    leading = _INDEX
    if arcs:
        leading = _INDEX * 3 + ((graph.weights.dtype,) if graph.weighted else _INDEX)
    classes = _classes(functor.scalars + state)
    if classes is None:
        return _inferred_dtype(functor, state, leading)
    return _RESULT_BY_CLASS.get((functor, classes, leading),
                                lambda: _inferred_dtype(functor, state, leading))


#: The type of an index (or arc id, or vertex id) a functor receives, as typed for its result.
_INDEX = (np.dtype(np.int64),)


def _classes(values: tuple) -> tuple | None:
    """What Numba's types of ``values`` depend on, cheaply: an array's dtype and dimensions, a
    number's type (an int's only while it fits int64); None where a value is anything else."""
    found = []
    for value in values:
        kind = type(value)
        if kind is int:
            if not -(2**63) <= value < 2**63:
                return None
        elif kind in (bool, float):
            pass
        elif isinstance(value, np.generic):
            kind = value.dtype
        elif hasattr(value, "dtype") and getattr(value, "ndim", 0) > 0:
            kind = (value.dtype, value.ndim)
        else:
            return None
        found.append(kind)
    return tuple(found)


def _inferred_dtype(functor: Functor, state: tuple, leading: tuple[np.dtype, ...]) -> np.dtype:
    """:func:`result_dtype`, found from the Numba types of the arguments (``leading``: the
    dtypes of what the operator passes before the state)."""
    argtypes = (tuple(numba.typeof(s) for s in functor.scalars)
                + tuple(numba.from_dtype(d) for d in leading)
                + tuple(_numba_type(s) for s in state))
    if functor.wants_graph:
        argtypes += (view_type(),)

    def infer() -> np.dtype:
        try:
            returned = _return_type(functor.compiled_form(), argtypes)
        except Exception as err:  # noqa: BLE001 - any typing failure is the functor's
            raise FunctorError(f"function {functor.name} ({functor.location}) could not "
                               f"be typed for arguments {argtypes}: {err}") from err
        if isinstance(returned, types.Integer) and not returned.signed:
            return np.dtype(np.uint64)
        if isinstance(returned, (types.Boolean, types.Integer)):
            return np.dtype(np.int64)
        if isinstance(returned, types.Float):
            return np.dtype(np.float64)
        raise FunctorError(f"function {functor.name} ({functor.location}) returns "
                           f"{returned}; expected a number or a boolean")

    return _RESULT_TYPES.get((functor.key, argtypes), infer)


def _carry(a: str, b: str) -> str:
    """Statements setting ``total`` to ``a + b`` wrapped to int64 (added as uint64: a signed
    addition that overflows is undefined in LLVM, an unsigned one wraps) and counting the wrap
    in ``carry``: +1 when it wrapped past the int64 maximum, -1 past the minimum."""
    return (f"total = int64(uint64({a}) + uint64({b}))\n"
            f"if {b} > 0 and total < {a}:\n    carry += 1\n"
            f"elif {b} < 0 and total > {a}:\n    carry -= 1\n")


def _fold(op: str, dtype: np.dtype, value: str) -> str:
    """Statements folding the functor's ``value`` into ``acc`` (and ``carry``)."""
    if op == "count":
        return f"if {value}:\n    acc += 1\n"
    if dtype.kind == "f":
        return f"x = {value}\n" + combine(op, "acc", "x")
    unsigned = dtype.kind == "u"
    if op != "sum":  # unsigned values compare as int64 with the sign bit flipped
        return (f"x = int64({value})" + (f" ^ int64({_SIGN})" if unsigned else "") + "\n"
                + combine(op, "acc", "x"))
    counted = "if x < 0:\n    carry += 1\n" if unsigned else ""  # x >= 2**63 read as x - 2**64
    return f"x = int64({value})\n" + counted + _carry("acc", "x") + "acc = total\n"


def _variant(op: str, dtype: np.dtype) -> str:
    """The kernel's name suffix: everything its text depends on besides the spec (an integer
    minimum casts to int64 and a float one must not, so they are different kernels)."""
    if op == "count":
        return "_count"
    kind = {"f": "", "i": "_int", "u": "_unsigned"}[dtype.kind]
    return f"_{op}{kind}" + ("_exact" if _exact(op, dtype) else "")


def _exact(op: str, dtype: np.dtype) -> bool:
    """Whether the reduction counts carries (an integer sum)."""
    return op == "sum" and dtype.kind != "f"


def _publish(op: str, dtype: np.dtype, runs_balancers: bool, sequential: bool) -> str:
    """Statements adding this thread's ``acc`` (and ``carry``) into ``result``: on a GPU the
    warp's lanes are first folded into lane 0 with shuffles, which adds one atomic per warp;
    on one thread (``sequential``) an exact sum is stored as it is."""
    exact = _exact(op, dtype)
    atomic = f"{_ATOMIC[op]}(result, 0, acc)\n"
    if exact:  # the atomic addition may wrap too: its carry is known from the old value
        atomic = ("old = atomic_add(result, 0, acc)\n" + _carry("old", "acc")
                  + "if carry != 0:\n    atomic_add(result, 1, carry)\n")
    if not runs_balancers:
        if exact and sequential:  # one sequential thread: its accumulator is the result
            return "result[0] = acc\nresult[1] = carry\n"
        return atomic
    folds = ""
    for d in (16, 8, 4, 2, 1):
        folds += f"other = shfl_idx(FULL, acc, lane + {d}, 32)\n"
        if exact:
            folds += (f"carry += shfl_idx(FULL, carry, lane + {d}, 32)\n"
                      + _carry("acc", "other") + "acc = total\n")
        else:
            folds += combine(op, "acc", "other")
    return "lane = cuda.threadIdx.x & 31\n" + folds + "if lane == 0:\n" + indent(atomic)


def reduce_plan(graph: Graph | None, where: Any, fn: Callable, state: tuple, op: str,
                target: str | Target | None) -> tuple[Plan, Target, dict[str, Any], np.dtype]:
    graph = range_graph(graph, where)
    op = op_named(op, REDUCTIONS, "reduce")
    tgt, kind, domain, io, work = elements(graph, where, target, "reduce")
    functor = as_functor(fn, "reduce function", ("i",), len(state))
    dtype = _COUNTED if op == "count" else result_dtype(functor, graph, state)
    key = (tgt.compile_key, kind, domain, graph.weighted, len(state), op, dtype, functor)
    kernel = _KERNELS.find(key) or _KERNELS.get(key, partial(_generated, tgt, *key[1:]))
    # a float reduction on a target of ordered sums: one thread, the elements in order
    blocks = 1 if dtype.kind == "f" and tgt.ordered_sums else kernel.shape.blocks(tgt, work)
    plan = Plan([(kernel, blocks)], scalar_arguments({"functor": functor}))
    return plan, tgt, io, dtype


def _generated(tgt: Target, kind: str, domain: str, weighted: bool, num_state: int, op: str,
               dtype: np.dtype, functor: Functor) -> GeneratedKernel:
    """The kernel of :func:`reduce_plan` (made once per key; a module function, so that a call
    that finds it makes no closure)."""
    spec = KernelSpec("reduce", kind, NONE, weighted, num_state, domain=domain,
                      graph_view=functor.wants_graph, variant=_variant(op, dtype),
                      io=reads(kind))

    def body() -> str:
        return ("acc = identity\n" + ("carry = int64(0)\n" if _exact(op, dtype) else "")
                + for_each_input(spec, "v", _fold(op, dtype, spec.call("functor", "v")))
                + _publish(op, dtype, tgt.runs_balancers, tgt.sequential))

    return build(tgt, per_element(tgt), spec, {"functor": functor}, body, ("result", "identity"))


#: A count's accumulator dtype.
_COUNTED = np.dtype(np.int64)


def _start(op: str, dtype: np.dtype) -> tuple[Any, np.ndarray]:
    """The accumulator's starting value (float64, else int64: unsigned values are held as
    int64, their extremes with the sign bit flipped) and the result buffer's starting values,
    ``[start, 0]`` (read-only), made once per fold and dtype."""
    found = _STARTS.get((op, dtype))
    if found is None:
        start = identity_of(op, np.float64 if dtype.kind == "f" else np.int64)
        values = np.array([start, 0], dtype=start.dtype)
        values.setflags(write=False)
        found = _STARTS.setdefault((op, dtype), (start, values))
    return found


def _value(op: str, dtype: np.dtype, held: list) -> int | float:
    """The reduction's result from the two elements of the result buffer (as a list)."""
    if dtype.kind == "f":
        return float(held[0])
    if _exact(op, dtype):
        return held[0] + (held[1] << 64)
    return held[0] - _SIGN if dtype.kind == "u" else held[0]


#: :func:`_start` per fold and dtype.
_STARTS: dict[tuple[str, np.dtype], tuple[Any, np.ndarray]] = {}
#: The reduce kernels, by everything they depend on (looked up once per call).
_KERNELS: SharedCache[GeneratedKernel] = SharedCache("reduce kernels")


def _result_buffer(target: Target, dtype: np.dtype) -> Any:
    """This thread's two-element result buffer on ``target`` for accumulators of ``dtype``."""
    buffers = _THREAD.buffers
    key = (target.name, target.simulated, dtype)
    found = buffers.get(key)
    if found is None:
        found = buffers[key] = target.empty(2, dtype)
    return found


@hands_over
def reduce(graph: Graph | None, where: Any, fn: Callable, *state: Any, op: str = "sum",
           target: str | Target | None = None) -> int | float:
    """Combine ``fn(i, *state)`` over the elements ``i`` of ``where`` (a Frontier, ``"vertices"``,
    ``"edges"`` or a count ``n``, where ``graph`` may be None) with ``op`` (``"sum"``,
    ``"min"``, ``"max"``, or ``"count"``: how many ``fn`` accepts) and return it as a Python
    int or float (the identity when there are no elements: 0, or +-inf / the int64 extremes, or
    the uint64 ones for a ``fn`` returning unsigned integers, for min / max). An integer sum is
    exact, however large (see the module docstring). One launch, one device read. ``target``
    applies to ranges (a frontier runs on its own target)."""
    graph = range_graph(graph, where)
    plan, tgt, io, dtype = reduce_plan(graph, where, fn, state, op, target)
    start, starts = _start(op, dtype)
    result = _result_buffer(tgt, start.dtype)
    tgt.upload(result, starts)
    plan.buffers.update(result=result, identity=start)
    launch_plan(plan, graph, tgt, io, state)
    return _value(op, dtype, tgt.to_host(result).tolist())
