"""Graph algorithms written only with the operators: each is a short host loop of
advance / filter / compute calls, the way the papers cited in each module write them."""

from __future__ import annotations

# registers the versions of bfs, sssp and connected_components over a DistributedGraph
from algorithms import distributed  # noqa: F401
from algorithms.apsp import APSPError, APSPResult, apsp
from algorithms.betweenness import BetweennessResult, betweenness_centrality
from algorithms.bfs import BFSResult, LevelStats, bfs
from algorithms.catalog import CATALOG
from algorithms.components import (
    ComponentsResult,
    SpanningForestResult,
    connected_components,
    spanning_forest,
)
from algorithms.kcore import KCoreResult, k_core
from algorithms.list_ranking import ListError, ListRankingResult, list_ranking
from algorithms.pagerank import ConvergenceError, PageRankResult, pagerank
from algorithms.sssp import IterationStats, SSSPResult, sssp

__all__ = ["bfs", "BFSResult", "LevelStats", "CATALOG"]
__all__ += ["pagerank", "PageRankResult", "ConvergenceError", "betweenness_centrality",
            "BetweennessResult", "k_core", "KCoreResult"]
__all__ += ["sssp", "SSSPResult", "IterationStats"]
__all__ += ["list_ranking", "ListRankingResult", "ListError", "apsp", "APSPResult", "APSPError"]
__all__ += ["connected_components", "spanning_forest", "ComponentsResult",
            "SpanningForestResult"]
