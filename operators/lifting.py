"""Closure scalars as kernel arguments: a functor's code rewritten so that the numbers it reads
from its closure become leading parameters.

Numba compiles what a function reads from its closure as constants of the compiled code, so a
functor made anew each round around a changing number (``lambda v, out: ... k ...`` with a
round number ``k``) would compile a new kernel every round. Instead, :func:`lift` rewrites the
function's bytecode: each closure variable holding a number (a bool, an int that fits int64, a
float, or a NumPy number) is loaded from a new leading positional parameter instead of its
cell, so the compiled code takes it as an argument: one compilation per distinct *type*, and the
kernel passes the value of the call (:mod:`operators.convention` names these parameters).

The rewrite maps every local and cell operand by name from the code's old layout of fast
locals (``co_varnames``, cells, free variables; Python 3.11 and later) to the new one, with the
lifted names first; ``COPY_FREE_VARS`` counts the free variables left. It gives up (returns
None, and the closure stays frozen into the compiled code as before) where the code has cells
of its own (a nested closure), an ``EXTENDED_ARG`` prefix, a packed pair of locals that no
longer fits, or runs on a Python before 3.11.
"""

from __future__ import annotations

import dis
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["lift", "is_runtime_scalar"]

_INT64 = (-(2 ** 63), 2 ** 63)
_LOAD_DEREF, _LOAD_FAST = dis.opmap["LOAD_DEREF"], dis.opmap["LOAD_FAST"]
_COPY_FREE_VARS = dis.opmap.get("COPY_FREE_VARS")
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]
_LOCAL = frozenset(dis.haslocal)
_FREE = frozenset(dis.hasfree)
#: Opcodes whose argument packs two local indices of four bits each (Python 3.13).
_PACKED = frozenset(op for op in dis.haslocal if dis.opname[op].count("FAST") == 2)


def is_runtime_scalar(value: Any) -> bool:
    """Whether ``value`` is a number a kernel takes as an argument (typed by its type alone)."""
    if isinstance(value, (bool, np.bool_, float, np.floating, np.integer)):
        return True
    return isinstance(value, int) and _INT64[0] <= value < _INT64[1]


def lift(fn: Callable, names: tuple[str, ...]) -> Callable | None:
    """``fn`` with its free variables ``names`` turned into leading positional parameters (in
    that order), its other free variables kept in its closure; None where the bytecode cannot
    be rewritten (see the module docstring)."""
    code = fn.__code__
    if sys.version_info < (3, 11) or code.co_cellvars or not names:
        return None
    kept = tuple(n for n in code.co_freevars if n not in names)
    old = code.co_varnames + code.co_freevars
    new = names + code.co_varnames + kept
    where = {name: i for i, name in enumerate(new)}
    raw = bytearray(code.co_code)
    for at in range(0, len(raw), 2):
        op, arg = raw[at], raw[at + 1]
        if op == _EXTENDED_ARG:
            return None
        if op == _COPY_FREE_VARS:
            raw[at + 1] = len(kept)
        elif op in _PACKED:
            first, second = where[old[arg >> 4]], where[old[arg & 15]]
            if first > 15 or second > 15:
                return None
            raw[at + 1] = first << 4 | second
        elif op in _LOCAL or op in _FREE:
            name = old[arg]
            if name in names and op != _LOAD_DEREF:
                return None  # stored or deleted: not a read-only number
            if where[name] > 255:
                return None
            raw[at] = _LOAD_FAST if name in names else op
            raw[at + 1] = where[name]
    lifted = code.replace(
        co_code=bytes(raw), co_varnames=names + code.co_varnames, co_freevars=kept,
        co_argcount=code.co_argcount + len(names), co_nlocals=code.co_nlocals + len(names),
        co_posonlyargcount=code.co_posonlyargcount + len(names) if code.co_posonlyargcount
        else 0)
    cells = dict(zip(code.co_freevars, fn.__closure__ or (), strict=True))
    out = types.FunctionType(lifted, fn.__globals__, fn.__name__, fn.__defaults__,
                             tuple(cells[n] for n in kept) or None)
    out.__kwdefaults__ = fn.__kwdefaults__
    out.__qualname__ = fn.__qualname__
    out.__module__ = fn.__module__
    return out
