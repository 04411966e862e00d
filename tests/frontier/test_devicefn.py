"""Helpers registered with ``device_function`` are callable from functors on every target."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from frontier import Graph, atomic_add, device_function
from frontier.runtime import cpu_atomics
from operators import compute


@device_function
def root(parent, v):
    while parent[v] != v:
        v = parent[v]
    return v


@device_function
def count_root(parent, counts, v):
    """A helper calling another helper and an atomic."""
    atomic_add(counts, root(parent, v), 1)


def tally(v, parent, counts):
    count_root(parent, counts, v)


def test_a_functor_calls_registered_helpers_and_gets_what_python_gets(target):
    parent = np.array([0, 0, 1, 3, 3, 2, 6], dtype=np.int32)
    g = Graph.from_edges(np.array([0]), np.array([1]), num_vertices=parent.size)
    counts = target.zeros(parent.size, np.int32)
    compute(g, "vertices", tally, target.to_device(parent), counts, target=target)
    expected = np.bincount([root(parent, v) for v in range(parent.size)], minlength=parent.size)
    assert target.to_host(counts).tolist() == expected.tolist()


def test_device_function_returns_the_function_itself():
    def plain(x):
        return x + 1

    assert device_function(plain) is plain and plain(1) == 2


# A helper's atomics are of its caller's kind: plain read-modify-writes in the code of the cpu
# target of one thread, the processor's atomic instructions in the code several threads run (and
# so in the checked mode). Numba compiles a helper with the options its caller passes on
# (``forceinline``), not the others (``nogil``, ``boundscheck``): compiled as one thread's code,
# the compare-and-swap of Afforest's link (algorithms/components.py) was a plain load and store
# that two threads could both win, and connected components on two threads now and then left a
# vertex out of its component.
@device_function
def add_one(a):
    return atomic_add(a, 0, 1)


def add_one_inline(a):
    return atomic_add(a, 0, 1)


device_function(add_one_inline, inline=True)


def _calls_helper(a):
    return add_one(a)


def _calls_inline_helper(a):
    return add_one_inline(a)


@pytest.mark.parametrize("checked", [False, True], ids=["plain", "checked"])
@pytest.mark.parametrize("caller", [_calls_helper, _calls_inline_helper])
def test_a_helpers_atomics_are_plain_in_one_threads_code_and_atomic_in_several_threads(caller,
                                                                                      checked):
    for options, atomic in ((cpu_atomics.ONE_THREAD, False), (cpu_atomics.TEAM, True)):
        kernel = numba.njit(boundscheck=checked, **options)(caller)
        a = np.zeros(1, np.int64)
        assert kernel(a) == 0 and a[0] == 1
        assert ("atomicrmw" in "".join(kernel.inspect_llvm().values())) == atomic, options
