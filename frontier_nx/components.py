"""Connected components through NetworkX's functions: :func:`algorithms.connected_components`
(afforest, Sutton et al.) labels every vertex; the functions here group the nodes."""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx
import numpy as np

from algorithms.components import connected_components as _components
from frontier_nx import registry
from frontier_nx.convert import FrontierGraph
from frontier_nx.registry import implements


def groups(nodes: list, labels: np.ndarray) -> Iterator[set]:
    """The nodes of each label, one set per component, in order of each one's first node."""
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    parts = np.split(order, bounds) if order.size else []
    for part in sorted(parts, key=lambda members: int(members[0])):
        yield {nodes[i] for i in part.tolist()}


@implements()
def connected_components(G: FrontierGraph) -> Iterator[set]:
    if G.directed:
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    labels = _components(G.graph(), target=registry.target()).labels
    return groups(G.nodes, labels)
