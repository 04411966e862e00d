"""Borůvka's minimum spanning forest: the forest Kruskal's algorithm builds in (weight, edge id)
order, of the weight scipy's ``minimum_spanning_tree`` and NetworkX find, on hypothesis graphs
(integer, float, zero and negative weights; several components, isolated vertices,
self-loops, repeated edges) on every target (tiny graphs in the CUDA simulator), the same forest
on every target; the rounds one loop launch, fused equal to the host loop; per-round stats
equal to a sequential Borůvka's; race-free; bad input refused before any work."""

from __future__ import annotations

import os
import sys

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import minimum_spanning_forest
from frontier import Graph, generators
from frontier.options import Mode
from frontier.target import resolve_target
from frontier.testing import (
    check_minimum_spanning_forest,
    check_race_free,
    graphs,
    reference_minimum_spanning_forest,
)
from operators import recording, resolve_policy

module = sys.modules["algorithms.minimum_spanning_forest"]  # the package's name is the function

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
tiny = settings(max_examples=4) if SIMULATED else settings(max_examples=30)
WEIGHTS = {
    "small": st.integers(-3, 3),  # zero, negative, many ties
    "large": st.integers(-(1 << 40), 1 << 40),
    "float": st.one_of(st.sampled_from([0.0, -0.0, 0.5, -1.5]),
                       st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False)),
}


@st.composite
def weighted(draw, max_vertices: int = 30, max_edges: int = 80) -> Graph:
    """An undirected hypothesis graph with one weight per stored edge, of a drawn kind."""
    graph = draw(graphs(max_vertices=max_vertices, max_edges=max_edges, directed=False))
    src, dst = graph.coo().src, graph.col_indices
    once = src <= dst  # each edge, each repeat and each self-loop once
    kind = draw(st.sampled_from(sorted(WEIGHTS)))
    w = draw(st.lists(WEIGHTS[kind], min_size=int(once.sum()), max_size=int(once.sum())))
    dtype = np.float64 if kind == "float" else np.int64
    return Graph.from_edges(src[once], dst[once], np.asarray(w, dtype=dtype),
                            num_vertices=graph.num_vertices, directed=False)


def networkx_weight(graph: Graph) -> float:
    """NetworkX's minimum spanning forest weight of the graph's simple graph (the lightest of
    repeated edges, no self-loops)."""
    h = nx.Graph()
    h.add_nodes_from(range(graph.num_vertices))
    simple = graph.simple()
    w = simple.weights if simple.weighted else np.ones(simple.num_edges)
    h.add_weighted_edges_from(zip(simple.coo().src.tolist(), simple.col_indices.tolist(),
                                  w.tolist(), strict=True))
    return nx.minimum_spanning_tree(h).size(weight="weight")


@given(graph=weighted())
def test_the_forest_is_kruskals_and_weighs_what_scipy_and_networkx_find(graph):
    result = minimum_spanning_forest(graph, target="cpu")
    check_minimum_spanning_forest(graph, result.edges, result.total_weight)
    assert result.edges.dtype == np.int32 and result.edges.shape == (len(result.arcs), 2)
    assert (result.edges[:, 0] < result.edges[:, 1]).all()
    np.testing.assert_array_equal(result.edge_ids, graph.edge_ids()[result.arcs])
    assert (np.diff(result.edge_ids) > 0).all()
    assert result.num_components == graph.num_vertices - len(result.arcs)
    want = networkx_weight(graph)
    assert result.total_weight == want or np.isclose(result.total_weight, want, rtol=1e-9)


@tiny
@given(graph=weighted(max_vertices=10, max_edges=16) if SIMULATED else weighted())
def test_every_target_gives_the_forest_the_cpu_gives(target, graph):
    got = minimum_spanning_forest(graph, target=target)
    on_cpu = minimum_spanning_forest(graph, target="cpu")
    np.testing.assert_array_equal(got.edges, on_cpu.edges)
    np.testing.assert_array_equal(got.arcs, on_cpu.arcs)
    assert got.total_weight == on_cpu.total_weight and got.iterations == on_cpu.iterations
    assert got.stats == on_cpu.stats
    check_minimum_spanning_forest(graph, got.edges, got.total_weight)


@given(graph=weighted())
def test_the_reference_spans_every_component_and_weighs_what_networkx_finds(graph):
    pairs = reference_minimum_spanning_forest(graph)
    h = nx.Graph()
    h.add_nodes_from(range(graph.num_vertices))
    h.add_edges_from(map(tuple, pairs.tolist()))
    assert nx.is_forest(h) if graph.num_vertices else True
    loops = graph.coo().src == graph.col_indices
    whole = nx.Graph(zip(graph.coo().src[~loops].tolist(), graph.col_indices[~loops].tolist(),
                         strict=True))
    whole.add_nodes_from(range(graph.num_vertices))
    assert len(pairs) == graph.num_vertices - nx.number_connected_components(whole)
    w = graph.weights
    kept = {tuple(p) for p in pairs.tolist()}
    src, dst = graph.coo().src, graph.col_indices
    least: dict = {}
    for u, v, x in zip(src.tolist(), dst.tolist(), w.tolist(), strict=True):
        if (u, v) in kept:
            least[(u, v)] = min(least.get((u, v), x), x)
    total = sum(least.values())
    want = networkx_weight(graph)
    assert total == want or np.isclose(total, want, rtol=1e-9)


def test_ties_go_to_the_lower_edge_id():
    # a 4-cycle of equal weights: the forest leaves out its last edge, 2 - 3 (id 3)
    cycle = Graph.from_edges([0, 1, 0, 2], [1, 3, 2, 3], [5, 5, 5, 5], directed=False)
    result = minimum_spanning_forest(cycle, target="cpu")
    assert result.edges.tolist() == [[0, 1], [0, 2], [1, 3]] and result.total_weight == 15
    assert result.edge_ids.tolist() == [0, 1, 2]


def test_repeated_edges_give_their_lightest_and_self_loops_nothing():
    g = Graph.from_edges([0, 0, 1, 1, 2], [1, 1, 1, 2, 2], [7.5, -2.0, -9.0, 3.0, -1.0],
                         directed=False)
    result = minimum_spanning_forest(g, target="cpu")
    assert result.edges.tolist() == [[0, 1], [1, 2]] and result.total_weight == 1.0
    check_minimum_spanning_forest(g, result.edges, result.total_weight)


def test_an_unweighted_graph_weighs_its_edge_count():
    g = generators.grid2d(5, 6)
    result = minimum_spanning_forest(g, target="cpu")
    assert result.total_weight == 29 and isinstance(result.total_weight, int)
    assert result.iterations <= np.log2(30) + 1


def test_an_integer_total_past_int64_is_exact_and_a_float_one_that_could_overflow_refused():
    big = 2**62
    g = Graph.from_edges([0, 1, 2], [1, 2, 3], [big, big, big], directed=False)
    result = minimum_spanning_forest(g, target="cpu")
    assert result.total_weight == 3 * big and isinstance(result.total_weight, int)
    check_minimum_spanning_forest(g, result.edges, result.total_weight)
    huge = Graph.from_edges([0, 1], [1, 2], [1e308, 1e308], directed=False)
    cpu = resolve_target("cpu")
    launches = cpu.launches
    with pytest.raises(ValueError, match="minimum_spanning_forest: a forest's total weight can "
                                         r"reach more than 1.798e\+308 .* past what float64 holds"):
        minimum_spanning_forest(huge, target=cpu)
    assert cpu.launches == launches


def test_several_components_and_isolated_vertices():
    g = Graph.from_edges([0, 1, 4, 5], [1, 2, 5, 6], [1, 2, 3, 4], num_vertices=9,
                         directed=False)
    result = minimum_spanning_forest(g, target="cpu")
    assert result.num_components == 5 and result.total_weight == 10


def test_empty_and_one_vertex_graphs():
    for n in (0, 1):
        result = minimum_spanning_forest(Graph.from_edges([], [], num_vertices=n,
                                                          directed=False), target="cpu")
        assert result.edges.shape == (0, 2) and result.total_weight == 0
        assert result.num_components == n and result.iterations == 0


def boruvka_rounds(graph: Graph) -> list[tuple[int, int]]:
    """Borůvka's rounds, sequentially: per round, the vertices it reads (every vertex in the
    first round, then those with an arc to another component) and their arcs."""
    n, src, dst = graph.num_vertices, graph.coo().src, graph.col_indices
    w = graph.weights if graph.weighted else np.ones(graph.num_edges)
    degree = graph.out_degrees()
    root = np.arange(n)
    active = np.ones(n, bool)
    rounds = []
    while active.any():
        rounds.append((int(active.sum()), int(degree[active].sum())))
        best: dict = {}
        for a in np.flatnonzero((src < dst) & (root[src] != root[dst])).tolist():
            for r in (root[src[a]], root[dst[a]]):
                best[r] = min(best.get(r, (w[a], a)), (w[a], a))
        for r, (_, a) in best.items():  # merge along every pick
            old, new = sorted((root[r], root[dst[a]] if root[src[a]] == root[r] else
                               root[src[a]]))
            root[root == new] = old
        active = np.zeros(n, bool)
        active[src[root[src] != root[dst]]] = True
    return rounds


@given(graph=weighted())
def test_stats_count_each_rounds_vertices_and_their_arcs(graph):
    result = minimum_spanning_forest(graph, target="cpu")
    rounds = boruvka_rounds(graph) if graph.num_edges else []
    assert [(r.round, r.active, r.arcs) for r in result.stats] == [
        (i + 1, *counts) for i, counts in enumerate(rounds)]
    assert result.iterations == len(rounds)
    assert result.edges_traversed == 3 * sum(arcs for _, arcs in rounds)


def test_the_first_round_reads_every_vertex_and_later_ones_fewer():
    g = generators.gnm(200, 600, seed=1, weights=(1, 9))
    result = minimum_spanning_forest(g, target="cpu")
    assert len(result.stats) == result.iterations > 1
    assert (result.stats[0].active, result.stats[0].arcs) == (200, g.num_edges)
    active = [r.active for r in result.stats]
    assert active == sorted(active, reverse=True) and active[-1] > 0


@tiny
@given(graph=weighted(max_vertices=10, max_edges=16) if SIMULATED else weighted())
def test_the_fused_rounds_equal_the_host_loop_on_every_target(target, graph):
    """The rounds as one persistent kernel and as the host loop of their operator calls: the
    same arcs recorded, the same last round of every vertex, the same rounds."""
    if not graph.num_edges:
        return
    runs = []
    for fused in (True, False):
        chosen, last, rounds = module.run_rounds(graph, target, resolve_policy("auto", graph,
                                                                               target), fused)
        runs.append((target.to_host(chosen), target.to_host(last), rounds))
    for a, b in zip(*runs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_rounds_run_in_one_loop_launch_on_every_target(target):
    """The default call is one launch, the loop (its refill starts the vertices), whatever its
    rounds; besides it only the arrays' first values (the simulator's fill kernel, the driver's
    memset on a GPU)."""
    for graph in (generators.path(3), generators.gnm(12, 20, seed=3, weights=(1, 9))):
        with recording() as log:
            result = minimum_spanning_forest(graph, target=target)
        kernels = [(launch.name, launch.mode) for launch in log if launch.name != "_fill"]
        assert len(kernels) == 1 and kernels[0][1] == Mode.FUSED, kernels
        assert kernels[0][0].startswith("loop"), kernels
        check_minimum_spanning_forest(graph, result.edges, result.total_weight)
    assert result.iterations > 1


def test_race_free_on_every_target_it_can_be_checked_on(target):
    if target.name == "cuda" and not target.simulated:
        pytest.skip("the race detector runs on the cpu target and in the simulator")
    g = Graph.from_edges([0, 0, 1, 2, 2, 3, 4], [1, 2, 2, 3, 3, 4, 0],
                         [2, 1, 1, 2, 2, 1, 1], num_vertices=6, directed=False)
    result = check_race_free(minimum_spanning_forest, g, target=target)
    check_minimum_spanning_forest(g, result.edges, result.total_weight)


def test_directed_graphs_and_bad_arguments_are_refused_before_any_work():
    cpu = resolve_target("cpu")
    launches = cpu.launches
    with pytest.raises(ValueError, match="minimum_spanning_forest needs an undirected graph"):
        minimum_spanning_forest(Graph.from_edges([0], [1], [1.0]), target=cpu)
    with pytest.raises(TypeError, match="expected a frontier.Graph, got list"):
        minimum_spanning_forest([[0, 1]], target=cpu)
    with pytest.raises(ValueError, match="unknown place for the results .gpu."):
        minimum_spanning_forest(generators.path(3), target=cpu, out="gpu")
    assert cpu.launches == launches


def test_the_check_names_the_wrong_edge_and_weight():
    g = Graph.from_edges([0, 1, 0], [1, 2, 2], [1, 1, 5], directed=False)
    with pytest.raises(AssertionError, match=r"forest edge 1 is \(0, 2\).*\(1, 2\)"):
        check_minimum_spanning_forest(g, [[0, 1], [0, 2]], 6)
    with pytest.raises(AssertionError, match="the forest has 1 edges; Kruskal's has 2"):
        check_minimum_spanning_forest(g, [[0, 1]], 1)
    with pytest.raises(AssertionError, match="total_weight is 3; the forest's edges weigh 2"):
        check_minimum_spanning_forest(g, [[0, 1], [1, 2]], 3)
