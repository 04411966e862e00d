"""Graph algorithms written only with the operators: each is a short host loop of
advance / filter / compute calls, the way the papers cited in each module write them."""

from __future__ import annotations

from algorithms.bfs import BFSResult, LevelStats, bfs
from algorithms.catalog import CATALOG
from algorithms.components import (
    ComponentsResult,
    SpanningForestResult,
    connected_components,
    spanning_forest,
)

__all__ = ["bfs", "BFSResult", "LevelStats", "CATALOG", "connected_components",
           "spanning_forest", "ComponentsResult", "SpanningForestResult"]
