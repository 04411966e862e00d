"""The backend's weighted shortest paths (:mod:`frontier_nx.shortest_paths`) return what
NetworkX returns: the same distances of the same Python types, the same path among equal ones,
the same errors, on small graphs of every kind with int, float, zero, negative and missing
weights, self-loops, parallel edges, isolated nodes and string labels."""

from __future__ import annotations

import types
from collections.abc import Callable

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier_nx import registry
from tests.tiers import examples

KINDS = (nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph)


@st.composite
def weighted_graphs(draw: Callable, weights: st.SearchStrategy, kinds: tuple = KINDS) -> nx.Graph:
    """A small graph of string-labelled nodes, some isolated; edges (self-loops and parallel
    ones included) carry a drawn weight or none (NetworkX's default 1)."""
    h = draw(st.sampled_from(kinds))()
    n = draw(st.integers(1, 9))
    h.add_nodes_from(f"v{i}" for i in range(n))
    for _ in range(draw(st.integers(0, 22))):
        u, v = (f"v{draw(st.integers(0, n - 1))}" for _ in range(2))
        value = draw(st.none() | weights)
        h.add_edge(u, v) if value is None else h.add_edge(u, v, weight=value)
    return h


def outcome(call: Callable, *args, **kwargs) -> tuple:
    """The result as a comparable value (generators and arrays listed, dicts with their key
    order and value types), or the exception's class and message."""
    try:
        result = call(*args, **kwargs)
        if isinstance(result, types.GeneratorType):
            result = list(result)
        return ("returned", described(result))
    except (nx.NetworkXException, ValueError) as error:
        return ("raised", type(error), str(error))


def described(value):
    if isinstance(value, dict):
        return [(key, described(item)) for key, item in value.items()]
    if isinstance(value, (list, tuple)):
        return [described(item) for item in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    return (value, type(value))


def same(call: Callable, *args, **kwargs) -> None:
    """The backend's outcome is NetworkX's, dicts in the same key order."""
    assert outcome(call, *args, backend="frontier", **kwargs) == outcome(call, *args, **kwargs)


def unordered(call: Callable, *args, **kwargs) -> None:
    """As :func:`same`, the dicts' key order aside (Bellman–Ford's queue order; the order of
    equal distances without paths)."""
    def run(**extra):
        try:
            return ("returned", call(*args, **kwargs, **extra))
        except (nx.NetworkXException, ValueError) as error:
            return ("raised", type(error), str(error))
    got, expected = run(backend="frontier"), run()
    assert got == expected
    if got[0] == "returned":
        assert described(sorted_dicts(got[1])) == described(sorted_dicts(expected[1]))


def sorted_dicts(value):
    if isinstance(value, dict):
        return dict(sorted((key, sorted_dicts(item)) for key, item in value.items()))
    if isinstance(value, tuple):
        return tuple(map(sorted_dicts, value))
    return value


POSITIVE = st.integers(1, 6) | st.sampled_from([0.5, 1.25, 2.0, 3.75])
NON_NEGATIVE = st.integers(0, 6)


@settings(max_examples=examples(60), deadline=None)
@given(h=weighted_graphs(POSITIVE | NON_NEGATIVE), data=st.data())
def test_dijkstra_distances_paths_and_their_order_equal_networkx(h, data):
    source, target = (data.draw(st.sampled_from(sorted(h))) for _ in range(2))
    cutoff = data.draw(st.none() | st.integers(0, 8) | st.just(2.5))  # below 0: see below
    same(nx.single_source_dijkstra, h, source, cutoff=cutoff)
    same(nx.single_source_dijkstra_path, h, source, cutoff=cutoff)
    unordered(nx.single_source_dijkstra_path_length, h, source, cutoff=cutoff)
    same(nx.single_source_dijkstra, h, source, target=target)
    same(nx.dijkstra_path, h, source, target)
    same(nx.dijkstra_path_length, h, source, target)
    same(nx.multi_source_dijkstra, h, [target, source], cutoff=cutoff)
    same(nx.multi_source_dijkstra_path, h, {source, target})
    unordered(nx.multi_source_dijkstra_path_length, h, [source, target], cutoff=cutoff)
    unordered(nx.single_source_dijkstra_path_length, h, source, weight=None)


@settings(max_examples=examples(40), deadline=None)
@given(h=weighted_graphs(st.integers(-3, 6) | st.sampled_from([0.5, -1.5, 2.25]),
                         kinds=(nx.DiGraph, nx.MultiDiGraph, nx.Graph)), data=st.data())
def test_bellman_ford_distances_paths_and_negative_cycles_equal_networkx(h, data):
    source, target = (data.draw(st.sampled_from(sorted(h))) for _ in range(2))
    unordered(nx.single_source_bellman_ford, h, source)
    unordered(nx.single_source_bellman_ford_path, h, source)
    unordered(nx.single_source_bellman_ford_path_length, h, source)
    unordered(nx.bellman_ford_path, h, source, target)
    unordered(nx.bellman_ford_path_length, h, source, target)
    same(nx.negative_edge_cycle, h)


@settings(max_examples=examples(40), deadline=None)
@given(h=weighted_graphs(st.integers(-2, 6) | st.sampled_from([0.5, 1.25, 0.0])))
def test_floyd_warshall_equals_networkx(h):
    same(nx.floyd_warshall_numpy, h)
    same(nx.floyd_warshall_numpy, h, nodelist=sorted(h, reverse=True))
    if all("weight" in data for *_, data in h.edges(data=True)):
        unordered(nx.floyd_warshall, h)


def test_all_pairs_dijkstra_path_length_is_a_generator_of_networkx_rows():
    h = nx.relabel_nodes(nx.gnm_random_graph(12, 30, seed=5, directed=True), str)
    for u, v, data in h.edges(data=True):
        data["weight"] = (int(u) * 7 + int(v)) % 5 + 1
    got = nx.all_pairs_dijkstra_path_length(h, cutoff=6, backend="frontier")
    assert isinstance(got, types.GeneratorType)
    expected = nx.all_pairs_dijkstra_path_length(h, cutoff=6)
    assert described(sorted_dicts(dict(got))) == described(sorted_dicts(dict(expected)))


def test_unweighted_call_after_a_weighted_one_counts_hops():
    h = nx.Graph()
    h.add_weighted_edges_from([("a", "b", 5), ("b", "c", 5), ("a", "c", 20)])
    assert nx.single_source_dijkstra_path_length(h, "a", backend="frontier") == {
        "a": 0, "b": 5, "c": 10}
    assert nx.single_source_dijkstra_path_length(h, "a", weight=None, backend="frontier") == {
        "a": 0, "b": 1, "c": 1}


def test_int_weights_of_two_to_the_62_give_exact_python_ints():
    h = nx.DiGraph()
    h.add_weighted_edges_from([("a", "b", 2**62), ("b", "c", 2**62), ("c", "d", 3)])
    same(nx.single_source_dijkstra_path_length, h, "a")
    same(nx.single_source_bellman_ford_path_length, h, "a")
    assert nx.dijkstra_path_length(h, "a", "d", backend="frontier") == 2**63 + 3


def test_mixed_int_and_float_weights_keep_networkx_types_per_node():
    h = nx.DiGraph()
    h.add_weighted_edges_from([("s", "a", 1), ("a", "b", 2), ("s", "c", 0.5), ("c", "d", 1)])
    same(nx.single_source_dijkstra, h, "s")
    same(nx.single_source_bellman_ford_path_length, h, "s")


def test_a_cutoff_below_zero_keeps_nothing_not_even_the_source():
    # NetworkX 3.6.1 keeps the source ({"x": 0}); issue 25 asks for nothing within a negative
    # distance, and NetworkX's own tests never pass one
    h = nx.path_graph(["x", "y", "z"])
    assert nx.single_source_dijkstra_path_length(h, "x", cutoff=-1, backend="frontier") == {}
    assert nx.single_source_dijkstra(h, "x", cutoff=-1, backend="frontier") == ({}, {})
    assert nx.multi_source_dijkstra_path_length(h, {"x", "y"}, cutoff=-0.5,
                                                backend="frontier") == {}
    assert nx.single_source_dijkstra_path_length(h, "x", cutoff=0, backend="frontier") == {
        "x": 0}


def test_negative_weight_dijkstra_behaves_as_networkx():
    h = nx.DiGraph()
    h.add_weighted_edges_from([("a", "b", 3), ("a", "c", 1), ("b", "c", -5)])
    same(nx.single_source_dijkstra_path_length, h, "a")
    same(nx.dijkstra_path_length, h, "a", "c")


def test_bellman_ford_raises_unbounded_on_a_reachable_negative_cycle():
    h = nx.DiGraph()
    h.add_weighted_edges_from([("a", "b", 1), ("b", "c", -2), ("c", "b", 1)])
    with pytest.raises(nx.NetworkXUnbounded, match="Negative cycle detected"):
        nx.single_source_bellman_ford_path_length(h, "a", backend="frontier")
    assert nx.negative_edge_cycle(h, backend="frontier") is True


@pytest.mark.parametrize("call, args, error", [
    (nx.single_source_dijkstra_path_length, ("nowhere",), nx.NodeNotFound),
    (nx.dijkstra_path, ("a", "lonely"), nx.NetworkXNoPath),
    (nx.dijkstra_path_length, ("a", "nowhere"), nx.NetworkXNoPath),
    (nx.multi_source_dijkstra, ([],), ValueError),
    (nx.bellman_ford_path, ("a", "lonely"), nx.NetworkXNoPath),
    (nx.bellman_ford_path_length, ("nowhere", "a"), nx.NodeNotFound),
    (nx.single_source_bellman_ford, ("nowhere", "nowhere"), nx.NodeNotFound),
])
def test_missing_nodes_and_paths_raise_networkx_errors(call, args, error):
    h = nx.Graph([("a", "b")])
    h.add_node("lonely")
    expected = outcome(call, h, *args)
    assert expected[1] is error
    assert outcome(call, h, *args, backend="frontier") == expected


def test_callable_weights_and_floyd_warshall_without_weights_are_declined():
    weight = {"weight": lambda u, v, d: 1}
    for name in ("single_source_dijkstra_path_length", "dijkstra_path", "bellman_ford_path"):
        assert "weight" in registry.declined(name, (nx.Graph(), 0, 1), weight)
    h = nx.Graph([("a", "b")])
    assert "1.0" in registry.declined("floyd_warshall", (h,), {})
