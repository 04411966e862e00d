"""The compiled loops of :mod:`frontier_nx.louvain`: NetworkX's Louvain moves node by node in
its seeded order, each move reading the communities its earlier moves made, so the loop is
sequential; it runs compiled by Numba on the host, with NetworkX's float expressions in its
order of operations (the same sums, the same ties). Imported when a Louvain call first runs
(:mod:`frontier_nx.lazy`); compiled once and kept in the library's cache directory
(:func:`frontier.runtime.cache_dir.cached_njit`).
"""

from __future__ import annotations

import numpy as np

from frontier.runtime.cache_dir import cached_njit

__all__ = ["adjacency", "degrees", "neighbour_weights", "one_level"]


@cached_njit()
def adjacency(n: int, tails: np.ndarray, heads: np.ndarray, weights: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The adjacency a NetworkX graph gets from ``add_edge(tails[i], heads[i])`` for ``i`` in
    order, one direction: each row's neighbours in the order first added, a repeated pair's
    weights summed in that order (CSR offsets, heads, weights)."""
    order = np.argsort(tails, kind="mergesort")
    offsets = np.zeros(n + 1, np.int64)
    out_heads = np.empty(tails.size, np.int64)
    out_weights = np.empty(tails.size, np.float64)
    slot = np.full(n, -1, np.int64)
    k = 0
    i = 0
    for row in range(n):
        start = k
        while i < order.size and tails[order[i]] == row:
            e = order[i]
            head = heads[e]
            if slot[head] < 0:
                slot[head] = k
                out_heads[k] = head
                out_weights[k] = weights[e]
                k += 1
            else:
                out_weights[slot[head]] += weights[e]
            i += 1
        for j in range(start, k):
            slot[out_heads[j]] = -1
        offsets[row + 1] = k
    return offsets, out_heads[:k], out_weights[:k]


@cached_njit()
def degrees(offsets: np.ndarray, heads: np.ndarray, weights: np.ndarray, loops_twice: bool
            ) -> np.ndarray:
    """NetworkX's weighted degree of every row: its weights summed in order, a self-loop's once
    more where ``loops_twice`` (an undirected graph)."""
    n = offsets.size - 1
    out = np.zeros(n, np.float64)
    for u in range(n):
        total = 0.0
        loop = 0.0
        for j in range(offsets[u], offsets[u + 1]):
            total += weights[j]
            if heads[j] == u:
                loop = weights[j]
        out[u] = total + loop if loops_twice else total
    return out


@cached_njit()
def neighbour_weights(offsets: np.ndarray, heads: np.ndarray, weights: np.ndarray,
                      in_offsets: np.ndarray, in_heads: np.ndarray, in_weights: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NetworkX's ``nbrs``: each node's neighbours but itself, from its row and then, for a
    directed graph, its in-row (``in_offsets`` empty for an undirected graph), in the order
    first met, weights summed from 0.0 in that order."""
    n = offsets.size - 1
    directed = in_offsets.size > 0
    size = heads.size + (in_heads.size if directed else 0)
    out_offsets = np.zeros(n + 1, np.int64)
    out_heads = np.empty(size, np.int64)
    out_weights = np.empty(size, np.float64)
    slot = np.full(n, -1, np.int64)
    k = 0
    for u in range(n):
        start = k
        for side in range(2 if directed else 1):
            row_offsets = in_offsets if side else offsets
            row_heads = in_heads if side else heads
            row_weights = in_weights if side else weights
            for j in range(row_offsets[u], row_offsets[u + 1]):
                v = row_heads[j]
                if v == u:
                    continue
                if slot[v] < 0:
                    slot[v] = k
                    out_heads[k] = v
                    out_weights[k] = 0.0 + row_weights[j]
                    k += 1
                else:
                    out_weights[slot[v]] += row_weights[j]
        for j in range(start, k):
            slot[out_heads[j]] = -1
        out_offsets[u + 1] = k
    return out_offsets, out_heads[:k], out_weights[:k]


@cached_njit()
def one_level(order: np.ndarray, offsets: np.ndarray, heads: np.ndarray, weights: np.ndarray,
              out_degree: np.ndarray, in_degree: np.ndarray, m: float, resolution: float,
              directed: bool) -> tuple[np.ndarray, bool]:
    """NetworkX's ``_one_level``: every node in ``order`` moves to the neighbouring community
    of the largest positive modularity gain (the first of equal gains, in the order its
    neighbours' communities are first met, its own community last where no neighbour is in
    it), until a pass moves none. ``in_degree`` is ``out_degree`` on an undirected graph. The
    node -> community labels, and whether any node moved."""
    n = offsets.size - 1
    community = np.arange(n)
    total_in = in_degree.copy()
    total_out = out_degree.copy()
    slot = np.full(n, -1, np.int64)
    met = np.empty(n, np.int64)
    tally = np.empty(n, np.float64)
    improvement = False
    moves = 1
    while moves > 0:
        moves = 0
        for u in order:
            best_gain = 0.0
            best = community[u]
            k = 0
            for j in range(offsets[u], offsets[u + 1]):
                c = community[heads[j]]
                if slot[c] < 0:
                    slot[c] = k
                    met[k] = c
                    tally[k] = 0.0 + weights[j]
                    k += 1
                else:
                    tally[slot[c]] += weights[j]
            if slot[best] < 0:  # NetworkX's defaultdict read adds its own community last
                slot[best] = k
                met[k] = best
                tally[k] = 0.0
                k += 1
            own = tally[slot[best]]
            if directed:
                total_in[best] -= in_degree[u]
                total_out[best] -= out_degree[u]
                remove_cost = -own / m + resolution * (
                    out_degree[u] * total_in[best] + in_degree[u] * total_out[best]) / m**2
            else:
                total_in[best] -= out_degree[u]
                remove_cost = -own / m + resolution * (total_in[best] * out_degree[u]) / (
                    2 * m**2)
            for i in range(k):
                c = met[i]
                if directed:
                    gain = remove_cost + tally[i] / m - resolution * (
                        out_degree[u] * total_in[c] + in_degree[u] * total_out[c]) / m**2
                else:
                    gain = remove_cost + tally[i] / m - resolution * (
                        total_in[c] * out_degree[u]) / (2 * m**2)
                if gain > best_gain:
                    best_gain = gain
                    best = c
            for i in range(k):
                slot[met[i]] = -1
            if directed:
                total_in[best] += in_degree[u]
                total_out[best] += out_degree[u]
            else:
                total_in[best] += out_degree[u]
            if best != community[u]:
                improvement = True
                moves += 1
                community[u] = best
    return community, improvement
