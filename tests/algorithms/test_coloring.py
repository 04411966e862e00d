"""Jones-Plassmann colouring: proper, and equal to NetworkX's ``greedy_color`` run in the same
order, on hypothesis graphs (isolated vertices, repeated edges, self-loops, hubs, several
components, empty and one-vertex graphs) under every balancer, on every target (tiny graphs in
the CUDA simulator), the same colours for one seed on every target; more than one window of 63
colours; bad arguments are refused with clear errors. Speculative colouring: proper, no colour
above a vertex's arcs to other vertices, the same colours on every target and balancer, fused
and from the host (the race detector's host loop), on the same graphs; a clique and R-MAT's
hubs coloured in few rounds."""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

from algorithms import graph_coloring
from algorithms.coloring import ColoringOrder
from frontier import Graph, generators
from frontier.testing import (
    check_coloring,
    check_race_free,
    graphs,
    greedy_order,
    reference_coloring,
)
from operators import BalancerError, available_balancers

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
BALANCERS = available_balancers(include_auto=True)
ORDERS = list(ColoringOrder)
tiny = settings(max_examples=3) if SIMULATED else settings()
TINY_GRAPHS = (graphs(max_vertices=10, max_edges=16, directed=False) if SIMULATED
               else graphs(max_vertices=20, max_edges=60, directed=False))
UNDIRECTED = graphs(max_vertices=30, max_edges=80, directed=False)
#: (balancer, order) pairs: every balancer once, the orders cycling
PAIRS = [pytest.param(b, ORDERS[i % len(ORDERS)], id=f"{b}-{ORDERS[i % len(ORDERS)]}")
         for i, b in enumerate(BALANCERS)]


def networkx_greedy(graph: Graph, seed: int) -> np.ndarray:
    """NetworkX's ``greedy_color`` of the graph's arcs (self-loops kept: NetworkX ignores
    them), visiting the vertices in :func:`greedy_order`."""
    h = nx.MultiGraph()
    h.add_nodes_from(range(graph.num_vertices))
    h.add_edges_from(zip(graph.coo().src.tolist(), graph.col_indices.tolist(), strict=True))
    order = greedy_order(graph, seed).tolist()
    colors = nx.greedy_color(h, strategy=lambda g, colors: iter(order))
    return np.array([colors[v] for v in range(graph.num_vertices)], dtype=np.int32)


def networkx_largest_first(graph: Graph) -> np.ndarray:
    """NetworkX's ``greedy_color`` with its default strategy (largest first) on the graph as a
    multigraph: every stored edge once, a self-loop once (NetworkX's degree counts it twice)."""
    h = nx.MultiGraph()
    h.add_nodes_from(range(graph.num_vertices))
    src, dst = graph.coo().src, graph.col_indices
    once = src <= dst
    h.add_edges_from(zip(src[once].tolist(), dst[once].tolist(), strict=True))
    colors = nx.greedy_color(h)
    return np.array([colors[v] for v in range(graph.num_vertices)], dtype=np.int32)


def clique(n: int) -> Graph:
    u, v = np.triu_indices(n, 1)
    return Graph.from_edges(u, v, num_vertices=n, directed=False)


@pytest.mark.parametrize("balancer", BALANCERS)
@given(graph=UNDIRECTED)
def test_colours_equal_networkx_greedy_color_in_the_same_order(balancer, graph):
    result = graph_coloring(graph, balancer=balancer, target="cpu")
    assert result.colors.dtype == np.int32
    np.testing.assert_array_equal(result.colors, networkx_greedy(graph, 0))
    check_coloring(graph, result.colors, seed=0)
    assert result.num_colors == len(set(result.colors.tolist()))


@tiny
@given(graph=TINY_GRAPHS)
def test_every_target_gives_the_colours_the_cpu_gives(target, graph):
    got = graph_coloring(graph, seed=11, target=target)
    on_cpu = graph_coloring(graph, seed=11, target="cpu")
    np.testing.assert_array_equal(got.colors, on_cpu.colors)
    check_coloring(graph, got.colors, seed=11)


@pytest.mark.parametrize("balancer", BALANCERS)
@settings(max_examples=2) if SIMULATED else settings()
@given(graph=TINY_GRAPHS)
def test_every_balancer_on_every_target(target, balancer, graph):
    check_coloring(graph, graph_coloring(graph, balancer=balancer, target=target).colors, seed=0)


@given(graph=UNDIRECTED)
def test_reference_equals_networkx_greedy_color_in_the_same_order(graph):
    np.testing.assert_array_equal(reference_coloring(graph, 4), networkx_greedy(graph, 4))


@given(graph=UNDIRECTED)
def test_largest_first_equals_networkx_greedy_color_default(graph):
    result = graph_coloring(graph, order="largest_first", target="cpu")
    np.testing.assert_array_equal(result.colors, networkx_largest_first(graph))
    check_coloring(graph, result.colors, seed=0, order="largest_first")
    np.testing.assert_array_equal(reference_coloring(graph, order="largest_first"),
                                  result.colors)


@pytest.mark.parametrize("balancer", BALANCERS)
@settings(max_examples=2) if SIMULATED else settings(max_examples=10)
@given(graph=TINY_GRAPHS)
def test_largest_first_is_the_same_on_every_target_and_balancer(target, balancer, graph):
    got = graph_coloring(graph, order="largest_first", balancer=balancer, target=target)
    assert got.order == "largest_first"
    np.testing.assert_array_equal(got.colors, networkx_largest_first(graph))


@pytest.mark.parametrize("n", [63, 64, 130])
def test_more_colours_than_one_window(n):
    result = graph_coloring(clique(n), seed=2, target="cpu")
    assert sorted(result.colors.tolist()) == list(range(n)) and result.num_colors == n
    check_coloring(clique(n), result.colors, seed=2)


def test_a_scale_free_graph_with_hubs():
    g = generators.from_spec("rmat:9")
    check_coloring(g, graph_coloring(g, target="cpu").colors, seed=0)


def test_empty_one_vertex_and_self_loop_graphs():
    empty = graph_coloring(Graph.from_edges([], [], num_vertices=0, directed=False),
                           target="cpu")
    assert empty.num_colors == 0 and empty.iterations == 0 and empty.edges_traversed == 0
    one = graph_coloring(Graph.from_edges([], [], num_vertices=1, directed=False), target="cpu")
    assert one.colors.tolist() == [0] and one.num_colors == 1
    looped = Graph.from_edges([0, 0], [0, 1], num_vertices=2, directed=False)
    assert sorted(graph_coloring(looped, target="cpu").colors.tolist()) == [0, 1]


def test_stats_record_each_round():
    g = generators.gnm(100, 300, seed=2)
    result = graph_coloring(g, seed=1, target="cpu")
    assert len(result.stats) == result.iterations > 0 and result.stats[0].uncolored == 100
    assert result.stats[0].arcs == g.num_edges
    assert result.edges_traversed == sum(r.arcs for r in result.stats)
    assert not np.array_equal(result.colors, graph_coloring(g, seed=0, target="cpu").colors)


def test_each_rounds_arcs_are_those_of_the_vertices_uncoloured_at_its_start(target):
    g = generators.gnm(300, 1200, seed=4)
    result = graph_coloring(g, seed=3, target=target)
    last, degrees = target.to_host(result.last_live), g.out_degrees()
    # one thread runs the sequential first fit: one pass over every vertex
    assert result.iterations > 2 if target.runs_balancers else result.iterations == 1
    for k, round_ in enumerate(result.stats):
        assert round_.uncolored == np.count_nonzero(last >= k)
        assert round_.arcs == degrees[last >= k].sum()


@pytest.mark.parametrize("balancer, order", PAIRS)
@given(graph=UNDIRECTED)
def test_speculative_colouring_is_proper_and_within_first_fit_bounds(balancer, order, graph):
    result = graph_coloring(graph, method="speculative", order=order, balancer=balancer,
                            target="cpu")
    assert result.method == "speculative" and result.colors.dtype == np.int32
    check_coloring(graph, result.colors, neighbours="arcs")  # no colour above its arcs
    assert result.num_colors <= int(graph.out_degrees().max(initial=0)) + 1
    assert result.iterations == len(result.stats) and result.iterations <= graph.num_vertices


@pytest.mark.parametrize("balancer, order", PAIRS)
@settings(max_examples=2) if SIMULATED else settings(max_examples=20)
@given(graph=TINY_GRAPHS)
def test_speculative_colours_are_the_same_on_every_target_and_balancer(target, balancer, order,
                                                                       graph):
    got = graph_coloring(graph, method="speculative", order=order, seed=5, balancer=balancer,
                         target=target)
    on_cpu = graph_coloring(graph, method="speculative", order=order, seed=5, target="cpu")
    np.testing.assert_array_equal(got.colors, on_cpu.colors)
    assert got.iterations == on_cpu.iterations
    check_coloring(graph, got.colors, neighbours="arcs")


@tiny
@given(graph=TINY_GRAPHS)
def test_speculative_host_loop_is_race_free_and_equals_the_fused_loop(race_target, graph):
    target = race_target
    fused = graph_coloring(graph, method="speculative", seed=3, balancer="thread",
                           target=target)
    host = check_race_free(graph_coloring, graph, method="speculative", seed=3,
                           balancer="thread", target=target)
    np.testing.assert_array_equal(host.colors, fused.colors)
    assert host.iterations == fused.iterations


@pytest.mark.parametrize("n", [63, 64, 130])
def test_speculative_colouring_moves_past_full_windows(n):
    result = graph_coloring(clique(n), method="speculative", seed=2, target="cpu")
    assert sorted(result.colors.tolist()) == list(range(n))
    check_coloring(clique(n), result.colors, neighbours="arcs")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("n, rounds", [(40, 1), (63, 1), (64, 3), (130, 5)])
def test_speculative_colouring_spreads_a_clique_over_free_colours_in_few_rounds(order, n,
                                                                               rounds):
    # every vertex wishes for colour 0; the k-th in the order takes the k-th free colour (the
    # last free one of its window past the 63rd), so one round colours a clique of one window
    result = graph_coloring(clique(n), method="speculative", order=order, target="cpu")
    assert sorted(result.colors.tolist()) == list(range(n)) and result.iterations == rounds


def test_speculative_colouring_of_hubs_takes_few_rounds():
    g = generators.from_spec("rmat:11")
    result = graph_coloring(g, method="speculative", order="largest_first", target="cpu")
    check_coloring(g, result.colors, neighbours="arcs")
    assert result.iterations <= 5 and result.edges_traversed <= 2 * g.num_edges


def test_speculative_colouring_of_hubs_empty_one_vertex_and_self_loops():
    g = generators.from_spec("rmat:9")
    result = graph_coloring(g, method="speculative", target="cpu")
    check_coloring(g, result.colors, neighbours="arcs")
    empty = graph_coloring(Graph.from_edges([], [], num_vertices=0, directed=False),
                           method="speculative", target="cpu")
    assert empty.num_colors == 0 and empty.iterations == 0
    one = graph_coloring(Graph.from_edges([], [], num_vertices=1, directed=False),
                         method="speculative", target="cpu")
    assert one.colors.tolist() == [0] and one.iterations == 1
    looped = Graph.from_edges([0, 0], [0, 1], num_vertices=2, directed=False)
    assert sorted(graph_coloring(looped, method="speculative", target="cpu").colors.tolist()
                  ) == [0, 1]


@pytest.mark.parametrize("call, error, words", [
    (lambda g: graph_coloring([[0, 1]]), TypeError, "expected a frontier.Graph, got list"),
    (lambda g: graph_coloring(Graph.from_edges([0], [1])), ValueError,
     "graph_coloring needs an undirected graph"),
    (lambda g: graph_coloring(g, seed=2**63), ValueError, "seed=9223372036854775808"),
    (lambda g: graph_coloring(g, seed="1"), TypeError, "seed='1'; expected an integer"),
    (lambda g: graph_coloring(g, balancer="nosuch"), BalancerError, "unknown balancer 'nosuch'"),
    (lambda g: graph_coloring(g, order="smallest_last"), ValueError,
     "unknown order 'smallest_last'; expected one of 'random', 'largest_first'"),
    (lambda g: graph_coloring(g, method="greedy"), ValueError,
     "unknown method 'greedy'; expected one of 'jones_plassmann', 'speculative'"),
])
def test_bad_arguments_are_refused_clearly(call, error, words):
    with pytest.raises(error, match=words):
        call(Graph.from_edges([0], [1], directed=False))


def test_the_check_names_the_broken_rule():
    path = Graph.from_edges([0, 1], [1, 2], directed=False)
    with pytest.raises(AssertionError, match="not coloured.*vertex 2: colour -1"):
        check_coloring(path, [0, 1, -1])
    with pytest.raises(AssertionError, match="not proper.*vertex 0 and its neighbour 1, colour 0"):
        check_coloring(path, [0, 0, 1])
    with pytest.raises(AssertionError,
                       match="above first fit.*vertex 2: colour 2, 1 distinct neighbours"):
        check_coloring(path, [0, 1, 2])
    repeated = Graph.from_edges([0, 1, 1], [1, 2, 2], directed=False)  # two edges 1-2
    check_coloring(repeated, [0, 1, 2], neighbours="arcs")  # vertex 2 has two arcs to 1
    with pytest.raises(AssertionError, match="above first fit.*vertex 2: colour 2, 1 distinct"):
        check_coloring(repeated, [0, 1, 2])
    with pytest.raises(ValueError, match="unknown neighbours 'edges'; expected one of "
                                         "'distinct', 'arcs'"):
        check_coloring(path, [0, 1, 0], neighbours="edges")
    with pytest.raises(AssertionError, match="differs from the greedy first-fit colouring"):
        check_coloring(path, 1 - reference_coloring(path, 0), seed=0)
