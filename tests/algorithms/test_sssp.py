"""SSSP: every method on every balancer equals scipy.sparse.csgraph (Dijkstra, Bellman–Ford) and
networkx on hypothesis graphs with zero, equal, large, float and negative weights; predecessors
form a tree of tight edges; negative cycles and bad arguments raise before any work.

Target, method and balancer run in a covering design (tests/pairs.py): every pair of them in
some row; in the simulator tier the rows on the simulated GPU take tiny graphs and two examples.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings

from algorithms import CATALOG, sssp
from algorithms.sssp import (
    DEFAULT_METHOD,
    NEGATIVE_WEIGHTS_OK,
    SSSPMethod,
    choose_method,
    default_delta,
)
from frontier import Graph, NegativeCycleError, NegativeWeightsError, generators
from frontier.io import load
from frontier.testing import check_sssp, dataset_dir, weighted_graphs_with_source
from operators import available_balancers, recording
from tests.pairs import covering, simulated_rows
from tests.tiers import TARGETS, examples

BALANCERS = available_balancers()
METHODS = [m for m in SSSPMethod if m is not SSSPMethod.AUTO]
NON_NEGATIVE_ONLY = [m for m in METHODS if m not in NEGATIVE_WEIGHTS_OK]


def _check(graph: Graph, source: int, result, negative: bool = False) -> None:
    floats = graph.weighted and graph.weights.dtype.kind == "f"
    check_sssp(graph, source, result.distances, result.predecessors,
               rtol=1e-12 if floats else 0, negative_weights=negative)
    assert result.distances.dtype == np.float64 and result.predecessors.dtype == np.int32
    assert result.iterations >= len(result.stats)


#: Every pair of target, method and balancer in some row (a covering design, not the cross
#: product); the rows on the simulator run on tiny graphs with few examples.
EVERY_PAIR = covering(target=TARGETS, method=METHODS, balancer=BALANCERS)
NEGATIVE_PAIRS = covering(target=TARGETS, method=NEGATIVE_WEIGHTS_OK, balancer=BALANCERS)
TINY = {"max_vertices": 10, "max_edges": 24}


@pytest.mark.parametrize("target, method, balancer", simulated_rows(EVERY_PAIR, False),
                         indirect=["target"])
@settings(max_examples=examples(25))
@given(case=weighted_graphs_with_source(max_vertices=30, max_edges=90))
def test_every_method_on_every_balancer_equals_dijkstra(target, method, balancer, case):
    graph, source = case
    _check(graph, source, sssp(graph, source, method=method, balancer=balancer, target=target))


@pytest.mark.parametrize("target, method, balancer", simulated_rows(NEGATIVE_PAIRS, False),
                         indirect=["target"])
@settings(max_examples=examples(25))
@given(case=weighted_graphs_with_source(kinds=("negative",), max_vertices=30, max_edges=90))
def test_negative_weights_equal_scipy_bellman_ford(target, method, balancer, case):
    graph, source = case
    _check(graph, source, sssp(graph, source, method=method, balancer=balancer, target=target),
           negative=True)


@pytest.mark.parametrize("target, method, balancer", simulated_rows(EVERY_PAIR, True),
                         indirect=["target"])
@settings(max_examples=2)
@given(case=weighted_graphs_with_source(kinds=("small", "float"), **TINY))
def test_every_method_in_the_simulator(target, method, case, balancer):
    graph, source = case
    _check(graph, source, sssp(graph, source, method=method, balancer=balancer, target=target))


@pytest.mark.parametrize("target, method, balancer", simulated_rows(NEGATIVE_PAIRS, True),
                         indirect=["target"])
@settings(max_examples=2)
@given(case=weighted_graphs_with_source(kinds=("negative",), **TINY))
def test_negative_weights_in_the_simulator(target, method, balancer, case):
    graph, source = case
    _check(graph, source, sssp(graph, source, method=method, balancer=balancer, target=target),
           negative=True)


@settings(max_examples=examples(30))
@given(case=weighted_graphs_with_source(kinds=("small", "large"), max_vertices=25,
                                        max_edges=80))
def test_default_method_equals_networkx(case):
    graph, source = case
    coo = graph.coo()
    g = nx.MultiDiGraph()
    g.add_nodes_from(range(graph.num_vertices))
    g.add_weighted_edges_from(zip(coo.src.tolist(), coo.dst.tolist(), graph.weights.tolist(),
                                  strict=True))
    lengths = nx.single_source_dijkstra_path_length(g, source)
    expected = np.full(graph.num_vertices, np.inf)
    expected[list(lengths)] = list(lengths.values())
    np.testing.assert_array_equal(sssp(graph, source, target="cpu").distances, expected)


@pytest.mark.parametrize("target, method, balancer", NEGATIVE_PAIRS, indirect=["target"])
def test_a_reachable_negative_cycle_raises(target, method, balancer):
    g = Graph.from_edges([0, 1, 2, 2], [1, 2, 1, 3], weights=[1.0, -3.0, 1.0, 2.0])
    with pytest.raises(NegativeCycleError, match="negative cycle is reachable"):
        sssp(g, 0, method=method, balancer=balancer, target=target)


@pytest.mark.parametrize("method", NEGATIVE_WEIGHTS_OK)
def test_a_negative_self_loop_is_a_negative_cycle(target, method):
    g = Graph.from_edges([0, 1], [1, 1], weights=[2, -1])
    with pytest.raises(NegativeCycleError):
        sssp(g, 0, method=method, target=target)


@pytest.mark.parametrize("method", NEGATIVE_WEIGHTS_OK)
def test_an_unreachable_negative_cycle_does_not_matter(target, method):
    g = Graph.from_edges([0, 2, 3], [1, 3, 2], weights=[5, -4, 1], num_vertices=4)
    r = sssp(g, 0, method=method, target=target)
    assert r.distances.tolist() == [0.0, 5.0, np.inf, np.inf]


@pytest.mark.parametrize("method", NON_NEGATIVE_ONLY)
def test_methods_without_negative_weights_refuse_them(method):
    g = Graph.from_edges([0, 1], [1, 2], weights=[1, -1])
    with pytest.raises(NegativeWeightsError, match=f"method '{method}' needs non-negative"):
        sssp(g, 0, method=method, target="cpu")
    assert issubclass(NegativeWeightsError, ValueError)


@pytest.mark.parametrize("method", METHODS)
def test_integer_weights_stay_exact_beyond_float32(method):
    big = (1 << 40) + 1
    g = Graph.from_edges([0, 1, 0], [1, 2, 2], weights=[big, big, 3 * big])
    assert sssp(g, 0, method=method, target="cpu").distances.tolist() == [0, big, 2 * big]


@pytest.mark.parametrize("method", METHODS)
def test_unweighted_graphs_count_hops(method):
    g = Graph.from_edges([0, 1, 2, 0], [1, 2, 3, 2], num_vertices=5)
    r = sssp(g, 0, method=method, target="cpu")
    assert r.distances.tolist() == [0, 1, 1, 2, np.inf]
    np.testing.assert_array_equal(r.distances,
                                  csgraph.shortest_path(g.to_scipy(), indices=0, unweighted=True))


def test_path_to_follows_tight_edges_from_the_source():
    g = Graph.from_edges([0, 0, 1, 2, 3], [1, 2, 3, 3, 4], weights=[1, 4, 1, 1, 2],
                         num_vertices=6)
    r = sssp(g, 0, target="cpu")
    assert r.path_to(4) == [0, 1, 3, 4]
    assert r.path_to(0) == [0]
    with pytest.raises(ValueError, match="vertex 5 is not reachable"):
        r.path_to(5)
    with pytest.raises(ValueError, match="vertex 6 is out of range"):
        r.path_to(6)


@pytest.mark.parametrize("method", ["delta_stepping", "near_far"])
@pytest.mark.parametrize("delta", [0.5, 3, 1e9])
def test_any_delta_gives_the_same_distances(method, delta):
    rng = np.random.default_rng(5)
    g = Graph.from_edges(rng.integers(0, 60, 300), rng.integers(0, 60, 300),
                         weights=rng.integers(0, 20, 300), num_vertices=60)
    r = sssp(g, 0, method=method, delta=delta, target="cpu")
    assert r.delta == delta
    _check(g, 0, r)


def test_default_delta_is_warp_width_times_mean_weight_over_mean_degree():
    g = Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 0], weights=[2, 4, 6, 8], num_vertices=4)
    assert default_delta(g) == pytest.approx(32 * 5 / 1.0)
    assert default_delta(Graph.from_edges([0], [1], weights=[0])) == 1.0
    assert sssp(g, 0, method="near_far", target="cpu").delta == default_delta(g)


@pytest.mark.parametrize("bad, error, message", [
    (dict(method="dijkstra"), ValueError, "method='dijkstra'"),
    (dict(method="near_far", delta=0), ValueError, "delta=0"),
    (dict(method="near_far", delta=float("nan")), ValueError, "delta=nan"),
    (dict(method="bellman_ford", delta=2.0), ValueError, "delta= applies"),
])
def test_bad_arguments_raise_clear_errors(bad, error, message):
    with pytest.raises(error, match=message):
        sssp(Graph.from_edges([0], [1]), 0, target="cpu", **bad)


def test_bad_sources_raise_clear_errors():
    g = Graph.from_edges([0], [1])
    with pytest.raises(ValueError, match="source 2 is out of range"):
        sssp(g, 2, target="cpu")
    with pytest.raises(TypeError, match="expected a vertex id"):
        sssp(g, 0.5, target="cpu")


def test_sssp_does_not_modify_the_graph():
    g = Graph.from_edges([0, 1, 2], [1, 2, 0], weights=[1.5, 2.5, 3.5])
    before = (g.row_offsets.copy(), g.col_indices.copy(), g.weights.copy())
    for method in METHODS:
        sssp(g, 1, method=method, target="cpu")
    for a, b in zip(before, (g.row_offsets, g.col_indices, g.weights), strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_catalog_offers_auto_and_every_method():
    assert DEFAULT_METHOD == "auto"
    option = next(o for o in CATALOG["sssp"].options if o.name == "method")
    assert option.choices == ("auto", *METHODS) and option.default == DEFAULT_METHOD


@pytest.mark.parametrize("weights, expected", [
    (None, "bellman_ford"),
    ([3, 3, 3], "bellman_ford"),
    ([1, -2, 3], "bellman_ford"),
    ([1, 2, 3], "near_far"),
    ([0.5, 0.25, 0.5], "near_far"),
])
def test_auto_picks_near_far_for_spread_weights_else_bellman_ford(weights, expected):
    g = Graph.from_edges([0, 1, 2], [1, 2, 0], weights=weights)
    assert choose_method(g) == expected
    r = sssp(g, 0, target="cpu")
    assert r.method == expected
    _check(g, 0, r, negative=weights is not None and min(weights) < 0)


def test_auto_passes_delta_to_near_far_only():
    spread = Graph.from_edges([0, 1], [1, 2], weights=[1, 2])
    assert sssp(spread, 0, delta=0.5, target="cpu").delta == 0.5
    assert sssp(Graph.from_edges([0, 1], [1, 2]), 0, delta=0.5, target="cpu").delta is None


@pytest.mark.parametrize("method", METHODS)
def test_every_method_equals_scipy_on_the_weighted_road_dataset(method):
    folder = dataset_dir()
    path = folder / "rome99.gr.gz" if folder is not None else None
    if path is None or not path.exists():
        pytest.skip("datasets not present")
    graph = load(str(path))
    source = int(np.argmax(graph.out_degrees()))
    _check(graph, source, sssp(graph, source, method=method, target="cpu"))


@pytest.mark.parametrize("arcs, method, message", [
    ("a 1 2 -1\na 2 3 1\n", "near_far", "needs non-negative edge weights"),
    ("a 1 2 1\na 2 3 -3\na 3 2 1\n", "bellman_ford", "negative cycle is reachable"),
])
def test_the_command_line_reports_negative_weights_in_one_line(tmp_path, capsys, arcs, method,
                                                               message):
    from frontier_cli.commands import main

    path = tmp_path / "negative.gr"
    path.write_text(f"p sp 3 {arcs.count('a ')}\n{arcs}")
    code = main(["run", "sssp", str(path), "--source", "0", "--method", method, "--target",
                 "cpu", "--runs", "1"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


@given(case=weighted_graphs_with_source(kinds=("negative",), max_vertices=20, max_edges=60))
def test_the_negative_weight_strategy_never_draws_a_negative_cycle(case):
    graph, source = case
    from frontier.testing import reference_sssp

    distances = reference_sssp(graph, source, negative_weights=True)  # raises on a cycle
    assert distances[source] == 0


def test_the_weighted_strategy_refuses_unknown_kinds():
    from hypothesis.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="kinds="):
        weighted_graphs_with_source(kinds=("heavy",))


def test_predecessors_skip_float_weights_too_small_to_change_a_distance(target):
    # 1 <-> 2 weigh 1e-17: 1.0 + 1e-17 == 1.0, so both arcs are tight, and taking either as a
    # predecessor would close a cycle that never reaches the source
    g = Graph.from_edges(np.array([0, 1, 2, 0]), np.array([1, 2, 1, 2]),
                         weights=np.array([1.0, 1e-17, 1e-17, 1.0]), num_vertices=3,
                         directed=True)
    for method in METHODS:
        _check(g, 0, sssp(g, 0, method=method, target=target))


#: Sources with a repeat, for the rows of one call.
SOURCE_ROWS = [3, 0, 3]


@pytest.mark.parametrize("target, method, balancer", EVERY_PAIR, indirect=["target"])
def test_rows_of_several_sources_equal_single_source_calls(target, method, balancer):
    graph = Graph.from_edges([0, 1, 2, 3, 4, 5, 6, 2, 7, 3], [1, 2, 3, 4, 5, 6, 0, 5, 0, 7],
                             weights=[2, 1, 4, 1, 3, 2, 5, 9, 1, 2], num_vertices=9)
    rows = sssp(graph, sources=SOURCE_ROWS, method=method, balancer=balancer, target=target)
    alone = {s: sssp(graph, s, method=method, balancer=balancer, target=target).distances
             for s in set(SOURCE_ROWS)}
    for i, s in enumerate(SOURCE_ROWS):
        np.testing.assert_array_equal(rows.distances[i], alone[s])
        check_sssp(graph, s, rows.distances[i], rows.predecessors[i])


def test_several_sources_run_in_one_traversal(target):
    graph = generators.grid2d(4, 4, weights=(1, 9))
    sssp(graph, sources=range(16), target=target)
    with recording() as log:
        sssp(graph, sources=range(16), target=target)
    assert len(list(log)) <= 4  # the rows' start, one stepping, the tree, the last pass


def test_a_negative_cycle_names_the_first_source_of_a_batch_that_reaches_it(target):
    g = Graph.from_edges([0, 1, 2, 2], [1, 2, 1, 3], weights=[1.0, -3.0, 1.0, 2.0],
                         num_vertices=5)
    with pytest.raises(NegativeCycleError, match="from vertex 1, a source"):
        sssp(g, sources=[4, 3, 1, 0], method="bellman_ford", target=target)
