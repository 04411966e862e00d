"""What several operator test modules share: a graph on which the lanes of a warp leave a
traversal's work at different times, and SCC's colouring traversal over it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from algorithms.strong_components import COLOURING_CULL, spread
from frontier import Frontier, Graph
from frontier.target import resolve_target
from operators import traverse


def lanes_leaving_early_graph() -> Graph:
    """Five paths of nine vertices with a back arc on every other arc (issue 47's SCC graph,
    shortened), a hub above the simulator's CTA threshold (64 threads a block) whose 70 leaves
    have no out-edges, a vertex of 40 out-edges into the paths (above the warp threshold, 32),
    arcs from the first path to it and from the last path to the hub, and two isolated
    vertices: 119 vertices, no level's frontier a multiple of a warp or of a virtual warp."""
    src: list[int] = []
    dst: list[int] = []
    for first in range(0, 45, 9):
        for i in range(first, first + 8):
            src.append(i)
            dst.append(i + 1)
            if (i - first) % 2 == 0:
                src.append(i + 1)
                dst.append(i)
    hub, medium = 45, 116
    src += [hub] * 70 + [medium] * 40 + [8, 44]
    dst += list(range(46, 116)) + list(range(5, 45)) + [medium, hub]
    return Graph.from_edges(np.array(src), np.array(dst), num_vertices=119, directed=True)


@pytest.fixture(scope="session")
def lanes_leave_early() -> Graph:
    """:func:`lanes_leaving_early_graph`, made once."""
    return lanes_leaving_early_graph()


def colour_by_smallest_reaching(graph: Graph, target: Any, sources: Any = None,
                                **how: Any) -> tuple[np.ndarray, Any]:
    """SCC's colouring (:func:`algorithms.strong_components.spread`, one class, nothing
    assigned, culled as SCC culls it) as one ``traverse`` from ``sources`` (default: every
    vertex), each vertex coloured by its id, with ``how`` as traverse's options: the colours
    (each vertex's smallest source id reaching it, or its own, whatever the order of the steps)
    and the traversal. From one source the levels are its BFS levels."""
    tgt = resolve_target(target)
    n = graph.num_vertices
    label, part = tgt.full(n, -1, np.int32), tgt.zeros(n, np.int32)
    colour = tgt.to_device(np.arange(n, dtype=np.int32))
    start = Frontier.from_vertices(graph, np.arange(n) if sources is None else sources,
                                   target=tgt)
    walk = traverse(graph, start, spread, label, part, colour, **{"cull": COLOURING_CULL, **how})
    return tgt.to_host(colour), walk


@pytest.fixture(scope="session")
def colouring() -> Callable[..., tuple[np.ndarray, Any]]:
    """:func:`colour_by_smallest_reaching`."""
    return colour_by_smallest_reaching
