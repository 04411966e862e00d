"""The covering designs of the test matrices (tests/pairs.py): every pair of levels of every two
factors in some row, about the product of the two largest factors in rows, marks and ids kept."""

from __future__ import annotations

import math
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.pairs import covering, covering_rows, pairs_of


@given(sizes=st.lists(st.integers(1, 8), min_size=1, max_size=5))
def test_every_pair_of_levels_of_every_two_factors_is_covered(sizes):
    rows = covering_rows([range(s) for s in sizes])
    wanted = {(i, j, a, b) for i, j in combinations(range(len(sizes)), 2)
              for a in range(sizes[i]) for b in range(sizes[j])}
    assert wanted <= pairs_of(rows)
    assert all(0 <= level < sizes[f] for row in rows for f, level in enumerate(row))


@pytest.mark.parametrize("sizes, most", [((2, 6, 7), 42), ((2, 3, 2, 7), 22), ((3, 3, 3, 3), 10),
                                         ((2, 7, 3, 2, 2), 24)])
def test_a_covering_is_far_smaller_than_the_cross_product(sizes, most):
    assert len(covering_rows([range(s) for s in sizes])) <= most < math.prod(sizes)


def test_the_same_factors_give_the_same_rows():
    assert covering_rows([range(2), range(5), range(3)]) == covering_rows(
        [range(2), range(5), range(3)])


def test_a_factor_without_levels_is_refused():
    with pytest.raises(ValueError, match="a factor has no level"):
        covering_rows([range(3), range(0)])


def test_marks_and_ids_of_a_level_go_with_every_row_holding_it():
    marked = pytest.param("cuda", id="cuda-sim", marks=pytest.mark.simulator)
    rows = covering(target=[pytest.param("cpu", id="cpu"), marked], balancer=["a", "b", "c"])
    assert len(rows) == 6
    for row in rows:
        assert bool(row.marks) == (row.values[0] == "cuda")
        assert row.id.split("-")[0] == ("cuda" if row.values[0] == "cuda" else "cpu")
        assert row.id.endswith(row.values[1])


def test_a_costly_level_is_paired_in_few_rows():
    sizes = (2, 6, 7)
    rows = covering_rows([range(s) for s in sizes], costs=[[1, 8], [1] * 6, [1] * 7])
    assert {(i, j, a, b) for i, j in combinations(range(3), 2) for a in range(sizes[i])
            for b in range(sizes[j])} <= pairs_of(rows)
    costly = sum(row[0] == 1 for row in rows)
    assert 7 <= costly <= 12 and costly < len(rows) / 3
