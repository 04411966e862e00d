"""The object the ``networkx.backends`` entry point names: conversion to and from NetworkX,
``can_run`` (the arguments each function declines, from :mod:`frontier_nx.registry`),
``should_run`` (graphs too small to gain stay in NetworkX) and one attribute per implemented
function, looked up in its family module when NetworkX first asks for it. Loading this module
imports NetworkX's own modules and the backend's tables alone; a call imports the family module
of its function, and numpy, the conversion and the library only where it runs here."""

from __future__ import annotations

import sys
from itertools import islice
from typing import Any

import networkx as nx

from frontier_nx import costs
from frontier_nx.lazy import LazyModule
from frontier_nx.registry import (
    OLDEST_NETWORKX,
    declined,
    implementation,
    networkx_version,
    reason_raised,
    setting,
    stays_in_networkx,
)

_convert = LazyModule("frontier_nx.convert")

__all__ = ["BackendInterface", "EARLY_STOPPING", "MIN_EDGES", "ONE_PASS"]

#: Below this many edges NetworkX itself is faster than converting and launching
#: (``networkx.config.backends.frontier.min_edges`` overrides it): the crossover that
#: ``python -m bench networkx --edges ...`` measures, recorded in docs/networkx.md.
MIN_EDGES = 30_000

#: functions NetworkX answers in one pass over the graph or less: the ordered searches and the
#: components run here where :func:`frontier_nx.costs.pays` estimates that reading the graph
#: and loading what they need cost less than NetworkX's call; the others lost to NetworkX with
#: the conversion in the call at every size ``python -m bench networkx --edges
#: 30000,100000,300000`` timed (docs/networkx.md) and run here on a graph whose arrays a call
#: has read
ONE_PASS = frozenset({
    "connected_components", "number_connected_components", "is_connected",
    "node_connected_component", "weakly_connected_components",
    "number_weakly_connected_components", "is_weakly_connected",
    "single_source_shortest_path_length", "single_source_shortest_path",
    "single_target_shortest_path_length", "single_target_shortest_path",
    "degree_centrality", "in_degree_centrality", "out_degree_centrality", "isolates",
    "number_of_isolates", "is_isolate", "is_tree", "is_arborescence", "reciprocity",
    "overall_reciprocity", "jaccard_coefficient", "preferential_attachment",
})

#: generators a reader may stop after a few items (NetworkX's cost is what is read): the
#: breadth-first ones search NetworkX's adjacency as NetworkX does until a level grows large
#: (:func:`frontier_nx.costs.hand_over`), so they run here as the ordered searches do;
#: ``isolates`` reads the whole graph, so it runs here on a graph whose arrays are read
EARLY_STOPPING = frozenset({
    "bfs_edges", "bfs_predecessors", "bfs_successors", "bfs_layers", "generic_bfs_edges",
    "isolates",
})


class _Functions(type):
    """The class of :class:`BackendInterface`: an attribute it lacks is the function of that
    name, from its family module (:func:`frontier_nx.registry.implementation`)."""

    def __getattr__(cls, name: str) -> Any:
        function = None if name.startswith("__") else implementation(name)
        if function is None:
            raise AttributeError(f"the frontier backend has no {name}")
        return function


class BackendInterface(metaclass=_Functions):
    """Conversions, ``can_run``, ``should_run``, and, as attributes looked up on first use,
    every function of :data:`frontier_nx.functions.FUNCTIONS`."""

    @staticmethod
    def convert_from_nx(G: Any, edge_attrs: dict | None = None, node_attrs: Any = None,
                        preserve_edge_attrs: bool = False, preserve_node_attrs: bool = False,
                        preserve_graph_attrs: bool = False, name: str | None = None,
                        graph_name: str | None = None) -> Any:
        """``G`` as a :class:`FrontierGraph` holding the edge attributes ``edge_attrs`` names
        (``{attribute: default}``); a view's conversion is not cached (it would go stale when
        the graph it shows changes: :mod:`frontier_nx.convert`)."""
        if isinstance(G, _convert.FrontierGraph):
            return G
        _convert.uncache_view(G)
        if preserve_edge_attrs and not edge_attrs:
            edge_attrs = {key: None for _, _, data in G.edges(data=True) for key in data}
        return _convert.from_networkx(G, edge_attrs)

    @staticmethod
    def convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
        """Results are NetworkX's own types already (dicts, sets, lists, generators, graphs);
        a :class:`FrontierGraph` (passed to a function the backend lacks) becomes the NetworkX
        graph it came from, or one rebuilt from it."""
        converted = sys.modules.get("frontier_nx.convert")  # none exists before it loads
        if converted is not None and isinstance(obj, converted.FrontierGraph):
            return obj.to_networkx()
        return obj

    @staticmethod
    def can_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        """True where the backend honours every argument exactly; else why not, returned or
        raised as NotImplementedError (:func:`frontier_nx.registry.reason_raised`). Arguments
        that do not fit NetworkX's signature raise NetworkX's TypeError."""
        reason = declined(name, args, kwargs)
        if reason is None:
            return True
        if reason_raised():
            raise NotImplementedError(f"the frontier backend declines {name}: {reason}")
        return reason if networkx_version() >= OLDEST_NETWORKX else False  # 3.2: a str is yes

    @staticmethod
    def should_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        """Whether running here pays, when NetworkX picks the backend itself (an explicit
        ``backend=`` runs here): searches that NetworkX stops early (at a target, at a
        distance) and graphs of fewer than ``min_edges`` edges stay in NetworkX; so do the
        functions NetworkX answers in one pass (:data:`ONE_PASS`) where
        :func:`frontier_nx.costs.pays` estimates that reading the graph (where no call read it
        yet) and loading what the call needs cost more than NetworkX's call, or, for those it
        does not estimate, where no call read the graph yet. The breadth-first generators a
        reader may stop early (:data:`EARLY_STOPPING`) run here: they search NetworkX's
        adjacency as NetworkX does until reading the graph pays
        (:func:`frontier_nx.costs.hand_over`)."""
        reason = stays_in_networkx(name, args, kwargs)
        if reason is not None:
            return reason
        graph = args[0] if args else kwargs.get("G")  # every function's graph is its G
        if not isinstance(graph, nx.Graph):
            return True
        read = _read(graph)
        if name in ONE_PASS or (name in EARLY_STOPPING and name not in costs.ORDERED_SEARCHES):
            arcs = _arcs(graph)
            pays = costs.pays(name, arcs, read)
            if pays is False:
                return (f"{name} on {arcs} arcs costs NetworkX less than the backend "
                        f"{'loading the library, ' if name in costs.COMPONENTS else ''}"
                        f"{'' if read else 'reading the graph, '}running it and building "
                        "NetworkX's result (frontier_nx.costs)")
            if pays is None and not read:
                if name in ONE_PASS:
                    return (f"no cached conversion: converting the graph costs more than "
                            f"NetworkX's {name}, one pass over it")
                return (f"no cached conversion: a reader of {name} may stop after a few "
                        "items, which NetworkX yields without converting the whole graph")
        threshold = setting("min_edges")
        threshold = MIN_EDGES if threshold is None else threshold
        if not _has_edges(graph, threshold):
            return f"fewer than {threshold} edges: NetworkX is faster on this graph"
        return True


def _arcs(G: nx.Graph) -> int:
    """The entries of ``G``'s adjacency (an undirected edge counts twice, a self-loop and
    parallel edges once): one ``len`` per node where it holds plain dicts."""
    adjacency = G._adj
    if type(adjacency) is dict:
        return sum(map(len, adjacency.values()))
    return sum(1 for _ in G.edges()) * (1 if G.is_directed() else 2)


def _has_edges(G: nx.Graph, edges: int) -> bool:
    """Whether ``G`` has at least ``edges`` edges, counted from the lengths of its adjacency's
    rows where it holds plain dicts, only as far as it takes (``G.number_of_edges()`` iterates
    its degree view, which costs a large share of a cheap function's time): parallel edges
    count once and an undirected self-loop half."""
    adjacency = G._adj
    if type(adjacency) is not dict:
        return G.number_of_edges() >= edges
    arcs = edges if G.is_directed() else 2 * edges
    rows = iter(adjacency.values())
    counted = 0
    while counted < arcs:
        chunk = list(islice(rows, 4096))
        if not chunk:
            return False
        counted += sum(map(len, chunk))
    return True


def _read(G: nx.Graph) -> bool:
    """Whether NetworkX holds a conversion of ``G`` for this backend
    (``G.__networkx_cache__``) whose arrays a call has read."""
    cache = getattr(G, "__networkx_cache__", None)
    converted = (cache or {}).get("backends", {}).get("frontier") or {}
    return any(getattr(graph, "read", False) for graph in converted.values())
