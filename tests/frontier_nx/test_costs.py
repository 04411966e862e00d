"""The backend's cost estimates (:mod:`frontier_nx.costs`): every function has one rule (a cost
of its family's work, a lazy search, or a search NetworkX stops early); the estimate of a first
call adds what it loads and reads to its work, so it pays above a size where the backend's work
is cheaper and never where it is not, and at any size once the library is loaded and the graph
read; the arcs are counted only until the answer is settled; a search on NetworkX's adjacency
hands over to the arrays only before a level large enough, never under the floor, never where
reading cannot pay."""

from __future__ import annotations

import inspect
import itertools

import networkx as nx
import pytest

from frontier_nx import costs, registry
from frontier_nx.functions import FUNCTIONS


@pytest.fixture(params=[True, False], ids=["loaded", "nothing loaded"])
def everything_loaded(request, monkeypatch):
    """The estimates as in a process that has (or has not) loaded numpy, scipy and the library."""
    monkeypatch.setattr(costs, "loaded", lambda module: request.param)
    return request.param


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_function_has_exactly_one_rule(name):
    rules = [name in costs.COSTS, name in costs.LAZY, name in costs.STOPS_EARLY]
    assert rules.count(True) == 1, name
    if name in costs.COSTS:
        cost = costs.COSTS[name]
        assert cost.work in costs.WORK
        assert cost.needs >= costs.NUMPY and cost.needs <= set(costs.LOADS)
        assert cost.networkx_needs <= set(costs.LOADS)
        assert cost.networkx > 0 and cost.here > 0


@pytest.mark.parametrize("name", sorted(costs.STOPS_EARLY))
def test_a_search_networkx_stops_early_always_stays_there(name):
    G = nx.path_graph(10)
    assert registry.stays_in_networkx(name, (G, 0, 3), {}) is not None


def _work(name, G, **arguments):
    bound = registry.arguments(name, (G,), arguments)
    c0, c1, c2 = costs.WORK[costs.COSTS[name].work](len(G), bound)
    arcs = sum(map(len, G._adj.values()))
    return c0 + arcs * (c1 + arcs * c2)


def test_each_family_counts_the_work_its_arguments_ask_for():
    G = nx.gnm_random_graph(100, 400, seed=1)
    arcs, n = 800, 100
    assert _work("connected_components", G) == arcs
    assert _work("degree_centrality", G) == n
    assert _work("is_isolate", G, n=0) == 1
    assert _work("betweenness_centrality", G, k=4) == 4 * arcs
    assert _work("betweenness_centrality", G) == n * arcs
    assert _work("all_pairs_shortest_path_length", G) == n * arcs
    assert _work("eccentricity", G, v=[1, 2, 3]) == 3 * arcs
    assert _work("eccentricity", G, v=1) == arcs
    assert _work("shortest_path", G, source=0) == arcs
    assert _work("shortest_path", G) == n * arcs
    assert _work("triangles", G) == arcs * arcs / n
    assert _work("triangles", G, nodes=5) == pytest.approx(arcs * arcs / n / n)
    assert _work("clustering", G, nodes=range(10)) == pytest.approx(arcs * arcs / n / 10)
    assert _work("reciprocity", nx.DiGraph(G), nodes=[0, 1]) == pytest.approx(arcs * 2 / n)
    assert _work("preferential_attachment", G, ebunch=[(0, 1)] * 7) == 7
    assert _work("preferential_attachment", G) == n * (n - 1) / 2
    assert _work("preferential_attachment", G, ebunch=iter([(0, 1)])) == 0
    assert _work("jaccard_coefficient", G, ebunch=[(0, 1)] * 7) == pytest.approx(7 * arcs / n)
    assert _work("floyd_warshall", G) == n ** 3


def _estimate(name, nodes, read, values=False, **arguments):
    G = nx.empty_graph(nodes)
    return costs.estimate(name, nodes, registry.arguments(name, (G,), arguments), read, values)


#: a value for each required parameter after the graph, by name
_REQUIRED = {"source": 0, "target": 1, "sources": {0}, "n": 0, "k": 3}


def _arguments(name):
    """The required arguments of a call of ``name`` on a graph of the nodes 0..n-1."""
    parameters = inspect.signature(registry.implementation(name)).parameters.values()
    return {p.name: _REQUIRED[p.name] for p in parameters
            if p.default is p.empty and p.name != "G"}


@pytest.mark.parametrize("name", sorted(costs.COSTS))
def test_once_loaded_and_read_a_function_runs_here_where_its_work_is_cheaper(monkeypatch, name):
    monkeypatch.setattr(costs, "loaded", lambda module: True)
    cost = costs.COSTS[name]
    estimate = _estimate(name, 10_000, read=True, **_arguments(name))
    for arcs in (1_000, 100_000, 10_000_000):
        assert (estimate.margin(arcs) < 0) == (cost.here < cost.networkx), arcs


@pytest.mark.parametrize("name", sorted(costs.COSTS))
def test_what_a_first_call_loads_and_reads_is_added_to_its_margin(everything_loaded, name):
    cost = costs.COSTS[name]
    arguments = _arguments(name)
    read = _estimate(name, 10_000, read=True, **arguments)
    unread = _estimate(name, 10_000, read=False, **arguments)
    weighted = _estimate(name, 10_000, read=False, values=True, **arguments)
    arcs = 50_000
    assert unread.margin(arcs) - read.margin(arcs) == pytest.approx(arcs * costs.READ)
    assert weighted.margin(arcs) - unread.margin(arcs) == pytest.approx(arcs * costs.READ_VALUES)
    loads = 0.0 if everything_loaded else (
        sum(costs.LOADS[need][1] for need in cost.needs)
        - sum(costs.LOADS[need][1] for need in cost.networkx_needs))
    work = read.margin(arcs) - loads
    assert work == pytest.approx((cost.here - cost.networkx) * _work_of(name, arcs, arguments))


def _work_of(name, arcs, arguments):
    G = nx.empty_graph(10_000)
    c0, c1, c2 = costs.WORK[costs.COSTS[name].work](
        10_000, registry.arguments(name, (G,), arguments))
    return c0 + arcs * (c1 + arcs * c2)


def test_the_components_pay_for_the_library_only_on_a_large_unread_graph(monkeypatch):
    monkeypatch.setattr(costs, "loaded", lambda module: module == "numpy")
    cost = costs.COSTS["connected_components"]
    crossing = costs.LIBRARY_LOAD / (cost.networkx - cost.here - costs.READ)
    estimate = _estimate("connected_components", 100_000, read=False)
    assert estimate.margin(int(crossing / 2)) > 0
    assert estimate.margin(int(crossing * 2)) < 0
    monkeypatch.setattr(costs, "loaded", lambda module: True)
    assert _estimate("connected_components", 100_000, read=True).margin(1000) < 0


def test_networkx_loading_scipy_counts_for_the_backend():
    cost = costs.COSTS["pagerank"]
    assert "scipy" in cost.networkx_needs and "scipy" not in cost.needs


@pytest.mark.parametrize("fixed,per_arc,per_square", list(itertools.product(
    [-2.0, 0.0, 3.0], [-1e-3, 0.0, 2e-3], [-1e-9, 0.0, 1e-9])))
def test_a_settled_estimate_keeps_its_answer_at_any_larger_count(fixed, per_arc, per_square):
    estimate = costs.Estimate(fixed, per_arc, per_square)
    sizes = [0, 10, 1000, 10**5, 10**6, 10**7, 10**9]
    for i, arcs in enumerate(sizes):
        settled = estimate.settled(arcs)
        if settled is not None:
            assert all((estimate.margin(more) < 0) == settled for more in sizes[i:]), arcs


@pytest.fixture
def reading_pays(monkeypatch):
    """NetworkX's search made costlier per arc than reading the graph and searching it here."""
    monkeypatch.setattr(costs, "NETWORKX_SEARCH", 3 * (costs.READ + costs.SEARCH))


def test_a_search_hands_over_before_a_large_level_where_reading_pays(everything_loaded,
                                                                     reading_pays):
    fixed = 0 if everything_loaded else costs.NUMPY_IMPORT + costs.SEARCH_LOAD
    crossing = fixed / (costs.NETWORKX_SEARCH - costs.READ - costs.SEARCH)
    arcs = int(crossing * 4) + 100 * costs.HAND_OVER_FLOOR
    assert costs.hand_over(arcs, lambda: arcs)
    assert not costs.hand_over(costs.HAND_OVER_FLOOR - 1, lambda: arcs)
    reading = arcs * costs.READ + fixed
    small = int(costs.HAND_OVER_SHARE * reading / costs.NETWORKX_SEARCH) - 1
    assert not costs.hand_over(max(small, 0), lambda: arcs)


def test_a_search_never_hands_over_where_reading_costs_more_per_arc(monkeypatch,
                                                                     everything_loaded):
    monkeypatch.setattr(costs, "NETWORKX_SEARCH", 0.9 * (costs.READ + costs.SEARCH))
    assert not costs.hand_over(10**9, lambda: 10**9)


def test_a_search_under_the_floor_never_counts_the_arcs():
    def never() -> int:
        raise AssertionError("counted")

    assert not costs.hand_over(costs.HAND_OVER_FLOOR - 1, never)


def test_a_search_never_hands_over_where_reading_cannot_pay(monkeypatch, reading_pays):
    monkeypatch.setattr(costs, "loaded", lambda module: False)
    fixed = costs.NUMPY_IMPORT + costs.SEARCH_LOAD
    arcs = int(fixed / (costs.NETWORKX_SEARCH - costs.READ - costs.SEARCH) / 2)
    assert arcs >= costs.HAND_OVER_FLOOR
    assert not costs.hand_over(arcs, lambda: arcs)


def test_a_graph_searched_for_what_reading_it_costs_is_read_at_its_next_level(monkeypatch):
    monkeypatch.setattr(costs, "loaded", lambda module: True)
    arcs = 100 * costs.HAND_OVER_FLOOR
    reading = arcs * costs.READ
    enough = int(reading / costs.NETWORKX_SEARCH) + 1
    assert costs.hand_over(costs.HAND_OVER_FLOOR, lambda: arcs, searched=enough)
    assert not costs.hand_over(costs.HAND_OVER_FLOOR - 1, lambda: arcs, searched=enough)
    if reading + arcs * costs.SEARCH >= arcs * costs.NETWORKX_SEARCH:  # one search alone: no
        assert not costs.hand_over(costs.HAND_OVER_FLOOR, lambda: arcs, searched=enough - 2)
