"""Connected and weakly connected components through NetworkX's functions:
:func:`algorithms.components.connected_components` (afforest, Sutton, Ben-Nun & Bar, IPDPS
2018) labels every vertex of the weak components (an arc joins its ends whatever its
direction); the functions here group the nodes as NetworkX's breadth-first searches do.

NetworkX's own ``not_implemented_for`` decorators run before dispatch, so a directed graph never
reaches the undirected forms here (nor an undirected one the weak forms). NetworkX reads
``G._adj`` (``_succ`` and ``_pred``) and iterates ``G`` for the order of the components, as the
conversion does, so graph classes that override their adjacency views (``_AntiGraph``) get the
components of the adjacency NetworkX itself reads.

``is_tree``, ``is_forest``, ``is_arborescence`` and ``is_branching`` count edges against the
components (a forest has exactly its nodes less its components as edges) and the in-degrees.

Strongly connected components: :func:`algorithms.strong_components.strongly_connected_components`
(forward–backward colouring with trimming) labels every vertex by the smallest vertex id of its
SCC. NetworkX's own function yields the SCCs as its depth-first search completes them, so each
comes after every SCC its arcs lead to (a reverse topological order of the condensation, which
``condensation`` and its tests rely on), and the SCCs of each search it starts from the first
node not yet yielded come together, that node's last (``write_network_text`` picks its roots
by that order); the backend yields them in such an order too, from the condensation on the
host (vectorized, one pass per level of it). Within one search the order among SCCs the
condensation leaves unordered may differ from NetworkX's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import networkx as nx

from frontier_nx import registry
from frontier_nx.lazy import LazyModule
from frontier_nx.registry import implements, n_in_graph

if TYPE_CHECKING:
    from frontier_nx.convert import FrontierGraph

np = LazyModule("numpy")
_components = LazyModule("algorithms.components")
_strong = LazyModule("algorithms.strong_components")


def _labels(G: FrontierGraph) -> np.ndarray:
    """Each vertex's component label: the smallest vertex id of its component."""
    return _components.connected_components(G.graph(), target=registry.target()).labels


def _strong_labels(G: FrontierGraph) -> np.ndarray:
    """Each vertex's SCC label: the smallest vertex id of its SCC."""
    return _strong.strongly_connected_components(G.graph(), target=registry.target()).labels


def _tarjan_order(G: FrontierGraph, labels: np.ndarray) -> np.ndarray:
    """Each vertex's SCC's rank in NetworkX's order as far as it is fixed without its
    depth-first search: NetworkX's outer loop starts a search at the first node (in graph
    order) not yet in a yielded SCC, which yields exactly the SCCs reachable from it not yet
    yielded, its own last. So an SCC is yielded in the search of the first node that reaches
    it (``first``, minimum propagated along the condensation's arcs), after every SCC its arcs
    lead to (the sinks peeled level by level, vectorized); within one search the order among
    SCCs the condensation leaves unordered may differ from NetworkX's."""
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
    by_tail = np.argsort(tails, kind="stable")
    succs, tail_starts = heads[by_tail], np.searchsorted(tails[by_tail], np.arange(n + 1))
    first = np.arange(n)  # an SCC's label is its first vertex
    for level in reversed(ranked):  # every SCC after all SCCs with arcs to it
        lengths = tail_starts[level + 1] - tail_starts[level]
        reached = succs[np.repeat(tail_starts[level] - np.cumsum(lengths) + lengths, lengths)
                        + np.arange(lengths.sum())]
        np.minimum.at(first, reached, np.repeat(first[level], lengths))
    sccs = np.concatenate(ranked) if ranked else np.zeros(0, np.int64)
    rank = np.empty(n, np.int64)
    rank[sccs[np.lexsort((np.arange(sccs.size), first[sccs]))]] = np.arange(sccs.size)
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


@implements()
def connected_components(G: FrontierGraph) -> Iterator[set]:
    return groups(G.nodes, _labels(G))


@implements()
def number_connected_components(G: FrontierGraph) -> int:
    return _count(G)


@implements()
def is_connected(G: FrontierGraph) -> bool:
    return _is_connected(G)


@implements(declines=n_in_graph)
def node_connected_component(G: FrontierGraph, n: Any) -> set:
    labels = _labels(G)
    members = np.flatnonzero(labels == labels[G.vertex(n)])
    return set(G.labels(members))


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
    return groups(G.nodes, _tarjan_order(G, _strong_labels(G)))


@implements()
def number_strongly_connected_components(G: FrontierGraph) -> int:
    return int(np.unique(_strong_labels(G)).size)


@implements()
def is_strongly_connected(G: FrontierGraph) -> bool:
    if not G.nodes:
        raise nx.NetworkXPointlessConcept(
            "Connectivity is undefined for the null graph.")
    return bool(np.all(_strong_labels(G) == 0))


def _forest(G: FrontierGraph) -> bool:
    """Every (weak) component a tree: the edges number the nodes less the components, as each
    component has at least its nodes less one."""
    if not G.nodes:
        raise nx.NetworkXPointlessConcept("G has no nodes.")
    return G.number_of_edges() == len(G) - _count(G)


def _tree(G: FrontierGraph) -> bool:
    if not G.nodes:
        raise nx.NetworkXPointlessConcept("G has no nodes.")
    return G.number_of_edges() == len(G) - 1 and _count(G) == 1


def _one_parent(G: FrontierGraph) -> bool:
    return bool(G.degrees("in").max(initial=0) <= 1)


@implements()
def is_forest(G: FrontierGraph) -> bool:
    return _forest(G)


@implements()
def is_tree(G: FrontierGraph) -> bool:
    return _tree(G)


@implements()
def is_branching(G: FrontierGraph) -> bool:
    return _forest(G) and _one_parent(G)


@implements()
def is_arborescence(G: FrontierGraph) -> bool:
    return _tree(G) and _one_parent(G)
