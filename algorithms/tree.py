"""Shortest-path trees from final distances, with the operators.

Recording a predecessor beside each atomic-min relaxation races: the thread that lowers a
distance last need not be the one whose predecessor write lands last. So the shortest-path
algorithms (and the unordered BFS) leave predecessors out of the relaxation and derive them from
the converged distances, where an edge ``u -> v`` of weight ``w`` is *tight* when
``dist[u] + w == dist[v]`` (the same floating-point sum that set ``dist[v]``, so the test is exact):

* all weights positive integers (or hop counts): every tight edge leads to a strictly nearer
  vertex, so any tight in-edge is a valid predecessor. One push advance over every vertex
  writes one (Gunrock derives SSSP predecessors the same way, after convergence);
* some weight zero or negative, or float weights: tight edges can close a cycle (two vertices
  joined by zero weight edges, or by float weights too small to change a distance they are
  added to: 1.0 + 1e-17 == 1.0), and following such predecessors would never reach the
  source. A BFS over the tight edges from the source claims each vertex once, so the tree it
  records has no cycle.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frontier import Frontier, Graph, atomic_cas, atomic_store
from frontier.runtime.target import Target
from operators import LoadBalancer, advance, traverse
from operators.policy import Policy

__all__ = ["shortest_path_tree"]


def any_tight_parent(src: int, dst: int, eid: int, weight: Any, dist: Any, pred: Any,
                     unreached: Any) -> bool:
    """Record ``src`` as the predecessor of ``dst`` when the edge is tight (any such writer
    is right)."""
    if src != dst and dist[src] != unreached and dist[src] + weight == dist[dst]:
        atomic_store(pred, dst, src)  # several tight edges may write it: any one is right
    return False


def any_parent_one_hop_up(src: int, dst: int, eid: int, weight: Any, dist: Any, pred: Any,
                          unreached: Any) -> bool:
    """As :func:`any_tight_parent` for hop counts (BFS levels): every edge weighs 1."""
    if src != dst and dist[src] != unreached and dist[src] + 1 == dist[dst]:
        atomic_store(pred, dst, src)  # several edges one hop up may write it: any one is right
    return False


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
                       hops: bool = False, pred: Any = None) -> Any:
    """Predecessors (int32 on ``target``; -1 at the sources and unreachable vertices) forming a
    shortest-path tree of the final distances ``dist`` (``unreached`` marks unreachable
    vertices). ``positive`` says every weight is an integer > 0 (see the module docstring); ``hops``
    that ``dist`` counts edges (BFS levels) whatever the graph's weights. ``pred``, if given,
    is an int32 array on ``target`` already holding -1 everywhere, written instead of a new one."""
    if pred is None:
        pred = target.full(graph.num_vertices, -1, np.int32)
    if positive or hops:
        everyone = Frontier.all_vertices(graph, target=target)
        advance(graph, everyone, any_parent_one_hop_up if hops else any_tight_parent, dist,
                pred, unreached, balancer=balancer, output="none")
        return pred
    claimed = target.zeros(graph.num_vertices, np.int32)
    for s in sources:
        target.write_scalar(claimed, int(s), 1)
    f = Frontier.from_vertices(graph, sources, target=target,
                               capacity=max(graph.num_vertices, 1))
    traverse(graph, f, claim_tight, dist, pred, claimed, unreached, condition=unclaimed,
             balancer=balancer)
    return pred
