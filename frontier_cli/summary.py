"""What ``frontier info GRAPH`` reports about a graph's shape: degree statistics, a degree
histogram in powers of two, self-loops and connected components.

Degrees of real graphs span orders of magnitude (a few hubs, many leaves), so the histogram's
buckets are ``0``, ``1``, ``2-3``, ``4-7``, ...; the text form draws one bar per bucket on a
logarithmic scale, so a bucket of one hub stays visible beside a million leaves. Components come
from scipy.sparse.csgraph (weak and, for a directed graph, strong) on the graph's adjacency
pattern, repeated arcs merged. The diameter estimate needs
BFS and is made by the command (:mod:`frontier_cli.commands`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from frontier.graph import Graph

__all__ = ["degree_statistics", "degree_histogram", "text_histogram", "components",
           "self_loops"]


def degree_statistics(degrees: np.ndarray) -> dict[str, float]:
    """min, max, mean, median and standard deviation of ``degrees`` (zeros for no vertex)."""
    if degrees.size == 0:
        return {"min": 0, "max": 0, "mean": 0.0, "median": 0.0, "std": 0.0}
    return {"min": int(degrees.min()), "max": int(degrees.max()),
            "mean": float(degrees.mean()), "median": float(np.median(degrees)),
            "std": float(degrees.std())}


def degree_histogram(degrees: np.ndarray) -> list[dict[str, int]]:
    """Vertex counts per degree bucket ``[low, high]``: 0, 1, 2-3, 4-7, ... up to the largest
    degree (empty buckets in between kept, so the shape reads at a glance)."""
    if degrees.size == 0:
        return []
    buckets = np.zeros(degrees.size, np.int64)
    positive = degrees > 0
    buckets[positive] = np.floor(np.log2(degrees[positive])).astype(np.int64) + 1
    counts = np.bincount(buckets)
    return [{"low": 0 if b == 0 else 1 << (b - 1), "high": 0 if b == 0 else (1 << b) - 1,
             "count": int(c)} for b, c in enumerate(counts)]


def text_histogram(histogram: list[dict[str, int]], width: int = 40) -> list[str]:
    """One line per bucket: its degree range, its count and a bar whose length grows with the
    logarithm of the count."""
    if not histogram:
        return []
    top = max(h["count"] for h in histogram)
    scale = width / math.log2(top + 1) if top else 0
    lines = []
    for h in histogram:
        span = str(h["low"]) if h["low"] == h["high"] else f"{h['low']}-{h['high']}"
        bar = "#" * max(int(round(math.log2(h["count"] + 1) * scale)), 1 if h["count"] else 0)
        lines.append(f"{span:>15} {h['count']:>12,} {bar}")
    return lines


def components(graph: Graph) -> dict[str, Any]:
    """Number of weakly connected components, the size of the largest, and (directed graphs)
    the number of strongly connected components."""
    from scipy.sparse.csgraph import connected_components

    if graph.num_vertices == 0:
        return {"weak": 0, "largest": 0, **({"strong": 0} if graph.directed else {})}
    matrix = graph.to_scipy(pattern=True)  # scipy's strong components hang on repeats
    count, labels = connected_components(matrix, directed=True, connection="weak")
    found: dict[str, Any] = {"weak": int(count), "largest": int(np.bincount(labels).max())}
    if graph.directed:
        found["strong"] = int(connected_components(matrix, directed=True,
                                                   connection="strong")[0])
    return found


def self_loops(graph: Graph) -> int:
    """Arcs from a vertex to itself."""
    sources = np.repeat(np.arange(graph.num_vertices), graph.out_degrees())
    return int(np.count_nonzero(sources == graph.col_indices))
