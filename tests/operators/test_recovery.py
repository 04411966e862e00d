"""Operators survive errors: a functor that raises leaves the frontier pool as it was before the
call (a retry gives the right frontier), a fused traversal that fails leaves no frontier that
could be read half-written, and a fused traversal whose queue overflows stops at once with
FrontierOverflowError instead of spinning (issue 9, items 5 and 6)."""

from __future__ import annotations

import numpy as np
import pytest

from frontier import (
    Frontier,
    FrontierOverflowError,
    Graph,
    StaleFrontierError,
    atomic_add,
    generators,
)
from frontier.options import Kind, values
from operators import FunctorError, advance, available_balancers, filter, traverse
from tests.pairs import pairwise
from tests.tiers import TARGETS

LEAVES = list(range(1, 10))


def failure(target) -> str:
    """What a raising functor gives on ``target``: its exception as FunctorError where kernels
    report raises (cpu, simulator), a refusal before any work on a GPU (check_raises)."""
    return "boom" if target.reports_raises else "raise statement"


def boom_at_leaf_7(src, dst, eid, weight, seen):
    if dst == 7:
        raise ValueError("boom")
    return True


def accept(src, dst, eid, weight, seen):
    return True


def keep_unless_7(v, seen):
    if v == 7:
        raise ValueError("boom")
    return True


def keep(v, seen):
    return True


@pairwise(target=TARGETS, kind=values(Kind), balancer=available_balancers())
def test_advance_retried_after_a_raising_functor_gives_each_leaf_once(target, kind, balancer):
    star = generators.star(10)  # hub 0, leaves 1..9
    f = Frontier.from_vertices(star, [0], kind=kind, target=target)
    seen = target.zeros(star.num_vertices, np.int32)
    with pytest.raises(FunctorError, match=failure(target)):
        advance(star, f, boom_at_leaf_7, seen, balancer=balancer)
    assert f.is_current()
    again = advance(star, f, accept, seen, balancer=balancer)
    assert sorted(again.to_numpy().tolist()) == LEAVES
    # the ring goes on as usual after the failed step
    assert sorted(advance(star, again, accept, seen).to_numpy().tolist()) == [0] * 9


@pytest.mark.parametrize("kind", ["sparse", "dense"])
def test_filter_retried_after_a_raising_predicate_keeps_every_element_once(target, kind):
    star = generators.star(10)
    f = Frontier.from_vertices(star, LEAVES, kind=kind, target=target)
    seen = target.zeros(star.num_vertices, np.int32)
    with pytest.raises(FunctorError, match=failure(target)):
        filter(star, f, keep_unless_7, seen)
    assert sorted(filter(star, f, keep, seen).to_numpy().tolist()) == LEAVES


def boom_at_hub(src, dst, eid, weight, seen):
    if dst == 0 and src == 7:
        raise ValueError("boom")
    return True


def test_a_failed_step_in_a_chain_keeps_its_input_and_ends_the_frontier_it_would_end(target):
    star = generators.star(10)
    seen = target.zeros(star.num_vertices, np.int32)
    x0 = Frontier.from_vertices(star, [0], target=target)
    x1 = advance(star, x0, accept, seen)
    with pytest.raises(FunctorError, match=failure(target)):
        advance(star, x1, boom_at_hub, seen)
    assert sorted(x1.to_numpy().tolist()) == LEAVES
    if target.reports_raises:  # the step ran (a refusal runs nothing)
        with pytest.raises(StaleFrontierError):  # the lifetime rule: it reused x0's slot
            len(x0)
    assert advance(star, x1, accept, seen).to_numpy().tolist() == [0] * 9


def boom_at_5(src, dst, eid, weight, seen):
    if dst == 5:
        raise ValueError("boom")
    seen[dst] = 1
    return True


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "host-loop"])
def test_traverse_that_failed_never_reads_a_half_written_slot(target, fused):
    path = generators.path(8, directed=True)
    seen = target.zeros(path.num_vertices, np.int32)
    f = Frontier.from_vertices(path, [0], target=target)
    with pytest.raises(FunctorError, match=failure(target)):
        traverse(path, f, boom_at_5, seen, fused=fused)
    if not target.reports_raises:  # refused before any step: f is as it was
        assert f.is_current()
    elif fused:  # its steps reused every slot: the start frontier is gone, and says so
        with pytest.raises(StaleFrontierError, match="no longer valid"):
            traverse(path, f, accept, seen, fused=fused)
    else:  # the failed step was the fifth: the frontier {4} it read is current, f is stale
        with pytest.raises(StaleFrontierError):
            len(f)
    again = traverse(path, Frontier.from_vertices(path, [0], target=target), accept, seen,
                     fused=fused)
    assert again.steps == 8


def count_calls(src, dst, eid, weight, calls):
    atomic_add(calls, 0, 1)
    return True


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "host-loop"])
def test_traverse_whose_queue_overflows_stops_at_the_overflowing_step(target, fused):
    # K4 with an accept-all functor: the frontier triples each step (3, 9, 27 entries) and the
    # queue holds 12, so the third step overflows; the traversal must not go on after it
    k4 = Graph.from_edges([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3],
                          [1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2])
    calls = target.zeros(1, np.int64)
    f = Frontier.from_vertices(k4, [0], target=target, capacity=12)
    with pytest.raises(FrontierOverflowError, match="capacity"):
        traverse(k4, f, count_calls, calls, max_steps=1000, fused=fused)
    assert int(target.to_host(calls)[0]) == 3 + 9 + 27


def test_an_edge_frontier_of_a_graph_with_more_arcs_than_int32_ids_is_refused(monkeypatch):
    from frontier import FrontierError
    from frontier import frontier as frontier_module

    monkeypatch.setattr(frontier_module, "ID_LIMIT", 5)  # stands for 2**31 - 1
    star = generators.star(10)  # 18 arcs
    with pytest.raises(FrontierError, match="int32 ids, but this graph has 18 edges"):
        Frontier.from_edges(star, [0], target="cpu")
    assert len(Frontier.from_vertices(generators.star(4), [0], target="cpu")) == 1


def test_a_raising_functor_is_refused_before_any_work_where_kernels_cannot_report_it():
    from types import SimpleNamespace

    from operators.functors import as_functor, check_raises

    assert as_functor(boom_at_leaf_7).raises and as_functor(keep_unless_7).raises
    assert not as_functor(accept).raises and not as_functor(keep).raises
    gpu = SimpleNamespace(name="cuda", reports_raises=False)
    with pytest.raises(FunctorError, match="boom_at_leaf_7 .* raise statement"):
        check_raises(gpu, [as_functor(accept), as_functor(boom_at_leaf_7)])
    check_raises(gpu, [as_functor(accept)])
    check_raises(SimpleNamespace(name="cpu", reports_raises=True), [as_functor(boom_at_5)])
