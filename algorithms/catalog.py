"""The catalog of algorithms: how to run, check and report each one, so that the command line
(``frontier run ALGO``, ``frontier explain ALGO``), the benchmark suite and the tests pick up
every algorithm without knowing it by name. Adding an :class:`Entry` to :data:`CATALOG` adds a
command."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from algorithms import catalog_measures as measures
from algorithms.apsp import APSP_METHODS, apsp
from algorithms.bfs import ORDERS, bfs
from algorithms.components import DEFAULT_METHOD as CC_DEFAULT_METHOD
from algorithms.components import METHODS as CC_METHODS
from algorithms.components import connected_components, spanning_forest
from algorithms.list_ranking import LIST_RANKING_METHODS, list_ranking
from algorithms.sssp import AUTO, DEFAULT_METHOD, METHODS, sssp
from frontier.graph import Graph
from frontier.target import Target


@dataclass(frozen=True)
class Option:
    """A keyword argument of an entry's ``run`` that the command line offers as ``--NAME``: one
    of ``choices``, ``default`` unless given. ``shown`` formats the chosen value in the command's
    summary."""

    name: str
    choices: tuple[str, ...]
    default: str
    help: str
    shown: str = "{}"


@dataclass(frozen=True)
class Entry:
    """One algorithm.

    * ``run(graph, source, balancer=..., target=..., **options)`` returns a result with
      ``edges_traversed``, ``seconds`` (device time of the traversal) and ``iterations``;
    * ``scipy(graph, source)`` runs the same computation with scipy.sparse.csgraph on one CPU
      core; ``agrees(graph, source, result)`` raises AssertionError unless the two give the same
      answer, which ``checks`` states in one line;
    * ``source=False``: the algorithm takes no source vertex (connected components, PageRank):
      ``run``, ``scipy`` and ``agrees`` are called without it, and the command line offers no
      ``--source``; ``balanced=False``: it takes no ``balancer`` (list ranking, dense APSP);
      :meth:`invoke`, :meth:`reference` and :meth:`check` call the three functions either way;
    * ``report(result)`` gives the algorithm's own summary lines as (label, value) pairs;
    * ``options`` are the keyword arguments of ``run`` beyond ``balancer`` and ``target`` that
      the command line offers, ``description`` its one-line help;
    * ``example``: a generator spec of a graph the algorithm takes, where it does not take any
      graph (list ranking takes a list: ``list:N``); tests run the entry on it. None: any;
    * ``suite``: whether the benchmark suite (``python -m bench all``) runs it on its standard
      graphs; False for list ranking (it takes lists) and APSP (V x V memory), which
      ``bench/listrank_apsp.py`` times on inputs of their own.
    """

    name: str
    description: str
    run: Callable[..., Any]
    scipy: Callable[[Graph, int], Any]
    agrees: Callable[[Graph, int, Any], None]
    checks: str
    report: Callable[[Any], list[tuple[str, str]]]
    options: tuple[Option, ...] = ()
    source: bool = True
    balanced: bool = True
    example: str | None = None
    suite: bool = True

    def invoke(self, graph: Graph, source: int | None, *, balancer: Any, target: Any,
               **options: Any) -> Any:
        """``run`` with the source and balancer when the entry takes them."""
        if self.balanced:
            options["balancer"] = balancer
        return self.run(*self._inputs(graph, source), target=target, **options)

    def reference(self, graph: Graph, source: int | None) -> Any:
        """``scipy`` with the source when the entry takes one."""
        return self.scipy(*self._inputs(graph, source))

    def check(self, graph: Graph, source: int | None, result: Any) -> None:
        """``agrees`` with the source when the entry takes one."""
        self.agrees(*self._inputs(graph, source), result)

    def _inputs(self, graph: Graph, source: int | None) -> tuple[Any, ...]:
        return (graph, source) if self.source else (graph,)


def _scipy_bfs(graph: Graph, source: int) -> np.ndarray:
    from scipy.sparse.csgraph import breadth_first_order

    return breadth_first_order(_pattern(graph), source, directed=True,
                               return_predecessors=False)


def _pattern(graph: Graph) -> Any:
    import scipy.sparse as sp

    n = graph.num_vertices
    return sp.csr_matrix((np.ones(graph.num_edges, np.int8), graph.col_indices, graph.row_offsets),
                         shape=(n, n))


def _bfs_agrees(graph: Graph, source: int, result: Any) -> None:
    from frontier.testing import check_bfs

    check_bfs(graph, source, result.distances, result.predecessors)


def _bfs_report(result: Any) -> list[tuple[str, str]]:
    return [("reached", f"{int(np.count_nonzero(result.distances >= 0)):,} vertices")]


def _bfs_direction_optimizing(graph: Graph, source: int, **options: Any) -> Any:
    return bfs(graph, source, direction="auto", **options)


# list ranking and all-pairs shortest paths -----------------------------------------------------

def successors(graph: Graph) -> np.ndarray:
    """The successor array of a graph holding a linked list (one out-arc per vertex, to its
    successor; the tail's a self-loop, as :func:`frontier.generators.list_graph` builds)."""
    from algorithms.list_ranking import ListError

    degrees = graph.out_degrees()
    if graph.num_vertices and (degrees != 1).any():
        v = int(np.argmax(degrees != 1))
        raise ListError(f"listrank takes a linked list: a graph whose every vertex has one "
                        f"out-arc, to its successor (the tail's a self-loop), as list:N builds; "
                        f"vertex {v} has {int(degrees[v])}")
    return graph.col_indices


def _listrank(graph: Graph, *, target: Target, method: str = "random_splitter") -> Any:
    return list_ranking(successors(graph), method=method, target=target)


def _listrank_reference(graph: Graph) -> np.ndarray:
    from frontier.testing import reference_list_ranks

    return reference_list_ranks(successors(graph))


def _listrank_agrees(graph: Graph, result: Any) -> None:
    from frontier.testing import check_list_ranks

    check_list_ranks(successors(graph), result.ranks)


def _listrank_report(result: Any) -> list[tuple[str, str]]:
    head = f"{int(result.ranks.max()) if result.ranks.size else 0:,} links to the tail"
    shown = [("head rank", head)]
    if result.splitters:
        shown.append(("splitters", f"{result.splitters:,}"))
    return shown


def _apsp(graph: Graph, *, target: Target, method: str = "blocked_floyd_warshall") -> Any:
    return apsp(graph, method=method, target=target)


def _apsp_reference(graph: Graph) -> np.ndarray:
    from frontier.testing import reference_apsp

    return reference_apsp(graph)


def _apsp_agrees(graph: Graph, result: Any) -> None:
    from frontier.testing import check_apsp

    check_apsp(graph, result.distances, rtol=0 if _integral(graph) else 1e-12)


def _integral(graph: Graph) -> bool:
    return graph.weights is None or graph.weights.dtype.kind == "i"


def _apsp_report(result: Any) -> list[tuple[str, str]]:
    reached = int(np.count_nonzero(np.isfinite(result.distances)))
    return [("reachable", f"{reached:,} of {result.distances.size:,} pairs")]


_LISTRANK_METHOD = Option("method", LIST_RANKING_METHODS, "random_splitter",
                          "wylie: pointer jumping; random_splitter: Reid-Miller",
                          shown="{}")
_APSP_METHOD = Option("method", APSP_METHODS, "blocked_floyd_warshall",
                      "Floyd–Warshall, plain or blocked in tiles, or one SSSP per source",
                      shown="{}")

_FRONTIER = Option("frontier", ("sparse", "dense"), "sparse",
                   "the frontier's form: a vertex queue or a bitmap", shown="{} frontier")
_DIRECTION = Option("direction", ("push", "pull", "auto"), "auto",
                    "auto: direction-optimizing BFS")
_ORDER = Option("order", ORDERS, "ordered",
                "unordered: levels lowered by an atomic min (Li & Becchi)")
_CULL = Option("cull", ("none", "bitmap", "hash"), "none",
               "remove repeated vertices from each push step's queue", shown="cull {}")
_BFS_CHECKS = "distances equal scipy.sparse.csgraph; predecessors form a shortest-path tree"


def _negative(graph: Graph) -> bool:
    return graph.weighted and graph.num_edges > 0 and bool(graph.weights.min() < 0)


def _scipy_sssp(graph: Graph, source: int) -> np.ndarray:
    from frontier.testing import reference_sssp

    return reference_sssp(graph, source, negative_weights=_negative(graph))


def _sssp_agrees(graph: Graph, source: int, result: Any) -> None:
    from frontier.testing import check_sssp

    floats = graph.weighted and graph.weights.dtype.kind == "f"
    check_sssp(graph, source, result.distances, result.predecessors,
               rtol=1e-12 if floats else 0, negative_weights=_negative(graph))


def _sssp_report(result: Any) -> list[tuple[str, str]]:
    reached = np.isfinite(result.distances)
    far = float(result.distances[reached].max()) if reached.any() else 0.0
    return [("reached", f"{int(np.count_nonzero(reached)):,} vertices"),
            ("farthest", f"{far:g}"), ("method", result.method)]


_METHOD = Option("method", (AUTO, *METHODS), DEFAULT_METHOD,
                 "the SSSP method (docs/algorithms.md compares them); auto: near_far on "
                 "spread weights, else bellman_ford", shown="method {}")
def _scipy_cc(graph: Graph) -> Any:
    from scipy.sparse.csgraph import connected_components as scipy_cc

    return scipy_cc(_pattern(graph), directed=True, connection="weak")


def _cc_agrees(graph: Graph, result: Any) -> None:
    from frontier.testing import check_components

    check_components(graph, result.labels)
    first = np.unique(result.labels)
    if not np.array_equal(result.labels[first], first):
        raise AssertionError("labels are not each component's smallest vertex id")


def _cc_report(result: Any) -> list[tuple[str, str]]:
    return [("components", f"{result.num_components:,}")]


def _forest_agrees(graph: Graph, result: Any) -> None:
    from frontier.testing import check_spanning_forest

    check_spanning_forest(graph, result.edges)


def _forest_report(result: Any) -> list[tuple[str, str]]:
    return [("components", f"{result.num_components:,}"),
            ("forest", f"{len(result.edges):,} edges")]


CATALOG: dict[str, Entry] = {
    "bfs": Entry("bfs", "breadth-first search: distances and a shortest-path tree", bfs,
                 _scipy_bfs, _bfs_agrees, _BFS_CHECKS, _bfs_report,
                 (_FRONTIER, _DIRECTION, _ORDER, _CULL)),
    "bfs_do": Entry("bfs_do", "direction-optimizing BFS (Beamer et al., SC 2012): push "
                    "while the frontier is small, pull while it is large",
                    _bfs_direction_optimizing, _scipy_bfs, _bfs_agrees, _BFS_CHECKS,
                    _bfs_report, (_FRONTIER,)),
    "sssp": Entry("sssp", "single-source shortest paths: distances and a shortest-path tree",
                  sssp, _scipy_sssp, _sssp_agrees,
                  "distances equal scipy.sparse.csgraph; every predecessor edge is tight",
                  _sssp_report, (_METHOD,)),
    "pagerank": Entry("pagerank", "PageRank by power iteration (NetworkX's conventions)",
                      measures.run_pagerank, measures.scipy_pagerank, measures.pagerank_agrees,
                      "ranks within 6 N tol (L1) of a scipy power iteration run to 1e-12",
                      measures.pagerank_report,
                      (Option("direction", ("auto", "pull", "push"), "auto",
                              "pull: a neighbour sum per vertex; push: atomics per edge"),),
                      source=False),
    "bc": Entry("bc", "betweenness centrality: the dependencies of one source (Brandes)",
                measures.run_betweenness, measures.scipy_betweenness,
                measures.betweenness_agrees, "dependencies equal a scipy/NumPy Brandes pass",
                measures.betweenness_report),
    "kcore": Entry("kcore", "core numbers of the undirected simple graph underlying GRAPH, by "
                   "peeling", measures.run_k_core, measures.k_core_reference,
                   measures.k_core_agrees, "core numbers equal a sequential bin peeling",
                   measures.k_core_report, source=False),
    "listrank": Entry("listrank", "list ranking: each node's links to the tail of a linked list "
                      "(Dehne & Yogaratnam §3)", _listrank, _listrank_reference,
                      _listrank_agrees, "ranks equal a sequential walk of the list",
                      _listrank_report, (_LISTRANK_METHOD,), source=False,
                      balanced=False, example="list:42", suite=False),
    "apsp": Entry("apsp", "all-pairs shortest paths: Floyd–Warshall, blocked, or repeated SSSP",
                  _apsp, _apsp_reference, _apsp_agrees,
                  "distances equal scipy.sparse.csgraph.floyd_warshall", _apsp_report,
                  (_APSP_METHOD,), source=False, balanced=False, suite=False),
    "cc": Entry("cc", "weakly connected components, each vertex labelled by its component's "
                "smallest vertex id", connected_components, _scipy_cc, _cc_agrees,
                "labels partition the vertices like scipy's weak components; each is the "
                "component's smallest id", _cc_report,
                (Option("method", CC_METHODS, CC_DEFAULT_METHOD, "the components method",
                        shown="{} method"),), source=False),
    "forest": Entry("forest", "spanning forest of the weak components (Soman et al. hooking)",
                    spanning_forest, _scipy_cc, _forest_agrees,
                    "|V| - #components edges, acyclic, spanning every weak component",
                    _forest_report, source=False, balanced=False),
}
