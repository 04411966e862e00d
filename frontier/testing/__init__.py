"""Property-testing tools for graph algorithms: Hypothesis strategies that draw awkward graphs,
sequential reference results, and checks that compare an algorithm's output with them.

Test your own algorithm by drawing graphs, running it, and handing its output to a check, which
raises ``AssertionError`` naming the first wrong vertices::

    from hypothesis import given

    from frontier.testing import check_bfs, graphs_with_source

    @given(graphs_with_source(max_vertices=20))
    def test_my_bfs_matches_the_reference(case):
        graph, source = case
        distances, predecessors = my_bfs(graph, source)   # int32 host arrays, -1 = none
        check_bfs(graph, source, distances, predecessors)

:func:`check_race_free` runs an operator, an algorithm or a host loop with the race detector on
and raises ``AssertionError`` naming the functor, state array and index of a data race
(:mod:`frontier.testing.races`). :func:`check_cuda` runs one on the cpu target and compiles
every functor it ran for a CUDA architecture, without a GPU, raising ``AssertionError`` naming
each functor that a GPU would not build, with the file and line (:mod:`frontier.testing.cuda`).

Bounds checks are on in both: they run the functors as Python on the cpu target (or in the
simulator), where an index out of range, a negative one included, raises ``IndexError``
(``operators.FunctorIndexError``, naming the functor) instead of reading or corrupting memory
as compiled cpu code does outside the checked mode (``FRONTIER_BOUNDSCHECK=1``;
docs/reliability.md).

:func:`dataset_dir` finds the shared real-world datasets (``$FRONTIER_DATASETS``, else beside the
repository).

The strategies (:func:`graphs`, :func:`graphs_with_source`, :func:`vertex_subsets`) need the
``hypothesis`` package (``pip install 'frontier-graph[test]'``) and are imported on first use; the
references and checks work without it. The references and checks for PageRank, betweenness
centrality and core numbers are in :mod:`frontier.testing.centrality`; those for maximal
independent sets and colourings in :mod:`frontier.testing.structure`, for triangles in
:mod:`frontier.testing.triangles`; for minimum spanning forests in
:mod:`frontier.testing.spanning`, for k-trusses in :mod:`frontier.testing.truss`, for
label-propagation communities in :mod:`frontier.testing.communities`.

Each algorithm has one reference here (``reference_*``): the one its catalog entry's ``check``
and ``frontier run --validate`` compare with, and the benchmark suite times as the CPU
baseline (:mod:`algorithms.entry`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from frontier.testing.centrality import (
    check_betweenness,
    check_core_numbers,
    check_pagerank,
    pagerank_iteration,
    reference_betweenness,
    reference_core_numbers,
    reference_pagerank,
)
from frontier.testing.communities import check_label_propagation, reference_label_propagation
from frontier.testing.cuda import CudaCompileError, check_cuda, cuda_check_problem
from frontier.testing.datasets import dataset_dir
from frontier.testing.races import check_race_free
from frontier.testing.reference import (
    assert_same_set,
    check_apsp,
    check_bfs,
    check_components,
    check_list_ranks,
    check_scc,
    check_spanning_forest,
    check_sssp,
    reference_apsp,
    reference_bfs,
    reference_components,
    reference_list_ranks,
    reference_scc,
    reference_sssp,
)
from frontier.testing.spanning import (
    check_minimum_spanning_forest,
    reference_minimum_spanning_forest,
)
from frontier.testing.structure import (
    check_coloring,
    check_independent_set,
    greedy_order,
    reference_coloring,
    reference_mis,
)
from frontier.testing.triangles import check_triangles, reference_triangles
from frontier.testing.truss import check_k_truss, reference_k_truss

if TYPE_CHECKING:
    from frontier.testing.strategies import (
        graphs,
        graphs_with_source,
        linked_lists,
        vertex_subsets,
        weighted_graphs_with_source,
    )

__all__ = [
    "graphs",
    "graphs_with_source",
    "weighted_graphs_with_source",
    "vertex_subsets",
    "reference_bfs",
    "check_bfs",
    "reference_sssp",
    "check_sssp",
    "reference_components",
    "check_components",
    "check_spanning_forest",
    "reference_scc",
    "check_scc",
    "assert_same_set",
    "reference_list_ranks",
    "check_list_ranks",
    "reference_apsp",
    "check_apsp",
    "linked_lists",
    "dataset_dir",
    "reference_pagerank",
    "pagerank_iteration",
    "check_pagerank",
    "reference_betweenness",
    "check_betweenness",
    "reference_core_numbers",
    "check_core_numbers",
    "greedy_order",
    "reference_mis",
    "check_independent_set",
    "reference_coloring",
    "check_coloring",
    "reference_triangles",
    "check_triangles",
    "reference_minimum_spanning_forest",
    "check_minimum_spanning_forest",
    "reference_k_truss",
    "check_k_truss",
    "reference_label_propagation",
    "check_label_propagation",
    "check_race_free",
    "check_cuda",
    "cuda_check_problem",
    "CudaCompileError",
]

_STRATEGIES = ("graphs", "graphs_with_source", "weighted_graphs_with_source", "vertex_subsets",
               "linked_lists")


def __getattr__(name: str) -> Any:
    if name not in _STRATEGIES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        from frontier.testing import strategies
    except ModuleNotFoundError as err:
        if err.name != "hypothesis":
            raise
        raise ImportError(f"frontier.testing.{name} needs hypothesis: "
                          "pip install 'frontier-graph[test]'") from err
    return getattr(strategies, name)
