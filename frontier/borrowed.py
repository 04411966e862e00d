"""borrowed: a cpu kernel's array arguments used without reference counting.

Numba's runtime counts the references to every array a compiled function holds. Passing an
array to another compiled function (a functor, called once per vertex or edge of a kernel's
loop) increments its count before the call and decrements it after, with atomic instructions,
and LLVM's reference-count pruning leaves them in the loop wherever the inlined functor
branches. A functor of two state arrays then pays four atomics, about 20 ns, per call on the
cpu target: ten to a hundred times its own work (a filter over 114,599 vertices took 2.3 ms for
0.03 ms of comparisons).

A kernel's arguments outlive its launch (the caller holds them), so the kernel may use them
borrowed: ``borrowed(a)`` is the array ``a`` with no memory-info pointer, whose reference
counting is then a test of a null pointer, not an atomic. Any other value passes unchanged.
:meth:`frontier.target.CpuTarget.kernel_entry` rebinds every argument of a cpu kernel through
it. Called from Python (the race detector runs kernels uncompiled) it is the identity.
"""

from __future__ import annotations

from typing import Any

from numba.core import cgutils, types
from numba.extending import intrinsic, overload

__all__ = ["borrowed"]


def borrowed(value: Any) -> Any:
    """``value`` itself; compiled, an array without its reference count (module docstring)."""
    return value


@intrinsic
def _without_meminfo(typingctx: Any, array: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        source = context.make_array(array)(context, builder, value=args[0])
        result = context.make_array(array)(context, builder)
        for name in ("parent", "nitems", "itemsize", "data", "shape", "strides"):
            setattr(result, name, getattr(source, name))
        result.meminfo = cgutils.get_null_value(result.meminfo.type)
        return result._getvalue()

    return array(array), codegen


@overload(borrowed, target="cpu")
def _borrowed(value: Any) -> Any:
    # the implementations' parameters are the stub's, annotations included (Numba compares them)
    if isinstance(value, types.Array):
        def array(value: Any) -> Any:
            return _without_meminfo(value)

        return array

    def other(value: Any) -> Any:
        return value

    return other
