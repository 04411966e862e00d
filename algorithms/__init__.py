"""Graph algorithms written only with the operators: each is a short host loop of
advance / filter / compute calls, the way the papers cited in each module write them.

Each module declares its catalog entries beside its algorithm (:mod:`algorithms.entry`);
:data:`CATALOG` collects them (:mod:`algorithms.catalog`). A user's own algorithm becomes an
entry too (:mod:`algorithms.user`; :func:`declare` says what checks and reports it). Every
result follows :class:`Result` (:mod:`algorithms.result`).

The names below are imported on first use (:mod:`frontier.lazy_exports`): a call of one
algorithm imports its own module and what it runs, not the others; :data:`CATALOG` imports every
module that declares entries. The versions over partitioned graphs (:mod:`algorithms.distributed`)
are imported by the first call on a :class:`frontier.distributed.DistributedGraph`
(:func:`frontier.distributed.dispatch.versions_from`)."""

from __future__ import annotations

from frontier.distributed.dispatch import versions_from
from frontier.lazy_exports import lazy_exports

__all__ = ["bfs", "BFSResult", "LevelStats", "CATALOG", "Entry", "Option", "Result", "declare"]
__all__ += ["pagerank", "PageRankResult", "PageRankIterationStats", "ConvergenceError",
            "betweenness_centrality", "BetweennessResult", "BetweennessSourceStats", "k_core",
            "KCoreResult", "KCoreRoundStats"]
__all__ += ["sssp", "SSSPResult", "SSSPStepStats", "IterationStats"]
__all__ += ["list_ranking", "ListRankingResult", "ListError", "apsp", "APSPResult", "APSPError"]
__all__ += ["triangle_count", "TriangleResult"]
__all__ += ["connected_components", "spanning_forest", "ComponentsResult",
            "SpanningForestResult", "ComponentsStepStats"]
__all__ += ["maximal_independent_set", "MISResult", "MISRoundStats", "graph_coloring",
            "ColoringResult", "ColoringRoundStats"]
__all__ += ["strongly_connected_components", "SCCResult", "SCCRoundStats"]
__all__ += ["minimum_spanning_forest", "MSFResult", "MSFRoundStats"]
__all__ += ["k_truss", "KTrussResult", "KTrussRoundStats"]
__all__ += ["label_propagation_communities", "CommunitiesResult", "CommunitiesSweepStats"]

#: :class:`SSSPStepStats` is also exported under the name it had before issue 21 (one stats class
#: per meaning), ``IterationStats``.
lazy_exports(__name__, {
    "APSPError": "algorithms.apsp", "APSPResult": "algorithms.apsp", "apsp": "algorithms.apsp",
    "BetweennessResult": "algorithms.betweenness",
    "BetweennessSourceStats": "algorithms.betweenness",
    "betweenness_centrality": "algorithms.betweenness",
    "BFSResult": "algorithms.bfs", "LevelStats": "algorithms.bfs", "bfs": "algorithms.bfs",
    "CATALOG": "algorithms.catalog",
    "ColoringResult": "algorithms.coloring", "ColoringRoundStats": "algorithms.coloring",
    "graph_coloring": "algorithms.coloring",
    "CommunitiesResult": "algorithms.communities",
    "CommunitiesSweepStats": "algorithms.communities",
    "label_propagation_communities": "algorithms.communities",
    "ComponentsResult": "algorithms.components", "ComponentsStepStats": "algorithms.components",
    "SpanningForestResult": "algorithms.components",
    "connected_components": "algorithms.components", "spanning_forest": "algorithms.components",
    "Entry": "algorithms.entry", "Option": "algorithms.entry",
    "MISResult": "algorithms.independent_set", "MISRoundStats": "algorithms.independent_set",
    "maximal_independent_set": "algorithms.independent_set",
    "KCoreResult": "algorithms.kcore", "KCoreRoundStats": "algorithms.kcore",
    "k_core": "algorithms.kcore",
    "ListError": "algorithms.list_ranking", "ListRankingResult": "algorithms.list_ranking",
    "list_ranking": "algorithms.list_ranking",
    "MSFResult": "algorithms.minimum_spanning_forest",
    "MSFRoundStats": "algorithms.minimum_spanning_forest",
    "minimum_spanning_forest": "algorithms.minimum_spanning_forest",
    "ConvergenceError": "algorithms.pagerank", "PageRankIterationStats": "algorithms.pagerank",
    "PageRankResult": "algorithms.pagerank", "pagerank": "algorithms.pagerank",
    "Result": "algorithms.result",
    "SSSPResult": "algorithms.sssp", "SSSPStepStats": "algorithms.sssp",
    "sssp": "algorithms.sssp", "IterationStats": "algorithms.sssp:SSSPStepStats",
    "SCCResult": "algorithms.strong_components", "SCCRoundStats": "algorithms.strong_components",
    "strongly_connected_components": "algorithms.strong_components",
    "TriangleResult": "algorithms.triangles", "triangle_count": "algorithms.triangles",
    "KTrussResult": "algorithms.truss", "KTrussRoundStats": "algorithms.truss",
    "k_truss": "algorithms.truss",
    "declare": "algorithms.user",
})


def _versions_over_partitions() -> None:
    """Import the versions over partitions, which register themselves with the dispatch."""
    from algorithms import distributed  # noqa: F401


versions_from(_versions_over_partitions)
