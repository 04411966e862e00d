"""Atomic instructions for code Numba compiles for the CPU, emitted as LLVM IR.

Numba has no CPU atomics of its own. These intrinsics (``numba.core.extending.intrinsic``)
lower to LLVM's ``atomicrmw`` (``add``, ``fadd``, ``min``/``max``, ``umin``/``umax``, ``or``,
``xchg``), ``cmpxchg`` and atomic ``load``/``store`` on the address of ``array[index]``, so the
functors' atomics (:mod:`frontier.runtime.atomics`) stay atomic when the cpu target runs a
kernel on several threads (:mod:`frontier.runtime.cpu_threads`). Read-modify-writes are
sequentially consistent; :func:`load` and :func:`store` are monotonic (C++'s relaxed): what the
functors' relaxed atomics promise, and what keeps LLVM from caching a value another thread
changes (a spin loop's load is read every time).

An index is taken as Numba's ``array[index]`` takes it (a negative signed index counts from the
end); the value is cast to the array's element type first, as a store of it would be. The
element types are the integers and the floats; a float minimum or maximum is a
``cmpxchg`` loop on its bit pattern with the comparison of the plain code (``value < old``), a
float compare-and-swap compares bit patterns. A minimum, maximum, ``or`` or compare-and-swap
reads the element first and makes no locked instruction where it would change nothing (the
check GAP's and Ligra's ``writeMin`` make): the common case of a traversal's relaxations; so
does an exchange that would store the value held (a stamp already set).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba.core import cgutils, targetconfig, types
from numba.core.errors import TypingError
from numba.core.extending import intrinsic

__all__ = ["fetch_add", "fetch_min", "fetch_max", "fetch_or", "exchange", "compare_exchange",
           "load", "store", "pause", "ONE_THREAD", "one_thread_caller"]

#: The Numba options the code of the sequential cpu target (functors and kernels that one
#: thread runs) is compiled with: ``forceinline``, which changes no result, is how
#: :func:`one_thread_caller` knows such code (Numba keys an overload's implementation by its
#: caller's options, so each kind of caller gets its own).
ONE_THREAD = {"forceinline": True}

#: The Numba options of the parallel cpu target's code: inlined as the sequential code is (a
#: functor called per element is no call), and without the GIL, which tells it apart. Numba
#: passes ``forceinline`` on to the functions it compiles for a caller, not ``nogil``: the
#: helpers a functor calls (:func:`frontier.device_function`) are compiled with the functor's
#: ``nogil`` by :mod:`frontier.runtime.devicefn`, else they would be one thread's code.
TEAM = {"forceinline": True, "nogil": True}


def one_thread_caller() -> bool:
    """Whether the function Numba compiles now is code of the sequential cpu target
    (:data:`ONE_THREAD`); its atomics may then be plain read-modify-writes. Any other caller (a
    parallel kernel and the helpers it calls, a function compiled with Numba's default
    options) gets the atomic instructions."""
    flags = targetconfig.ConfigStack.top_or_none()
    return flags is not None and flags.forceinline and not flags.release_gil

_RMW_ORDER = "seq_cst"
_RELAXED = "monotonic"


def _element(array: Any, what: str) -> Any:
    """The element type of ``array``, an integer or float array; TypingError otherwise."""
    if not isinstance(array, types.Array) or not isinstance(array.dtype, (types.Integer,
                                                                          types.Float)):
        raise TypingError(f"{what} takes an array of integers or floats, not {array}")
    return array.dtype


def _address(context: Any, builder: Any, aryty: Any, ary: Any, idxty: Any, idx: Any) -> Any:
    """The pointer to ``ary[idx]`` (an index counted from the end where negative and
    signed)."""
    array = context.make_array(aryty)(context, builder, ary)
    index = context.cast(builder, idx, idxty, types.intp)
    signed = not isinstance(idxty, types.Integer) or idxty.signed
    return cgutils.get_item_pointer(context, builder, aryty, array, [index],
                                    wraparound=signed)


def _as_int(builder: Any, ptr: Any, value: Any, dtype: Any) -> tuple[Any, Any]:
    """``ptr`` and ``value`` as an integer pointer and integer of the same width (floats by
    their bit pattern)."""
    if isinstance(dtype, types.Integer):
        return ptr, value
    word = ir.IntType(dtype.bitwidth)
    return builder.bitcast(ptr, word.as_pointer()), builder.bitcast(value, word)


def _rmw(kind: str, what: str) -> Any:
    """An intrinsic ``(array, index, value) -> old`` making ``atomicrmw`` of ``kind``:
    ``add``, ``min``, ``max``, ``or`` or ``xchg`` (the float and unsigned forms picked by the
    element type)."""

    def typer(typingctx: Any, array: Any, index: Any, value: Any) -> Any:
        dtype = _element(array, what)
        if kind == "or" and not isinstance(dtype, types.Integer):
            raise TypingError(f"{what} takes an array of integers, not {array}")
        if kind in ("min", "max") and isinstance(dtype, types.Float):
            op = None
        elif kind == "add" and isinstance(dtype, types.Float):
            op = "fadd"
        elif kind in ("min", "max") and not dtype.signed:
            op = "u" + kind
        else:
            op = kind

        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            aryty, idxty, valty = sig.args
            ary, idx, val = args
            ptr = _address(context, builder, aryty, ary, idxty, idx)
            val = context.cast(builder, val, valty, dtype)
            if op is None:
                return _float_extreme(builder, ptr, val, dtype, kind)
            if kind in ("min", "max", "or", "xchg"):
                return _when_changing(builder, ptr, dtype, _CHANGES[op](builder, val),
                                      lambda: builder.atomic_rmw(op, ptr, val, _RMW_ORDER))
            return builder.atomic_rmw(op, ptr, val, _RMW_ORDER)

        return dtype(array, index, value), codegen

    typer.__name__ = what
    return intrinsic(typer)


#: Per ``atomicrmw`` operation that may leave the element as it is: given the builder and the
#: value, a function of the held value telling whether the operation would change it.
_CHANGES = {
    "min": lambda b, v: lambda old: b.icmp_signed("<", v, old),
    "max": lambda b, v: lambda old: b.icmp_signed(">", v, old),
    "umin": lambda b, v: lambda old: b.icmp_unsigned("<", v, old),
    "umax": lambda b, v: lambda old: b.icmp_unsigned(">", v, old),
    "or": lambda b, v: lambda old: b.icmp_unsigned("!=", b.or_(old, v), old),
    "xchg": lambda b, v: lambda old: b.icmp_unsigned("!=", _bits(b, old), _bits(b, v)),
}


def _bits(builder: Any, value: Any) -> Any:
    """``value`` as an integer of its width (a float's bit pattern)."""
    if isinstance(value.type, ir.IntType):
        return value
    return builder.bitcast(value, ir.IntType(64 if isinstance(value.type, ir.DoubleType)
                                             else 32))


def _when_changing(builder: Any, ptr: Any, dtype: Any, changes: Any, rmw: Any) -> Any:
    """``rmw()`` only where ``changes(held)`` says it would change the held value (read by a
    relaxed load first); else the held value, as the operation would return it. A minimum
    that lowers nothing, a compare-and-swap that would fail, an ``or`` of bits already set, an
    exchange for the value held then cost a plain load instead of a locked instruction (most
    relaxations of a traversal change nothing), and the operation is linearized at that
    load."""
    held = builder.load_atomic(ptr, _RELAXED, dtype.bitwidth // 8)
    with builder.if_else(changes(held)) as (then, otherwise):
        with then:
            made = rmw()
            made_in = builder.block
        with otherwise:
            kept_in = builder.block
    old = builder.phi(held.type)
    old.add_incoming(made, made_in)
    old.add_incoming(held, kept_in)
    return old


def _float_extreme(builder: Any, ptr: Any, value: Any, dtype: Any, kind: str) -> Any:
    """A float ``min``/``max`` by a ``cmpxchg`` loop: while ``value`` is below (above) the
    held value, swap it in; returns the value held before."""
    iptr, ivalue = _as_int(builder, ptr, value, dtype)
    word = ivalue.type
    start = builder.load_atomic(iptr, _RELAXED, dtype.bitwidth // 8)
    entry = builder.block
    head = builder.append_basic_block("extreme.head")
    swap = builder.append_basic_block("extreme.swap")
    done = builder.append_basic_block("extreme.done")
    builder.branch(head)
    builder.position_at_end(head)
    held = builder.phi(word)
    held.add_incoming(start, entry)
    old = builder.bitcast(held, value.type)
    better = (builder.fcmp_ordered("<", value, old) if kind == "min"
              else builder.fcmp_ordered(">", value, old))
    builder.cbranch(better, swap, done)
    builder.position_at_end(swap)
    pair = builder.cmpxchg(iptr, held, ivalue, _RMW_ORDER, _RMW_ORDER)
    seen, ok = builder.extract_value(pair, 0), builder.extract_value(pair, 1)
    held.add_incoming(seen, swap)
    builder.cbranch(ok, done, head)
    builder.position_at_end(done)
    result = builder.phi(word)
    result.add_incoming(held, head)
    result.add_incoming(held, swap)
    return builder.bitcast(result, value.type)


fetch_add = _rmw("add", "fetch_add")
fetch_min = _rmw("min", "fetch_min")
fetch_max = _rmw("max", "fetch_max")
fetch_or = _rmw("or", "fetch_or")
exchange = _rmw("xchg", "exchange")


@intrinsic
def compare_exchange(typingctx: Any, array: Any, index: Any, expected: Any, value: Any) -> Any:
    """``(array, index, expected, value) -> old``: store ``value`` where ``array[index]``
    holds ``expected`` (floats: the same bit pattern), atomically."""
    dtype = _element(array, "compare_exchange")

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        aryty, idxty, expty, valty = sig.args
        ary, idx, exp, val = args
        ptr = _address(context, builder, aryty, ary, idxty, idx)
        exp = context.cast(builder, exp, expty, dtype)
        val = context.cast(builder, val, valty, dtype)
        iptr, ival = _as_int(builder, ptr, val, dtype)
        _, iexp = _as_int(builder, ptr, exp, dtype)
        old = _when_changing(
            builder, iptr, dtype, lambda held: builder.icmp_unsigned("==", held, iexp),
            lambda: builder.extract_value(builder.cmpxchg(iptr, iexp, ival, _RMW_ORDER,
                                                          _RMW_ORDER), 0))
        return old if isinstance(dtype, types.Integer) else builder.bitcast(old, val.type)

    return dtype(array, index, expected, value), codegen


@intrinsic
def load(typingctx: Any, array: Any, index: Any) -> Any:
    """``array[index]`` by a monotonic (relaxed) atomic load."""
    dtype = _element(array, "load")

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        aryty, idxty = sig.args
        ptr = _address(context, builder, aryty, args[0], idxty, args[1])
        return builder.load_atomic(ptr, _RELAXED, dtype.bitwidth // 8)

    return dtype(array, index), codegen


@intrinsic
def store(typingctx: Any, array: Any, index: Any, value: Any) -> Any:
    """``array[index] = value`` by a monotonic (relaxed) atomic store."""
    dtype = _element(array, "store")

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        aryty, idxty, valty = sig.args
        ptr = _address(context, builder, aryty, args[0], idxty, args[1])
        val = context.cast(builder, args[2], valty, dtype)
        builder.store_atomic(val, ptr, _RELAXED, dtype.bitwidth // 8)
        return context.get_dummy_value()

    return types.none(array, index, value), codegen


@intrinsic
def pause(typingctx: Any) -> Any:
    """A spin-wait hint to the processor (x86 ``pause``; nothing elsewhere), for a thread
    waiting on another's store."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        if "x86" in str(builder.module.triple) or "i686" in str(builder.module.triple):
            hint = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), ()), "llvm.x86.sse2.pause")
            builder.call(hint, ())
        return context.get_dummy_value()

    return types.none(), codegen
