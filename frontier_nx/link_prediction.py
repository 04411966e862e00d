"""NetworkX's link prediction scores that are ratios and products of integers: the Jaccard
coefficient ``|N(u) & N(v) - {u, v}| / |N(u) | N(v)|`` and preferential attachment
``deg(u) deg(v)``, for every pair of ``ebunch`` at once from the converted adjacency (a sparse
row product for the common neighbours), so each float is NetworkX's exactly. The pairs are
NetworkX's: ``ebunch`` in its order, or ``nx.non_edges`` of the graph given, checked before
the generator is returned as NetworkX checks them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import networkx as nx

from frontier_nx.lazy import LazyModule
from frontier_nx.registry import implements

if TYPE_CHECKING:
    from frontier_nx.convert import FrontierGraph

np = LazyModule("numpy")
sparse = LazyModule("scipy.sparse")


def _pairs(G: FrontierGraph, ebunch: Any) -> tuple[list, np.ndarray, np.ndarray]:
    """The pairs NetworkX scores, and their vertices; NodeNotFound as NetworkX raises it."""
    if ebunch is None:
        pairs = list(nx.non_edges(G.original()))
    else:
        pairs = []
        for u, v in ebunch:
            for node in (u, v):
                if node not in G.index:
                    raise nx.NodeNotFound(f"Node {node} not in G.")
            pairs.append((u, v))
    index = G.index
    us = np.fromiter((index[u] for u, _ in pairs), np.int64, len(pairs))
    vs = np.fromiter((index[v] for _, v in pairs), np.int64, len(pairs))
    return pairs, us, vs


def _adjacency(G: FrontierGraph) -> sparse.csr_array:
    """Distinct neighbours as a 0/1 matrix (a self-loop makes a node its own neighbour)."""
    matrix = G.matrix(np.ones(G.num_arcs, np.int64))
    matrix.data[:] = 1
    return matrix


@implements()
def jaccard_coefficient(G: FrontierGraph, ebunch: Any = None) -> Iterator[tuple]:
    pairs, us, vs = _pairs(G, ebunch)
    A = _adjacency(G)
    both = np.asarray((A[us] * A[vs]).sum(axis=1)).ravel().astype(np.int64)
    sizes = np.diff(A.indptr)
    union = sizes[us] + sizes[vs] - both
    # N(u) & N(v) less u and v themselves (where they are common neighbours)
    u_common = np.asarray(A[us, us]).ravel() * np.asarray(A[vs, us]).ravel()
    v_common = np.asarray(A[us, vs]).ravel() * np.asarray(A[vs, vs]).ravel()
    common = both - u_common - np.where(us == vs, 0, v_common)
    scores = [0 if size == 0 else c / size
              for c, size in zip(common.tolist(), union.tolist(), strict=True)]
    return ((u, v, score) for (u, v), score in zip(pairs, scores, strict=True))


@implements()
def preferential_attachment(G: FrontierGraph, ebunch: Any = None) -> Iterator[tuple]:
    pairs, us, vs = _pairs(G, ebunch)
    degrees = G.degrees()
    scores = (degrees[us] * degrees[vs]).tolist()
    return ((u, v, score) for (u, v), score in zip(pairs, scores, strict=True))
