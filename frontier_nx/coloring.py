"""Greedy colouring through NetworkX's function: ``greedy_color`` with its default strategy,
``largest_first``, is a first fit over a fixed order (decreasing degree, ties in node order),
which :func:`algorithms.graph_coloring` with ``order="largest_first"`` (Jones & Plassmann's
rounds) reproduces exactly. The colouring comes back as NetworkX returns it: a dict in the order
the nodes were coloured. Declined: every other strategy (random, or orders that change as the
colouring goes on), ``interchange``, directed graphs and multigraphs (their degrees and
neighbours are not those of the undirected simple adjacency), graph classes that override their
views.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import networkx as nx

from frontier_nx import registry
from frontier_nx.lazy import LazyModule
from frontier_nx.registry import implements, standard_views

if TYPE_CHECKING:
    from frontier_nx.convert import FrontierGraph

np = LazyModule("numpy")
_coloring = LazyModule("algorithms.coloring")


def _largest_first(arguments: dict[str, Any]) -> str | None:
    strategy = arguments["strategy"]
    if not (strategy is nx.coloring.strategy_largest_first
            or (isinstance(strategy, str) and strategy == "largest_first")):
        return (f"strategy={strategy!r}: only largest_first is a fixed order the parallel "
                "first fit reproduces")
    if arguments["interchange"]:
        return "interchange=True: recolouring by swaps stays in NetworkX"
    G = arguments["G"]
    if G.is_directed() or G.is_multigraph():
        return "a directed graph or a multigraph: NetworkX's degrees there are not the colouring's"
    return standard_views(arguments)


@implements(declines=_largest_first)
def greedy_color(G: FrontierGraph, strategy: Any = "largest_first",
                 interchange: bool = False) -> dict:
    graph = G.graph()
    colors = _coloring.graph_coloring(graph, order="largest_first", target=registry.target()).colors
    order = np.lexsort((np.arange(graph.num_vertices), -_coloring.networkx_degrees(graph)))
    nodes = G.nodes
    return {nodes[v]: c for v, c in zip(order.tolist(), colors[order].tolist(), strict=True)}
