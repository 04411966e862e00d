"""Graph files shipped inside the package.

``luxembourg_osm.mtx.gz``: the OpenStreetMap road network of Luxembourg (114,599 vertices,
239,332 arcs, undirected, Matrix Market pattern symmetric) from the 10th DIMACS Implementation
Challenge, as distributed by the SuiteSparse Matrix Collection (group DIMACS10). It is the graph
``frontier demo`` runs on; docs/datasets.md gives its provenance.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["demo_graph_path"]


def demo_graph_path() -> Path:
    """Path of the shipped demo graph, ``luxembourg_osm.mtx.gz``; load it with
    :func:`frontier.io.load`."""
    return Path(__file__).parent / "luxembourg_osm.mtx.gz"
