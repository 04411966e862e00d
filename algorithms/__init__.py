"""Graph algorithms written only with the operators: each is a short host loop of
advance / filter / compute calls, the way the papers cited in each module write them."""

from __future__ import annotations

from algorithms.apsp import APSPError, APSPResult, apsp
from algorithms.bfs import BFSResult, LevelStats, bfs
from algorithms.catalog import CATALOG
from algorithms.list_ranking import ListError, ListRankingResult, list_ranking

__all__ = ["bfs", "BFSResult", "LevelStats", "CATALOG", "list_ranking", "ListRankingResult",
           "ListError", "apsp", "APSPResult", "APSPError"]
