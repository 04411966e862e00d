"""Graph algorithms written only with the operators: each is a short host loop of
advance / filter / compute calls, the way the papers cited in each module write them.

Each module declares its catalog entries beside its algorithm (:mod:`algorithms.entry`);
:data:`CATALOG` collects them (:mod:`algorithms.catalog`). A user's own algorithm becomes an
entry too (:mod:`algorithms.user`; :func:`declare` says what checks and reports it). Every
result follows :class:`Result` (:mod:`algorithms.result`)."""

from __future__ import annotations

# registers the versions of bfs, sssp and connected_components over a DistributedGraph
from algorithms import distributed  # noqa: F401
from algorithms.apsp import APSPError, APSPResult, apsp
from algorithms.betweenness import BetweennessResult, BetweennessSourceStats, betweenness_centrality
from algorithms.bfs import BFSResult, LevelStats, bfs
from algorithms.catalog import CATALOG
from algorithms.coloring import ColoringResult, ColoringRoundStats, graph_coloring
from algorithms.communities import (
    CommunitiesResult,
    CommunitiesSweepStats,
    label_propagation_communities,
)
from algorithms.components import (
    ComponentsResult,
    ComponentsStepStats,
    SpanningForestResult,
    connected_components,
    spanning_forest,
)
from algorithms.entry import Entry, Option
from algorithms.independent_set import MISResult, MISRoundStats, maximal_independent_set
from algorithms.kcore import KCoreResult, KCoreRoundStats, k_core
from algorithms.list_ranking import ListError, ListRankingResult, list_ranking
from algorithms.minimum_spanning_forest import MSFResult, MSFRoundStats, minimum_spanning_forest
from algorithms.pagerank import ConvergenceError, PageRankIterationStats, PageRankResult, pagerank
from algorithms.result import Result
from algorithms.sssp import SSSPResult, SSSPStepStats, sssp
from algorithms.strong_components import SCCResult, SCCRoundStats, strongly_connected_components
from algorithms.triangles import TriangleResult, triangle_count
from algorithms.truss import KTrussResult, KTrussRoundStats, k_truss
from algorithms.user import declare

#: The name :class:`SSSPStepStats` had before issue 21 (one stats class per meaning).
IterationStats = SSSPStepStats

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
