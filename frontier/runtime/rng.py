"""Counter-based random numbers usable inside functors on every target.

A GPU thread cannot share a sequential generator with the others, so the numbers here are a pure
function of a *seed* and a *key* (a vertex or edge id, an iteration, or any mix of them):
``random_bits(seed, key)`` is the same 64 bits wherever and whenever it is computed, in any
thread order::

    def coin(v, heads, seed):
        heads[v] = random(seed, v) < 0.5

The generator is SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014, section 3: the ``mix64`` finaliser with the golden-gamma increment, as
in Java's ``SplittableRandom``), used counter-style::

    random_bits(seed, key) = splitmix64(seed XOR splitmix64(key))
    random(seed, key)      = (random_bits(seed, key) >> 11) * 2**-53      # a float64 in [0, 1)

where ``splitmix64(x)`` is the first output of a SplitMix64 generator seeded with ``x``. Seed and
key are integers taken modulo 2**64 (a negative one in two's complement), as compiled code's
conversion to ``uint64`` takes them; all arithmetic wraps modulo 2**64. On the sequential CPU
target and on CUDA the functions compile to ``uint64`` arithmetic (through Numba's ``overload``,
the mechanism of :mod:`frontier.runtime.atomics`); called as plain Python (from the host, or by the
Numba CUDA simulator, which hands functors Python ints) they mask explicitly, so the three compute
the same bits. The float keeps the top 53 bits, so it is exact and identical everywhere too.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
from numba.core import types
from numba.core.errors import TypingError
from numba.core.extending import overload as cpu_overload

from frontier.runtime import cuda_support
from frontier.runtime.devicefn import device_function

__all__ = ["random", "random_bits"]

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15  # the golden gamma: 2**64 / the golden ratio, odd
_MUL1 = 0xBF58476D1CE4E5B9
_MUL2 = 0x94D049BB133111EB
_UNIT = 2.0 ** -53


def _as_u64(value: Any, name: str, caller: str) -> int:
    """``value`` (a Python or NumPy integer, not a bool) as a Python int modulo 2**64."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"frontier.{caller}: {name} must be an integer (a Python int or a NumPy "
                        f"integer), got {type(value).__name__} {value!r}")
    return int(value) & _MASK


def _splitmix64(x: int) -> int:
    z = (x + _GAMMA) & _MASK
    z = ((z ^ (z >> 30)) * _MUL1) & _MASK
    z = ((z ^ (z >> 27)) * _MUL2) & _MASK
    return z ^ (z >> 31)


def _bits(seed: Any, key: Any, caller: str) -> int:
    s = _as_u64(seed, "seed", caller)
    k = _as_u64(key, "key", caller)
    return _splitmix64(s ^ _splitmix64(k))


def random_bits(seed: Any, key: Any) -> np.uint64:
    """64 random bits, a function of the integers ``seed`` and ``key`` only (a ``uint64``)."""
    return np.uint64(_bits(seed, key, "random_bits"))


def random(seed: Any, key: Any) -> float:
    """A float64 in [0, 1), a function of the integers ``seed`` and ``key`` only: the top 53
    bits of :func:`random_bits` times 2**-53."""
    return (_bits(seed, key, "random") >> 11) * _UNIT


# Compiled targets: the same arithmetic on uint64, which wraps modulo 2**64 by itself.
_U_GAMMA = np.uint64(_GAMMA)
_U_MUL1 = np.uint64(_MUL1)
_U_MUL2 = np.uint64(_MUL2)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U11 = np.uint64(11)


def _check_types(caller: str, seed: Any, key: Any) -> None:
    """Numba's typing of a call inside a functor: integers only, as on the host."""
    for name, ty in (("seed", seed), ("key", key)):
        if not isinstance(ty, types.Integer):
            raise TypingError(f"frontier.{caller}: {name} must be an integer, got {ty}")


def _compiled_splitmix64(x):
    z = x + _U_GAMMA
    z = (z ^ (z >> _U30)) * _U_MUL1
    z = (z ^ (z >> _U27)) * _U_MUL2
    return z ^ (z >> _U31)


def _compiled_bits(seed, key):
    return _compiled_splitmix64(np.uint64(seed) ^ _compiled_splitmix64(np.uint64(key)))


def _bits_impl(seed, key):
    _check_types("random_bits", seed, key)

    def impl(seed, key):
        return _compiled_bits(seed, key)
    return impl


def _random_impl(seed, key):
    _check_types("random", seed, key)

    def impl(seed, key):
        return np.float64(_compiled_bits(seed, key) >> _U11) * _UNIT
    return impl


# The compiled helpers are callable from both targets' compiled code.
device_function(_compiled_splitmix64)
device_function(_compiled_bits)
cpu_overload(random_bits, target="cpu")(_bits_impl)
cpu_overload(random, target="cpu")(_random_impl)


def _register_cuda(cuda: ModuleType) -> None:
    """The CUDA versions, registered when the library loads numba.cuda
    (:func:`frontier.runtime.cuda_support.on_load`)."""
    cuda_overload = cuda_support.cuda_overload()
    if cuda_overload is not None:  # None: a numba.cuda without the CUDA typing layer
        cuda_overload(random_bits, target="cuda")(_bits_impl)
        cuda_overload(random, target="cuda")(_random_impl)


cuda_support.on_load(_register_cuda)
