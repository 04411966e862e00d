"""Duplicate culling in advance and traverse (``cull="none" | "bitmap" | "hash"``) on every
balancer: the culled queue holds the same vertices, "bitmap" each once, "hash" never more often
than unculled; traversals with culling still compute the right answer, every pair of target,
balancer, loop and cull in some row (the rows on the simulator on tiny graphs), and "bitmap" keeps
a traversal whose functor accepts a head again and again in one step (SCC's colouring) within its
queues, where unculled it overflows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier import Frontier, FrontierOverflowError, Graph, atomic_min
from frontier.options import Cull
from frontier.testing import check_sssp, graphs
from operators import advance, available_balancers, explain, traverse
from tests.algorithms.test_strong_components import hub_lowered_between_its_repeats
from tests.pairs import covering, simulated_rows
from tests.tiers import TARGETS, examples

BALANCERS = available_balancers()

def accept(src, dst, eid, weight):
    return True


def relax(src, dst, eid, weight, dist):
    new = dist[src] + weight
    return atomic_min(dist, dst, new) > new


@st.composite
def graph_and_frontier(draw, max_vertices=30, max_edges=120):
    graph = draw(graphs(min_vertices=1, max_vertices=max_vertices, max_edges=max_edges))
    ids = draw(st.lists(st.integers(0, graph.num_vertices - 1), max_size=graph.num_vertices))
    return graph, np.asarray(ids, dtype=np.int64)


def _advanced(graph, ids, target, balancer, cull):
    room = max(ids.size, 1) * max(graph.num_edges, 1)  # a queue with repeats fans out more
    f = Frontier.from_vertices(graph, ids, target=target, capacity=room)
    return advance(graph, f, accept, balancer=balancer, cull=cull).to_numpy()


@pytest.mark.parametrize("balancer", BALANCERS)
@settings(max_examples=examples(60))
@given(case=graph_and_frontier())
def test_culling_keeps_every_head_and_drops_repeats(target, balancer, case):
    if target.simulated and balancer != "warp":
        pytest.skip("one balancer in the simulator")
    graph, ids = case
    plain = _advanced(graph, ids, target, balancer, "none")
    exact = _advanced(graph, ids, target, balancer, "bitmap")
    hashed = _advanced(graph, ids, target, balancer, "hash")
    np.testing.assert_array_equal(np.sort(exact), np.unique(plain))
    np.testing.assert_array_equal(np.unique(hashed), np.unique(plain))
    assert hashed.size <= plain.size


#: Every pair of target, balancer, loop and cull in some row (a covering design, not the
#: cross product).
EVERY_PAIR = covering(target=TARGETS, balancer=BALANCERS,
                      fused=[pytest.param(True, id="fused"), pytest.param(False, id="host-loop")],
                      cull=list(Cull))


def _bellman_ford_with_culling(target, balancer, fused, cull, graph) -> None:
    dist = target.full(graph.num_vertices, np.inf, np.float64)
    target.write_scalar(dist, 0, 0.0)
    # Without culling a step may push one vertex once per improvement, and on a GPU a vertex
    # improved within a step relaxes its edges again: room for far more than |E| entries.
    room = None if cull != "none" else 4 * max(graph.num_edges, 1) * graph.num_vertices
    f = Frontier.from_vertices(graph, [0], target=target, capacity=room)
    traverse(graph, f, relax, dist, balancer=balancer, fused=fused, cull=cull)
    check_sssp(graph, 0, target.to_host(dist))


@pytest.mark.parametrize("target, balancer, fused, cull", simulated_rows(EVERY_PAIR, False),
                         indirect=["target"])
@settings(max_examples=examples(20))
@given(graph=graphs(min_vertices=1, max_vertices=24, max_edges=80, weighted=True,
                    weight_range=(0, 9)))
def test_bellman_ford_traversal_with_culling_equals_dijkstra(target, balancer, fused, cull,
                                                              graph):
    _bellman_ford_with_culling(target, balancer, fused, cull, graph)


@pytest.mark.parametrize("target, balancer, fused, cull", simulated_rows(EVERY_PAIR, True),
                         indirect=["target"])
@settings(max_examples=2)
@given(graph=graphs(min_vertices=1, max_vertices=10, max_edges=24, weighted=True,
                    weight_range=(0, 9)))
def test_bellman_ford_traversal_with_culling_in_the_simulator(target, balancer, fused, cull,
                                                               graph):
    _bellman_ford_with_culling(target, balancer, fused, cull, graph)


def test_a_culled_step_is_unique_again_in_the_next_step(target):
    g = Graph.from_edges([0, 0, 1, 2, 1, 2], [1, 2, 3, 3, 4, 4])
    f = Frontier.from_vertices(g, [0], target=target)
    first = advance(g, f, accept, cull="bitmap")
    second = advance(g, first, accept, cull="bitmap")
    assert sorted(second.to_numpy().tolist()) == [3, 4]


def test_unknown_cull_is_refused(target):
    g = Graph.from_edges([0], [1])
    f = Frontier.from_vertices(g, [0], target=target)
    with pytest.raises(ValueError, match="cull='sometimes'"):
        advance(g, f, accept, cull="sometimes")
    with pytest.raises(ValueError, match="cull='sometimes'"):
        traverse(g, f, accept, cull="sometimes")


@pytest.mark.parametrize("cull, text", [("bitmap", "cull_stamp"), ("hash", "cull_key")])
def test_explain_shows_the_culling(target, cull, text):
    g = Graph.from_edges([0], [1])
    f = Frontier.from_vertices(g, [0], target=target)
    assert text in explain(advance, g, f, accept, cull=cull)
    assert text in explain(traverse, g, f, accept, cull=cull)
    assert "cull_" not in explain(advance, g, f, accept)


def test_an_unculled_colouring_of_a_hub_pushed_between_its_drops_overflows_on_the_cpu(colouring):
    """SCC's colouring (atomic-min) pushes the hub once per drop of its colour in a step; the
    next step walks its arcs once per copy, each with a lower colour: more pushes than the
    queue's max(|E|, |V|), reported, never truncated."""
    graph = hub_lowered_between_its_repeats()
    with pytest.raises(FrontierOverflowError, match="capacity"):
        colouring(graph, "cpu", cull="none")


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "host-loop"])
@pytest.mark.parametrize("balancer", BALANCERS)
def test_bitmap_culling_bounds_every_step_of_that_colouring_by_the_vertices(target, balancer,
                                                                            fused, colouring):
    graph = hub_lowered_between_its_repeats()
    want = np.zeros(graph.num_vertices, np.int32)  # one SCC: everything reaches vertex 0
    got, walk = colouring(graph, target, cull="bitmap", balancer=balancer, fused=fused)
    assert got.tolist() == want.tolist()
    assert len(walk.frontier) == 0
