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
:meth:`frontier.runtime.target.CpuTarget.kernel_entry` rebinds every argument of a cpu kernel
through it. Called from Python (the race detector runs kernels uncompiled) it is the identity.
Compiled, it is typed and lowered in place, as Numba's builtins are (``infer_global`` and
``lower_builtin``), so a fresh machine compiles no function of its own per argument type.
"""

from __future__ import annotations

from typing import Any

from numba.core import cgutils, types
from numba.core.imputils import impl_ret_borrowed, lower_builtin
from numba.core.typing.templates import AbstractTemplate, infer_global, signature

__all__ = ["borrowed"]


def borrowed(value: Any) -> Any:
    """``value`` itself; compiled, an array without its reference count (module docstring)."""
    return value


# Typed and lowered in place, as Numba's own builtins are: no function of its own to compile
# per argument type (an ``overload`` compiled one per type, ~20 ms each on a fresh machine).
@infer_global(borrowed)
class _Borrowed(AbstractTemplate):
    def generic(self, args: tuple, kws: dict) -> Any:
        if len(args) == 1 and not kws:
            return signature(args[0], args[0])
        return None


@lower_builtin(borrowed, types.Any)
def _lower_borrowed(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    (kind,), (value,) = sig.args, args
    if not isinstance(kind, types.Array):
        return impl_ret_borrowed(context, builder, kind, value)
    source = context.make_array(kind)(context, builder, value=value)
    result = context.make_array(kind)(context, builder)
    for name in ("parent", "nitems", "itemsize", "data", "shape", "strides"):
        setattr(result, name, getattr(source, name))
    result.meminfo = cgutils.get_null_value(result.meminfo.type)
    return result._getvalue()
