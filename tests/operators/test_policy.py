"""One policy per call: ``balancer=`` resolved once at the operator or algorithm boundary
(operators/policy.py), decisions carrying bound balancers, and traverse as a loop of phases
(operators/phases.py); issue 21 items 1 and 3."""

from __future__ import annotations

import numpy as np
import pytest

import operators
from algorithms import bfs, connected_components, sssp
from frontier import Frontier, generators
from frontier.options import Mode
from frontier.target import resolve_target
from operators import (
    AdaptivePolicy,
    BalancerError,
    OperatorError,
    StaticPolicy,
    advance,
    available_balancers,
    explain,
    get_balancer,
    recording,
    resolve_policy,
    traverse,
)
from operators import policy as policy_module
from operators.adaptive import NEVER, Decision, Thresholds
from operators.balancers import AutoBalancer, ThreadMapped, TwoPhase, VirtualWarp
from operators.phases import BlockPhase, FusedPhase, HostStep, phase_for
from operators.policy import NotApplied
from operators.sources import batches


def visit(src, dst, eid, weight, dist):
    if dist[dst] < 0:
        dist[dst] = dist[src] + 1
        return True
    return False


def unvisited(v, dist):
    return dist[v] < 0


@pytest.fixture
def count_threshold_lookups(monkeypatch):
    """How often the calibration cache is consulted (each lookup stats its file)."""
    calls = []
    real = policy_module.thresholds_for

    def counting(target):
        calls.append(target)
        return real(target)

    monkeypatch.setattr(policy_module, "thresholds_for", counting)
    return calls


@pytest.mark.parametrize("given, kind", [("thread", StaticPolicy), ("warp:8", StaticPolicy),
                                         (VirtualWarp(16), StaticPolicy),
                                         ("auto", AdaptivePolicy),
                                         (AutoBalancer(Thresholds(t2=7)), AdaptivePolicy)])
def test_every_form_of_balancer_resolves_to_one_policy(given, kind):
    g = generators.grid2d(4, 4)
    policy = resolve_policy(given, g, resolve_target("cpu"))
    assert isinstance(policy, kind)
    assert resolve_policy(policy, g, resolve_target("cpu")) is policy


def test_a_static_policy_makes_each_schedule_once_and_serves_every_traversal(target):
    g = generators.path(6)
    policy = resolve_policy("thread", g, target)
    first = policy.schedule("sparse", True)
    assert policy.schedule("sparse", True) is first  # no state: made once per kind and mode
    assert policy.schedule("dense", True) is not first
    assert policy.schedule("sparse", False) is not policy.schedule("sparse", True)
    for _ in range(2):
        dist = target.full(g.num_vertices, -1, np.int64)
        target.write_scalar(dist, 0, 0)
        traverse(g, Frontier.from_vertices(g, [0], target=target), visit, dist,
                 condition=unvisited, balancer=policy)
        np.testing.assert_array_equal(target.to_host(dist), np.arange(6))


def test_a_batch_of_sources_runs_under_the_loop_policy_made_once(target):
    g = generators.path(6)
    tgt = target
    adaptive = resolve_policy("auto", g.copies(3), tgt)
    loop_policy = adaptive.loop_policy()
    assert isinstance(loop_policy, StaticPolicy)
    assert loop_policy.balancer is bind_loop_balancer(adaptive)
    assert adaptive.loop_policy() is loop_policy
    for _ in range(2):  # a later call's batch of the same size: the same policy
        (batch,) = batches(g, np.array([0, 2, 5]), target=tgt)
        assert batch.policy("auto", tgt) is loop_policy
    (single,) = batches(g, np.array([4]), target=tgt)
    assert isinstance(single.policy("auto", tgt), AdaptivePolicy)  # one source: its own


def bind_loop_balancer(adaptive):
    return policy_module.bind(adaptive.loop_balancer(), adaptive.graph, adaptive.target)


def test_auto_thresholds_given_with_the_choice_are_the_policys():
    g = generators.path(5)
    policy = resolve_policy(AutoBalancer(Thresholds(t2=7)), g, resolve_target("cpu"))
    assert policy.thresholds.t2 == 7 and policy.min_pull == 7


@pytest.mark.parametrize("bad", ["nope", "warp:3", 12, None])
def test_a_bad_balancer_is_refused_at_the_boundary(bad):
    g = generators.path(3)
    f = Frontier.from_vertices(g, [0], target="cpu")
    with pytest.raises(BalancerError):
        advance(g, f, visit, np.zeros(3, np.int64), balancer=bad, direction="pull")


def test_a_policy_resolved_for_another_graph_is_refused():
    g, other = generators.path(4), generators.path(4)
    policy = resolve_policy("thread", other, resolve_target("cpu"))
    f = Frontier.from_vertices(g, [0], target="cpu")
    with pytest.raises(OperatorError, match="another graph"):
        traverse(g, f, visit, np.full(4, -1, np.int64), balancer=policy)


def test_a_default_bfs_looks_the_thresholds_up_once(count_threshold_lookups):
    g = generators.grid2d(6, 6)
    bfs(g, 0, target="cpu")
    assert len(count_threshold_lookups) == 1


@pytest.mark.parametrize("method", ["bellman_ford", "delta_stepping"])
def test_sssp_with_auto_looks_the_thresholds_up_once_not_per_advance(
        count_threshold_lookups, method):
    g = generators.grid2d(6, 6, weights=(1, 9))
    result = sssp(g, 0, method=method, target="cpu")
    assert result.iterations > 1
    assert len(count_threshold_lookups) == 1


def test_label_propagation_with_auto_looks_the_thresholds_up_once(count_threshold_lookups):
    g = generators.path(20)
    result = connected_components(g, method="label_propagation", target="cpu")
    assert result.iterations > 1
    assert len(count_threshold_lookups) == 1


def test_a_static_traversal_records_the_bound_balancer_it_ran(target):
    g = generators.grid2d(5, 5)
    policy = resolve_policy("warp:8", g, target)
    dist = target.full(g.num_vertices, -1, np.int64)
    target.write_scalar(dist, 0, 0)
    run = traverse(g, Frontier.from_vertices(g, [0], target=target), visit, dist,
                   condition=unvisited, balancer=policy)
    assert run.steps > 0
    assert all(c.balancer is policy.balancer for c in run.choices)
    expected = VirtualWarp(8).bind(g, target) if target.runs_balancers else NotApplied(target)
    assert policy.balancer == expected


def test_adaptive_decisions_carry_balancers_bound_to_the_graph_and_target(target):
    g = generators.star(30)
    tiny = AutoBalancer(Thresholds(t1=3.0, t2=6, t3=0.2, hub_edges=40, hub_degree=10,
                                   sample_every=1, block_frontier=3, block_edges=6))
    policy = resolve_policy(tiny, g, target)
    dist = target.full(g.num_vertices, -1, np.int64)
    target.write_scalar(dist, 0, 0)
    run = traverse(g, Frontier.from_vertices(g, [0], target=target), visit, dist,
                   condition=unvisited, balancer=policy)
    np.testing.assert_array_equal(target.to_host(dist), [0] + [1] * 29)
    for choice in run.choices:
        assert choice.balancer is None or choice.balancer == policy._bind(choice.balancer)
    if target.runs_balancers:
        assert run.choices[0].balancer == TwoPhase().bind(g, target)  # the hub's step
    else:
        assert {c.balancer for c in run.choices} == {NotApplied(target)}


@pytest.mark.parametrize("mode, phase", [(Mode.FUSED, FusedPhase), (Mode.BLOCK, BlockPhase),
                                         (Mode.HOST, HostStep)])
def test_each_decision_becomes_the_phase_of_its_mode(mode, phase):
    decision = Decision(None if mode == Mode.BLOCK else ThreadMapped(), "sparse", "push", mode)
    made = phase_for(decision, 10, 100, NEVER)
    assert type(made) is phase and made.decision is decision


def test_a_policy_serves_several_traversals_each_sampling_on_its_own(target):
    g = generators.path(12)
    policy = resolve_policy("auto", g, target)
    runs = []
    for _ in range(2):
        dist = target.full(g.num_vertices, -1, np.int64)
        target.write_scalar(dist, 0, 0)
        runs.append(traverse(g, Frontier.from_vertices(g, [0], target=target), visit, dist,
                             condition=unvisited, balancer=policy))
        np.testing.assert_array_equal(target.to_host(dist), np.arange(12))
    assert runs[0].choices == runs[1].choices


# where no balancer applies (issue 24 item 7) -------------------------------------------------
def shown_balancer(target, balancer):
    """What a recording of an advance with ``balancer`` on ``target`` names as its balancer."""
    return f"n/a on {target.name}" if not target.runs_balancers else str(
        policy_module.bind(balancer, generators.grid2d(3, 3), target))


@pytest.mark.parametrize("balancer", available_balancers())
def test_explain_says_the_balancer_does_not_apply_on_a_target_of_one_loop(target, balancer):
    g = generators.grid2d(3, 3)
    dist = target.full(g.num_vertices, -1, np.int64)
    target.write_scalar(dist, 0, 0)
    f = Frontier.from_vertices(g, [0], target=target)
    with recording() as log:
        advance(g, f, visit, dist, balancer=balancer)
    shown = {k.balancer for k in log.kernels() if k.balancer not in (None, "element")}
    assert shown == {shown_balancer(target, balancer)}
    heading = f"balancer {shown_balancer(target, balancer)}, mode"
    assert heading in explain(advance, g, f, visit, dist, balancer=balancer)


@pytest.mark.parametrize("balancer", available_balancers())
def test_per_level_stats_say_the_balancer_does_not_apply_on_a_target_of_one_loop(target,
                                                                                 balancer):
    r = bfs(generators.grid2d(3, 3), 0, target=target, balancer=balancer, direction="push")
    want = get_balancer(balancer).name if target.runs_balancers else f"n/a on {target.name}"
    assert {level.balancer for level in r.stats} == {want}


def test_a_balancer_name_is_still_checked_where_no_balancer_applies(target):
    g = generators.path(3)
    with pytest.raises(BalancerError, match="unknown balancer 'nosuch'"):
        advance(g, Frontier.from_vertices(g, [0], target=target), visit,
                target.full(3, -1, np.int64), balancer="nosuch")


# a blind start: an adaptive traversal from a queue only the device knows (issue 23) ----------
def is_source(v, dist):
    return dist[v] == 0


def device_queue(graph, target, sources):
    """A queue of ``sources`` (distance 0, the rest -1) made on the device by a filter: the host
    knows neither its ids nor its length."""
    dist = target.full(graph.num_vertices, -1, np.int64)
    for s in sources:
        target.write_scalar(dist, s, 0)
    everyone = Frontier.all_vertices(graph, target=target)
    return dist, operators.filter(graph, everyone, is_source, dist, output="sparse")


def test_a_queue_only_the_device_knows_starts_blind_and_reads_only_at_its_end(target):
    g = generators.grid2d(4, 3)
    dist, start = device_queue(g, target, [0])
    policy = resolve_policy("auto", g, target)
    reads = target.host_reads
    run = traverse(g, start, visit, dist, condition=unvisited, balancer=policy)
    reads = target.host_reads - reads
    np.testing.assert_array_equal(target.to_host(dist), bfs(g, 0, target="cpu").distances)
    assert run.steps == 6  # five levels, then the farthest corner's empty step
    if target.runs_balancers:
        assert list(run.choices) == [policy.blind] * 6  # dynamic_warp, fused, to the end
        assert policy.blind.label == "dynamic_warp" and policy.blind.mode == Mode.FUSED
        assert reads == 1  # the phase's end: no length, no degree sum


def test_a_blind_start_outside_its_range_runs_no_step_and_the_traversal_decides_again(target):
    g = generators.grid2d(6, 6)
    sources = [0, 5, 30, 35]  # the corners: a first frontier of 4
    dist, start = device_queue(g, target, sources)
    # host_edges 8 at a mean degree of 3.3: the blind range is frontiers of at most 2
    policy = resolve_policy(AutoBalancer(Thresholds(hub_edges=8, host_edges=8)), g, target)
    run = traverse(g, start, visit, dist, condition=unvisited, balancer=policy)
    grid = np.arange(36).reshape(6, 6)
    rows, cols = np.divmod(grid, 6)
    want = (np.minimum(rows, 5 - rows) + np.minimum(cols, 5 - cols)).ravel()
    np.testing.assert_array_equal(target.to_host(dist), want)
    assert run.steps == 5  # four levels, then the centre's empty step
    if target.runs_balancers:
        assert policy.blind.until == 2
        assert policy.blind not in list(run.choices)  # it ran no step: decided again, measured


def test_a_blind_start_holds_for_blind_steps_then_the_traversal_measures(target):
    g = generators.path(20)
    dist, start = device_queue(g, target, [0])
    policy = resolve_policy("auto", g, target)
    run = traverse(g, start, visit, dist, condition=unvisited, balancer=policy)
    np.testing.assert_array_equal(target.to_host(dist), np.arange(20))
    assert run.steps == 20
    if target.runs_balancers:
        every = policy.thresholds.blind_steps
        assert policy.blind.steps == every
        assert list(run.choices)[:every] == [policy.blind] * every
        assert policy.blind not in list(run.choices)[every:]  # measured from there on
