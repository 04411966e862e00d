"""Label-propagation communities through NetworkX's function:
:func:`algorithms.label_propagation_communities` runs NetworkX's semi-synchronous rule exactly
(its greedy largest-first colouring, Cordasco & Gargano's Prec-Max ties), labelling each vertex
by its community's first node. The communities come back as NetworkX returns them: the
``dict_values`` of a dict of sets, in the order of each community's first node, each set filled
in node order. NetworkX's ``not_implemented_for("directed")`` runs before dispatch. Declined:
multigraphs (NetworkX's colouring order counts their parallel edges, its label counts do not)
and graph classes that override their views.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from frontier_nx import registry
from frontier_nx.lazy import LazyModule
from frontier_nx.registry import implements, standard_views

if TYPE_CHECKING:
    from frontier_nx.convert import FrontierGraph

_communities = LazyModule("algorithms.communities")


def _simple_graphs(arguments: dict[str, Any]) -> str | None:
    if arguments["G"].is_multigraph():
        return "a multigraph: NetworkX's colouring order counts its parallel edges"
    return standard_views(arguments)


@implements(declines=_simple_graphs)
def label_propagation_communities(G: FrontierGraph) -> Any:
    labels = _communities.label_propagation_communities(G.graph(), target=registry.target()).labels
    clusters: defaultdict = defaultdict(set)
    for node, label in zip(G.nodes, labels.tolist(), strict=True):
        clusters[label].add(node)
    return clusters.values()
