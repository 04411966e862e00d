"""Argument validation at the public entry points (issue 9, item 4): bad values raise at once,
scipy.sparse.csgraph style (TypeError for the wrong kind, ValueError out of range), with the
argument's name and what was expected, before any work; arguments a mode would ignore raise;
decorated functors work and uncompilable ones get a message saying what to pass instead."""

from __future__ import annotations

import importlib

import numba
import numpy as np
import pytest
from numba import cuda

from algorithms import bfs
from frontier import Frontier, FrontierError, Graph, generators, validate
from frontier.io import save
from operators import (
    Direction,
    FunctorError,
    advance,
    available_balancers,
    compute,
    filter,
    neighbor_reduce,
    reduce,
    traverse,
)

STAR = generators.star(6)
bfs_module = importlib.import_module("algorithms.bfs")


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if BFS starts any work (a frontier, a traversal) before refusing."""
    def started(*args, **kwargs):
        raise AssertionError("work started before the arguments were checked")
    monkeypatch.setattr(bfs_module, "traverse", started)
    monkeypatch.setattr(bfs_module.Frontier, "from_vertices", started)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"alpha": 0, "direction": "auto"}, ValueError, "alpha=0; expected a finite number > 0"),
    ({"beta": -1, "direction": "auto"}, ValueError, "beta=-1"),
    ({"alpha": float("inf"), "direction": "auto"}, ValueError, "finite"),
    ({"alpha": float("nan"), "direction": "auto"}, ValueError, "finite"),
    ({"alpha": "64", "direction": "auto"}, TypeError, "expected a number"),
    ({"alpha": 8, "direction": "push"}, ValueError,
     "alpha has no effect with direction='push'"),
    ({"beta": 8, "direction": "pull"}, ValueError, "beta has no effect with direction='pull'"),
    ({"balancer": "warp", "direction": "pull"}, ValueError, "balancer has no effect"),
    ({"fused": False, "direction": "pull"}, ValueError, "fused has no effect"),
    ({"fused": "yes"}, TypeError, "fused='yes'; expected True or False"),
    ({"balancer": "nosuch"}, ValueError, "two_phase"),
    ({"direction": "sideways"}, ValueError, "'push', 'pull', 'auto'"),
    ({"frontier": "bitmap"}, ValueError, "unknown frontier kind 'bitmap'; expected one of "
                                         "'sparse', 'dense'"),
    ({"target": "tpu"}, ValueError, "unknown target 'tpu'"),
])
def test_bfs_refuses_bad_arguments_before_any_work(no_work, kwargs, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        bfs(STAR, 0, **{"target": "cpu", **kwargs})


@pytest.mark.parametrize("source, error", [(6, ValueError), (-1, ValueError),
                                           (np.uint64(2**63), ValueError), (2.0, TypeError),
                                           (True, TypeError), ("0", TypeError)])
def test_bfs_refuses_sources_that_are_not_vertex_ids(no_work, source, error):
    with pytest.raises(error, match="source"):
        bfs(STAR, source, target="cpu")


@pytest.mark.parametrize("source", [np.uint64(3), np.int8(3), np.uint32(3)])
def test_bfs_accepts_any_integer_type_for_a_source_that_fits(source):
    assert bfs(STAR, source, target="cpu").distances.tolist() == [1, 2, 2, 0, 2, 2]


def test_the_thresholds_apply_to_auto_only():
    assert bfs(STAR, 0, target="cpu", direction="auto", alpha=2, beta=3).iterations == 2
    for mode in ("push", "pull"):
        with pytest.raises(ValueError, match="alpha and beta have no effect"):
            Direction(mode, alpha=2, beta=3)
    assert Direction("auto").alpha == 64.0


@pytest.mark.parametrize("num_vertices", [3.7, "3", -1, True])
def test_graph_refuses_a_vertex_count_that_is_not_a_count(num_vertices):
    with pytest.raises((TypeError, ValueError), match="num_vertices"):
        Graph.from_edges([0], [1], num_vertices=num_vertices)


def test_graph_accepts_a_numpy_vertex_count():
    assert Graph.from_edges([0], [1], num_vertices=np.int64(3)).num_vertices == 3


@pytest.mark.parametrize("kwargs, error", [({"capacity": 2.5}, TypeError),
                                           ({"capacity": 0}, ValueError),
                                           ({"kind": "queue"}, FrontierError)])
def test_frontier_constructors_refuse_bad_arguments(kwargs, error):
    with pytest.raises(error):
        Frontier.from_vertices(STAR, [0], target="cpu", **kwargs)
    with pytest.raises(TypeError, match="a frontier's graph: expected a frontier.Graph"):
        Frontier.from_vertices(STAR.to_scipy(), [0], target="cpu")


@pytest.mark.parametrize("call, where", [
    (lambda g: Frontier.from_vertices(g, [0], target="cpu"), "a frontier's graph"),
    (lambda g: save(g, "never-written.npz"), r"save\(graph, path\)"),
    (lambda g: compute(g, "vertices", lambda v: None, target="cpu"), "graph"),
    (lambda g: bfs(g, 0, target="cpu"), "graph"),
])
def test_every_graph_check_raises_one_error_saying_where_what_and_what_was_expected(call, where):
    with pytest.raises(TypeError, match=f"^{where}: expected a frontier.Graph, got list$"):
        call([[0, 1]])


def accept(src, dst, eid, weight, seen):
    return True


@pytest.mark.parametrize("kwargs, error, words", [
    ({"max_steps": 1.5}, TypeError, "max_steps"), ({"max_steps": -1}, ValueError, "max_steps"),
    ({"stop_above": 0}, ValueError, "stop_above"), ({"blocks": 0}, ValueError, "blocks"),
    ({"fused": 1}, TypeError, "fused"), ({"direction": "up"}, ValueError, "direction"),
    ({"balancer": "nosuch"}, ValueError, "unknown balancer"),
])
def test_traverse_refuses_bad_arguments(kwargs, error, words):
    f = Frontier.from_vertices(STAR, [0], target="cpu")
    with pytest.raises(error, match=words):
        traverse(STAR, f, accept, np.zeros(6, np.int32), **kwargs)
    assert f.is_current()  # nothing ran


def keep(v, seen):
    return True


def test_filter_refuses_a_non_boolean_unique():
    with pytest.raises(TypeError, match="unique"):
        filter(STAR, Frontier.from_vertices(STAR, [0], target="cpu"), keep, np.zeros(6),
               unique="yes")


def two_parameters(src, dst):
    return True


def test_a_functor_of_the_wrong_arity_is_refused_before_compiling(target):
    f = Frontier.from_vertices(STAR, [0], target=target)
    seen = target.zeros(6, np.int32)
    with pytest.raises(FunctorError, match=r"takes \(src, dst\) but the operator calls it with 5 "
                                           r"arguments \(src, dst, eid, weight, s0\)"):
        advance(STAR, f, two_parameters, seen)
    with pytest.raises(FunctorError, match="condition"):
        advance(STAR, f, accept, seen, condition=accept)
    with pytest.raises(FunctorError, match="compute function"):
        compute(STAR, "vertices", accept, seen, target=target)
    with pytest.raises(FunctorError, match="reduce function"):
        reduce(STAR, "vertices", accept, target=target)
    with pytest.raises(FunctorError, match="neighbour function"):
        neighbor_reduce(STAR, "vertices", keep, out=target.zeros(6, np.int32))
    with pytest.raises(FunctorError, match="filter predicate"):
        filter(STAR, f, accept, seen)
    assert f.is_current()


def defaults_and_varargs(src, dst, eid, weight, *rest):
    return True


@numba.njit
def jitted(src, dst, eid, weight, seen):
    return dst != 3


@pytest.mark.parametrize("functor", [jitted, cuda.jit(device=True)(accept),
                                     defaults_and_varargs], ids=["njit", "cuda.jit", "varargs"])
def test_decorated_and_variadic_functors_run(target, functor):
    f = Frontier.from_vertices(STAR, [0], target=target)
    got = advance(STAR, f, functor, target.zeros(6, np.int32)).to_numpy()
    assert sorted(got.tolist()) == ([1, 2, 4, 5] if functor is jitted else [1, 2, 3, 4, 5])


class Callable_:
    def __call__(self, src, dst, eid, weight, seen):
        return True

    def method(self, src, dst, eid, weight, seen):
        return True


@pytest.mark.parametrize("functor", [Callable_(), Callable_().method, print, 3],
                         ids=["object", "method", "builtin", "int"])
def test_an_uncompilable_functor_gets_a_message_saying_what_to_pass(functor):
    with pytest.raises(FunctorError, match="wrap the call in a def"):
        advance(STAR, Frontier.from_vertices(STAR, [0], target="cpu"), functor, np.zeros(6))


def test_validate_helpers_name_the_argument_and_what_was_expected():
    assert validate.count("n", np.int16(4)) == 4
    assert validate.positive("tol", 1e-9) == 1e-9
    assert validate.fraction("damping", 0.85, 0, 1) == 0.85
    with pytest.raises(ValueError, match="0 < damping < 1"):
        validate.fraction("damping", 1.0, 0, 1)
    with pytest.raises(ValueError, match="'a', 'b'"):
        validate.one_of("method", "c", ["a", "b"])
    assert validate.vertices("sources", np.array([3, 1], np.uint64), 4).dtype == np.int64
    with pytest.raises(ValueError, match="sources holds 4, out of range"):
        validate.vertices("sources", [0, 4], 4)
    with pytest.raises(TypeError, match="integer vertex ids"):
        validate.vertices("sources", [0.5], 4)
    with pytest.raises(ValueError, match="unknown balancer 'x'.*'thread'"):
        validate.one_of("balancer", "x", available_balancers())


def test_validate_checks_the_graph_first_then_sources_in_their_order():
    with pytest.raises(TypeError, match="expected a frontier.Graph, got list"):
        validate.source([[0, 1]], 0)
    assert validate.source(STAR, np.uint8(5)) == 5
    assert validate.sources(STAR, 4).tolist() == [4]
    assert validate.sources(STAR, np.array(4)).tolist() == [4]
    assert validate.sources(STAR, (v for v in (3, 1, 3))).tolist() == [3, 1, 3]
    assert validate.sources(STAR, []).dtype == np.int64
    for bad, error in ((6, ValueError), ([0, 6], ValueError), ("0", TypeError),
                       ([True], TypeError), (None, TypeError)):
        with pytest.raises(error, match="sources"):
            validate.sources(STAR, bad)


def test_validate_refuses_negative_weights_with_what_needs_them_and_the_fix():
    g = Graph.from_edges([0, 1], [1, 2], weights=[2.0, -0.5])
    validate.non_negative_weights("x", STAR, "fix")
    validate.non_negative_weights("x", Graph.from_edges([0], [1], weights=[0.0]), "fix")
    with pytest.raises(ValueError, match="^sssp needs non-negative edge weights; this graph has "
                                         "a weight of -0.5: scale them$"):
        validate.non_negative_weights("sssp", g, "scale them")
