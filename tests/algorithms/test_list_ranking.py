"""List ranking: every method equals a sequential walk of the list on hypothesis lists (ranks a
permutation consistent with the successors), on the cpu target and a small simulator subset;
bad lists are refused with a clear error before anything is ranked; the input is not modified."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import ListError, list_ranking
from algorithms.list_ranking import ListRankingMethod, default_splitters
from frontier import generators
from frontier.runtime.cuda_support import cuda_usable
from frontier.testing import check_list_ranks, linked_lists, reference_list_ranks

METHODS = list(ListRankingMethod)
#: A real GPU (not the simulator, far too slow for the large cases).
GPU = cuda_usable() and os.environ.get("NUMBA_ENABLE_CUDASIM", "0") in ("", "0")


def successors_of(order) -> np.ndarray:
    order = np.asarray(order, dtype=np.int64)
    succ = np.empty(order.size, np.int64)
    succ[order[:-1]] = order[1:]
    succ[order[-1]] = order[-1]
    return succ


@pytest.mark.parametrize("method", METHODS)
@given(succ=linked_lists(max_nodes=80))
def test_ranks_equal_a_sequential_walk_on_cpu(method, succ):
    result = list_ranking(succ, method=method, target="cpu")
    check_list_ranks(succ, result.ranks)
    assert result.ranks.dtype == np.int64


@given(succ=linked_lists(min_nodes=1, max_nodes=80), data=st.data())
def test_random_splitter_ranks_right_for_any_splitter_count_seed_and_packing(succ, data):
    splitters = data.draw(st.integers(1, succ.size))
    seed = data.draw(st.integers(0, 2**31))
    packed = data.draw(st.booleans())
    result = list_ranking(succ, method="random_splitter", target="cpu", splitters=splitters,
                          seed=seed, packed=packed)
    check_list_ranks(succ, result.ranks)
    assert result.splitters == splitters


@pytest.mark.parametrize("method", METHODS)
def test_a_200000_node_random_list_is_ranked_exactly(method):
    succ = generators.random_list(200_000, seed=5).astype(np.int64)
    result = list_ranking(succ, method=method, target="cpu")
    assert np.array_equal(result.ranks, reference_list_ranks(succ))


@pytest.mark.parametrize("method", METHODS)
def test_pointer_jumping_runs_ceil_log2_rounds(method):
    succ = generators.random_list(1000, seed=1)
    rounds = list_ranking(succ, method=method, target="cpu").iterations
    n = 1000 if method == "wylie" else default_splitters(1000) + 1
    assert rounds == max(n - 2, 0).bit_length()


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64, np.int16])
def test_any_integer_dtype_is_accepted_and_left_unmodified(dtype):
    succ = generators.random_list(300, seed=2).astype(dtype)
    before = succ.copy()
    result = list_ranking(succ, target="cpu")
    assert np.array_equal(succ, before)
    check_list_ranks(succ, result.ranks)


def test_the_empty_list_and_a_single_node():
    assert list_ranking(np.zeros(0, np.int64), target="cpu").ranks.size == 0
    assert list_ranking(np.array([0]), target="cpu").ranks.tolist() == [0]


def test_the_default_splitter_count_is_n_over_64_at_least_one():
    assert default_splitters(1) == 1
    assert default_splitters(6400) == 100
    assert list_ranking(generators.random_list(6400), target="cpu").splitters == 100


BAD_LISTS = [
    (np.array([[0]]), "1-D"),
    (np.array([0.0, 1.0]), "dtype float64"),
    (np.array([True]), "dtype bool"),
    (np.array([1, 5, 2]), "succ[1] = 5 is out of range"),
    (np.array([1, -1, 2]), "succ[1] = -1 is out of range"),
    (np.array([1, 2, 0]), "0 tails"),
    (np.array([0, 1, 1]), "2 tails"),
    (np.array([2, 2, 2, 0]), "node 2 follows 2 nodes"),
    (np.array([1, 4, 3, 2, 4]), "cycle"),  # 0 -> 1 -> 4 (tail), and 2 -> 3 -> 2 apart
    (np.array([1, 2], dtype=np.uint8), "succ[1] = 2 is out of range"),
]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("succ, message", BAD_LISTS)
def test_a_bad_list_is_refused_with_what_is_wrong(method, succ, message):
    before = succ.copy()
    with pytest.raises(ListError, match=re.escape(message)):
        list_ranking(succ, method=method, target="cpu")
    assert np.array_equal(succ, before)


@pytest.mark.parametrize("method", METHODS)
def test_a_cycle_apart_from_the_list_is_found_whatever_the_splitters(method):
    # 0 -> 1 -> ... -> 9 (tail) and a 6-cycle 10 -> 11 -> ... -> 15 -> 10
    succ = np.array(list(range(1, 10)) + [9] + [11, 12, 13, 14, 15, 10])
    counts = [None] if method == "wylie" else [1, 2, 5, 16]
    for splitters in counts:
        options = {} if splitters is None else {"splitters": splitters}
        with pytest.raises(ListError, match="cycle apart from it"):
            list_ranking(succ, method=method, target="cpu", **options)


@pytest.mark.parametrize("options, error, message", [
    ({"method": "nosuch"}, ValueError, "unknown method 'nosuch'"),
    ({"splitters": 0}, ValueError, "splitters=0"),
    ({"splitters": 11}, ValueError, "splitters=11"),
    ({"splitters": 2.0}, TypeError, "splitters=2.0"),
    ({"seed": -1}, ValueError, "seed=-1"),
    ({"packed": 1}, TypeError, "packed=1"),
    ({"colour": "red"}, TypeError, "takes no colour"),
    ({"method": "wylie", "splitters": 2}, ValueError, "splitters has no effect with"),
])
def test_bad_options_are_refused_before_any_work(options, error, message):
    with pytest.raises(error, match=message):
        list_ranking(generators.random_list(10), target="cpu", **options)


def test_the_random_list_generator_makes_one_list_deterministically():
    succ = generators.random_list(500, seed=3)
    assert succ.dtype == np.int32
    assert np.array_equal(succ, generators.random_list(500, seed=3))
    reference_list_ranks(succ)  # raises unless one list of all the nodes
    graph = generators.from_spec("list:500")
    assert np.array_equal(graph.col_indices, generators.random_list(500))
    assert (graph.out_degrees() == 1).all()


# every target (the simulator runs the GPU kernels): tiny lists, few examples -------------------
@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=4)
@given(succ=linked_lists(max_nodes=12))
def test_ranks_equal_a_sequential_walk_on_every_target(method, succ, target):
    check_list_ranks(succ, list_ranking(succ, method=method, target=target).ranks)


def test_unpacked_random_splitter_and_a_cycle_on_every_target(target):
    succ = successors_of([3, 0, 7, 1, 5, 2, 6, 4])
    check_list_ranks(succ, list_ranking(succ, packed=False, splitters=3, target=target).ranks)
    with pytest.raises(ListError, match="cycle"):
        list_ranking(np.array([1, 4, 3, 2, 4]), splitters=2, target=target)


@pytest.mark.gpu
@pytest.mark.skipif(not GPU, reason="large lists run on a real GPU only")
@pytest.mark.parametrize("packed", [True, False])
@pytest.mark.parametrize("method", METHODS)
def test_large_random_lists_on_the_gpu(method, packed):
    if method == "wylie" and not packed:
        pytest.skip("wylie has one layout")
    options = {} if method == "wylie" else {"packed": packed}
    for n, seed in ((1_000_000, 7), (3_000_001, 8)):
        succ = generators.random_list(n, seed=seed)
        ranks = list_ranking(succ, method=method, target="cuda", **options).ranks
        assert np.array_equal(ranks, reference_list_ranks(succ))
