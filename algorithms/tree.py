"""Shortest-path trees from final distances, with the operators.

Recording a predecessor beside each atomic-min relaxation races: the thread that lowers a
distance last need not be the one whose predecessor write lands last. So the shortest-path
algorithms (and the unordered BFS) leave predecessors out of the relaxation and derive them from
the converged distances, where an edge ``u -> v`` of weight ``w`` is *tight* when
``dist[u] + w == dist[v]`` (the same floating-point sum that set ``dist[v]``, so the test is exact):

* all weights positive integers (or hop counts): every tight edge leads to a strictly nearer
  vertex, so any tight in-edge is a valid predecessor. One :func:`operators.neighbor_reduce`
  over every vertex's in-edges takes the largest tight tail (Gunrock derives SSSP predecessors
  the same way, after convergence; a reduction, not racing writes, so the tree is the same on
  every target and balancer);
* some weight zero or negative, or float weights: tight edges can close a cycle (two vertices
  joined by zero weight edges, or by float weights too small to change a distance they are
  added to: 1.0 + 1e-17 == 1.0), and following such predecessors would never reach the
  source. A BFS over the tight edges from the source claims each vertex once, so the tree it
  records has no cycle.

Over the copies of a graph that several sources run in together (:mod:`operators.sources`) the
tree is found the same way, and each recorded tail, a vertex of its copy, becomes the graph's
vertex (:func:`parent`); a caller that has a pass over the predecessors of its own applies
:func:`parent` there (``raw=True``) instead of paying a launch for it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frontier import Frontier, Graph, atomic_cas, device_function
from frontier.runtime.target import Target
from operators import LoadBalancer, compute, neighbor_reduce, traverse
from operators.policy import Policy

__all__ = ["shortest_path_tree", "parent"]


def tight_tail(src: int, dst: int, eid: int, weight: Any, dist: Any, unreached: Any) -> int:
    """``src`` when the edge into ``dst`` is tight, else -1 (the largest over the in-edges is
    the predecessor)."""
    if src != dst and dist[src] != unreached and dist[src] + weight == dist[dst]:
        return src
    return -1


def tail_one_hop_up(src: int, dst: int, eid: int, weight: Any, dist: Any, unreached: Any
                    ) -> int:
    """As :func:`tight_tail` for hop counts (BFS levels): every edge weighs 1."""
    if src != dst and dist[src] != unreached and dist[src] + 1 == dist[dst]:
        return src
    return -1


@device_function
def parent(recorded: Any, row: Any) -> Any:
    """A recorded predecessor as the result holds it: -1 where none was recorded (a negative
    entry: a reduction over no tight edge), else the vertex within its row of ``row``
    vertices (the copies' id ``i * row + v`` as ``v``; :mod:`operators.sources`)."""
    return -1 if recorded < 0 else recorded % row


def _settle(v: int, pred: Any, row: Any) -> None:
    pred[v] = parent(pred[v], row)


def claim_tight(src: int, dst: int, eid: int, weight: Any, dist: Any, pred: Any, claimed: Any,
                unreached: Any) -> bool:
    """BFS over tight edges: the first tight edge to reach ``dst`` claims it."""
    if dist[src] != unreached and dist[src] + weight == dist[dst]:
        if atomic_cas(claimed, dst, 0, 1) == 0:
            pred[dst] = src
            return True
    return False


def unclaimed(v: int, dist: Any, pred: Any, claimed: Any, unreached: Any) -> bool:
    return claimed[v] == 0


def shortest_path_tree(graph: Graph, sources: np.ndarray, dist: Any, unreached: Any,
                       positive: bool, target: Target, balancer: str | LoadBalancer | Policy,
                       hops: bool = False, pred: Any = None, row: int | None = None,
                       raw: bool = False) -> Any:
    """Predecessors (int32 on ``target``; -1 at the sources and unreachable vertices) forming a
    shortest-path tree of the final distances ``dist`` (``unreached`` marks unreachable
    vertices). ``positive`` says every weight is an integer > 0 (see the module docstring); ``hops``
    that ``dist`` counts edges (BFS levels) whatever the graph's weights. ``pred``, if given,
    is an int32 array on ``target`` already holding -1 everywhere, written instead of a new one.
    ``row``: the vertices of one copy where ``graph`` is copies (:mod:`operators.sources`;
    default: all of ``graph``'s). ``raw=True`` leaves each entry as recorded, for the caller
    to pass through :func:`parent` in a pass of its own."""
    if pred is None:
        pred = target.full(graph.num_vertices, -1, np.int32)
    if positive or hops:
        neighbor_reduce(graph, "vertices", tail_one_hop_up if hops else tight_tail, dist,
                        unreached, out=pred, op="max", edges="in")
    else:
        claimed = target.zeros(graph.num_vertices, np.int32)
        for s in sources:
            target.write_scalar(claimed, int(s), 1)
        f = Frontier.from_vertices(graph, sources, target=target,
                                   capacity=max(graph.num_vertices, 1))
        traverse(graph, f, claim_tight, dist, pred, claimed, unreached, condition=unclaimed,
                 balancer=balancer)
    if not raw and graph.num_vertices:
        compute(graph, "vertices", _settle, pred,
                graph.num_vertices if row is None else row, target=target)
    return pred
