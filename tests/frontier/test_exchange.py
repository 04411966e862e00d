"""The frontier exchange between partitions (``frontier.distributed.exchange``): each owner
receives every vertex another rank sent, once, with the values of the rank that sent the
smallest first value (the lowest rank on a tie), whether the step goes dense or sparse; the
ranks agree on the mode, and a dense step sends a flag and a value per vertex of each owner's
range.

The ranks run on a cluster of worker threads in this process (cpu target, Dask's transport)."""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from frontier import Frontier, generators  # noqa: E402
from frontier.distributed import exchange as exchange_module  # noqa: E402
from frontier.distributed import partition  # noqa: E402
from frontier.distributed.exchange import exchange  # noqa: E402
from frontier.frontier import DENSE, SPARSE  # noqa: E402

N = 40
PARTS = 3


def sent_ids(rank: int) -> np.ndarray:
    """What rank ``rank`` puts in its frontier: vertices of every partition, some repeated."""
    ids = np.arange(rank, N, 2 + rank)
    return np.concatenate([ids, ids[::3]])


def sent_values(rank: int) -> tuple[np.ndarray, np.ndarray]:
    """Rank ``rank``'s values: a first value with ties between ranks, and the rank itself."""
    v = np.arange(N)
    return (v * (rank + 1) % 3).astype(np.int32), np.full(N, rank, np.float64)


def exchanged(piece, comm, kind):
    frontier = Frontier.from_vertices(piece.graph, sent_ids(piece.rank), kind=kind, target="cpu",
                                      capacity=2 * N)
    inbox = (np.full(N, -1, np.int32), np.full(N, -1.0))
    before = comm.sent_bytes
    got = exchange(piece, comm, frontier, sent_values(piece.rank), inbox)
    return (got.to_numpy().tolist(), inbox[0][piece.lo:piece.hi], inbox[1][piece.lo:piece.hi],
            comm.sent_bytes - before)


def expected(bounds: np.ndarray) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The received vertices of every rank (in rank order), and the winning values by vertex."""
    owner = np.searchsorted(bounds, np.arange(N), side="right") - 1
    first, second = np.full(N, -1, np.int32), np.full(N, -1.0)
    for r in range(PARTS):  # lowest rank first: a later rank wins only with a smaller value
        ids = np.unique(sent_ids(r))
        ids = ids[owner[ids] != r]
        values = sent_values(r)
        better = ids[(first[ids] == -1) | (values[0][ids] < first[ids])]
        first[better], second[better] = values[0][better], values[1][better]
    return np.flatnonzero(first != -1).tolist(), first, second


@pytest.fixture(scope="module")
def threads():
    cluster = distributed.LocalCluster(n_workers=PARTS, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    client = distributed.Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()


@pytest.mark.parametrize("kind", [SPARSE, DENSE])
@pytest.mark.parametrize("share", [0, 10**9], ids=["sparse", "dense"])
def test_each_owner_gets_each_sent_vertex_once_with_the_smallest_values(threads, monkeypatch,
                                                                        kind, share):
    monkeypatch.setattr(exchange_module, "DENSE_SHARE", share)
    dg = partition(generators.path(N), PARTS, client=threads, by="vertices")
    ranks = dg.runner.run(exchanged, kind, what="exchange test")
    vertices, first, second = expected(dg.bounds)
    assert sorted(v for r in ranks for v in r[0]) == vertices
    for r, (got, firsts, seconds, _) in enumerate(ranks):
        lo, hi = dg.bounds[r], dg.bounds[r + 1]
        assert got == sorted(got) and all(lo <= v < hi for v in got)
        np.testing.assert_array_equal(firsts, first[lo:hi])
        np.testing.assert_array_equal(seconds, second[lo:hi])


def test_a_dense_step_sends_a_flag_and_the_values_of_each_vertex_of_the_others_ranges(
        threads, monkeypatch):
    monkeypatch.setattr(exchange_module, "DENSE_SHARE", 10**9)
    dg = partition(generators.path(N), PARTS, client=threads, by="vertices")
    ranks = dg.runner.run(exchanged, SPARSE, what="exchange test")
    ranges = np.diff(dg.bounds)
    vote = 8 * (PARTS - 1)  # the dense-or-sparse all-reduce
    for r, (*_, sent) in enumerate(ranks):
        assert sent == vote + (ranges.sum() - ranges[r]) * (1 + 4 + 8)
