"""Every algorithm on the cpu target's threads (issue 53): on several threads each result passes
its entry's check and equals the one-thread result in every field the scheduling cannot change
(as on a GPU: tests/algorithms/test_threads.py), PageRank's ranks to the last bit (its sums are
ordered); and one thread reproduces the sequential target of before bit for bit."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from algorithms import CATALOG, bfs, connected_components, pagerank, sssp
from frontier import generators
from frontier.runtime.target import CpuTarget
from tests.algorithms.test_threads import answer, exact_fields, graph_for, same, sources_of
from tests.pairs import pairwise

#: The thread counts the algorithms run on (a grain and a part of one element: tiny graphs are
#: split too).
THREADED = {threads: CpuTarget(threads, grain=1, part=1) for threads in (2, 4)}
ONE = CpuTarget(1)


def run(name: str, graph, source: int, target) -> object:
    entry = CATALOG[name]
    return entry.invoke(graph, source if entry.source else None, balancer="auto",
                        target=target)


@pairwise(name=sorted(CATALOG), threads=sorted(THREADED))
def test_every_algorithm_on_several_threads_passes_its_check_and_equals_one_thread(name,
                                                                                    threads):
    entry = CATALOG[name]
    graph = graph_for(name)
    for source in sources_of(name, graph, 2):
        want = answer(run(name, graph, source, ONE))
        result = run(name, graph, source, THREADED[threads])
        entry.check(graph, source if entry.source else None, result)
        said = answer(result)
        fields = exact_fields(want)
        assert same({k: said[k] for k in fields}, {k: want[k] for k in fields}), (name, source)


@pytest.mark.parametrize("threads", sorted(THREADED))
def test_pagerank_on_several_threads_equals_one_thread_to_the_last_bit(threads):
    graph = generators.rmat(9, seed=5)
    want = pagerank(graph, target=ONE)
    got = pagerank(graph, target=THREADED[threads])
    assert np.array_equal(got.ranks, want.ranks) and got.iterations == want.iterations


#: SHA-1 of the sequential target's results on rmat scale 10 (seed 3; SSSP with weights 1..100)
#: before the cpu target ran on several threads (commit c7d3961): one thread reproduces them.
BEFORE = {
    "bfs": "4b53dd926aa8eda7a15d03dac6652d458161d035",
    "connected_components": "27d7a8f21e9fb635a7133c76c5c35aa22c2a0c3d",
    "pagerank": "1ac291b3e2494a12b29d6de237a9f84149efa355",
    "sssp": "ce1e3f504a23c8afefc6944dcd231f22c4d10cb7",
}


def _digest(array: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(array).tobytes()).hexdigest()


def test_one_thread_reproduces_the_sequential_target_bit_for_bit():
    graph = generators.rmat(10, seed=3)
    weighted = generators.rmat(10, seed=3, weights=(1, 100))
    got = {"bfs": _digest(bfs(graph, 0, target=ONE).distances),
           "connected_components": _digest(connected_components(graph, target=ONE).labels),
           "pagerank": _digest(pagerank(graph, target=ONE).ranks),
           "sssp": _digest(sssp(weighted, 0, target=ONE).distances)}
    assert got == BEFORE
    threaded = THREADED[2]
    assert _digest(pagerank(graph, target=threaded).ranks) == BEFORE["pagerank"]
    assert _digest(sssp(weighted, 0, target=threaded).distances) == BEFORE["sssp"]
