"""The default call on a tiny graph (issue 51, "Latency"): every catalog entry's call on a
7-vertex path (its own kind of input of that size where it takes another: list ranking's list)
runs on the sequential cpu target (outside the CUDA simulator, where "auto" is the simulated
GPU) and makes at most the kernel launches its cost was measured with (docs/performance.md,
"First and tiny calls"): what a tiny call costs is its launches and the host work around each,
so a change that adds one shows here, not as a flaky timing."""

from __future__ import annotations

import pytest

from algorithms import CATALOG
from frontier import Graph, generators
from frontier.runtime import simulator
from operators import recording

#: Vertices of the tiny graph.
TINY = 7

#: Per catalog entry: the most kernel launches its default tiny call makes.
LAUNCHES = {
    "apsp": 5, "bc": 5, "bfs": 1, "bfs_do": 1, "cc": 9, "coloring": 3, "communities": 18,
    "forest": 8, "kcore": 2, "ktruss": 6, "listrank": 14, "mis": 3, "msf": 1, "pagerank": 2,
    "scc": 9, "sssp": 4, "triangles": 3,
}


def tiny(name: str) -> Graph:
    """The entry's tiny input: a 7-vertex path, or its example's kind of that size."""
    example = CATALOG[name].example
    return generators.from_spec(f"{example.partition(':')[0]}:{TINY}" if example
                                else f"path:{TINY}")


def test_every_catalog_entry_has_a_launch_budget():
    assert set(LAUNCHES) == set(CATALOG), "a catalog entry without a budget, or a stale one"


@pytest.mark.skipif(simulator.enabled(), reason="in the simulator 'auto' is the simulated GPU")
@pytest.mark.parametrize("name", sorted(CATALOG))
def test_a_tiny_default_call_runs_on_one_core_within_its_launches(name, monkeypatch):
    monkeypatch.delenv("FRONTIER_NUM_THREADS", raising=False)
    entry = CATALOG[name]
    inputs = (tiny(name), 0) if entry.source else (tiny(name),)
    entry.run(*inputs)  # the first call compiles; the budget is a later call's
    with recording() as log:
        result = entry.run(*inputs)
    assert result.target.name == "cpu" and result.target.sequential
    launched = [launch.name for launch in log]
    assert len(launched) <= LAUNCHES[name], launched
