"""The stepping operator: every rule reaches Dijkstra's distances on hypothesis graphs (integer,
float and zero weights, repeated edges, self-loops, several components), in int64 and float64,
on every target; the rounds stay inside one launch; arguments are checked before any work."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from frontier import Frontier, Graph, atomic_min, generators
from frontier.testing import reference_sssp, weighted_graphs_with_source
from operators import OperatorError, recording
from operators.stepping import MODES, RULES, Rule, stepping
from tests.tiers import examples


def relax(src, dst, eid, weight, dist):
    new = dist[src] + weight
    return atomic_min(dist, dst, new) > new


def _rule(name: str) -> Rule:
    return Rule(name, delta=3.0, rho=4)


def _distances(graph: Graph, source: int, rule: Rule, target, dtype=np.float64, mode=None):
    top = np.inf if dtype == np.float64 else np.iinfo(np.int64).max
    dist = target.full(graph.num_vertices, top, dtype)
    target.write_scalar(dist, source, 0)
    start = Frontier.from_vertices(graph, [source], target=target,
                                   capacity=max(graph.num_vertices, 1))
    done = stepping(graph, start, relax, dist, rule=rule, balancer="thread", mode=mode)
    found = target.to_host(dist).astype(np.float64)
    found[found == top] = np.inf
    return found, done


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=examples(10), deadline=None)
@given(case=weighted_graphs_with_source(kinds=("small", "float"), max_vertices=12,
                                        max_edges=30))
def test_every_rule_reaches_dijkstras_distances(target, rule, case):
    graph, source = case
    found, done = _distances(graph, source, _rule(rule), target)
    np.testing.assert_array_equal(found, reference_sssp(graph, source))
    assert done.finished and done.rounds >= 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=examples(5), deadline=None)
@given(case=weighted_graphs_with_source(kinds=("small", "float"), max_vertices=10,
                                        max_edges=24))
def test_both_modes_of_a_gpu_reach_dijkstras_distances(target, rule, mode, case):
    if not target.runs_balancers:
        pytest.skip("the modes are a GPU's (the cpu target runs one loop)")
    graph, source = case
    found, done = _distances(graph, source, _rule(rule), target, mode=mode)
    np.testing.assert_array_equal(found, reference_sssp(graph, source))
    assert done.mode == ("block" if mode == "block" else "fused")


def test_the_block_mode_is_a_gpus():
    g = generators.path(4)
    start = Frontier.from_vertices(g, [0], target="cpu", capacity=4)
    with pytest.raises(OperatorError, match="mode='block' runs on a GPU target"):
        stepping(g, start, relax, np.zeros(4), rule=Rule("ordered"), mode="block")


@pytest.mark.parametrize("rule", RULES)
def test_integer_priorities_stay_exact(target, rule):
    g = generators.grid2d(5, 6, weights=(1, 9), seed=2)
    found, _ = _distances(g, 3, _rule(rule), target, np.int64)
    np.testing.assert_array_equal(found, reference_sssp(g, 3))


@pytest.mark.parametrize("rule", RULES)
def test_the_rounds_run_in_one_launch(target, rule):
    g = generators.path(60, weights=(1, 9), seed=1)
    with recording() as log:
        _, done = _distances(g, 0, _rule(rule), target)
    stepping_launches = [k for k in log if "stepping" in k.name]
    assert len(stepping_launches) == 1 and done.rounds >= 59 // 9


def test_max_rounds_stops_an_unfinished_queue(target):
    g = generators.path(30, weights=(1, 1))
    dist = target.full(30, np.inf, np.float64)
    target.write_scalar(dist, 0, 0)
    start = Frontier.from_vertices(g, [0], target=target, capacity=30)
    done = stepping(g, start, relax, dist, rule=Rule("bellman_ford"), max_rounds=5)
    assert done.rounds == 5 and not done.finished


def test_bad_arguments_are_refused_before_any_work():
    g = generators.path(4)
    start = Frontier.from_vertices(g, [0], target="cpu", capacity=4)
    with pytest.raises(ValueError, match="stepping rule"):
        Rule("fastest")
    with pytest.raises(ValueError, match="delta"):
        Rule("near_far", delta=0)
    with pytest.raises(OperatorError, match="int64 or float64"):
        stepping(g, start, relax, np.zeros(4, np.float32), rule=Rule("ordered"))
    small = Frontier.from_vertices(g, [0], target="cpu", capacity=1)
    with pytest.raises(OperatorError, match="capacity >= 4"):
        stepping(g, small, relax, np.zeros(4), rule=Rule("ordered"))
