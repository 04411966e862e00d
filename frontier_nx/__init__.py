"""Frontier's NetworkX backend: ``networkx.pagerank(G, backend="frontier")`` and the other
functions of :data:`frontier_nx.functions.FUNCTIONS` run Frontier's algorithms on NetworkX graphs
and return exactly what NetworkX returns.

NetworkX (>= 3.2, "backends") finds the backend through two entry points of ``pyproject.toml``:
``networkx.backend_info`` names :func:`get_info` here, which NetworkX calls at ``import networkx``,
so this module imports the standard library only (no Numba, no library: as nx-cugraph keeps its
``_nx_cugraph``); ``networkx.backends`` names :class:`frontier_nx.interface.BackendInterface`,
loaded on the first call that dispatches to the backend.
"""

from __future__ import annotations

from typing import Any

from frontier_nx.functions import FUNCTIONS

__all__ = ["get_info", "FUNCTIONS"]


def get_info() -> dict[str, Any]:
    """The ``networkx.backend_info`` entry point: what NetworkX shows about this backend."""
    return {
        "backend_name": "frontier",
        "project": "frontier-graph",
        "package": "frontier-graph",
        "url": "https://github.com/frontier-graph/frontier",
        "short_summary": "GPU graph algorithms written as advance / filter / compute operators",
        "functions": {name: {"additional_docs": note} for name, note in FUNCTIONS.items()},
        "default_config": {"target": None, "min_edges": None},
    }
