"""PageRank's pull iteration runs in one persistent kernel (operators.iterate) and gives what the
host loop of operator calls it replaced gave: bit for bit on the cpu target (same operations in
the same order, on graphs without hubs: tests/operators/test_iterate.py), within rounding in the
CUDA simulator (tiny graphs); one launch for all the iterations; free of races."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import ConvergenceError, pagerank
from frontier import Graph, generators
from frontier.options import Mode
from frontier.target import resolve_target
from frontier.testing import check_race_free, graphs
from operators import compute, neighbor_reduce, recording, reduce
from tests.tiers import examples

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def _out_weight(src, dst, eid, weight, weighted):
    return weight * 1.0 if weighted else 1.0


def _invert(v, strength):
    strength[v] = 1.0 / strength[v] if strength[v] > 0.0 else 0.0


def _dangling_rank(v, rank, inverse):
    return rank[v] if inverse[v] == 0.0 else 0.0


def _pulled(src, dst, eid, weight, rank, inverse, weighted):
    return rank[src] * inverse[src] * (weight * 1.0 if weighted else 1.0)


def _update(v, rank, incoming, teleport, dangling, lost, alpha):
    rank[v] = alpha * (incoming[v] + lost * dangling[v]) + (1.0 - alpha) * teleport[v]


def _change(v, rank, last):
    return abs(rank[v] - last[v])


def host_loop(graph: Graph, target: str, alpha: float, max_iter: int, tol: float,
              teleport: np.ndarray, spread: np.ndarray, start: np.ndarray,
              weighted: bool) -> tuple[np.ndarray, int, list[float]]:
    """The pull iteration as pagerank ran it before the fused kernel: four operator calls an
    iteration and a host read of the change (ranks, iterations, each iteration's change)."""
    tgt, n = resolve_target(target), graph.num_vertices
    rank, last = tgt.to_device(start), tgt.empty(n, np.float64)
    teleport, spread = tgt.to_device(teleport), tgt.to_device(spread)
    incoming, inverse = tgt.zeros(n, np.float64), tgt.zeros(n, np.float64)
    neighbor_reduce(graph, "vertices", _out_weight, weighted, out=inverse, edges="out")
    compute(graph, "vertices", _invert, inverse, target=tgt)
    errors = []
    for iteration in range(1, max_iter + 1):
        rank, last = last, rank
        lost = reduce(graph, "vertices", _dangling_rank, last, inverse, target=tgt)
        neighbor_reduce(graph, "vertices", _pulled, last, inverse, weighted, out=incoming,
                        edges="in")
        compute(graph, "vertices", _update, rank, incoming, teleport, spread, lost, alpha,
                target=tgt)
        errors.append(reduce(graph, "vertices", _change, rank, last, target=tgt))
        if errors[-1] < n * tol:
            return tgt.to_host(rank), iteration, errors
    raise ConvergenceError(max_iter, errors[-1], n * tol)


def _distribution(values: np.ndarray | None, n: int) -> np.ndarray:
    if values is None:
        return np.full(n, 1.0 / n)
    array = values.astype(np.float64)
    array = array / array.max()
    return array / array.sum()


OPTIONS = ("plain", "personalization", "nstart", "dangling", "unweighted", "loose")


def _compare(graph: Graph, option: str, target: str, exact: bool) -> None:
    n = graph.num_vertices
    weights = np.random.default_rng(n).random(n) + 0.1
    kwargs: dict = {"alpha": 0.85, "max_iter": 300, "tol": 1e-2 if option == "loose" else 1e-6}
    if option in ("personalization", "nstart", "dangling"):
        kwargs[option] = weights
    weighted = graph.weighted and option != "unweighted"
    teleport = _distribution(kwargs.get("personalization"), n)
    spread = teleport if "dangling" not in kwargs else _distribution(weights, n)
    start = _distribution(kwargs.get("nstart"), n)
    try:
        expected, iterations, errors = host_loop(graph, target, kwargs["alpha"],
                                                 kwargs["max_iter"], kwargs["tol"], teleport,
                                                 spread, start, weighted)
    except ConvergenceError:
        with pytest.raises(ConvergenceError):
            pagerank(graph, target=target, weighted=option != "unweighted", **kwargs)
        return
    result = pagerank(graph, target=target, weighted=option != "unweighted", **kwargs)
    assert result.iterations == iterations
    assert len(result.stats) == iterations
    if exact:
        assert np.array_equal(result.ranks, expected)
        assert [s.error for s in result.stats] == errors
        assert result.error == errors[-1]
    else:
        np.testing.assert_allclose(result.ranks, expected, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose([s.error for s in result.stats], errors, rtol=1e-9,
                                   atol=1e-15)


@settings(max_examples=examples(40), deadline=None)
@given(st.one_of(graphs(min_vertices=1, max_vertices=25),
                 graphs(min_vertices=1, max_vertices=25, weighted=True)),
       st.sampled_from(OPTIONS))
def test_fused_pagerank_equals_the_host_loop_bit_for_bit_on_the_cpu_target(graph, option):
    _compare(graph, option, "cpu", exact=True)


@pytest.mark.simulator
@pytest.mark.skipif(not SIMULATED, reason="the CUDA simulator (NUMBA_ENABLE_CUDASIM=1)")
@pytest.mark.parametrize("option", ["plain", "personalization", "dangling"])
def test_fused_pagerank_equals_the_host_loop_in_the_simulator(option):
    graph = generators.gnm(6, 14, seed=2, directed=True)
    _compare(graph, option, "cuda", exact=False)


@pytest.mark.parametrize("target", ["cpu"] + (["cuda"] if SIMULATED else []))
def test_every_iteration_of_a_pull_pagerank_is_one_fused_launch(target):
    graph = generators.path(5)
    launches, iterations = [], []
    for tol in (1e-2, 1e-6):
        with recording() as log:
            iterations.append(pagerank(graph, target=target, tol=tol).iterations)
        fused = [launch.name for launch in log if launch.mode == Mode.FUSED]
        # the out-strengths' pass, then every iteration in one launch
        assert len(fused) == 2 and all(name.startswith("iterate") for name in fused)
        launches.append(len(log))
    assert iterations[0] < iterations[1] and launches[0] == launches[1]


def test_a_push_pagerank_still_runs_from_the_host_and_agrees_with_the_fused_pull():
    graph = generators.gnm(20, 60, seed=5, directed=True)
    pushed = pagerank(graph, target="cpu", direction="push", balancer="thread")
    pulled = pagerank(graph, target="cpu", direction="pull")
    np.testing.assert_allclose(pushed.ranks, pulled.ranks, rtol=1e-9, atol=1e-12)


def test_a_fused_pagerank_that_does_not_converge_raises_convergence_error():
    with pytest.raises(ConvergenceError, match="did not converge in 2 iterations"):
        pagerank(generators.gnm(20, 60, seed=5, directed=True), target="cpu", max_iter=2,
                 tol=1e-12)


def test_a_fused_pagerank_is_race_free():
    graph = generators.gnm(12, 30, seed=1, directed=True)
    result = check_race_free(pagerank, graph, target="cpu", tol=1e-3)
    assert result.iterations > 1


def test_device_output_of_a_fused_pagerank_stays_on_the_target():
    result = pagerank(generators.path(4), target="cpu", out="device")
    assert isinstance(result.ranks, np.ndarray) and result.ranks.shape == (4,)
