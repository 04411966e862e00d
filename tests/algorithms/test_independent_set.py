"""Maximal independent sets: independent and maximal in NetworkX's view of hypothesis graphs
(isolated vertices, repeated edges, self-loops, hubs, several components, empty and one-vertex
graphs), equal to the sequential greedy MIS for the priority method, under every balancer, on
every target (tiny graphs in the CUDA simulator: it runs ~10,000 GPU threads a second), the same
set for one seed on every target; bad arguments are refused with clear errors."""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

from algorithms import maximal_independent_set
from algorithms.independent_set import MISMethod, arcs_per_round
from frontier import Graph, generators, random_bits
from frontier.testing import check_independent_set, graphs, greedy_order, reference_mis
from operators import BalancerError, available_balancers, lanes, recording

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
BALANCERS = available_balancers(include_auto=True)
#: Simulator runs: a few tiny graphs per case.
tiny = settings(max_examples=3) if SIMULATED else settings()
TINY_GRAPHS = (graphs(max_vertices=10, max_edges=16, directed=False) if SIMULATED
               else graphs(max_vertices=20, max_edges=60, directed=False))
UNDIRECTED = graphs(max_vertices=30, max_edges=80, directed=False)


def as_networkx(graph: Graph) -> nx.Graph:
    """The graph's edges between distinct vertices as a simple NetworkX graph on 0..n-1."""
    h = nx.Graph()
    h.add_nodes_from(range(graph.num_vertices))
    h.add_edges_from((u, v) for u, v in zip(graph.coo().src.tolist(),
                                            graph.col_indices.tolist(), strict=True) if u != v)
    return h


def assert_maximal_independent_in_networkx(graph: Graph, in_set: np.ndarray) -> None:
    members = np.flatnonzero(in_set).tolist()
    h = as_networkx(graph)
    assert h.subgraph(members).number_of_edges() == 0
    assert nx.is_dominating_set(h, members)
    if members:  # NetworkX's greedy loop, started from the whole set, adds nothing
        assert sorted(nx.maximal_independent_set(h, members)) == members


@pytest.mark.parametrize("balancer", BALANCERS)
@given(graph=UNDIRECTED)
def test_priority_mis_is_maximal_independent_and_the_greedy_mis(balancer, graph):
    result = maximal_independent_set(graph, balancer=balancer, target="cpu")
    assert result.in_set.dtype == np.bool_ and result.size == result.in_set.sum()
    assert_maximal_independent_in_networkx(graph, result.in_set)
    check_independent_set(graph, result.in_set, seed=0)


@pytest.mark.parametrize("balancer", BALANCERS)
@given(graph=UNDIRECTED)
def test_luby_mis_is_maximal_independent(balancer, graph):
    result = maximal_independent_set(graph, method="luby", seed=7, balancer=balancer,
                                     target="cpu")
    assert_maximal_independent_in_networkx(graph, result.in_set)
    check_independent_set(graph, result.in_set)


@pytest.mark.parametrize("method", MISMethod)
@tiny
@given(graph=TINY_GRAPHS)
def test_every_target_gives_the_set_the_cpu_gives(target, method, graph):
    got = maximal_independent_set(graph, method=method, seed=3, target=target)
    on_cpu = maximal_independent_set(graph, method=method, seed=3, target="cpu")
    np.testing.assert_array_equal(got.in_set, on_cpu.in_set)
    if method == "luby" or target.runs_balancers == on_cpu.target.runs_balancers:
        assert got.iterations == on_cpu.iterations
    assert_maximal_independent_in_networkx(graph, got.in_set)


@pytest.mark.parametrize("balancer", BALANCERS)
@settings(max_examples=2) if SIMULATED else settings()
@given(graph=TINY_GRAPHS)
def test_every_balancer_on_every_target(target, balancer, graph):
    result = maximal_independent_set(graph, balancer=balancer, target=target)
    check_independent_set(graph, result.in_set, seed=0)


def test_hubs_folded_apart_give_the_same_sets(target, monkeypatch):
    """The hub sizes lowered so that a star's centre of 7 leaves is a hub: each round's fold
    over the undecided vertices spreads it over lanes (operators.folds), and the sets are still
    the greedy MIS (priority) and maximal independent (Luby)."""
    monkeypatch.setattr(lanes, "HUB_DEGREE", 3)
    monkeypatch.setattr(lanes, "CHUNK", 2)
    graph = Graph.from_edges([0] * 7 + [7, 8], list(range(1, 8)) + [8, 9], num_vertices=10,
                             directed=False)
    with recording() as log:
        for method, seed in (("priority", 0), ("priority", 1), ("luby", 2)):
            result = maximal_independent_set(graph, method=method, seed=seed, target=target)
            check_independent_set(graph, result.in_set,
                                  seed=seed if method == "priority" else None)
    assert any("hub_warps" in kernel.source for kernel in log.kernels())


@given(graph=UNDIRECTED)
def test_reference_is_networkx_greedy_loop_in_the_order_of_the_random_bits(graph):
    s = random_bits(5, 0)
    bits = [int(random_bits(s, v)) for v in range(graph.num_vertices)]
    order = sorted(range(graph.num_vertices), key=lambda v: (-bits[v], v))
    assert greedy_order(graph, 5).tolist() == order
    h, chosen, blocked = as_networkx(graph), [], set()
    for v in order:
        if v not in blocked:
            chosen.append(v)
            blocked.update(h[v])
    np.testing.assert_array_equal(np.flatnonzero(reference_mis(graph, 5)), sorted(chosen))


def test_the_seed_picks_the_order_and_stats_record_each_round():
    g = generators.gnm(200, 600, seed=1)
    sets = {seed: maximal_independent_set(g, seed=seed, target="cpu") for seed in (0, 1)}
    assert not np.array_equal(sets[0].in_set, sets[1].in_set)
    result = sets[0]
    assert len(result.stats) == result.iterations > 0 and result.stats[0].undecided == 200
    assert result.stats[0].arcs == g.num_edges
    assert result.edges_traversed == sum(r.arcs for r in result.stats)
    luby = maximal_independent_set(g, method="luby", target="cpu")
    check_independent_set(g, luby.in_set)


@pytest.mark.parametrize("method", MISMethod)
def test_each_rounds_arcs_are_those_of_the_vertices_undecided_at_its_start(target, method):
    g = generators.gnm(300, 1200, seed=4)
    result = maximal_independent_set(g, method=method, seed=2, target=target)
    last, degrees = target.to_host(result.last_live), g.out_degrees()
    # one thread runs the priority method as the sequential greedy MIS: one pass
    rounds = method == "luby" or target.runs_balancers
    assert result.iterations > 1 if rounds else result.iterations == 1
    for k, round_ in enumerate(result.stats):
        assert round_.undecided == np.count_nonzero(last >= k)
        assert round_.arcs == degrees[last >= k].sum()


def test_arcs_per_round_counts_a_vertex_in_every_round_up_to_its_last():
    g = Graph.from_edges([0, 0, 1, 2, 2, 2], [1, 2, 0, 0, 1, 1], num_vertices=4)
    assert arcs_per_round(g, np.array([0, 2, 1, 0]), 3) == [6, 4, 1]
    assert arcs_per_round(g, np.zeros(4, dtype=np.int32), 0) == []


def test_empty_one_vertex_and_self_loop_graphs():
    empty = maximal_independent_set(Graph.from_edges([], [], num_vertices=0, directed=False),
                                    target="cpu")
    assert empty.size == 0 and empty.iterations == 0 and empty.edges_traversed == 0
    one = maximal_independent_set(Graph.from_edges([], [], num_vertices=1, directed=False),
                                  target="cpu")
    assert one.in_set.tolist() == [True]
    looped = Graph.from_edges([0, 0], [0, 1], num_vertices=3, directed=False)
    in_set = maximal_independent_set(looped, target="cpu").in_set
    assert in_set[2] and in_set[0] != in_set[1]  # the loop keeps nobody out


@pytest.mark.parametrize("call, error, words", [
    (lambda g: maximal_independent_set(np.arange(3)), TypeError, "expected a frontier.Graph"),
    (lambda g: maximal_independent_set(Graph.from_edges([0], [1])), ValueError,
     "maximal_independent_set needs an undirected graph"),
    (lambda g: maximal_independent_set(g, method="nosuch"), ValueError,
     "unknown method 'nosuch'; expected one of 'priority', 'luby'"),
    (lambda g: maximal_independent_set(g, seed=-1), ValueError, "seed=-1; expected 0 <= seed"),
    (lambda g: maximal_independent_set(g, seed=1.5), TypeError, "seed=1.5; expected an integer"),
    (lambda g: maximal_independent_set(g, balancer="nosuch"), BalancerError,
     "unknown balancer 'nosuch'"),
])
def test_bad_arguments_are_refused_clearly(call, error, words):
    with pytest.raises(error, match=words):
        call(Graph.from_edges([0], [1], directed=False))


def test_the_check_names_the_broken_rule():
    path = Graph.from_edges([0, 1], [1, 2], directed=False)
    with pytest.raises(AssertionError, match="not independent.*vertex 0 and its neighbour 1"):
        check_independent_set(path, [True, True, False])
    with pytest.raises(AssertionError, match="not maximal.*vertex 2 could join"):
        check_independent_set(path, [True, False, False])
    other = ~reference_mis(path, 0)
    with pytest.raises(AssertionError, match="differs from the greedy MIS of seed 0"):
        check_independent_set(path, other, seed=0)
