"""A plain-Python reference for :func:`frontier.random` and :func:`frontier.random_bits`.

SplitMix64 written as the sequential generator of Steele, Lea & Flood ("Fast splittable
pseudorandom number generators", OOPSLA 2014, section 3): a 64-bit state advanced by the golden
gamma, each output the ``mix64`` finaliser of the new state, all arithmetic modulo 2**64. The
counter-based functions the functors call are defined from it (``splitmix64(x)`` is the first
output of a generator seeded with ``x``)::

    reference_random_bits(seed, key) = splitmix64(seed XOR splitmix64(key))
    reference_random(seed, key)      = (reference_random_bits(seed, key) >> 11) * 2**-53

Nothing here is shared with :mod:`frontier.runtime.rng`, so the two can judge each other; the
generator itself reproduces published SplitMix64 outputs (``tests/frontier/test_random.py``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SplitMix64", "reference_splitmix64", "reference_random_bits", "reference_random",
           "reference_random_bits_of"]

MODULUS = 2 ** 64
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MIX1, MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


class SplitMix64:
    """The sequential generator: ``next()`` returns 64-bit outputs as Python ints."""

    def __init__(self, seed: int) -> None:
        self.state = seed % MODULUS

    def next(self) -> int:
        self.state = (self.state + GOLDEN_GAMMA) % MODULUS
        z = self.state
        z = ((z ^ (z >> 30)) * MIX1) % MODULUS
        z = ((z ^ (z >> 27)) * MIX2) % MODULUS
        return z ^ (z >> 31)


def reference_splitmix64(x: int) -> int:
    """The first output of a SplitMix64 generator seeded with ``x`` (modulo 2**64)."""
    return SplitMix64(x).next()


def reference_random_bits(seed: int, key: int) -> int:
    """What ``frontier.random_bits(seed, key)`` returns, as a Python int."""
    return reference_splitmix64((seed % MODULUS) ^ reference_splitmix64(key))


def reference_random(seed: int, key: int) -> float:
    """What ``frontier.random(seed, key)`` returns."""
    return (reference_random_bits(seed, key) >> 11) / 2 ** 53


def _splitmix64_of(x: np.ndarray) -> np.ndarray:
    """:func:`reference_splitmix64` of every element of the uint64 array ``x`` (wrapping)."""
    z = x + np.uint64(GOLDEN_GAMMA)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
    return z ^ (z >> np.uint64(31))


def reference_random_bits_of(seed: int, keys: np.ndarray) -> np.ndarray:
    """:func:`reference_random_bits` of ``seed`` and every key of ``keys`` at once (uint64),
    for references that draw one value per vertex of a large graph."""
    with np.errstate(over="ignore"):
        return _splitmix64_of(np.uint64(seed % MODULUS)
                              ^ _splitmix64_of(np.asarray(keys, dtype=np.uint64)))
