"""The catalog of algorithms: how to run, check, report and explain each one, so that the command
line (``frontier run ALGO``, ``frontier explain ALGO``), the benchmark suite and the tests pick up
every algorithm without knowing it by name. Adding an :class:`Entry` to :data:`CATALOG` adds a
command."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from algorithms.bfs import bfs
from algorithms.components import (
    DEFAULT_METHOD,
    METHODS,
    connected_components,
    explain_method,
    spanning_forest,
)
from frontier.graph import Graph
from frontier.target import Target


@dataclass(frozen=True)
class Option:
    """A keyword argument of an entry's ``run`` that the command line offers as ``--NAME``: one
    of ``choices``, ``default`` unless given. ``shown`` formats the chosen value in the command's
    summary; ``explained`` says whether ``explain`` takes it too."""

    name: str
    choices: tuple[str, ...]
    default: str
    help: str
    shown: str = "{}"
    explained: bool = True


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
    * ``explain(graph, target, balancer=..., **options)`` is the source of the generated kernel
      the algorithm's step runs, for the options marked ``explained``;
    * ``options`` are the keyword arguments of ``run`` beyond ``balancer`` and ``target`` that
      the command line offers, ``description`` its one-line help.
    """

    name: str
    description: str
    run: Callable[..., Any]
    scipy: Callable[[Graph, int], Any]
    agrees: Callable[[Graph, int, Any], None]
    checks: str
    report: Callable[[Any], list[tuple[str, str]]]
    explain: Callable[..., str]
    options: tuple[Option, ...] = ()
    source: bool = True
    balanced: bool = True

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


def _bfs_explain(graph: Graph, target: Target, balancer: str = "thread",
                 frontier: str = "sparse", direction: str = "push") -> str:
    """The kernels a BFS from vertex 0 runs: :func:`operators.explain` of its ``traverse``."""
    from algorithms.bfs import unvisited, visit
    from frontier.frontier import Frontier
    from operators import explain, traverse

    f = Frontier.from_vertices(graph, [0], kind=frontier, target=target)
    state = target.zeros(graph.num_vertices, np.int32)
    return explain(traverse, graph, f, visit, state, state, condition=unvisited,
                   direction=direction, balancer=balancer)


def _bfs_do_explain(graph: Graph, target: Target, **options: Any) -> str:
    return _bfs_explain(graph, target, direction="auto", **options)


def _bfs_direction_optimizing(graph: Graph, source: int, **options: Any) -> Any:
    return bfs(graph, source, direction="auto", **options)


_FRONTIER = Option("frontier", ("sparse", "dense"), "sparse",
                   "the frontier's form: a vertex queue or a bitmap", shown="{} frontier")
_DIRECTION = Option("direction", ("push", "pull", "auto"), "push",
                    "auto: direction-optimizing BFS")
_BFS_CHECKS = "distances equal scipy.sparse.csgraph; predecessors form a shortest-path tree"

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


def _forest_explain(graph: Graph, target: Target) -> str:
    return explain_method(graph, target, forest=True)


CATALOG: dict[str, Entry] = {
    "bfs": Entry("bfs", "breadth-first search: distances and a shortest-path tree", bfs,
                 _scipy_bfs, _bfs_agrees, _BFS_CHECKS, _bfs_report, _bfs_explain,
                 (_FRONTIER, _DIRECTION)),
    "bfs_do": Entry("bfs_do", "direction-optimizing BFS (Beamer et al., SC 2012): push "
                    "while the frontier is small, pull while it is large",
                    _bfs_direction_optimizing, _scipy_bfs, _bfs_agrees, _BFS_CHECKS,
                    _bfs_report, _bfs_do_explain, (_FRONTIER,)),
    "cc": Entry("cc", "weakly connected components, each vertex labelled by its component's "
                "smallest vertex id", connected_components, _scipy_cc, _cc_agrees,
                "labels partition the vertices like scipy's weak components; each is the "
                "component's smallest id", _cc_report, explain_method,
                (Option("method", METHODS, DEFAULT_METHOD, "the components method",
                        shown="{} method"),), source=False),
    "forest": Entry("forest", "spanning forest of the weak components (Soman et al. hooking)",
                    spanning_forest, _scipy_cc, _forest_agrees,
                    "|V| - #components edges, acyclic, spanning every weak component",
                    _forest_report, _forest_explain, source=False, balanced=False),
}
