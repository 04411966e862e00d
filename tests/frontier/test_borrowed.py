"""``frontier.runtime.borrowed.borrowed``: the identity from Python; compiled, an array that reads
and writes the caller's memory (without its reference count) and any other value unchanged."""

from __future__ import annotations

import numba
import numpy as np

from frontier.runtime.borrowed import borrowed


def test_borrowed_is_the_identity_from_python():
    a = np.arange(3)
    assert borrowed(a) is a and borrowed(7) == 7


@numba.njit
def _through(a, b, x, flag):
    a = borrowed(a)
    b = borrowed(b)
    x = borrowed(x)
    flag = borrowed(flag)
    for i in range(a.size):
        a[i] += x if flag else 0
    return a.sum() + b[0], x


def test_a_compiled_borrowed_array_is_the_callers_memory_and_scalars_pass_unchanged():
    a, b = np.arange(4, dtype=np.int64), np.array([0.5, 9.0])
    total, x = _through(a, b, 3, True)
    np.testing.assert_array_equal(a, [3, 4, 5, 6])
    assert total == 18.5 and x == 3
