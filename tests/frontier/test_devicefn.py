"""Helpers registered with ``device_function`` are callable from functors on every target."""

from __future__ import annotations

import numpy as np

from frontier import Graph, atomic_add, device_function
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
