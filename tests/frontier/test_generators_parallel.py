"""frontier.generators on many threads: rmat and the shared graph builder give, bit for bit,
the graph of the plain sequential algorithm (kept here as the reference) whatever the number
of threads, for every path of the builder (directed or not, unweighted, weights sorted packed
with the keys or by argsort)."""

from __future__ import annotations

import numpy as np
import pytest

from frontier import generators, parallel
from frontier.graph import from_sorted_keys


def _reference_graph(src, dst, n, directed, weights, rng):
    """The builder as it was written sequentially."""
    keep = src != dst
    src, dst = src[keep], dst[keep]
    if not directed:
        src, dst = np.minimum(src, dst), np.maximum(src, dst)
    keys = src.astype(np.int64) * n + dst
    keys.sort()
    if keys.size:
        keys = keys[np.concatenate([[True], keys[1:] != keys[:-1]])]
    w = None
    if weights is not None:
        w = rng.integers(weights[0], weights[1], size=keys.size, dtype=np.int64, endpoint=True)
    if directed:
        return from_sorted_keys(keys, w, n, directed=True)
    src, dst = np.divmod(keys, max(n, 1))
    keys = np.concatenate([keys, dst * n + src])
    if w is None:
        keys.sort()
        return from_sorted_keys(keys, None, n, directed=False)
    w = np.concatenate([w, w])
    span_bits = (weights[1] - weights[0]).bit_length()
    if max(n * n - 1, 1).bit_length() + span_bits <= 63:
        packed = np.sort((keys << span_bits) | (w - weights[0]))
        keys, w = packed >> span_bits, (packed & ((1 << span_bits) - 1)) + weights[0]
    else:
        order = np.argsort(keys)
        keys, w = keys[order], w[order]
    return from_sorted_keys(keys, w, n, directed=False)


def _reference_rmat(scale, edge_factor=16, a=0.57, b=0.19, c=0.19, seed=0, directed=False,
                    weights=None):
    """rmat as it was written sequentially: blocks of edges, every bit level of a block."""
    n = 1 << scale
    m = edge_factor * n
    rng = np.random.default_rng(seed)
    t1, t2, t3 = (round(t * 2.0 ** 32) for t in (a, a + b, a + b + c))
    src = np.empty(m, dtype=np.int32)
    dst = np.empty(m, dtype=np.int32)
    for start in range(0, m, generators._RMAT_BLOCK):
        size = min(generators._RMAT_BLOCK, m - start)
        s = np.zeros(size, dtype=np.int32)
        d = np.zeros(size, dtype=np.int32)
        for _ in range(scale):
            r = rng.integers(0, 1 << 32, size=size, dtype=np.uint32)
            lower = r >= t2
            s = (s << 1) | lower
            d = (d << 1) | ((r >= t1) ^ lower ^ (r >= t3))
        src[start:start + size], dst[start:start + size] = s, d
    return _reference_graph(src, dst, n, directed, weights, rng)


def _same(got, want):
    for x, y in zip(got._host_csr, want._host_csr, strict=True):
        if y is None:
            assert x is None
        else:
            assert x.dtype == y.dtype and np.array_equal(x, y)
    assert got.directed == want.directed


@pytest.fixture(params=[3, 4])
def many_threads(request, monkeypatch):
    """Every R-MAT block its own run and tiny pieces everywhere, on ``request.param``
    threads, so small graphs take every parallel path."""
    monkeypatch.setattr(parallel, "threads", lambda: request.param)
    monkeypatch.setattr(parallel, "GRAIN", 1000)
    monkeypatch.setattr(parallel, "_CHUNK", 4096)
    monkeypatch.setattr(generators, "_PARALLEL_EDGES", 1)
    return request.param


# weights: None, a range packed with the keys into one int64, and one too wide for that
@pytest.mark.parametrize("weights", [None, (1, 100), (-2**62, 2**62)])
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("seed", [0, 5])
def test_parallel_rmat_is_the_sequential_rmat(many_threads, seed, directed, weights):
    # 2**15 * 20 edges: three blocks, the last one partly filled
    kwargs = dict(scale=15, edge_factor=20, seed=seed, directed=directed, weights=weights)
    _same(generators.rmat(**kwargs), _reference_rmat(**kwargs))


def test_parallel_rmat_with_other_probabilities_is_the_sequential_rmat(many_threads):
    kwargs = dict(scale=14, edge_factor=40, a=0.25, b=0.25, c=0.25, seed=9, weights=(0, 0))
    _same(generators.rmat(**kwargs), _reference_rmat(**kwargs))


def test_rmat_leaves_its_generator_where_sequential_drawing_does(many_threads):
    rng = np.random.default_rng(11)
    reference = np.random.default_rng(11)
    m, scale, thresholds = 3 * generators._RMAT_BLOCK + 5, 3, (1 << 30, 1 << 31, 3 << 30)
    generators._rmat_edges(rng, m, scale, thresholds)
    reference.integers(0, 1 << 32, size=m * scale, dtype=np.uint32)
    assert rng.bit_generator.state == reference.bit_generator.state


@pytest.mark.parametrize("directed", [False, True])
def test_parallel_builder_is_the_sequential_builder(many_threads, directed):
    rng = np.random.default_rng(4)
    n = 3000
    src, dst = rng.integers(0, n, 50_000), rng.integers(0, n, 50_000)
    got = generators._graph(src, dst, n, directed, (1, 9), np.random.default_rng(1))
    want = _reference_graph(src, dst, n, directed, (1, 9), np.random.default_rng(1))
    _same(got, want)
