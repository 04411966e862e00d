"""Louvain communities through NetworkX's functions (Blondel et al., *Fast unfolding of
communities in large networks*, 2008), NetworkX's rule exactly: the same seeded order of nodes
(``seed.shuffle`` of each level's node list), the same moves (the largest positive modularity
gain, ties to the community met first, NetworkX's float expressions in its order), the same
levels (a level's communities become the nodes of the next, until a level moves no node or
gains ``threshold`` or less), so the same communities in the same order as NetworkX's for the
same seed, and ``louvain_partitions`` the same levels.

A move reads the communities of the moves before it, so the moving is sequential: it runs on the
host, compiled (:mod:`frontier_nx.louvain_kernels`), the levels' graphs built from the
conversion with numpy in the order NetworkX builds its own (the order of each node's
neighbours decides ties). Weights that are not finite numbers run NetworkX's own function on the
graph given. Declined: graph classes that override their views.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import networkx as nx

from frontier_nx.lazy import LazyModule
from frontier_nx.registry import implements, standard_views

if TYPE_CHECKING:
    from frontier_nx.convert import FrontierGraph

np = LazyModule("numpy")
_kernels = LazyModule("frontier_nx.louvain_kernels")


class _Level:
    """One level's graph as NetworkX builds it: ``n`` nodes, the edges ``tails -> heads`` with
    ``weights`` in the order NetworkX adds them, and from them its adjacency (and a directed
    graph's predecessors) in NetworkX's insertion order, weighted degrees and ``nbrs``."""

    def __init__(self, n: int, tails: Any, heads: Any, weights: Any, directed: bool) -> None:
        self.n, self.directed = n, directed
        if directed:
            self.succ = _kernels.adjacency(n, tails, heads, weights)
            self.pred = _kernels.adjacency(n, heads, tails, weights)
            self.out_degree = _kernels.degrees(*self.succ, False)
            self.in_degree = _kernels.degrees(*self.pred, False)
            self.nbrs = _kernels.neighbour_weights(*self.succ, *self.pred)
        else:
            loops = tails == heads  # an undirected edge is added both ways, a self-loop once
            both_tails = np.stack([tails, heads], axis=1).ravel()
            both_heads = np.stack([heads, tails], axis=1).ravel()
            both_weights = np.repeat(weights, 2)
            keep = ~np.repeat(loops, 2) | (np.arange(both_tails.size) % 2 == 0)
            self.succ = _kernels.adjacency(n, both_tails[keep], both_heads[keep],
                                           both_weights[keep])
            self.out_degree = self.in_degree = _kernels.degrees(*self.succ, True)
            empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64))
            self.nbrs = _kernels.neighbour_weights(*self.succ, *empty)

    def edges(self) -> tuple[Any, Any, Any]:
        """``G.edges(data="weight")`` in NetworkX's order: each row's entries, an undirected
        edge from its lower end (its row comes first)."""
        offsets, heads, weights = self.succ
        tails = np.repeat(np.arange(self.n), np.diff(offsets))
        if self.directed:
            return tails, heads, weights
        kept = heads >= tails
        return tails[kept], heads[kept], weights[kept]

    def size(self) -> float:
        """``G.size(weight="weight")``: the degrees summed (in plus out), halved."""
        total = self.out_degree + self.in_degree if self.directed else self.out_degree
        return float(sum(total.tolist())) / 2

    def modularity(self, labels: Any, resolution: float) -> float:
        """NetworkX's ``modularity`` of the communities ``labels`` (one per node)."""
        tails, heads, weights = self.edges()
        k = int(labels.max()) + 1 if labels.size else 0
        inner = labels[tails] == labels[heads]
        within = np.bincount(labels[tails[inner]], weights=weights[inner], minlength=k)
        out_sums = np.bincount(labels, weights=self.out_degree, minlength=k)
        in_sums = np.bincount(labels, weights=self.in_degree, minlength=k)
        if self.directed:
            m = float(self.out_degree.sum())
            norm = 1 / m**2
        else:
            m = float(self.out_degree.sum()) / 2
            norm = 1 / (2 * m) ** 2
        return float((within / m - resolution * out_sums * in_sums * norm).sum())

    def merged(self, labels: Any) -> _Level:
        """NetworkX's ``_gen_graph``: one node per community (``labels`` numbered in order),
        each edge added between its ends' communities in edge order, weights summed."""
        tails, heads, weights = self.edges()
        return _Level(int(labels.max()) + 1, labels[tails], labels[heads], weights,
                      self.directed)

    def moved(self, m: float, resolution: float, seed: Any) -> tuple[Any, bool]:
        """NetworkX's ``_one_level`` in the order ``seed`` shuffles the nodes into: the
        communities numbered 0.. in the order of their first member's old number, and whether
        any node moved."""
        order = list(range(self.n))
        seed.shuffle(order)
        degree_in = self.in_degree if self.directed else self.out_degree
        labels, improvement = _kernels.one_level(
            np.array(order, np.int64), *self.nbrs, self.out_degree, degree_in, m,
            float(resolution), self.directed)
        return np.unique(labels, return_inverse=True)[1].astype(np.int64), improvement


def _groups(nodes: list, membership: Any, k: int) -> list[set]:
    groups: list[set] = [set() for _ in range(k)]
    for node, label in zip(nodes, membership.tolist(), strict=True):
        groups[label].add(node)
    return groups


def _edge_weights(G: FrontierGraph, weight: str | None) -> Any:
    """Every edge's weight as NetworkX's ``G.edges(data=weight, default=1)`` reads it, one per
    parallel edge in arc order (float64); None where one is not a finite number."""
    count = int(G.multiplicity.sum()) if G.multiplicity is not None else G.num_arcs
    if weight is None or weight not in G.values:
        return np.ones(count)
    values = G.values[weight]
    if not all(isinstance(value, (int, float)) for value in values):
        return None
    array = np.array(values, dtype=np.float64)
    return array if np.isfinite(array).all() else None


def _partitions(G: FrontierGraph, weight: str | None, resolution: float, threshold: float,
                seed: Any) -> Iterator[list[set]]:
    n = len(G)
    weights = _edge_weights(G, weight)
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(G.offsets))
    heads = G.heads
    if G.multiplicity is not None:
        tails, heads = np.repeat(tails, G.multiplicity), np.repeat(heads, G.multiplicity)
    if not G.directed:  # G.edges(): an undirected edge from its lower end
        kept = tails <= heads
        tails, heads, weights = tails[kept], heads[kept], weights[kept]
    membership = np.arange(n, dtype=np.int64)
    if tails.size == 0:
        yield _groups(G.nodes, membership, n)
        return
    graph = _Level(n, tails, heads, weights, G.directed)
    m = graph.size()
    mod = graph.modularity(membership, resolution)
    labels, improvement = graph.moved(m, resolution, seed)
    improvement = True
    while improvement:
        membership = labels[membership]
        yield _groups(G.nodes, membership, int(labels.max()) + 1)
        new_mod = graph.modularity(labels, resolution)
        if new_mod - mod <= threshold:
            return
        mod = new_mod
        graph = graph.merged(labels)
        labels, improvement = graph.moved(m, resolution, seed)


@implements(declines=standard_views)
def louvain_partitions(G: FrontierGraph, weight: str | None = "weight", resolution: float = 1,
                       threshold: float = 0.0000001, seed: Any = None) -> Iterator[list[set]]:
    """NetworkX's louvain_partitions: each level's communities (see the module docstring)."""
    if _edge_weights(G, weight) is None:
        yield from nx.community.louvain_partitions.orig_func(
            G.original(), weight, resolution, threshold, seed)
        return
    yield from _partitions(G, weight, resolution, threshold, seed)


@implements(declines=standard_views)
def louvain_communities(G: FrontierGraph, weight: str | None = "weight", resolution: float = 1,
                        threshold: float = 0.0000001, max_level: int | None = None,
                        seed: Any = None) -> list[set]:
    """NetworkX's louvain_communities: the last level's communities, or level ``max_level``'s
    (see the module docstring)."""
    if _edge_weights(G, weight) is None:
        return nx.community.louvain_communities.orig_func(
            G.original(), weight, resolution, threshold, max_level, seed)
    levels = _partitions(G, weight, resolution, threshold, seed)
    if max_level is not None:
        if max_level <= 0:
            raise ValueError("max_level argument must be a positive integer or None")
        levels = (level for _, level in zip(range(max_level), levels, strict=False))
    last = None
    for last in levels:  # noqa: B007 - the last level is the answer
        pass
    return last
