"""The identity of a value that compiled code freezes: its type and its exact value.

Numba compiles the numbers a function reads besides its arguments (its constants, closure cells,
defaults, module globals) into its code, so compiled code may be reused for another value only
where that value is the same *for compiled code*. Python's ``==`` (and the hash that agrees with
it) is too coarse for that: ``0.0 == -0.0`` although ``math.copysign(1, x)`` tells them apart,
``False == 0 == 0.0`` although ``~False`` and ``~0`` differ and the three compile to different
types, and ``nan != nan`` although one nan compiles to the same code every time. A cache of
compiled code keyed by ``==`` would hand out code compiled for another value, and which one
would depend on the order of the calls.

:func:`identity` maps a value to a key that is equal for two values exactly when they are of
one type and one value: floats (and complex numbers, NumPy floats) by their bit pattern (so
``-0.0`` differs from ``0.0``, and a nan equals a nan of the same bits), NumPy scalars by their
dtype and bytes, tuples and frozensets element by element. Whatever else it is given
(strings, functions, classes, ...) is its own key: ``==`` is exact for those.

Numba looks compiled code up by ``==`` in one place of its own: the type of an argument a call
leaves to its default (``types.Omitted(default)``) is interned by ``(type, value)``, so a
functor with the default ``-0.0`` compiled after one with ``0.0`` would get the type, and the
constant, of ``0.0``. :func:`exact_defaults` makes that type use :func:`identity` too.
"""

from __future__ import annotations

import struct
from collections.abc import Hashable
from typing import Any

import numpy as np

__all__ = ["identity", "bits", "exact_defaults"]

_DOUBLE = struct.Struct("<d")


def bits(value: Any) -> bytes | None:
    """The bytes of a float, a complex number or a NumPy scalar, what tells ``-0.0`` from
    ``0.0`` and one nan from another; None for anything else."""
    if isinstance(value, np.generic):
        return value.tobytes()
    if isinstance(value, float):
        return _DOUBLE.pack(value)
    if isinstance(value, complex):
        return _DOUBLE.pack(value.real) + _DOUBLE.pack(value.imag)
    return None


def identity(value: Any) -> Hashable:
    """A key equal to ``identity(other)`` exactly when ``value`` and ``other`` are of one type
    and one value (see the module docstring). ``value`` must be hashable."""
    kind = type(value)
    if kind is bool or kind is int or kind is str:  # equal values of one type are the same
        return (kind, value)
    exact = bits(value)
    if exact is not None:
        return (kind, value.dtype.str, exact) if isinstance(value, np.generic) else (kind, exact)
    if isinstance(value, (int, str, bytes)):  # a subclass too: its type tells it apart
        return (kind, value)
    if isinstance(value, tuple):
        return (kind, tuple(identity(v) for v in value))
    if isinstance(value, frozenset):
        return (kind, frozenset(identity(v) for v in value))
    return value


def exact_defaults(omitted: type) -> None:
    """Make ``omitted`` (Numba's, or Numba CUDA's, ``types.Omitted``) tell default values apart
    as :func:`identity` does (see the module docstring); idempotent."""
    if omitted.__dict__.get("_exact_defaults"):
        return
    omitted.key = property(_omitted_key)
    omitted._exact_defaults = True


def _omitted_key(self: Any) -> Hashable:
    return type(self._value), identity(self._value_key)
