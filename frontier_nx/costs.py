"""What a cheap call costs in NetworkX and here, for ``should_run`` and for the ordered searches'
hand-over from NetworkX's adjacency to the converted arrays.

NetworkX answers some functions in one pass over its adjacency, so whether the backend wins
depends on what it still has to pay before its own pass: reading the adjacency into arrays
(:mod:`frontier_nx.convert`, unless a call read them before), importing numpy (unless a module
has), and, for the functions that run the library's compiled kernels, importing the library
and loading its kernels from the cache (unless a call has). Each is estimated from the graph's
arcs (adjacency entries: an undirected edge counts twice) with the costs below, measured by
``python -m bench networkx_costs`` on the 2-core development machine and held as on an idle
one (docs/networkx.md, "What a first call costs"); they are CPU costs of NetworkX's Python
loops and of numpy on the same machine, so their ratios carry over to faster or slower
machines better than the times.

Standard library only: ``should_run`` asks before anything heavy is imported.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["ORDERED_SEARCHES", "COMPONENTS", "hand_over", "loaded", "pays"]

#: NetworkX's breadth-first search in order (``bfs_layers``, ``bfs_edges``,
#: ``single_source_shortest_path_length``, ...), seconds per arc
NETWORKX_SEARCH = 145e-9
#: NetworkX's connected components (its ``_plain_bfs`` from each node not yet met), per arc
NETWORKX_COMPONENTS = 125e-9
#: reading the adjacency into arrays, per arc
READ = 70e-9
#: the backend's ordered search on the arrays with NetworkX's result built (lists of nodes, the
#: dict of lengths), per arc
SEARCH = 20e-9
#: the library's components on the arrays with NetworkX's sets built, per arc
COMPONENTS_HERE = 10e-9
#: importing numpy, seconds
NUMPY_IMPORT = 0.045
#: importing the library and loading the components' kernels from a warm cache, seconds
LIBRARY_LOAD = 1.2
#: a search on NetworkX's adjacency hands over to the arrays before a level that alone costs
#: NetworkX at least this share of what reading the arrays costs: a reader that stops after
#: that level pays at most about 1 / HAND_OVER_SHARE times what NetworkX pays for it
HAND_OVER_SHARE = 0.25
#: ... and never before a level of fewer arcs than this (NetworkX scans it in a fraction of a
#: millisecond), so a search that stays small never counts the graph's arcs
HAND_OVER_FLOOR = 1024

#: the functions that search in NetworkX's order on the host (:mod:`frontier_nx.traversal`)
ORDERED_SEARCHES = frozenset({
    "bfs_edges", "bfs_predecessors", "bfs_successors", "bfs_layers", "generic_bfs_edges",
    "single_source_shortest_path_length", "single_source_shortest_path",
    "single_target_shortest_path_length", "single_target_shortest_path",
})
#: the functions that label the components with the library's kernels
#: (:mod:`frontier_nx.components`)
COMPONENTS = frozenset({
    "connected_components", "number_connected_components", "is_connected",
    "node_connected_component", "weakly_connected_components",
    "number_weakly_connected_components", "is_weakly_connected",
})


def loaded(module: str) -> bool:
    """Whether this process has imported ``module``."""
    return module in sys.modules


def _reading(arcs: int) -> float:
    """Reading the arrays of a graph of ``arcs`` arcs, numpy's import included where no
    module has imported it yet."""
    return arcs * READ + (0.0 if loaded("numpy") else NUMPY_IMPORT)


def _library() -> float:
    """Loading the library, where no call has yet."""
    return 0.0 if loaded("algorithms") else LIBRARY_LOAD


def pays(name: str, arcs: int, read: bool) -> bool | None:
    """Whether ``name`` on a graph of ``arcs`` arcs costs less here than in NetworkX, the
    arrays read before (``read``) or not; None for a function these costs do not cover."""
    if name in ORDERED_SEARCHES:
        return (0.0 if read else _reading(arcs)) + arcs * SEARCH < arcs * NETWORKX_SEARCH
    if name in COMPONENTS:
        here = (0.0 if read else _reading(arcs)) + _library() + arcs * COMPONENTS_HERE
        return here < arcs * NETWORKX_COMPONENTS
    return None


def hand_over(level_arcs: int, arcs: Callable[[], int]) -> bool:
    """Whether a search on NetworkX's adjacency of a graph of ``arcs()`` arcs (counted only for
    a level of at least ``HAND_OVER_FLOOR`` arcs) reads the arrays before a level that scans
    ``level_arcs`` of them: where a search read to its end pays for reading them and that level
    alone costs NetworkX at least ``HAND_OVER_SHARE`` of it."""
    if level_arcs < HAND_OVER_FLOOR:
        return False
    arcs = arcs()
    reading = _reading(arcs)
    return (reading + arcs * SEARCH < arcs * NETWORKX_SEARCH
            and level_arcs * NETWORKX_SEARCH >= HAND_OVER_SHARE * reading)
