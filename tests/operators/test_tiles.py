"""tile_update, the dense-tile operator: each tile set updates exactly its tiles with the
semantics of the module docstring (each step reads the tiles as the previous step left them),
for any functor, tile side and matrix dtype, on every target; explain shows the kernel with its
shared tiles and barriers; bad arguments are refused. Also: compute and reduce over a range
need no graph."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operators import OperatorError, compute, explain, reduce, tile_update
from operators.tiles import MAX_TILE, TILE_SETS, default_tile


def through(c, a, b):
    return min(c, a + b)


def reach(c, a, b):
    return c | (a & b)


def widest(c, a, b, floor):
    return max(c, min(a, b), floor)


def expected_update(matrix: np.ndarray, fn, state, pivot: int, which: str, tile: int):
    """The operator's meaning, written the slow way: per tile, per step, all cells from the
    tiles as the previous step left them."""
    m = matrix.copy()
    n = m.shape[0]
    nt = -(-n // tile)
    k = pivot
    if which == "pivot":
        tiles = [(k, k)]
    elif which == "cross":
        tiles = [(k, j) for j in range(nt) if j != k] + [(i, k) for i in range(nt) if i != k]
    else:
        tiles = [(i, j) for i in range(nt) for j in range(nt) if i != k and j != k]
    for ti, tj in tiles:
        rows, cols, ks = (slice(ti * tile, (ti + 1) * tile), slice(tj * tile, (tj + 1) * tile),
                          slice(k * tile, (k + 1) * tile))
        for kk in range(m[ks, ks].shape[0]):
            column = m[rows, ks][:, kk].copy()
            row = m[ks, cols][kk, :].copy()
            block = m[rows, cols]
            for i in range(block.shape[0]):
                for j in range(block.shape[1]):
                    block[i, j] = fn(block[i, j], column[i], row[j], *state)
    return m


CASES = [(through, (), np.float64), (reach, (), np.int32), (widest, (2,), np.int64)]


@pytest.mark.parametrize("fn, state, dtype", CASES, ids=["min-plus", "or-and", "max-min"])
@pytest.mark.parametrize("which", TILE_SETS)
@given(data=st.data())
def test_each_tile_set_updates_its_tiles_step_by_step_on_cpu(fn, state, dtype, which, data):
    n = data.draw(st.integers(1, 13))
    tile = 3  # each tile side is a kernel of its own to compile: other sides below
    pivot = data.draw(st.integers(0, -(-n // tile) - 1))
    values = data.draw(st.lists(st.integers(0, 9), min_size=n * n, max_size=n * n))
    matrix = np.array(values, dtype=dtype).reshape(n, n)
    want = expected_update(matrix, fn, state, pivot, which, tile)
    tile_update(matrix, fn, *state, pivot=pivot, tiles=which, tile=tile, target="cpu")
    assert np.array_equal(matrix, want)


@pytest.mark.parametrize("tile", [1, 5])
def test_a_round_of_the_three_sets_is_a_blocked_floyd_warshall_round(tile):
    rng = np.random.default_rng(0)
    n = 23
    dist = np.where(rng.random((n, n)) < 0.2, rng.integers(1, 9, (n, n)), np.inf)
    np.fill_diagonal(dist, 0)
    want = dist.copy()
    for k in range(n):
        want = np.minimum(want, want[:, k:k + 1] + want[k:k + 1, :])
    for pivot in range(-(-n // tile)):
        for which in TILE_SETS:
            tile_update(dist, through, pivot=pivot, tiles=which, tile=tile, target="cpu")
    assert np.array_equal(dist, want)


@settings(max_examples=2)
@given(data=st.data())
def test_every_tile_set_on_every_target(target, data):
    n = data.draw(st.integers(5, 10))
    tile = 4
    values = data.draw(st.lists(st.integers(0, 9), min_size=n * n, max_size=n * n))
    host = np.array(values, dtype=np.float64).reshape(n, n)
    want = host
    matrix = target.to_device(host)
    for which in TILE_SETS:
        want = expected_update(want, through, (), 1, which, tile)
        tile_update(matrix, through, pivot=1, tiles=which, tile=tile, target=target)
    assert np.array_equal(target.to_host(matrix), want)


def test_threads_that_each_take_several_cells_on_every_target(target):
    # a 16 x 16 tile has 256 cells: several per thread in the simulator's blocks of 64
    rng = np.random.default_rng(4)
    host = rng.integers(0, 9, (21, 21)).astype(np.float64)
    want = host
    matrix = target.to_device(host)
    for which in TILE_SETS:
        want = expected_update(want, through, (), 1, which, 16)
        tile_update(matrix, through, pivot=1, tiles=which, tile=16, target=target)
    assert np.array_equal(target.to_host(matrix), want)


def test_the_default_tile_is_the_largest_square_block_up_to_32():
    assert default_tile("cpu") == MAX_TILE == 32


@pytest.mark.parametrize("which", TILE_SETS)
def test_explain_shows_shared_tiles_and_barriers(target, which):
    matrix = target.zeros(16, np.float64).reshape(4, 4)
    text = explain(tile_update, matrix, through, pivot=0, tiles=which, tile=2, target=target)
    assert text == explain(tile_update, None, matrix, through, pivot=0, tiles=which, tile=2,
                           target=target)  # the form with no graph of earlier versions
    assert text.startswith(f"# --- tiles_{which}_2_float64__through: ")
    assert f"\ndef tiles_{which}_2_float64__through(" in text
    assert target.shared_array("B" if which == "rest" else "C", "(2, 2)", "float64") in text
    assert text.count(target.block_barrier) >= (2 if which == "rest" else 4)


@pytest.mark.parametrize("kwargs, message", [
    ({"matrix": np.zeros((3, 4))}, "expected a square 2-D array"),
    ({"matrix": np.zeros(9)}, "expected a square 2-D array"),
    ({"matrix": np.zeros((3, 3), np.float32)}, "float32 matrix"),
    ({"tiles": "all"}, "tiles='all'"),
    ({"tile": 0}, "tile=0"),
    ({"tile": 33}, "tile=33"),
    ({"pivot": 2}, "pivot=2; expected a tile index 0 .. 1"),
    ({"pivot": -1}, "pivot=-1"),
])
def test_bad_arguments_are_refused(kwargs, message):
    arguments = {"matrix": np.zeros((3, 3)), "pivot": 0, "tiles": "rest", "tile": 2, **kwargs}
    matrix = arguments.pop("matrix")
    with pytest.raises(OperatorError, match=message):
        tile_update(matrix, through, target="cpu", **arguments)


# compute and reduce over a range take no graph ------------------------------------------------
def triple(i, out):
    out[i] = 3 * i


def value(i, out):
    return out[i]


def test_compute_and_reduce_over_a_range_need_no_graph(target):
    out = target.zeros(7, np.int64)
    compute(None, 7, triple, out, target=target)
    assert target.to_host(out).tolist() == [0, 3, 6, 9, 12, 15, 18]
    assert reduce(None, 7, value, out, op="max", target=target) == 18


def test_a_missing_graph_is_refused_where_the_work_is_over_a_graph():
    with pytest.raises(TypeError, match="expected a frontier.Graph"):
        compute(None, "vertices", triple, np.zeros(1, np.int64), target="cpu")
