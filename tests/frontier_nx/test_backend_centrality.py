"""Centrality and link analysis through the backend equal NetworkX's own results (to the last
bits of its float sums) on small graphs of every kind: directed and undirected, multigraphs,
self-loops, isolated nodes, string labels, int, float and zero weights, edges without the
weight attribute; arguments NetworkX raises on raise the same errors, and arguments the
library cannot honour are declined with the reason."""

from __future__ import annotations

import random

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier_nx import registry
from frontier_nx.interface import BackendInterface
from tests.tiers import examples

WEIGHTS = st.none() | st.integers(0, 4) | st.sampled_from([0.0, 0.5, 1.25, 3.0])


@st.composite
def networkx_graphs(draw: st.DrawFn, multigraph: bool | None = None,
                    directed: bool | None = None, max_nodes: int = 12) -> nx.Graph:
    """A NetworkX graph with string labels, isolated nodes, self-loops, parallel edges (in
    multigraphs) and ``weight`` attributes that are ints, floats, zero or missing."""
    directed = draw(st.booleans()) if directed is None else directed
    multigraph = draw(st.booleans()) if multigraph is None else multigraph
    cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
           (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[directed, multigraph]
    n = draw(st.integers(0, max_nodes))
    h = cls()
    h.add_nodes_from(f"n{i}" for i in draw(st.permutations(range(n))))
    if n:
        pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), WEIGHTS)
        for u, v, w in draw(st.lists(pairs, max_size=3 * n)):
            h.add_edge(f"n{u}", f"n{v}", **({} if w is None else {"weight": w}))
    return h


def outcome(call, *args, **kwargs):
    """The result of ``call``, or the type of what it raised."""
    try:
        return call(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - the exception's type is the outcome
        return type(error)


def assert_close(got, expected, tolerance=1e-9):
    """Equal exceptions, or equal keys in the same order with values equal but for the last
    bits of NetworkX's float sums."""
    if isinstance(expected, type):
        assert got is expected
        return
    assert list(got) == list(expected)
    assert all(got[v] == pytest.approx(x, rel=tolerance, abs=tolerance)
               for v, x in expected.items())


# pagerank -----------------------------------------------------------------------------------
@settings(max_examples=examples(60), deadline=None)
@given(h=networkx_graphs(), weight=st.sampled_from(["weight", None]))
def test_pagerank_equals_networkx_with_summed_parallel_weights(h, weight):
    options = {"tol": 1e-12, "max_iter": 1000, "weight": weight}
    assert_close(outcome(nx.pagerank, h, backend="frontier", **options),
                 outcome(nx.pagerank, h, **options))


def test_pagerank_personalization_and_weights_follow_networkx():
    h = nx.DiGraph()
    h.add_weighted_edges_from([("a", "b", 2.0), ("b", "c", 1.0), ("a", "c", 0.5), ("c", "a", 1)])
    h.add_node("lonely")
    options = {"personalization": {"a": 1, "lonely": 3}, "tol": 1e-12}
    assert_close(nx.pagerank(h, backend="frontier", **options), nx.pagerank(h, **options))
    assert_close(nx.pagerank(h, weight=None, backend="frontier", tol=1e-12),
                 nx.pagerank(h, weight=None, tol=1e-12))


def test_pagerank_after_a_weighted_call_honours_weight_none():
    h = nx.MultiDiGraph([("a", "b", {"weight": 5}), ("a", "b"), ("a", "c", {"weight": 0.5})])
    assert_close(nx.pagerank(h, backend="frontier"), nx.pagerank(h))
    assert_close(nx.pagerank(h, weight=None, backend="frontier"), nx.pagerank(h, weight=None))


def test_a_weight_attribute_no_edge_has_counts_every_edge_as_one():
    h = nx.DiGraph([("a", "b", {"weight": 7}), ("b", "c", {}), ("c", "a", {"weight": 2})])
    for function in (nx.pagerank, nx.katz_centrality, nx.eigenvector_centrality):
        assert_close(function(h, weight="cost", backend="frontier"), function(h, weight="cost"))


def test_a_graph_converted_without_the_weight_values_is_declined():
    converted = BackendInterface.convert_from_nx(nx.DiGraph([("a", "b", {"w": 3})]), None)
    for name in ("pagerank", "katz_centrality", "eigenvector_centrality"):
        assert "'w'" in registry.declined(name, (converted,), {"weight": "w"})


def test_pagerank_with_negative_weights_equals_networkx():
    h = nx.DiGraph([("a", "b", {"weight": -1.0}), ("b", "c", {"weight": 2}), ("c", "a", {})])
    assert_close(outcome(nx.pagerank, h, backend="frontier"), outcome(nx.pagerank, h))


def test_pagerank_raises_networkx_convergence_error():
    h = nx.gnm_random_graph(30, 90, seed=1, directed=True)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(h, max_iter=2, backend="frontier")
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(h, max_iter=0, backend="frontier")


def test_pagerank_of_a_zero_personalization_raises_zero_division_as_networkx():
    with pytest.raises(ZeroDivisionError):
        nx.pagerank(nx.complete_graph(4), personalization=dict.fromkeys(range(4), 0),
                    backend="frontier")


@pytest.mark.parametrize("options", [{"alpha": 1.5}, {"tol": 0}, {"max_iter": 2.5},
                                     {"personalization": {0: -1, 1: 2}},
                                     {"nstart": {0: 0}}, {"dangling": {0: 0.0, 1: 0}},
                                     {"weight": lambda u, v, d: 1}])
def test_pagerank_declines_what_the_library_cannot_honour(options):
    reason = registry.declined("pagerank", (nx.path_graph(3),), options)
    assert isinstance(reason, str) and reason


# betweenness --------------------------------------------------------------------------------
@settings(max_examples=examples(60), deadline=None)
@given(h=networkx_graphs(), normalized=st.booleans(), endpoints=st.booleans())
def test_betweenness_equals_networkx_on_every_kind_of_graph(h, normalized, endpoints):
    options = {"normalized": normalized, "endpoints": endpoints}
    assert_close(nx.betweenness_centrality(h, backend="frontier", **options),
                 nx.betweenness_centrality(h, **options))


@settings(max_examples=examples(40), deadline=None)
@given(h=networkx_graphs(), data=st.data())
def test_betweenness_with_k_samples_the_sources_networkx_samples(h, data):
    k = data.draw(st.integers(0, len(h)))
    seed = data.draw(st.integers(0, 2**32))
    options = {"k": k, "normalized": data.draw(st.booleans()),
               "endpoints": data.draw(st.booleans())}
    got = outcome(nx.betweenness_centrality, h, seed=random.Random(seed), backend="frontier",
                  **options)
    expected = outcome(nx.betweenness_centrality, h, seed=random.Random(seed), **options)
    if isinstance(expected, dict):  # NaN at a single sampled source where NetworkX has it
        expected = {v: (-1.0 if x != x else x) for v, x in expected.items()}
        got = {v: (-1.0 if x != x else x) for v, x in got.items()}
    assert_close(got, expected)


def test_betweenness_of_a_multigraph_counts_each_pair_of_neighbours_once():
    h = nx.MultiGraph([("x", "y"), ("x", "y"), ("y", "z")])
    for normalized in (False, True):
        assert nx.betweenness_centrality(h, normalized=normalized, backend="frontier") == \
            nx.betweenness_centrality(h, normalized=normalized)


def test_betweenness_with_k_zero_raises_zero_division_as_networkx():
    with pytest.raises(ZeroDivisionError):
        nx.betweenness_centrality(nx.cycle_graph(4), k=0, backend="frontier")


def test_weighted_betweenness_is_declined():
    assert "weight" in registry.declined(
        "betweenness_centrality", (nx.Graph(),), {"weight": "w"})



@settings(max_examples=examples(60), deadline=None)
@given(h=networkx_graphs(), data=st.data())
def test_edge_betweenness_equals_networkx_on_every_kind_of_graph(h, data):
    """Keys (with a multigraph's edge keys), their order and values; k sources sampled as
    NetworkX samples them."""
    k = data.draw(st.one_of(st.none(), st.integers(1, max(len(h), 1))))
    seed = data.draw(st.integers(0, 2**32))
    options = {"k": k, "normalized": data.draw(st.booleans())}
    got = outcome(nx.edge_betweenness_centrality, h, seed=random.Random(seed),
                  backend="frontier", **options)
    assert_close(got, outcome(nx.edge_betweenness_centrality, h, seed=random.Random(seed),
                              **options))


def test_edge_betweenness_of_a_multigraph_shares_a_pair_among_its_parallel_edges():
    h = nx.MultiGraph([("x", "y"), ("x", "y"), ("y", "z")])
    got = nx.edge_betweenness_centrality(h, normalized=False, backend="frontier")
    assert got == nx.edge_betweenness_centrality(h, normalized=False)
    assert got[("x", "y", 0)] == got[("x", "y", 1)] == 1.0


@pytest.mark.parametrize("options, reason", [
    ({"weight": "w"}, "weighted betweenness is declined"), ({"k": 1.5}, "not an integer"),
    ({"k": 0}, "k=0 samples no source"),
])
def test_edge_betweenness_declines_what_it_cannot_honour(options, reason):
    assert reason in registry.declined("edge_betweenness_centrality", (nx.path_graph(3),),
                                       options)

# eigenvector and Katz -----------------------------------------------------------------------
@settings(max_examples=examples(60), deadline=None)
@given(h=networkx_graphs(multigraph=False), weight=st.sampled_from(["weight", None]))
def test_eigenvector_centrality_equals_networkx(h, weight):
    options = {"max_iter": 500, "weight": weight}
    assert_close(outcome(nx.eigenvector_centrality, h, backend="frontier", **options),
                 outcome(nx.eigenvector_centrality, h, **options), 1e-7)


def test_eigenvector_centrality_follows_nstart_and_its_errors():
    h = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "b")])
    nstart = {"c": 2, "a": 1, "b": 0.5}
    assert_close(nx.eigenvector_centrality(h, nstart=nstart, backend="frontier"),
                 nx.eigenvector_centrality(h, nstart=nstart))
    with pytest.raises(nx.NetworkXError, match="all zero"):
        nx.eigenvector_centrality(h, nstart=dict.fromkeys(h, 0), backend="frontier")
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.eigenvector_centrality(nx.Graph(), backend="frontier")
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.eigenvector_centrality(h, max_iter=0, backend="frontier")


@settings(max_examples=examples(60), deadline=None)
@given(h=networkx_graphs(multigraph=False), weight=st.sampled_from(["weight", None]),
       normalized=st.booleans(), alpha=st.sampled_from([0.05, 0.1, 0.3]))
def test_katz_centrality_equals_networkx(h, weight, normalized, alpha):
    options = {"alpha": alpha, "weight": weight, "normalized": normalized}
    assert_close(outcome(nx.katz_centrality, h, backend="frontier", **options),
                 outcome(nx.katz_centrality, h, **options), 1e-7)


def test_katz_centrality_follows_beta_and_nstart():
    h = nx.DiGraph([("a", "b", {"weight": 2}), ("b", "c", {}), ("c", "a", {"weight": 0.5})])
    options = {"beta": {"a": 1.0, "b": 2.0, "c": 0.5}, "nstart": {"b": 1, "c": 0, "a": 2},
               "weight": "weight"}
    assert_close(nx.katz_centrality(h, backend="frontier", **options),
                 nx.katz_centrality(h, **options))
    with pytest.raises(nx.NetworkXError, match="beta dictionary"):
        nx.katz_centrality(h, beta={"a": 1.0}, backend="frontier")
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.katz_centrality(h, alpha=5.0, max_iter=50, backend="frontier")


@pytest.mark.parametrize("name, options", [
    ("eigenvector_centrality", {"nstart": {0: 1}}),
    ("eigenvector_centrality", {"max_iter": 10.0}),
    ("katz_centrality", {"beta": "many"}),
    ("katz_centrality", {"alpha": 1, "beta": {0: 1, 1: 1, 2: 1}}),
    ("katz_centrality", {"weight": ""}),
])
def test_eigenvector_and_katz_decline_what_they_cannot_honour(name, options):
    reason = registry.declined(name, (nx.path_graph(3),), options)
    assert isinstance(reason, str) and reason


# weights the library refuses ----------------------------------------------------------------
@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), None, "heavy"],
                         ids=repr)
@pytest.mark.parametrize("cls", [nx.Graph, nx.DiGraph, nx.MultiDiGraph],
                         ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", ["pagerank", "eigenvector_centrality", "katz_centrality"])
def test_weights_the_library_refuses_run_networkx_own_function(name, cls, value):
    h = cls([("a", "b", {"weight": 1.0}), ("b", "c", {"weight": value}),
             ("c", "a", {"weight": 2}), ("c", "b", {"weight": 0.5})])
    function = getattr(nx, name)
    assert_close(outcome(function, h, weight="weight", backend="frontier"),
                 outcome(function, h, weight="weight"))
