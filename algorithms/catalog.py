"""The catalog of algorithms, :data:`CATALOG` (name -> :class:`algorithms.entry.Entry`): the
command line (``frontier run ALGO``, ``frontier explain ALGO``), the benchmark suite and the
tests pick up every algorithm from it without knowing one by name.

This module only collects: every module of the ``algorithms`` package declares its own entries
beside the algorithm, in a module-level ``ENTRIES`` tuple of :class:`~algorithms.entry.Entry`
(see that module for what an entry holds), and :func:`collect` gathers them, sorted by name.
A new algorithm is a new module declaring ``ENTRIES``: nothing here changes."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import replace
from typing import Any

import numpy as np

import algorithms
from algorithms.entry import Entry
from frontier.frontier import Frontier
from frontier.graph import Graph
from frontier.target import Target

__all__ = ["CATALOG", "collect"]

#: Modules of the package that declare no entries and are not imported to look: this one, the
#: NetworkX backend (it needs networkx, a test dependency, and sits on top of the algorithms),
#: and the scale-out routines (imported only for a partitioned graph).
_NOT_SCANNED = frozenset({"catalog", "nx_backend", "distributed"})


def collect() -> dict[str, Entry]:
    """Every entry declared by a module of the ``algorithms`` package, by name, sorted."""
    entries: dict[str, Entry] = {}
    for module in pkgutil.iter_modules(algorithms.__path__):
        if module.name in _NOT_SCANNED:
            continue
        for entry in getattr(importlib.import_module(f"algorithms.{module.name}"), "ENTRIES", ()):
            if entry.name in entries:
                raise ValueError(f"two catalog entries are named {entry.name!r}")
            entries[entry.name] = entry
    return {name: _explained(entries[name]) for name in sorted(entries)}


# explain: the kernels each algorithm's step runs, until `explain` records what ran (issue 21,
# item 2) -------------------------------------------------------------------------------------
def _bfs_explain(graph: Graph, target: Target, balancer: str = "auto",
                 frontier: str = "sparse", direction: str = "auto") -> str:
    """The kernels a BFS from vertex 0 runs: :func:`operators.explain` of its ``traverse``."""
    from algorithms.bfs import unvisited, visit
    from operators import explain, traverse

    f = Frontier.from_vertices(graph, [0], kind=frontier, target=target)
    state = target.zeros(graph.num_vertices, np.int32)
    return explain(traverse, graph, f, visit, state, state, condition=unvisited,
                   direction=direction, balancer=balancer)


def _bfs_do_explain(graph: Graph, target: Target, **options: Any) -> str:
    return _bfs_explain(graph, target, direction="auto", **options)


def _sssp_explain(graph: Graph, target: Target, balancer: str = "thread",
                  method: str = "auto") -> str:
    """The kernels of the method's relaxation step (:func:`operators.explain`; ``"auto"``: of
    the method it picks for ``graph``)."""
    from algorithms.sssp import (
        AUTO,
        choose_method,
        relax,
        relax_below,
        relax_into_updating,
        relax_light_below,
        relax_only,
    )
    from operators import advance, explain, traverse

    dist = target.zeros(graph.num_vertices, np.float64)
    method = choose_method(graph) if method == AUTO else method
    if method == "harish":
        mask = Frontier.from_vertices(graph, [0], kind="dense", target=target)
        return explain(advance, graph, mask, relax_into_updating, dist, dist,
                       balancer=balancer, output="dense")
    f = Frontier.from_vertices(graph, [0], target=target)
    if method == "ordered":
        return explain(advance, graph, f, relax_only, dist, balancer=balancer)
    if method == "near_far":
        return explain(traverse, graph, f, relax_below, dist, 1.0, balancer=balancer,
                       cull="bitmap")
    if method == "delta_stepping":
        return explain(traverse, graph, f, relax_light_below, dist, 1.0, 1.0,
                       balancer=balancer, cull="bitmap")
    return explain(traverse, graph, f, relax, dist, balancer=balancer, cull="bitmap")


def _pagerank_explain(graph: Graph, target: Target, balancer: str = "auto",
                      direction: str = "auto") -> str:
    """The kernel that spreads the ranks: the pull neighbour sum, or the push advance."""
    from algorithms.pagerank import pulled_share, pushed_share
    from operators import Direction, advance, explain, neighbor_reduce

    n = graph.num_vertices
    rank = target.zeros(max(n, 1), np.float64)
    if Direction.of(direction).choose(n, n) == "pull":
        return ("# --- pull: the neighbour sum over in-edges, one thread per vertex ---\n"
                + explain(neighbor_reduce, graph, "vertices", pulled_share, rank, rank, True,
                          out=rank, edges="in"))
    everyone = Frontier.all_vertices(graph, target=target)
    return explain(advance, graph, everyone, pushed_share, rank, rank, True, rank,
                   balancer=balancer, output="none")


def _betweenness_explain(graph: Graph, target: Target, balancer: str = "auto") -> str:
    """The forward BFS counting paths (a fused traverse) and the backward dependency sum."""
    from algorithms.betweenness import dependency, discover
    from operators import explain, neighbor_reduce, traverse

    n = graph.num_vertices
    depth, sigma = target.zeros(max(n, 1), np.int32), target.zeros(max(n, 1), np.float64)
    start = Frontier.from_vertices(graph, [0], target=target)
    return (explain(traverse, graph, start, discover, depth, sigma, balancer=balancer)
            + "# --- backward: dependencies of one level ---\n"
            + explain(neighbor_reduce, graph, start, dependency, depth, sigma, sigma,
                      out=sigma, edges="out"))


def _k_core_explain(graph: Graph, target: Target, balancer: str = "auto") -> str:
    """The peeling advance: releasing the edges of the vertices removed in one step."""
    from algorithms.kcore import release, undirected_simple
    from operators import advance, explain

    simple = undirected_simple(graph)
    state = target.zeros(max(simple.num_vertices, 1), np.int32)
    start = Frontier.from_vertices(simple, [0] if simple.num_vertices else [], target=target)
    return explain(advance, simple, start, release, state, state, 0, balancer=balancer)


def _listrank_explain(graph: Graph, target: Target, method: str = "random_splitter") -> str:
    from algorithms.list_ranking import explain_list_ranking

    return explain_list_ranking(target, method)


def _apsp_explain(graph: Graph, target: Target, method: str = "blocked_floyd_warshall"
                  ) -> str:
    from algorithms.apsp import explain_apsp

    return explain_apsp(graph, target, method)


def _cc_explain(graph: Graph, target: Target, **options: Any) -> str:
    from algorithms.components import explain_method

    return explain_method(graph, target, **options)


def _forest_explain(graph: Graph, target: Target) -> str:
    from algorithms.components import explain_method

    return explain_method(graph, target, forest=True)


_EXPLAIN = {"bfs": _bfs_explain, "bfs_do": _bfs_do_explain, "sssp": _sssp_explain,
            "pagerank": _pagerank_explain, "bc": _betweenness_explain, "kcore": _k_core_explain,
            "listrank": _listrank_explain, "apsp": _apsp_explain, "cc": _cc_explain,
            "forest": _forest_explain}


def _explained(entry: Entry) -> Entry:
    explain = entry.explain or _EXPLAIN.get(entry.name)
    return entry if explain is None else replace(entry, explain=explain)


CATALOG: dict[str, Entry] = collect()
