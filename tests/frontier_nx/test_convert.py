"""The conversion of NetworkX graphs (:mod:`frontier_nx.convert`): read on first use, it equals
a reference built one edge at a time on graphs of every kind (directed or not, parallel edges,
self-loops, isolated nodes, labels that are strings, tuples, shuffled or in-order ints, bools,
edge values missing on some edges); nodes that are the ints 0 .. n-1 in order are their own
vertex ids; nodes and arrays are read together, as the graph is when a call first needs them."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier_nx.convert import from_networkx
from tests.tiers import examples

KINDS = {(False, False): nx.Graph, (True, False): nx.DiGraph, (False, True): nx.MultiGraph,
         (True, True): nx.MultiDiGraph}
LABELS = {
    "ints in order": lambda n: list(range(n)),
    "strings": lambda n: [f"v{i}" for i in range(n)],
    "tuples": lambda n: [(i, "x") for i in range(n)],
    "ints shuffled": lambda n: list(range(n))[::-1],
    "ints and a bool": lambda n: [True, *range(2, n + 1)],
}


@st.composite
def graphs(draw: st.DrawFn) -> nx.Graph:
    n = draw(st.integers(0, 10))
    names = LABELS[draw(st.sampled_from(sorted(LABELS)))](n)
    h = KINDS[draw(st.booleans()), draw(st.booleans())]()
    h.add_nodes_from(names)
    if n:
        node = st.sampled_from(names)
        weight = st.none() | st.integers(-5, 5) | st.floats(-2, 2)
        for u, v, w in draw(st.lists(st.tuples(node, node, weight), max_size=25)):
            h.add_edge(u, v, **({} if w is None else {"weight": w}))
    return h


def reference(h: nx.Graph) -> dict:
    """The conversion's content, one adjacency entry at a time."""
    nodes = list(h)
    index = {node: i for i, node in enumerate(nodes)}
    offsets, heads, multiplicity, weights = [0], [], [], []
    for u in nodes:
        for v, data in h._adj[u].items():
            heads.append(index[v])
            edges = list(data.values()) if h.is_multigraph() else [data]
            multiplicity.append(len(edges))
            weights.extend(edge.get("weight", 1) for edge in edges)
        offsets.append(len(heads))
    pred = None
    if h.is_directed():
        pred = ([0], [])
        for u in nodes:
            pred[1].extend(index[v] for v in h._pred[u])
            pred[0].append(len(pred[1]))
    return {"nodes": nodes, "offsets": offsets, "heads": heads,
            "multiplicity": multiplicity if h.is_multigraph() else None, "weights": weights,
            "pred": pred}


@settings(max_examples=examples(80))
@given(h=graphs())
def test_a_conversion_equals_one_built_edge_by_edge(h):
    converted = from_networkx(h, {"weight": 1})
    assert not converted.read
    want = reference(h)
    assert converted.nodes == want["nodes"] and converted.read
    assert converted.offsets.tolist() == want["offsets"]
    assert converted.heads.tolist() == want["heads"]
    assert converted.offsets.dtype == converted.heads.dtype == np.int64
    multiplicity = converted.multiplicity
    assert (None if multiplicity is None else multiplicity.tolist()) == want["multiplicity"]
    assert converted.values["weight"] == want["weights"]
    pred = converted.in_arcs
    assert (None if pred is None else (pred[0].tolist(), pred[1].tolist())) == want["pred"]
    assert converted.identity == (converted.nodes == list(range(len(h)))
                                  and all(type(node) is int for node in converted.nodes))
    assert [converted.find(node) for node in h] == list(range(len(h)))
    assert converted.ids(list(h)).tolist() == list(range(len(h)))
    assert converted.labels(np.arange(len(h))) == list(h)


def test_nodes_that_are_the_ints_in_order_are_their_own_ids():
    assert from_networkx(nx.path_graph(4), None).identity
    assert not from_networkx(nx.relabel_nodes(nx.path_graph(4), {0: 4}), None).identity
    assert not from_networkx(nx.Graph([(True, 1)]), None).identity  # True is 1 but a bool
    converted = from_networkx(nx.path_graph(4), None)
    assert converted.find(1.0) == 1 and converted.ids([1.0, 3]).tolist() == [1, 3]
    with pytest.raises(KeyError):
        converted.find(4)


def test_a_conversion_is_read_as_the_graph_is_when_a_call_first_needs_it():
    h = nx.path_graph(3)
    converted = from_networkx(h, None)
    assert converted.has(2) and not converted.has(3) and len(converted) == 3
    h.add_edge(2, 3)
    assert converted.nodes == [0, 1, 2, 3] and converted.heads.tolist() == [1, 0, 2, 1, 3, 2]
    assert converted.adjacency() is None and converted.num_arcs == 6


def test_a_node_that_left_the_graph_before_it_was_read_raises_runtime_error():
    h = nx.path_graph(["a", "b", "c"])
    converted = from_networkx(h, None)
    h.remove_node("b")
    with pytest.raises(RuntimeError, match="node 'b' left the graph"):
        converted.ids(["a", "b"])


@pytest.mark.parametrize("call", [
    lambda G: list(nx.hits(G, backend="frontier")[0].values()),
    lambda G: [p for *_, p in nx.jaccard_coefficient(G, [(0, 1), (2, 3)], backend="frontier")]],
    ids=["hits", "jaccard_coefficient"])
def test_a_call_on_the_cached_conversion_leaves_its_neighbour_order_as_read(call):
    G = nx.gnm_random_graph(30, 120, seed=1)
    for _, _, data in G.edges(data=True):
        data["weight"] = 1 + len(data)
    expected = list(nx.bfs_edges(G, 0, backend="networkx"))
    first = call(G)
    with nx.config(warnings_to_ignore={"cache"}):
        assert call(G) == pytest.approx(first, rel=1e-9)  # on the cached conversion
        assert list(nx.bfs_edges(G, 0, backend="frontier")) == expected


@pytest.mark.parametrize("call", [
    lambda G: nx.hits(G, backend="frontier"),
    lambda G: nx.pagerank(G, backend="frontier"),
    lambda G: nx.single_source_dijkstra_path_length(G, 0, backend="frontier"),
])
def test_a_conversion_of_every_attribute_serves_a_call_on_an_attribute_no_edge_has(call):
    G = nx.gnm_random_graph(60, 300, seed=1)
    want = call(nx.Graph(G))
    nx.minimum_spanning_tree(G, backend="frontier")  # keeps every attribute: none here
    got = call(G)
    if isinstance(want, tuple):
        for a, b in zip(got, want, strict=True):
            assert a.keys() == b.keys() and all(abs(a[k] - b[k]) < 1e-9 for k in b)
    elif all(isinstance(v, float) for v in want.values()):
        assert got.keys() == want.keys() and all(abs(got[k] - want[k]) < 1e-9 for k in want)
    else:
        assert got == want
