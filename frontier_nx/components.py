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
SCC. NetworkX's own function yields the SCCs as its depth-first search completes them, so each
comes after every SCC its arcs lead to (a reverse topological order of the condensation, which
``condensation`` and its tests rely on); the backend yields them in such an order too, by
peeling the condensation's sinks level by level on the host (vectorized, one pass per level),
ties by first node. The order among SCCs the condensation leaves unordered may differ from
NetworkX's.
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


def _sinks_first(G: FrontierGraph, labels: np.ndarray) -> np.ndarray:
    """Each vertex's SCC's rank in a reverse topological order of the condensation (sinks
    first; within a level by first node), from peeling the sinks level by level."""
    n = labels.size
    tails, heads = labels[np.repeat(np.arange(n), np.diff(G.offsets))], labels[G.heads]
    between = tails != heads
    tails, heads = tails[between], heads[between]
    by_head = np.argsort(heads, kind="stable")
    preds, starts = tails[by_head], np.searchsorted(heads[by_head], np.arange(n + 1))
    left = np.bincount(tails, minlength=n)  # arcs to SCCs not yet ranked
    level = np.flatnonzero((labels == np.arange(n)) & (left == 0))
    ranked = []
    while level.size:
        ranked.append(level)
        lengths = starts[level + 1] - starts[level]
        touched = preds[np.repeat(starts[level] - np.cumsum(lengths) + lengths, lengths)
                        + np.arange(lengths.sum())]
        np.subtract.at(left, touched, 1)
        touched = np.unique(touched)
        level = touched[left[touched] == 0]
    rank = np.empty(n, np.int64)
    rank[np.concatenate(ranked or [level])] = np.arange(np.count_nonzero(labels == np.arange(n)))
    return rank[labels]


def groups(nodes: list, labels: np.ndarray) -> Iterator[set]:
    """The nodes of each label, one set per label, in ascending order of the labels (by each
    component's first node where labels are the smallest vertex id of their component)."""
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
    return groups(G.nodes, _sinks_first(G, _strong_labels(G)))


@implements()
def number_strongly_connected_components(G: FrontierGraph) -> int:
    return int(np.unique(_strong_labels(G)).size)


@implements()
def is_strongly_connected(G: FrontierGraph) -> bool:
    if not G.nodes:
        raise nx.NetworkXPointlessConcept(
            "Connectivity is undefined for the null graph.")
    return bool(np.all(_strong_labels(G) == 0))
