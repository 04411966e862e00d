"""frontier.parallel: the sample sorts give exactly numpy's sort, unique and argsort order
whatever the number of threads and pieces, and the piece helpers cover their range."""

from __future__ import annotations

import numpy as np
import pytest

from frontier import parallel


@pytest.fixture(params=[1, 2, 3, 7])
def pieces(request, monkeypatch):
    """Forces ``request.param`` threads and tiny pieces, so small arrays take the parallel
    paths."""
    monkeypatch.setattr(parallel, "threads", lambda: request.param)
    monkeypatch.setattr(parallel, "GRAIN", 4)
    monkeypatch.setattr(parallel, "_CHUNK", 5)
    return request.param


def _inputs():
    rng = np.random.default_rng(7)
    yield np.zeros(0, dtype=np.int64)
    yield np.array([42], dtype=np.int64)
    yield np.full(100, -3, dtype=np.int64)
    yield np.arange(200, dtype=np.int64)
    yield np.arange(200, dtype=np.int64)[::-1].copy()
    for high in (3, 50, 10**6, 2**62):
        for size in (9, 64, 333):
            yield rng.integers(-high, high, size)


def test_sort_gives_numpys_sort(pieces):
    for keys in _inputs():
        assert np.array_equal(parallel.sort(keys.copy()), np.sort(keys))


def test_sorted_unique_gives_numpys_unique(pieces):
    for keys in _inputs():
        got = parallel.sorted_unique(keys.copy())
        assert got.dtype == np.int64
        assert np.array_equal(got, np.unique(keys))


def test_sort_pairs_orders_values_by_distinct_keys(pieces):
    rng = np.random.default_rng(3)
    for keys in _inputs():
        keys = rng.permutation(np.unique(keys))
        values = rng.integers(0, 1000, keys.size)
        order = np.argsort(keys)
        got_keys, got_values = parallel.sort_pairs(keys.copy(), values.copy())
        assert np.array_equal(got_keys, keys[order])
        assert np.array_equal(got_values, values[order])


def test_spans_cover_the_range_in_order_with_at_most_one_piece_per_thread(monkeypatch):
    monkeypatch.setattr(parallel, "threads", lambda: 4)
    assert parallel.spans(0, 10) == [(0, 0)]
    assert parallel.spans(19, 10) == [(0, 19)]
    assert parallel.spans(20, 10) == [(0, 10), (10, 20)]
    spans = parallel.spans(1001, 1)
    assert len(spans) == 4 and spans[0][0] == 0 and spans[-1][1] == 1001
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))


def test_chunks_and_each_keep_order():
    assert parallel.each(lambda a, b: b - a, [(0, 3), (3, 10)]) == [3, 7]
    steps = list(parallel.chunks(0, 3 * parallel._CHUNK + 1))
    assert steps[0][0] == 0 and steps[-1] == (3 * parallel._CHUNK, 3 * parallel._CHUNK + 1)


def test_threads_is_at_least_one():
    assert parallel.threads() >= 1


@pytest.mark.parametrize("bad", [np.zeros(3, dtype=np.int32), np.zeros((2, 2), dtype=np.int64),
                                 [1, 2]])
def test_sorts_reject_anything_but_a_1d_int64_array(bad):
    with pytest.raises(ValueError, match="expected a 1-D int64 array"):
        parallel.sort(bad)


def test_sorts_reject_a_read_only_array():
    keys = np.zeros(3, dtype=np.int64)
    keys.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        parallel.sorted_unique(keys)


def test_each_reraises_the_first_failure():
    def fail(i):
        if i == 1:
            raise KeyError(i)
        return i

    with pytest.raises(KeyError):
        parallel.each(fail, [(0,), (1,), (2,)])
