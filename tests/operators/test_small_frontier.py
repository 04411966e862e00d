"""The small-frontier mode: levels inside one thread block, handing over to the grid-wide fused
mode and back (operators/small_frontier.py, issue 12 item 2), culling repeated heads as every
push step does."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
from hypothesis import given, settings

from algorithms import bfs
from frontier import Frontier, Graph, generators
from frontier.options import Mode
from frontier.runtime import simulator
from frontier.testing import check_bfs, graphs_with_source
from operators import traverse
from operators.adaptive import Thresholds, decide, inspect
from operators.balancers import AutoBalancer
from operators.small_frontier import BLOCK_LOCAL, CAPACITY
from tests.algorithms.test_strong_components import hub_lowered_between_its_repeats
from tests.tiers import examples

SIMULATED = simulator.enabled()

BLOCK, FUSED = Mode.BLOCK, Mode.FUSED

#: Thresholds under which a few dozen vertices already leave the mode and come back.
TINY = AutoBalancer(Thresholds(t2=6, block_frontier=4, block_edges=16, sample_every=1,
                               hand_back_steps=1))

#: Thresholds under which every level of a small graph runs in one block (levels of more edges
#: than a warp has lanes, of more vertices than the simulator's 64 threads per block).
WIDE = AutoBalancer(Thresholds(block_frontier=2048, block_edges=1 << 20))


def modes(result) -> set[str]:
    return {c.mode for c in result.choices}


@pytest.mark.parametrize("graph", [generators.path(60), generators.grid2d(9, 7),
                                   generators.path(40, directed=True)],
                         ids=["path", "grid", "directed-path"])
def test_thin_graphs_run_every_level_in_one_block_on_a_gpu(target, graph):
    r = bfs(graph, 0, target=target)
    check_bfs(graph, 0, r.distances, r.predecessors)
    assert (modes(r) == {BLOCK}) == target.runs_balancers


def test_a_level_past_the_shared_queue_spills_to_the_pool_and_hands_over(target):
    star = generators.star(CAPACITY + 900)  # the hub's level pushes more than a shared queue
    r = bfs(star, 0, target=target, direction="push")
    check_bfs(star, 0, r.distances, r.predecessors)
    assert r.iterations == 2


@pytest.mark.parametrize("direction", ["push", "auto"])
def test_the_mode_hands_over_to_the_grid_and_back(target, direction):
    g = generators.grid2d(12, 10)
    r = bfs(g, 0, target=target, balancer=TINY, direction=direction)
    check_bfs(g, 0, r.distances, r.predecessors)
    if target.runs_balancers:
        assert BLOCK in modes(r) and FUSED in modes(r)
        blocks = [c.mode == BLOCK for c in r.choices]
        assert blocks[0] and blocks[-1] and not all(blocks)  # back to one block at the end


def test_a_short_tail_stays_in_the_grid_wide_phase(target):
    # the grid's last levels shrink below half block_frontier for fewer steps than
    # hand_back_steps: they run on where they are, without a hand-over's launch and read
    g = generators.grid2d(12, 10)
    patient = AutoBalancer(replace(TINY.thresholds, hand_back_steps=1000))
    r = bfs(g, 0, target=target, balancer=patient, direction="push")
    check_bfs(g, 0, r.distances, r.predecessors)
    if target.runs_balancers:
        assert r.choices[0].mode == BLOCK and r.choices[-1].mode == FUSED


def test_a_level_of_more_edges_than_block_edges_hands_over_before_it_runs(target):
    star = generators.star(300)  # from a leaf: one level to the hub, whose 300 edges end it
    limits = AutoBalancer(Thresholds(t2=6, block_frontier=64, block_edges=16, sample_every=1))
    r = bfs(star, 1, target=target, balancer=limits, direction="push")
    check_bfs(star, 1, r.distances, r.predecessors)
    if target.runs_balancers:
        assert [c.mode for c in r.choices][:1] == [BLOCK]
        assert r.choices[1].mode != BLOCK  # the hub's level went to the grid-wide balancers


def test_levels_wider_than_a_block_are_gathered_in_chunks(target):
    # the hub's 150 edges, then 150 leaves: more than the simulator's 64 threads per block
    g = generators.star(151)
    r = bfs(g, 0, target=target, balancer=WIDE, direction="push")
    check_bfs(g, 0, r.distances, r.predecessors)
    if target.runs_balancers:
        assert modes(r) == {BLOCK}


@pytest.mark.parametrize("sources", [None, [0]], ids=["every-vertex", "vertex-0"])
def test_lanes_leaving_early_in_the_mode_colour_as_on_the_cpu(target, sources,
                                                              lanes_leave_early, colouring):
    """Issue 47 (SCC's colouring failed in this mode's kernel): levels of more vertices than
    the block has threads, of more and fewer edges than a warp has lanes (from vertex 0: its
    BFS levels, of one vertex and 1 or 2 edges, then the medium vertex's 40, the 40 vertices
    they reach, the hub's 70 edges, its 70 leaves without edges); every lane a shuffle names
    reaches it, every thread each barrier."""
    want, _ = colouring(lanes_leave_early, "cpu", sources)
    got, walk = colouring(lanes_leave_early, target, sources, balancer=WIDE)
    assert got.tolist() == want.tolist()
    assert (modes(walk) == {BLOCK}) == target.runs_balancers


@pytest.mark.parametrize("cull", ["bitmap", "hash"])
def test_the_mode_culls_repeated_heads(target, cull):
    pair = Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])  # 1 and 2 both push 3
    start = Frontier.from_vertices(pair, [1, 2], target=target)
    walk = traverse(pair, start, lambda s, d, e, w: True, balancer=WIDE, cull=cull, max_steps=1)
    assert walk.frontier.to_numpy().tolist() == [3]
    assert (modes(walk) == {BLOCK}) == target.runs_balancers


def test_a_colouring_that_culls_runs_in_the_mode(target, colouring):
    """SCC's colouring culls (its hub is pushed once a step however often its colour drops):
    it still runs its levels in one block."""
    graph = hub_lowered_between_its_repeats()
    want, _ = colouring(graph, "cpu")
    got, walk = colouring(graph, target, balancer=WIDE)
    assert got.tolist() == want.tolist()
    assert (modes(walk) == {BLOCK}) == target.runs_balancers


@pytest.mark.simulator
@pytest.mark.skipif(not SIMULATED, reason="delays the simulator's threads")
def test_a_level_that_stops_the_mode_stops_every_thread_at_that_level(monkeypatch):
    """The block's second warp is held back after each barrier of the mode's kernel, while the
    first warp ranks the next level, finds more edges than ``block_edges`` and stops. Decided
    before that level's barrier (issue 47), the stop reached the second warp while it still
    tested the level before: it left the loop a level early, and the rest of the block waited
    at a barrier it never reached (undefined on the hardware; the simulator's BarrierError)."""
    from numba.cuda.simulator.kernel import BlockThread

    barrier = BlockThread.syncthreads

    def second_warp_late(thread):
        barrier(thread)
        if thread.thread_id >= 32 and BLOCK_LOCAL in thread._manager._f.__name__:
            time.sleep(0.1)

    monkeypatch.setattr(BlockThread, "syncthreads", second_warp_late)
    star = generators.star(300)  # from a leaf: one level to the hub, whose 300 edges stop it
    limits = AutoBalancer(Thresholds(t2=6, block_frontier=64, block_edges=16, sample_every=1))
    r = bfs(star, 1, target="cuda", balancer=limits, direction="push")
    check_bfs(star, 1, r.distances, r.predecessors)
    assert r.choices[0].mode == BLOCK and r.choices[1].mode != BLOCK


@settings(max_examples=examples(25))
@given(case=graphs_with_source(max_vertices=40, max_edges=160))
def test_bfs_through_the_mode_equals_the_reference_on_any_graph(target, case):
    graph, source = case
    r = bfs(graph, source, target=target, balancer=TINY)
    check_bfs(graph, source, r.distances, r.predecessors)


@settings(max_examples=examples(25))
@given(case=graphs_with_source(max_vertices=90, max_edges=400))
def test_bfs_with_every_level_in_one_block_equals_the_reference_on_any_graph(target, case):
    graph, source = case
    r = bfs(graph, source, target=target, balancer=WIDE, direction="push")
    check_bfs(graph, source, r.distances, r.predecessors)


def test_small_frontiers_of_thin_vertices_choose_the_mode():
    profile = inspect(generators.grid2d(100, 100))
    limits = Thresholds()
    assert decide(profile, 10, 40, limits).mode == BLOCK
    assert decide(profile, 10, 40, limits, small=False).mode == FUSED
    assert decide(profile, 2_000, 8_000, limits).mode == FUSED  # more than block_frontier
    assert decide(profile, 2, 10_000, limits).label == "dynamic_warp"  # hubs: not one block
    assert decide(profile, 10, 40, limits, spreads=False).mode == FUSED  # the cpu's loop
