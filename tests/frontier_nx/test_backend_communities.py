"""``label_propagation_communities`` of the NetworkX backend against NetworkX itself, on the cpu
target: the same ``dict_values`` of the same sets in the same order, on graphs with self-loops,
isolated nodes, int or string nodes in any order; multigraphs declined."""

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
    nodes = draw(st.permutations([name(i) for i in range(n)]))
    ends = st.integers(0, max(n - 1, 0))
    h = nx.Graph()
    h.add_nodes_from(nodes)
    h.add_edges_from((name(u), name(v))
                     for u, v in draw(st.lists(st.tuples(ends, ends), max_size=45 if n else 0)))
    return h


def listed(communities):
    return [sorted(map(str, c)) for c in communities]


@given(h=networkx_graphs())
def test_communities_are_networkx_communities_in_its_order(h):
    got = nx.community.label_propagation_communities(h, backend="frontier")
    expected = nx.community.label_propagation_communities(h)
    assert type(got) is type(expected)
    assert list(got) == list(expected)
    assert [list(c) for c in got] == [list(c) for c in expected]  # each set in its order


@pytest.mark.parametrize("seed", range(3))
def test_a_clustered_graph_equals_networkx(seed):
    h = nx.relabel_nodes(nx.powerlaw_cluster_graph(400, 3, 0.4, seed=seed), str)
    assert listed(nx.community.label_propagation_communities(h, backend="frontier")) == \
        listed(nx.community.label_propagation_communities(h))


def test_multigraphs_are_declined_and_directed_graphs_refused_as_networkx_does():
    assert "multigraph" in registry.declined("label_propagation_communities",
                                                    (nx.MultiGraph([(0, 1), (0, 1)]),), {})
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.community.label_propagation_communities(nx.DiGraph([(0, 1)]), backend="frontier")
