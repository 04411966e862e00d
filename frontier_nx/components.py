"""Connected and weakly connected components through NetworkX's functions:
:func:`algorithms.components.connected_components` (afforest, Sutton, Ben-Nun & Bar, IPDPS
2018) labels every vertex of the weak components (an arc joins its ends whatever its
direction); the functions here group the nodes as NetworkX's breadth-first searches do.

NetworkX's own ``not_implemented_for`` decorators run before dispatch, so a directed graph never
reaches the undirected forms here (nor an undirected one the weak forms). NetworkX reads
``G._adj`` (``_succ`` and ``_pred``) and iterates ``G`` for the order of the components, as the
conversion does, so graph classes that override their adjacency views (``_AntiGraph``) get the
components of the adjacency NetworkX itself reads.

Strongly connected components: :func:`algorithms.strong_components.strongly_connected_components`
(forward–backward colouring with trimming) labels every vertex by the smallest vertex id of its
SCC; the sets come in order of each one's first node in ``G``, where NetworkX's own function
yields them as its depth-first search completes them (reverse topological order). NetworkX
promises no order, and its tests compare the sets only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np

from algorithms.components import connected_components as _components
from algorithms.strong_components import strongly_connected_components as _strong
from frontier_nx import registry
from frontier_nx.convert import FrontierGraph
from frontier_nx.registry import implements


def _labels(G: FrontierGraph) -> np.ndarray:
    """Each vertex's component label: the smallest vertex id of its component."""
    return _components(G.graph(), target=registry.target()).labels


def _strong_labels(G: FrontierGraph) -> np.ndarray:
    """Each vertex's SCC label: the smallest vertex id of its SCC."""
    return _strong(G.graph(), target=registry.target()).labels


def groups(nodes: list, labels: np.ndarray) -> Iterator[set]:
    """The nodes of each label, one set per component, in order of each one's first node
    (labels are the smallest vertex id of their component)."""
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    parts = np.split(order, bounds) if order.size else []
    for part in parts:
        yield {nodes[i] for i in part.tolist()}


def _count(G: FrontierGraph) -> int:
    return int(np.unique(_labels(G)).size)


def _is_connected(G: FrontierGraph) -> bool:
    if not G.nodes:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return bool(np.all(_labels(G) == 0))


def _in_graph(arguments: dict[str, Any]) -> str | None:
    """NetworkX raises its own error (KeyError) for a node not in the graph."""
    if arguments["n"] not in arguments["G"]:
        return f"n={arguments['n']!r} is not in the graph: NetworkX raises its own error"
    return None


@implements()
def connected_components(G: FrontierGraph) -> Iterator[set]:
    return groups(G.nodes, _labels(G))


@implements()
def number_connected_components(G: FrontierGraph) -> int:
    return _count(G)


@implements()
def is_connected(G: FrontierGraph) -> bool:
    return _is_connected(G)


@implements(declines=_in_graph)
def node_connected_component(G: FrontierGraph, n: Any) -> set:
    labels = _labels(G)
    members = np.flatnonzero(labels == labels[G.vertex(n)])
    return {G.nodes[i] for i in members.tolist()}


@implements()
def weakly_connected_components(G: FrontierGraph) -> Iterator[set]:
    return groups(G.nodes, _labels(G))


@implements()
def number_weakly_connected_components(G: FrontierGraph) -> int:
    return _count(G)


@implements()
def is_weakly_connected(G: FrontierGraph) -> bool:
    return _is_connected(G)


@implements()
def strongly_connected_components(G: FrontierGraph) -> Iterator[set]:
    return groups(G.nodes, _strong_labels(G))


@implements()
def number_strongly_connected_components(G: FrontierGraph) -> int:
    return int(np.unique(_strong_labels(G)).size)


@implements()
def is_strongly_connected(G: FrontierGraph) -> bool:
    if not G.nodes:
        raise nx.NetworkXPointlessConcept(
            "Connectivity is undefined for the null graph.")
    return bool(np.all(_strong_labels(G) == 0))
