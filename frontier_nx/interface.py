"""The object the ``networkx.backends`` entry point names: conversion to and from NetworkX,
``can_run`` (the arguments each function declines, from :mod:`frontier_nx.registry`),
``should_run`` (calls that would cost more here stay in NetworkX) and one attribute per implemented
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
    arguments,
    declined,
    implementation,
    networkx_version,
    reason_raised,
    setting,
    stays_in_networkx,
)

_convert = LazyModule("frontier_nx.convert")

__all__ = ["BackendInterface", "MIN_EDGES"]

#: Below this many edges NetworkX itself is faster than converting and launching
#: (``networkx.config.backends.frontier.min_edges`` overrides it): the crossover that
#: ``python -m bench networkx --edges ...`` measures, recorded in docs/networkx.md.
MIN_EDGES = 30_000


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
        distance) and graphs of fewer than ``min_edges`` edges stay in NetworkX; so does a
        call where :func:`frontier_nx.costs.estimate` finds the backend's first call (the
        graph read where no call read it, what it loads where nothing loaded it yet, its work)
        slower than NetworkX's, the graph's arcs counted only as far as that answer needs.
        The breadth-first generators and ``bfs_tree`` (:data:`frontier_nx.costs.LAZY`) run
        here: they search NetworkX's adjacency as NetworkX does until reading the graph pays
        (:func:`frontier_nx.costs.hand_over`)."""
        reason = stays_in_networkx(name, args, kwargs)
        if reason is not None:
            return reason
        graph = args[0] if args else kwargs.get("G")  # every function's graph is its G
        if not isinstance(graph, nx.Graph):
            return True
        threshold = setting("min_edges")
        threshold = MIN_EDGES if threshold is None else threshold
        arcs = _Arcs(graph)
        if not arcs.at_least(threshold if graph.is_directed() else 2 * threshold):
            return f"fewer than {threshold} edges: NetworkX is faster on this graph"
        if name in costs.LAZY:
            return True
        try:
            bound = arguments(name, args, kwargs)
        except TypeError:  # can_run said why
            return True
        attribute = edge_attribute(name, bound)
        read = _read(graph, attribute)
        estimate = costs.estimate(name, len(graph), bound, read, attribute is not None)
        if estimate is None or arcs.pays(estimate):
            return True
        loads = costs.pending(costs.COSTS[name].needs)
        first = ([f"loading {' and '.join(loads)}"] if loads else []) + (
            [] if read else ["reading the graph"])
        return (f"NetworkX's {name} on this graph ({arcs.counted:,}+ arcs) costs less than the "
                f"backend's {', '.join([*first, 'its call'])} (frontier_nx.costs)")


class _Arcs:
    """The entries of a graph's adjacency (an undirected edge counts twice, a self-loop and
    parallel edges once), counted a chunk of rows at a time (one ``len`` per row, where it holds
    plain dicts) only as far as a question needs: ``G.number_of_edges()`` iterates its degree
    view, which costs a large share of a cheap function's time."""

    _CHUNK = 4096

    def __init__(self, G: nx.Graph) -> None:
        adjacency = G._adj
        self.counted = 0
        if type(adjacency) is dict:
            self._rows = iter(adjacency.values())
        else:  # a view's filtered atlas: what it shows, counted at once
            self._rows = iter(())
            self.counted = sum(1 for _ in G.edges()) * (1 if G.is_directed() else 2)

    def _more(self) -> bool:
        chunk = list(islice(self._rows, self._CHUNK))
        self.counted += sum(map(len, chunk))
        return bool(chunk)

    def at_least(self, arcs: int) -> bool:
        """Whether there are at least ``arcs``."""
        while self.counted < arcs:
            if not self._more():
                return False
        return True

    def pays(self, estimate: costs.Estimate) -> bool:
        """Whether the backend is faster on this graph, by ``estimate``."""
        while (verdict := estimate.settled(self.counted)) is None:
            if not self._more():
                return estimate.margin(self.counted) < 0
        return verdict


def edge_attribute(name: str, bound: dict[str, Any]) -> str | bool | None:
    """The edge attribute whose values a call's conversion reads: its ``weight`` where NetworkX
    converts the graph with it, True where NetworkX converts every attribute (``k_truss``,
    ``minimum_spanning_tree``), None where none."""
    function = nx.utils.backends._registered_algorithms.get(name)
    if function is None:
        return None
    if function.preserve_edge_attrs is True:
        return True
    weight = bound.get("weight")
    return weight if function.edge_attrs is not None and isinstance(weight, str) else None


def _read(G: nx.Graph, attribute: str | bool | None) -> bool:
    """Whether NetworkX holds a conversion of ``G`` for this backend
    (``G.__networkx_cache__``) that a call has read and that serves a call reading
    ``attribute`` (see :func:`edge_attribute`): one with it, or with every attribute."""
    cache = getattr(G, "__networkx_cache__", None)
    converted = (cache or {}).get("backends", {}).get("frontier") or {}
    for (edges, _), graph in list(converted.items()):
        if not getattr(graph, "read", False):
            continue
        if attribute is None or edges is True or (
                attribute is not True and isinstance(edges, frozenset)
                and any(key == attribute for key, _ in edges)):
            return True
    return False
