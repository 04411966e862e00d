"""Ids read from the graph's and the frontiers' arrays, used as indices known not to be negative.

Numba wraps a negative index around, as Python does: every ``a[i]`` with a signed ``i`` costs a
compare and a select unless LLVM can prove ``i >= 0``, which it cannot for an id loaded from an
array (a vertex id read from ``col_indices`` or from a queue). An advance indexes several
arrays with each such id, in the kernel and in its inlined functors (``distances[dst]``,
``predecessors[dst]``), so on the sequential cpu target those tests were a large part of a
traversal's time.

``as_index(x)`` is the id ``x`` as an int64 that LLVM knows to be non-negative: a 32-bit id
zero-extended, a 64-bit one with its sign bit cleared. Every valid id keeps its value (ids are
never negative), and every access indexed by it, the functors' included, loses the wrap-around
test. Kernel text reads ids through :func:`operators.codegen.id_at`; the cpu target compiles the
calls (:meth:`frontier.runtime.target.CpuTarget.index_reads`), other targets read the ids plainly.
Called from Python (the race detector runs cpu kernels uncompiled) it is the identity.
Typed and lowered in place, as Numba's builtins are (like
:func:`frontier.runtime.borrowed.borrowed`), so a fresh machine compiles no function of its own for
it.
"""

from __future__ import annotations

from typing import Any

from numba.core import types
from numba.core.imputils import lower_builtin
from numba.core.typing.templates import AbstractTemplate, infer_global, signature

__all__ = ["as_index"]


def as_index(value: Any) -> Any:
    """``value`` itself; compiled, the integer id as a non-negative int64 (module docstring)."""
    return value


@infer_global(as_index)
class _AsIndex(AbstractTemplate):
    def generic(self, args: tuple, kws: dict) -> Any:
        if len(args) == 1 and not kws and isinstance(args[0], types.Integer) \
                and args[0].bitwidth in (32, 64):
            return signature(types.int64, args[0])
        return None


@lower_builtin(as_index, types.Integer)
def _lower_as_index(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    (kind,), (value,) = sig.args, args
    wide = context.get_value_type(types.int64)
    if kind.bitwidth == 32:
        return builder.zext(value, wide)
    return builder.and_(value, wide(0x7FFF_FFFF_FFFF_FFFF))


def index_after(first: Any, offset: Any) -> Any:
    """``first + offset``; compiled, an addition LLVM knows not to overflow (``nsw nuw``), so
    that ``first`` known not to be negative (:func:`as_index`) and ``offset`` a count from 0
    (a loop's ``range(n)``) make indices known not to be negative, consecutive in the loop:
    a chunk's elements (:func:`frontier.runtime.cpu_threads.chunked`)."""
    return first + offset


@infer_global(index_after)
class _IndexAfter(AbstractTemplate):
    def generic(self, args: tuple, kws: dict) -> Any:
        if len(args) == 2 and not kws and all(isinstance(a, types.Integer) for a in args):
            return signature(types.int64, *args)
        return None


@lower_builtin(index_after, types.Integer, types.Integer)
def _lower_index_after(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    first, offset = (context.cast(builder, value, kind, types.int64)
                     for value, kind in zip(args, sig.args, strict=True))
    return builder.add(first, offset, flags=("nsw", "nuw"))
