"""Values compiled code freezes are told apart by type and exact value, in memory
(:func:`frontier.runtime.identity.identity`) and in the disk cache's key
(:func:`frontier.runtime.fingerprint.fingerprint`): ``-0.0`` is not ``0.0``, ``False`` is not ``0``,
a NumPy number is not a Python one, and a nan is the same nan every time."""

from __future__ import annotations

import struct

import numba
import numpy as np
import pytest

from frontier.runtime.fingerprint import fingerprint
from frontier.runtime.identity import identity

OTHER_NAN = struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000001))[0]

#: Pairs equal by ``==`` (and hashing alike) that compiled code tells apart.
EQUAL_BUT_NOT_THE_SAME = [
    (0.0, -0.0), (False, 0), (0, 0.0), (True, 1), (1, np.int64(1)), (1.0, np.float64(1.0)),
    (np.float32(0.5), np.float64(0.5)), (np.float64(0.0), np.float64(-0.0)),
    (np.float32(0.0), np.float32(-0.0)), (np.int32(3), np.int64(3)),
    (complex(0, 0), complex(0, -0.0)),
    ((0.0, 1), (-0.0, 1)), ((False,), (0,)), (frozenset({0.0}), frozenset({-0.0})),
]


@pytest.mark.parametrize(("a", "b"), EQUAL_BUT_NOT_THE_SAME, ids=repr)
def test_values_equal_by_eq_are_different_values_for_compiled_code(a, b):
    assert a == b and hash(a) == hash(b)
    assert identity(a) != identity(b)
    assert fingerprint(a) != fingerprint(b)


@pytest.mark.parametrize("make", [lambda: float("nan"), lambda: np.float64("nan"),
                                  lambda: np.float32("nan"), lambda: (float("nan"), 1)],
                         ids=["float", "float64", "float32", "tuple"])
def test_a_nan_is_the_same_value_every_time(make):
    a, b = make(), make()
    assert a is not b
    assert identity(a) == identity(b) and hash(identity(a)) == hash(identity(b))
    assert fingerprint(a) == fingerprint(b)


def test_nans_of_other_bits_are_other_values():
    assert identity(float("nan")) != identity(OTHER_NAN)
    assert fingerprint(float("nan")) != fingerprint(OTHER_NAN)


def test_other_values_keep_their_equality():
    assert identity("a") == identity("a") and identity(None) == identity(None)
    assert identity(np.int64) == identity(np.int64) and identity(abs) == identity(abs)


def test_numba_defaults_are_told_apart_by_their_bits():
    """Numba's type of an omitted argument is interned by its default value; the targets make
    it use these identities (otherwise ``-0.0`` compiled after ``0.0`` gets ``0.0``)."""
    from frontier.runtime.identity import exact_defaults

    exact_defaults(numba.core.types.Omitted)
    assert numba.core.types.Omitted(0.0) is not numba.core.types.Omitted(-0.0)
    assert numba.core.types.Omitted(-0.0).value.hex() == "-0x0.0p+0"
    assert numba.core.types.Omitted(1.5) is numba.core.types.Omitted(1.5)
