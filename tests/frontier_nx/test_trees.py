"""The minimum spanning tree functions of the NetworkX backend against NetworkX itself, on the
cpu target: the same edges in the same order with the same attribute dicts from
``minimum_spanning_edges``, the same tree (class, graph, node and edge attributes, node and edge
order) from ``minimum_spanning_tree``, on graphs with ties, negative and float weights, missing
weights, self-loops and several components; NetworkX's NaN error; what is declined runs
NetworkX's own function."""

from __future__ import annotations

import math

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier_nx import registry

VALUES = {"ties": st.integers(-2, 2), "ints": st.integers(-10**12, 10**12),
          "floats": st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False),
          "mixed": st.one_of(st.integers(-3, 3), st.sampled_from([0.5, -1.0, 2.0, -0.0]))}


@st.composite
def weighted_graphs(draw, kinds=tuple(VALUES)):
    """Undirected graphs with int or string nodes added in any order, isolated nodes,
    self-loops, some edges without a weight, graph and node attributes."""
    n = draw(st.integers(0, 14))
    name = draw(st.sampled_from([lambda i: i, lambda i: f"n{i}"]))
    nodes = draw(st.permutations([name(i) for i in range(n)]))
    ends = st.integers(0, max(n - 1, 0))
    pairs = draw(st.lists(st.tuples(ends, ends), max_size=40 if n else 0))
    values = VALUES[draw(st.sampled_from(kinds))]
    h = nx.Graph(title="drawn")
    h.add_nodes_from((node, {"colour": i % 3}) for i, node in enumerate(nodes))
    for u, v in pairs:
        data = draw(st.dictionaries(st.just("weight"), values, max_size=1))
        h.add_edge(name(u), name(v), label=f"{u}-{v}", **data)
    return h


def same_graph(got, expected):
    assert type(got) is type(expected)
    assert got.graph == expected.graph
    assert list(got.nodes(data=True)) == list(expected.nodes(data=True))
    assert list(got.edges(data=True)) == list(expected.edges(data=True))


@given(h=weighted_graphs(), data=st.booleans())
def test_minimum_spanning_edges_are_networkx_edges_in_its_order(h, data):
    got = list(nx.minimum_spanning_edges(h, data=data, backend="frontier"))
    expected = list(nx.minimum_spanning_edges(h, data=data))
    assert got == expected
    if data:  # the graph's own attribute dicts, as NetworkX yields them
        assert all(a[2] is b[2] for a, b in zip(got, expected, strict=True))


@given(h=weighted_graphs())
def test_minimum_spanning_tree_is_networkx_tree(h):
    same_graph(nx.minimum_spanning_tree(h, backend="frontier"), nx.minimum_spanning_tree(h))


@given(h=weighted_graphs(kinds=("ties",)), weight=st.sampled_from([None, "other", "weight"]))
def test_any_weight_attribute_or_none_reads_as_networkx_reads_it(h, weight):
    same_graph(nx.minimum_spanning_tree(h, weight=weight, backend="frontier"),
               nx.minimum_spanning_tree(h, weight=weight))


def test_a_larger_graph_with_many_ties_equals_networkx():
    h = nx.gnm_random_graph(400, 1500, seed=4)
    for i, (u, v) in enumerate(h.edges()):
        h[u][v]["weight"] = i % 5
    same_graph(nx.minimum_spanning_tree(h, backend="frontier"), nx.minimum_spanning_tree(h))


def test_a_nan_weight_raises_networkx_error():
    h = nx.Graph()
    h.add_edge("a", "b", weight=1.0)
    h.add_edge("b", "c", weight=math.nan)
    with pytest.raises(ValueError) as ours:
        list(nx.minimum_spanning_edges(h, backend="frontier"))
    with pytest.raises(ValueError) as theirs:
        list(nx.minimum_spanning_edges(h))
    assert str(ours.value) == str(theirs.value) and "NaN found as an edge weight" in str(ours.value)
    with pytest.raises(ValueError, match="NaN found"):
        nx.minimum_spanning_tree(h, backend="frontier")


@pytest.mark.parametrize("value", [math.nan, math.inf, "heavy", None, 2**70])
def test_weights_that_are_not_plain_finite_numbers_run_networkx_itself(value):
    h = nx.Graph()
    h.add_edge(0, 1, weight=value)
    h.add_edge(1, 2, weight=1 if not isinstance(value, str) else "light")
    h.add_edge(0, 2, weight=5 if not isinstance(value, str) else "mid")
    try:
        expected = nx.minimum_spanning_tree(h, ignore_nan=True)
    except TypeError as error:  # None: NetworkX's own error
        with pytest.raises(TypeError, match=str(error)):
            nx.minimum_spanning_tree(h, ignore_nan=True, backend="frontier")
        return
    same_graph(nx.minimum_spanning_tree(h, ignore_nan=True, backend="frontier"), expected)


def test_prim_boruvka_multigraphs_and_directed_graphs_are_declined():
    h = nx.path_graph(3)
    assert "Kruskal" in registry.declined("minimum_spanning_tree", (h,),
                                                 {"algorithm": "prim"})
    assert "multigraph" in registry.declined("minimum_spanning_edges",
                                                    (nx.MultiGraph(h),), {})
    assert "directed" in registry.declined("minimum_spanning_tree", (nx.DiGraph(h),), {})
    assert registry.declined("minimum_spanning_tree", (h,), {}) is None
