"""``greedy_color`` of the NetworkX backend against NetworkX itself, on the cpu target: the same
colours in the same dict order with the default strategy (largest first), on graphs with
self-loops, isolated nodes, int or string nodes in any order; other strategies, interchange,
directed graphs and multigraphs declined."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier_nx import registry


@st.composite
def networkx_graphs(draw):
    n = draw(st.integers(0, 20))
    name = draw(st.sampled_from([lambda i: i, lambda i: f"n{i}"]))
    h = nx.Graph()
    h.add_nodes_from(draw(st.permutations([name(i) for i in range(n)])))
    ends = st.integers(0, max(n - 1, 0))
    h.add_edges_from((name(u), name(v))
                     for u, v in draw(st.lists(st.tuples(ends, ends), max_size=50 if n else 0)))
    return h


@given(h=networkx_graphs())
def test_largest_first_colours_equal_networkx_in_its_order(h):
    got = nx.greedy_color(h, backend="frontier")
    expected = nx.greedy_color(h)
    assert list(got.items()) == list(expected.items())


def test_the_strategy_function_itself_is_taken_too():
    h = nx.petersen_graph()
    got = nx.greedy_color(h, strategy=nx.coloring.strategy_largest_first, backend="frontier")
    assert list(got.items()) == list(nx.greedy_color(h).items())


@pytest.mark.parametrize("arguments, words", [
    ({"strategy": "smallest_last"}, "only largest_first"),
    ({"strategy": "random_sequential"}, "only largest_first"),
    ({"interchange": True}, "interchange"),
])
def test_what_no_fixed_order_reproduces_is_declined(arguments, words):
    assert words in registry.declined("greedy_color", (nx.path_graph(4),), arguments)


def test_directed_graphs_and_multigraphs_are_declined():
    for h in (nx.DiGraph([(0, 1)]), nx.MultiGraph([(0, 1), (0, 1)])):
        assert "multigraph" in registry.declined("greedy_color", (h,), {})
    assert registry.declined("greedy_color", (nx.path_graph(3),), {}) is None
