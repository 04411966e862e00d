"""Arguments (issue 20, item 8): booleans must be bools (a string is truthy, so ``directed="no"``
would mean True), NumPy scalars are numbers, every refusal says what, where and what was
expected, before any work, and ``filter(output="none")`` and functors behave as documented."""

from __future__ import annotations

import importlib
import os
import tempfile

import numpy as np
import pytest

import frontier
from algorithms import (
    apsp,
    betweenness_centrality,
    bfs,
    connected_components,
    k_core,
    list_ranking,
    pagerank,
    sssp,
)
from frontier import Frontier, Graph, TargetError, generators
from operators import (
    BalancerError,
    Direction,
    FunctorError,
    OperatorError,
    advance,
    compute,
    filter,
    neighbor_reduce,
    reduce,
    traverse,
)
from operators.adaptive import Thresholds

R = generators.gnm(30, 80, seed=3)
W = generators.grid2d(5, 5, weights=(1, 9))
M = R.to_scipy()
EDGE_LIST = os.path.join(tempfile.mkdtemp(), "edges.txt")
with open(EDGE_LIST, "w") as listed:
    listed.write("0 1\n1 0\n")


def one(src, dst, eid, weight):
    return 1


def accept(src, dst, eid, weight):
    return True


def keep(v):
    return True


# booleans -------------------------------------------------------------------------------------

BOOLEANS = {
    "Graph.from_edges(directed)": lambda b: Graph.from_edges([0], [1], directed=b),
    "Graph.from_csr(directed)": lambda b: Graph.from_csr([0, 1, 2], [1, 0], directed=b),
    "Graph.from_csr(symmetrize)": lambda b: Graph.from_csr([0, 1, 2], [1, 0], directed=False,
                                                           symmetrize=b),
    "Graph.from_scipy(directed)": lambda b: Graph.from_scipy(M, directed=b),
    "Graph.from_scipy(weighted)": lambda b: Graph.from_scipy(M, weighted=b),
    "Graph.from_scipy(symmetrize)": lambda b: Graph.from_scipy(M, directed=False,
                                                               symmetrize=b),
    "generators.path(directed)": lambda b: generators.path(4, directed=b),
    "generators.gnm(directed)": lambda b: generators.gnm(6, 5, directed=b),
    "generators.rmat(directed)": lambda b: generators.rmat(3, directed=b),
    "pagerank(weighted)": lambda b: pagerank(R, weighted=b, target="cpu"),
    "betweenness_centrality(endpoints)": lambda b: betweenness_centrality(R, [0], endpoints=b,
                                                                          target="cpu"),
    "betweenness_centrality(normalized)": lambda b: betweenness_centrality(
        R, [0], normalized=b, target="cpu"),
    "bfs(fused)": lambda b: bfs(R, 0, fused=b, target="cpu"),
    "traverse(fused)": lambda b: traverse(R, Frontier.from_vertices(R, [0], target="cpu"),
                                          accept, fused=b, max_steps=1),
    "filter(unique)": lambda b: filter(R, Frontier.from_vertices(R, [0], target="cpu"), keep,
                                       unique=b),
    "Frontier.from_vertices(shared)": lambda b: Frontier.from_vertices(R, [0], target="cpu",
                                                                       shared=b),
    "Frontier.union(unique)": lambda b: Frontier.from_vertices(R, [0], target="cpu").union(
        Frontier.from_vertices(R, [1], target="cpu"), unique=b),
    "list_ranking(packed)": lambda b: list_ranking(np.array([1, 2, 2]), packed=b,
                                                   target="cpu"),
    "load(directed)": lambda b: frontier.load(EDGE_LIST, directed=b),
    "load(symmetrize)": lambda b: frontier.load(EDGE_LIST, symmetrize=b),
    "load(relabel)": lambda b: frontier.load(EDGE_LIST, relabel=b),
}


@pytest.mark.parametrize("word", ["no", "False", "", 0, 1, None])
@pytest.mark.parametrize("where", sorted(BOOLEANS))
def test_a_boolean_parameter_refuses_anything_but_a_bool(where, word):
    if word is None and where in ("betweenness_centrality(normalized)", "bfs(fused)",
                                  "load(directed)"):
        return  # None is their default, a third choice
    name = where[where.index("(") + 1:-1]
    with pytest.raises(TypeError, match=f"{name}={word!r}; expected True"):
        BOOLEANS[where](word)


@pytest.mark.parametrize("where", sorted(BOOLEANS))
def test_a_boolean_parameter_takes_numpy_bools(where):
    BOOLEANS[where](np.bool_(False))


def test_directed_no_does_not_build_a_directed_graph():
    with pytest.raises(TypeError, match="directed='no'; expected True or False"):
        Graph.from_edges([0], [1], directed="no")
    assert not Graph.from_edges([0], [1], directed=np.bool_(False)).directed


# numpy scalars are numbers --------------------------------------------------------------------

@pytest.mark.parametrize("call, same", [
    (lambda: sssp(W, 0, method="delta_stepping", delta=np.float32(0.5), target="cpu").distances,
     lambda: sssp(W, 0, method="delta_stepping", delta=0.5, target="cpu").distances),
    (lambda: pagerank(R, alpha=np.float32(0.85), tol=np.float32(1e-6), max_iter=np.int16(100),
                      target="cpu").ranks,
     lambda: pagerank(R, alpha=float(np.float32(0.85)), tol=float(np.float32(1e-6)),
                      target="cpu").ranks),
    (lambda: bfs(R, 0, alpha=np.float32(2), beta=np.int64(3), target="cpu").distances,
     lambda: bfs(R, 0, alpha=2.0, beta=3.0, target="cpu").distances),
    (lambda: apsp(W, tile=np.int64(2), target="cpu").distances,
     lambda: apsp(W, tile=2, target="cpu").distances),
    (lambda: list_ranking(np.array([1, 2, 2]), splitters=np.int64(1), seed=np.uint32(3),
                          target="cpu").ranks,
     lambda: list_ranking(np.array([1, 2, 2]), splitters=1, seed=3, target="cpu").ranks),
    (lambda: reduce(None, np.int64(7), lambda i: i, target="cpu"),
     lambda: reduce(None, 7, lambda i: i, target="cpu")),
    (lambda: reduce(R, np.uint8(7), lambda i: i, target="cpu"),
     lambda: reduce(R, 7, lambda i: i, target="cpu")),
])
def test_numpy_scalars_are_numbers(call, same):
    np.testing.assert_array_equal(call(), same())


def test_numpy_numbers_configure_direction_and_thresholds():
    assert Direction("auto", min_pull=np.int64(3)).min_pull == 3
    assert Thresholds(t1=np.float32(16.0), t2=np.int64(100)).t2 == 100


def test_a_pagerank_damping_factor_outside_0_1_is_refused_with_the_range():
    with pytest.raises(ValueError, match=r"alpha=np.float32\(1.5\); expected a finite number "
                                         r"with 0 <= alpha <= 1"):
        pagerank(R, alpha=np.float32(1.5), target="cpu")


# one clear line per refusal -------------------------------------------------------------------

CLEAR = {
    "neighbor_reduce(out=list)": (
        lambda: neighbor_reduce(R, "vertices", one, out=list), OperatorError,
        r"neighbor_reduce: out= must be a one-dimensional array of at least \|V\| = 30 numbers"),
    "neighbor_reduce(out=2-D)": (
        lambda: neighbor_reduce(R, "vertices", one, out=np.zeros((30, 1))), OperatorError,
        r"got a ndarray of shape \(30, 1\)"),
    "neighbor_reduce(where=3)": (
        lambda: neighbor_reduce(R, 3, one, out=np.zeros(30)), OperatorError,
        "neighbor_reduce over 3; expected a vertex Frontier, 'vertices' or Levels"),
    "filter(frontier='x')": (
        lambda: filter(R, "x", keep), OperatorError, "expected a Frontier, got str"),
    "filter(output=[])": (
        lambda: filter(R, Frontier.from_vertices(R, [0], target="cpu"), keep, output=[]),
        OperatorError, r"output=\[\]; expected one of"),
    "advance(output=[])": (
        lambda: advance(R, Frontier.from_vertices(R, [0], target="cpu"), accept, output=[]),
        OperatorError, r"output=\[\]; expected one of"),
    "advance(balancer=[])": (
        lambda: advance(R, Frontier.from_vertices(R, [0], target="cpu"), accept, balancer=[]),
        BalancerError, r"balancer \[\]; expected a name or a LoadBalancer"),
    "k_core(balancer=[])": (
        lambda: k_core(R, balancer=[], target="cpu"), BalancerError, r"balancer \[\]"),
    "sssp(balancer='bogus')": (
        lambda: sssp(W, 0, balancer="bogus", target="cpu"), BalancerError,
        "unknown balancer 'bogus'"),
    "compute(where=[])": (
        lambda: compute(R, [], keep, target="cpu"), OperatorError,
        r"compute over \[\]; expected a Frontier, 'vertices', 'edges' or a count"),
    "compute(where=10**30)": (
        lambda: compute(R, 10**30, keep, target="cpu"), OperatorError,
        r"compute over 10+; expected .* a count 0 <= n < 2\*\*63"),
    "connected_components(method=None)": (
        lambda: connected_components(R, method=None, target="cpu"), ValueError,
        "method=None; expected one of"),
    "bfs(target=[])": (
        lambda: bfs(R, 0, target=[]), TargetError, r"unknown target \[\]"),
    "traverse(max_steps=10**30)": (
        lambda: traverse(R, Frontier.from_vertices(R, [0], target="cpu"), accept,
                         max_steps=10**30), ValueError,
        r"max_steps=10+; expected 0 <= max_steps <= "),
    "list_ranking(seed=2**40)": (
        lambda: list_ranking(np.array([1, 2, 2]), seed=2**40, target="cpu"), ValueError,
        r"seed=1099511627776; expected 0 <= seed <= 4294967295"),
    "betweenness_centrality([], normalized=False)": (
        lambda: betweenness_centrality(R, [], normalized=False, target="cpu"), ValueError,
        r"sources=\[\] with normalized=False: rescaling .* needs at least one"),
    "Direction(min_pull=-1)": (
        lambda: Direction("auto", min_pull=-1), ValueError, "min_pull=-1; expected 0 <= min_pull"),
    "compute(None, 2.5)": (  # the count is at fault, not the missing graph
        lambda: compute(None, 2.5, keep, target="cpu"), OperatorError,
        r"compute over 2.5; expected .* a count 0 <= n < 2\*\*63 \(an integer\)"),
    "reduce(None, '3')": (
        lambda: reduce(None, "3", keep, target="cpu"), OperatorError,
        r"reduce over '3'; expected .* a count"),
    "compute(None, 'vertices')": (
        lambda: compute(None, "vertices", keep, target="cpu"), TypeError,
        "expected a frontier.Graph, got NoneType"),
    "load(bytearray)": (
        lambda: frontier.load(bytearray(b"g.txt")), TypeError,
        r"path=bytearray\(b'g.txt'\) \(bytearray\); expected a file name \(str, bytes"),
    "save(G, 3)": (
        lambda: frontier.save(R, 3), TypeError, r"path=3 \(int\); expected a file name"),
}


@pytest.mark.parametrize("case", sorted(CLEAR))
def test_a_bad_argument_gets_one_clear_line(case):
    call, error, words = CLEAR[case]
    with pytest.raises(error, match=words) as info:
        call()
    assert "\n" not in str(info.value)


def test_betweenness_of_no_sources_without_rescaling_is_zero():
    assert not betweenness_centrality(R, [], target="cpu").values.any()


# filter(output="none") ------------------------------------------------------------------------

def touch(v, seen):
    seen[v] += 1
    return True


def test_filter_with_output_none_runs_the_predicate_everywhere_and_returns_none(target):
    seen = target.zeros(R.num_vertices, np.int32)
    f = Frontier.all_vertices(R, target=target)
    assert filter(R, f, touch, seen, output="none") is None
    assert target.to_host(seen).tolist() == [1] * R.num_vertices


def test_filter_with_output_none_refuses_unique():
    f = Frontier.all_vertices(R, target="cpu")
    with pytest.raises(ValueError, match="unique has no effect with output='none'"):
        filter(R, f, touch, np.zeros(R.num_vertices, np.int32), output="none", unique=True)


# functors that would silently do nothing ------------------------------------------------------

def generator_functor(v, seen):
    seen[v] = 1
    yield True


async def coroutine_functor(v, seen):
    seen[v] = 1
    return True


async def async_generator_functor(v, seen):
    seen[v] = 1
    yield True


@pytest.mark.parametrize("functor, kind", [(generator_functor, "a generator function"),
                                           (coroutine_functor, "an async def"),
                                           (async_generator_functor, "an async def")])
@pytest.mark.parametrize("operator", ["compute", "filter", "reduce", "advance"])
def test_generator_and_async_functors_are_refused_before_any_work(operator, functor, kind):
    seen = np.zeros(R.num_vertices, np.int32)
    f = Frontier.all_vertices(R, target="cpu")
    calls = {"compute": lambda: compute(R, "vertices", functor, seen, target="cpu"),
             "filter": lambda: filter(R, f, functor, seen),
             "reduce": lambda: reduce(R, "vertices", functor, seen, target="cpu"),
             "advance": lambda: advance(R, f, lambda s, d, e, w, x: True, seen,
                                        condition=functor)}
    with pytest.raises(FunctorError, match=f"is {kind}.*would silently do nothing"):
        calls[operator]()
    assert not seen.any()
    assert f.is_current()


# before any work ------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda: sssp(W, 0, method="near_far", delta="1", target="cpu"),
    lambda: sssp(W, 0, balancer=[], target="cpu"),
    lambda: pagerank(R, weighted="yes", target="cpu"),
    lambda: pagerank(R, balancer="bogus", target="cpu"),
    lambda: betweenness_centrality(R, endpoints=1, target="cpu"),
    lambda: betweenness_centrality(R, balancer="bogus", target="cpu"),
], ids=["sssp delta", "sssp balancer", "pagerank weighted", "pagerank balancer",
        "betweenness endpoints", "betweenness balancer"])
def test_algorithms_refuse_bad_arguments_before_resolving_a_target(call, monkeypatch):
    for name in ("algorithms.sssp", "algorithms.pagerank", "algorithms.betweenness"):
        monkeypatch.setattr(importlib.import_module(name), "resolve_target",
                            lambda *a: pytest.fail("work started"))
    with pytest.raises((TypeError, ValueError)):
        call()
