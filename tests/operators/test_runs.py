"""operators.runs: a per-step record stored as runs reads as the list of one entry per step."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from operators.runs import Runs

ENTRIES = st.lists(st.tuples(st.sampled_from([None, "a", "b", 1.5]), st.integers(0, 5)),
                   max_size=8)


@given(ENTRIES)
def test_runs_read_as_the_list_of_their_entries(added):
    runs: Runs = Runs()
    expected: list = []
    for entry, count in added:
        runs.add(entry, count)
        expected += [entry] * count
    assert len(runs) == len(expected)
    assert list(runs) == expected
    assert runs == expected
    assert [runs[i] for i in range(len(expected))] == expected
    assert [runs[-i] for i in range(1, len(expected) + 1)] == [expected[-i] for i in
                                                                 range(1, len(expected) + 1)]
    assert runs[1:5] == expected[1:5]
    assert runs[::-2] == expected[::-2]


def test_a_long_run_of_one_entry_is_stored_once():
    runs = Runs.of(None, 10**6)
    runs.add(None, 10**6)
    assert len(runs) == 2 * 10**6
    assert list(runs.runs()) == [(None, 2 * 10**6)]
    assert runs[-1] is None


def test_runs_added_keep_their_order():
    first = Runs(["a", "a", "b"])
    first.add("c", 3)
    first.add("d", 0)  # no step: nothing added
    assert first == ["a", "a", "b", "c", "c", "c"]


def test_an_index_past_the_end_raises_index_error():
    runs = Runs.of("a", 2)
    with pytest.raises(IndexError, match="step 2 of a record of 2 steps"):
        runs[2]
    with pytest.raises(IndexError):
        Runs()[0]


def test_runs_are_not_equal_to_a_string_or_a_different_sequence():
    assert Runs(["a"]) != "a"
    assert Runs(["a", "b"]) != ["a"]
    assert Runs(["a", "b"]) != ["a", "c"]
