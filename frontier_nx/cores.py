"""Cores and trusses through NetworkX's functions: :func:`algorithms.kcore.k_core` (peeling,
Batagelj and Zaversnik's order, level-synchronous) computes the core numbers on the graph
NetworkX counts degrees on (a directed graph's in + out degree: every arc an undirected edge,
so a pair of opposite arcs counts twice, as NetworkX's ``all_neighbors`` does).

``k_core``, ``k_shell``, ``k_crust`` and ``k_corona`` return subgraphs of the NetworkX graph
given, with its graph, node and edge attributes: they run NetworkX's own function on that graph
(:meth:`FrontierGraph.original`) with the core numbers computed here, which is what NetworkX
does with the core numbers it computes itself. NetworkX's ``not_implemented_for("multigraph")``
runs before dispatch, so multigraphs never reach this module. Declined: a ``core_number``
argument (nothing is left to compute), and graph classes that override the views NetworkX
counts degrees and neighbours with (such as ``approximation.k_components``'s ``_AntiGraph``,
a complement graph whose ``_adj`` holds the edges it lacks).

``k_truss``: :func:`algorithms.truss.k_truss` (peeling) finds the truss's edges; the subgraph is
what NetworkX's own loop leaves of a copy of the graph given (its edges of too little support
removed, then the nodes left without edges), so it keeps NetworkX's node and edge order and
every attribute. Self-loops raise NetworkX's error; a ``k`` that is not an integer is declined
(NetworkX compares supports with ``k - 2`` whatever ``k`` is).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import networkx as nx

from frontier_nx import registry
from frontier_nx.lazy import LazyModule
from frontier_nx.registry import implements, standard_views

if TYPE_CHECKING:
    from frontier_nx.convert import FrontierGraph

np = LazyModule("numpy")
_kcore = LazyModule("algorithms.kcore")
_truss = LazyModule("algorithms.truss")


def _computed_here(arguments: dict[str, Any]) -> str | None:
    """The rule of the subgraph functions: no ``core_number`` given, standard views."""
    if arguments["core_number"] is not None:
        return "core_number is given: nothing is left to compute, NetworkX filters it itself"
    return standard_views(arguments)


def _refusals(G: FrontierGraph) -> None:
    """NetworkX's refusals in the core and truss functions, word for word: multigraphs (which
    NetworkX before 3.5 refuses inside ``k_core`` and its kin, from ``core_number``), then
    self-loops."""
    if G.multigraph:
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")
    tails = np.repeat(np.arange(len(G.nodes)), np.diff(G.offsets))
    if np.any(tails == G.heads):
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")


@implements(declines=standard_views)
def core_number(G: FrontierGraph) -> dict:
    _refusals(G)
    graph = G.graph(undirected=True) if G.directed else G.graph()
    return G.labelled(_kcore.k_core(graph, target=registry.target()).core_numbers)


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


def _integer_k(arguments: dict[str, Any]) -> str | None:
    """The rule of ``k_truss``: an integer ``k`` (not a bool), standard views."""
    k = arguments["k"]
    if not isinstance(k, numbers.Integral) or isinstance(k, bool):
        return f"k={k!r}: a k that is not an integer stays in NetworkX"
    return standard_views(arguments)


@implements(declines=_integer_k)
def k_truss(G: FrontierGraph, k: int) -> nx.Graph:
    _refusals(G)
    kept = _truss.k_truss(G.graph(), int(k), target=registry.target()).edges
    n = len(G.nodes)
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(G.offsets))
    lower = tails < G.heads
    edges = tails[lower] * n + G.heads[lower]
    gone = np.setdiff1d(edges, kept[:, 0].astype(np.int64) * n + kept[:, 1], assume_unique=True)
    ends = np.zeros(n, np.bool_)
    ends[kept.reshape(-1)] = True
    # NetworkX's own steps on a copy of the graph: its edges of too little support, then the
    # nodes left without edges, so the subgraph keeps its order and attributes
    H = G.original().copy()
    nodes = G.nodes
    H.remove_edges_from((nodes[e // n], nodes[e % n]) for e in gone.tolist())
    H.remove_nodes_from([nodes[v] for v in np.flatnonzero(~ends).tolist()])
    return H
