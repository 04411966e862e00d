"""Cores through NetworkX's functions: :func:`algorithms.kcore.k_core` (peeling, Batagelj and
Zaversnik's order, level-synchronous) computes the core numbers on the graph NetworkX counts
degrees on (a directed graph's in + out degree: every arc an undirected edge, so a pair of
opposite arcs counts twice, as NetworkX's ``all_neighbors`` does).

``k_core``, ``k_shell``, ``k_crust`` and ``k_corona`` return subgraphs of the NetworkX graph
given, with its graph, node and edge attributes: they run NetworkX's own function on that graph
(:meth:`FrontierGraph.original`) with the core numbers computed here, which is what NetworkX
does with the core numbers it computes itself. NetworkX's ``not_implemented_for("multigraph")``
runs before dispatch, so multigraphs never reach this module. Declined: a ``core_number``
argument (nothing is left to compute), and graph classes that override the views NetworkX
counts degrees and neighbours with (such as ``approximation.k_components``'s ``_AntiGraph``,
a complement graph whose ``_adj`` holds the edges it lacks).
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from algorithms.kcore import k_core as _peel
from frontier_nx import registry
from frontier_nx.convert import FrontierGraph
from frontier_nx.registry import implements

#: the attributes through which NetworkX's core functions read a graph's neighbours
_VIEWS = ("adj", "succ", "pred", "degree", "neighbors", "successors", "predecessors",
          "__getitem__", "__iter__", "__len__")


def _standard_views(arguments: dict[str, Any]) -> str | None:
    """Declines a NetworkX graph whose class overrides a view the conversion does not read."""
    G = arguments["G"]
    if not isinstance(G, nx.Graph):
        return None
    base = nx.DiGraph if G.is_directed() else nx.Graph
    changed = [name for name in _VIEWS
               if getattr(type(G), name, None) is not getattr(base, name, None)]
    if changed:
        return (f"{type(G).__name__} overrides {', '.join(changed)}: its neighbours are not "
                "those of its adjacency")
    return None


def _computed_here(arguments: dict[str, Any]) -> str | None:
    """The rule of the subgraph functions: no ``core_number`` given, standard views."""
    if arguments["core_number"] is not None:
        return "core_number is given: nothing is left to compute, NetworkX filters it itself"
    return _standard_views(arguments)


@implements(declines=_standard_views)
def core_number(G: FrontierGraph) -> dict:
    tails = np.repeat(np.arange(len(G.nodes)), np.diff(G.offsets))
    if np.any(tails == G.heads):
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")
    graph = G.graph(undirected=True) if G.directed else G.graph()
    return G.labelled(_peel(graph, target=registry.target()).core_numbers)


def _subgraph(name: str, G: FrontierGraph, k: int | None) -> nx.Graph:
    """NetworkX's ``name`` on the original graph, with the core numbers computed here."""
    cores = core_number(G)
    return getattr(nx, name).orig_func(G.original(), k, core_number=cores)


@implements(declines=_computed_here)
def k_core(G: FrontierGraph, k: int | None = None, core_number: dict | None = None) -> nx.Graph:
    return _subgraph("k_core", G, k)


@implements(declines=_computed_here)
def k_shell(G: FrontierGraph, k: int | None = None, core_number: dict | None = None
            ) -> nx.Graph:
    return _subgraph("k_shell", G, k)


@implements(declines=_computed_here)
def k_crust(G: FrontierGraph, k: int | None = None, core_number: dict | None = None
            ) -> nx.Graph:
    return _subgraph("k_crust", G, k)


@implements(declines=_computed_here)
def k_corona(G: FrontierGraph, k: int, core_number: dict | None = None) -> nx.Graph:
    return _subgraph("k_corona", G, k)
