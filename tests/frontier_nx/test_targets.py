"""Every function of the NetworkX backend on every usable target (cpu; cuda on a GPU) equals
NetworkX on one small weighted graph, undirected and directed (where the backend takes the
directed one): the backend's calls run the library's kernels where the user's configuration
sends them. The arguments come from each implementation's signature, so a
new function is covered without editing this file.

Not in Numba's simulator: a BFS level there runs one block of 1,024 Python threads, minutes per
function; the kernels the backend calls are covered in the simulator by ``tests/algorithms``."""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterator
from typing import Any

import networkx as nx
import pytest

from frontier_nx import registry
from frontier_nx.registry import implementations

IMPLEMENTATIONS = implementations()

#: arguments by parameter name (everything else keeps its default)
ARGUMENTS = {"source": 0, "target": 5, "sources": {0, 3}, "n": 0, "v": 0, "distance": 2,
             "k": 2, "seed": 1, "max_iter": 1000}
#: functions yielding sets in an order NetworkX does not define (its SCCs come as its depth-first
#: search completes them, the backend's by first node): compared as collections of sets
UNORDERED = {"strongly_connected_components"}


def small_graph(directed: bool) -> nx.Graph:
    """Ten nodes in a weighted ring with chords and a pendant node (int weights 1..4)."""
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_weighted_edges_from([(i, (i + 1) % 9, 1 + i % 4) for i in range(9)]
                              + [(0, 4, 3), (2, 7, 2), (8, 9, 1)])
    return G


def comparable(value: Any) -> Any:
    """A result as plain data: generators and dict views listed, graphs as their nodes and
    edges."""
    if isinstance(value, nx.Graph):
        return list(value), list(value.edges)
    if isinstance(value, Iterator) or isinstance(value, type({}.values())):
        return [comparable(v) for v in value]
    if isinstance(value, tuple):
        return tuple(comparable(v) for v in value)
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def equal(expected: Any, got: Any) -> bool:
    """Equal; floats to 1e-9 relative (sums on the GPU run in another order)."""
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(equal(v, got[k]) for k, v in expected.items())
    if isinstance(expected, list | tuple) and isinstance(got, list | tuple):
        return len(expected) == len(got) and all(map(equal, expected, got))
    if isinstance(expected, float) or isinstance(got, float):
        return math.isclose(expected, got, rel_tol=1e-9, abs_tol=1e-12)
    return expected == got


@pytest.mark.parametrize("name", sorted(IMPLEMENTATIONS))
def test_every_function_equals_networkx_on_every_target(name, target, monkeypatch):
    if target.simulated:
        pytest.skip("minutes per function in the simulator; run on a GPU")
    monkeypatch.setattr(registry, "target", lambda: target.name)
    function = getattr(nx, name, None) or getattr(nx.community, name)  # where NetworkX has it
    parameters = inspect.signature(IMPLEMENTATIONS[name]).parameters
    arguments = {p: ARGUMENTS[p] for p in parameters if p in ARGUMENTS}
    ran = False
    for directed in (False, True):
        G = small_graph(directed)
        try:
            expected = comparable(function(G, **arguments))
        except nx.NetworkXNotImplemented:  # the other kind of graph
            continue
        reason = registry.declined(name, (G,), arguments)
        if directed and reason is not None:  # a kind of graph the backend declines
            continue
        assert reason is None
        got = comparable(function(G, **arguments, backend="frontier"))
        if name in UNORDERED:
            expected, got = (sorted(map(sorted, sets)) for sets in (expected, got))
        assert equal(expected, got)
        ran = True
    assert ran
