"""Backward steps: ``advance`` and ``traverse`` with ``edges="in"`` (or on ``graph.transpose()``)
visit the in-neighbours of the frontier's vertices, on every target, in every direction."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given
from hypothesis import strategies as st

from frontier import Frontier, Graph, atomic_cas
from frontier.options import Way
from frontier.testing import graphs
from operators import OperatorError, advance, available_balancers, traverse


def deeper(src, dst, eid, weight, depth):
    return atomic_cas(depth, dst, -1, depth[src] + 1) == -1


def unvisited(v, depth):
    return depth[v] == -1


def record(src, dst, eid, weight, tails, weights):
    tails[dst] = src
    weights[dst] = weight
    return True


def backward_levels(graph: Graph, source: int) -> list[int]:
    """scipy's BFS levels from ``source`` over the transposed adjacency matrix (-1: unreached)."""
    hops = csgraph.shortest_path(graph.to_scipy().T, unweighted=True, indices=source)
    return np.where(np.isinf(hops), -1, hops).astype(int).tolist()


def fresh_depth(target, graph: Graph, source: int):
    depth = target.to_device(np.full(graph.num_vertices, -1, np.int32))
    target.write_scalar(depth, source, 0)
    return depth


def bfs_by_steps(target, graph, source, step_graph, **options) -> list[int]:
    depth = fresh_depth(target, graph, source)
    frontier = Frontier.from_vertices(graph, [source], target=target)
    while len(frontier):
        frontier = advance(step_graph, frontier, deeper, depth, condition=unvisited, **options)
    return target.to_host(depth).tolist()


small_cases = graphs(min_vertices=1, max_vertices=12, max_edges=30).flatmap(
    lambda g: st.tuples(st.just(g), st.integers(0, g.num_vertices - 1)))


@pytest.mark.parametrize("direction", list(Way))
@given(case=small_cases)
def test_backward_bfs_by_advance_edges_in_is_scipys_bfs_on_the_transpose(target, direction,
                                                                          case):
    graph, source = case
    got = bfs_by_steps(target, graph, source, graph, direction=direction, edges="in")
    assert got == backward_levels(graph, source)


@given(case=small_cases)
def test_advance_on_the_transpose_takes_a_frontier_of_the_graph(target, case):
    graph, source = case
    assert bfs_by_steps(target, graph, source, graph.transpose()) == backward_levels(graph,
                                                                                     source)


@pytest.mark.parametrize("fused", [True, False])
@given(case=small_cases)
def test_backward_bfs_by_traverse_edges_in_is_scipys_bfs_on_the_transpose(target, fused, case):
    graph, source = case
    depth = fresh_depth(target, graph, source)
    traverse(graph, Frontier.from_vertices(graph, [source], target=target), deeper, depth,
             condition=unvisited, fused=fused, edges="in")
    assert target.to_host(depth).tolist() == backward_levels(graph, source)


@pytest.mark.parametrize("balancer", available_balancers())
def test_every_balancer_steps_backward(target, balancer):
    g = Graph.from_edges([0, 1, 1, 2, 3, 3, 4], [1, 2, 3, 4, 4, 4, 0], num_vertices=6)
    got = bfs_by_steps(target, g, 4, g, balancer=balancer, edges="in")
    assert got == backward_levels(g, 4) == [3, 2, 1, 1, 0, -1]


def test_a_backward_step_sees_each_in_edge_reversed_with_its_weight(target):
    g = Graph.from_edges([0, 1, 2, 2], [2, 2, 3, 0], [5, 7, 9, 11])
    tails = target.to_device(np.full(4, -1, np.int64))
    weights = target.zeros(4, np.int64)
    out = advance(g, Frontier.from_vertices(g, [2], target=target), record, tails, weights,
                  edges="in")
    assert sorted(out.to_numpy().tolist()) == [0, 1]
    assert target.to_host(tails).tolist() == [2, 2, -1, -1]
    assert target.to_host(weights).tolist() == [5, 7, 0, 0]


def test_an_undirected_graph_steps_the_same_either_way(target):
    g = Graph.from_edges([0, 1, 2], [1, 2, 3], directed=False)
    assert (bfs_by_steps(target, g, 1, g, edges="in")
            == bfs_by_steps(target, g, 1, g, edges="out") == [1, 0, 1, 2])


@pytest.mark.parametrize("edges", ["up", None, 1])
def test_an_unknown_edge_set_is_refused_naming_the_two(target, edges):
    g = Graph.from_edges([0], [1])
    f = Frontier.from_vertices(g, [0], target=target)
    with pytest.raises(OperatorError, match="edges=.*expected 'out'.*or 'in'"):
        advance(g, f, deeper, target.zeros(2, np.int32), edges=edges)
    with pytest.raises(OperatorError, match="edges=.*expected 'out'.*or 'in'"):
        traverse(g, f, deeper, target.zeros(2, np.int32), edges=edges)


def test_an_edge_frontier_does_not_step_backward_or_run_on_the_transpose(target):
    g = Graph.from_edges([0, 1], [1, 2])
    f = Frontier.all_edges(g, target=target)
    with pytest.raises(OperatorError, match="edge ids differ"):
        advance(g, f, record, target.zeros(3, np.int64), target.zeros(3, np.int64),
                edges="in")
    with pytest.raises(OperatorError, match="edge ids differ"):
        advance(g.transpose(), f, record, target.zeros(3, np.int64), target.zeros(3, np.int64))


def test_a_frontier_of_an_unrelated_graph_is_refused(target):
    g = Graph.from_edges([0, 1], [1, 2])
    equal = Graph.from_edges([1, 2], [0, 1])  # g's transpose's arcs, but another graph
    with pytest.raises(OperatorError, match="another graph.*or of its transpose"):
        advance(equal, Frontier.from_vertices(g, [0], target=target), deeper,
                target.zeros(3, np.int32))
