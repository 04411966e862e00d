"""The rule of ``target="auto"``: which target runs a call on a given graph, the sequential cpu
target or the GPU, from where the call's inputs live and a few cheap facts about the graph
(docs/adaptive.md, "Which target").

An input the caller already holds on the GPU (a **device array** among the call's ``inputs``:
CuPy, PyTorch CUDA tensors, Numba device arrays, CUDA DLPack; :mod:`frontier.runtime.device_arrays`)
makes the GPU the target, whatever the size: the GPU reads it where it is, where the cpu target
would first copy it to the host.

Otherwise, a GPU call has a fixed cost (launches, the reads that end steps, about 0.1-4 ms
whatever the graph) and a cost per step of a traversal (a level of BFS, a round of peeling); one
core has neither, but works through the elements one at a time. So one core wins

* on a **tiny** input: fewer than :data:`TINY_ELEMENTS` vertices + arcs (or the call's own count
  of elements), where the whole sequential call takes less than the GPU's fixed cost;
* on a **long thin** graph, for a call whose steps follow the graph's depth (``deep``: BFS,
  SSSP, betweenness, label propagation, peeling): a mean out-degree of at most
  :data:`THIN_MEAN_DEGREE` with no vertex of more than :data:`THIN_MAX_DEGREE` out-arcs. Paths,
  chains and road networks look so and have a large diameter: thousands of levels of a few
  vertices each, where every level costs the GPU a step and one core almost nothing. A graph
  with hubs (scale-free) or more neighbours per vertex (meshes, social graphs) reaches its
  vertices in few, wide levels, which the GPU spreads over its threads.

The GPU runs everything else. The facts are O(1) (where an input lives, |V|, |E|) or computed
once per graph and kept with it (the largest out-degree, :meth:`frontier.Graph.memo`), so a
repeated call decides at no cost. The rule cannot see the diameter itself: a graph of degree
<= 3 and low depth (a binary tree) counts as thin and runs on one core, which is never slower
than one core's reference.

:func:`choose` is the rule, a pure function of the graph and the call; where it applies (a GPU
usable, not the simulator) is decided by :func:`frontier.target.resolve_target`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from frontier.runtime.device_arrays import is_device_array

if TYPE_CHECKING:
    from frontier.graph import Graph

__all__ = ["Placement", "choose", "target_of", "cpu_threads", "thread_count", "TINY_ELEMENTS",
           "THIN_MEAN_DEGREE", "THIN_MAX_DEGREE", "PARALLEL_ELEMENTS"]

#: Elements (vertices + arcs, or a call's own count) below which one core finishes the whole
#: call before a GPU call's fixed cost is paid.
TINY_ELEMENTS = 100_000
#: Mean out-degree (arcs per vertex; an undirected edge is two arcs) at or below which a graph
#: without hubs is long and thin: a path has 2, a directed chain 1, road networks 2-3.
THIN_MEAN_DEGREE = 2.5
#: Largest out-degree a long thin graph may have: more marks a hub, which shortens the paths.
THIN_MAX_DEGREE = 16
#: Elements (vertices + arcs, or a call's own count) from which a call on the CPU runs on every
#: usable core: rmat16 (1.9 million) was the smallest graph of the measurement on which two
#: threads beat one for each of BFS, components, PageRank and SSSP (docs/cpu.md).
PARALLEL_ELEMENTS = 1_000_000


@dataclass(frozen=True)
class Placement:
    """The rule's answer: ``target`` (``"cpu"`` or ``"cuda"``) and ``reason``, in words."""

    target: str
    reason: str


def choose(graph: Graph | None, *, elements: int | None = None, deep: bool = True,
           inputs: Sequence[Any] = ()) -> Placement:
    """Where a call on ``graph`` runs best (see the module docstring). ``elements`` is the
    call's work when it is not the graph's vertices + arcs (list ranking's nodes, APSP's
    V x V cells); ``deep`` says whether its steps follow the graph's depth (a traversal), so
    that a long thin graph makes it a long chain of small steps; ``inputs`` are the arrays the
    call reads besides the graph (list ranking's successors), of which one on the GPU (a
    device array) places the call there. With neither a graph nor a count there is nothing to
    measure: the GPU."""
    target, reason = _rule(graph, elements, deep, inputs)
    return Placement(target, reason())


def target_of(graph: Graph | None, *, elements: int | None = None, deep: bool = True,
              inputs: Sequence[Any] = ()) -> str:
    """``choose(...).target``, without putting the reason in words (what
    :func:`frontier.target.resolve_target` asks on every call of ``"auto"``)."""
    return _rule(graph, elements, deep, inputs)[0]


def _rule(graph: Graph | None, elements: int | None, deep: bool, inputs: Sequence[Any]
          ) -> tuple[str, Callable[[], str]]:
    """The rule of :func:`choose`: the target, and the reason to put in words when asked."""
    if inputs and any(is_device_array(a) for a in inputs):
        return "cuda", lambda: "an input lives on the GPU: read there, not copied to the host"
    if elements is None and graph is not None:
        elements = graph.num_vertices + graph.num_edges
    if elements is not None and elements < TINY_ELEMENTS:
        return "cpu", lambda: f"tiny: {elements:,} elements < {TINY_ELEMENTS:,}"
    if graph is not None and deep and graph.num_vertices:
        mean = graph.num_edges / graph.num_vertices
        if mean <= THIN_MEAN_DEGREE:
            most = _max_degree(graph)
            if most <= THIN_MAX_DEGREE:
                return "cpu", lambda: (f"long and thin: mean out-degree {mean:.2f} <= "
                                       f"{THIN_MEAN_DEGREE}, max {most} <= {THIN_MAX_DEGREE}")
    return "cuda", lambda: "large enough, and wide or not a traversal"


def cpu_threads(graph: Graph | None, *, elements: int | None = None,
                cores: int = 1) -> tuple[int, str]:
    """The threads of a call placed on the CPU, of a machine of ``cores`` usable cores
    (:func:`thread_count`), and why."""
    count = thread_count(graph, elements=elements, cores=cores)
    if elements is None and graph is not None:
        elements = graph.num_vertices + graph.num_edges
    if cores <= 1:
        return count, "one usable core"
    if elements is None:
        return count, "no graph or count to measure"
    if count == 1:
        return count, f"{elements:,} elements < {PARALLEL_ELEMENTS:,}"
    return count, f"{elements:,} elements >= {PARALLEL_ELEMENTS:,}: every usable core"


def thread_count(graph: Graph | None, *, elements: int | None = None, cores: int = 1) -> int:
    """The threads of a call placed on the CPU, of a machine of ``cores`` usable cores: every
    core for a call of at least :data:`PARALLEL_ELEMENTS` elements (the graph's vertices + arcs
    unless ``elements`` counts the call's work), one below it or without a graph or count
    (what :func:`frontier.target.resolve_target` asks on every call of ``"auto"`` placed on
    the CPU; :func:`cpu_threads` says why)."""
    if cores <= 1:
        return 1
    if elements is None:
        if graph is None:
            return 1
        elements = graph.num_vertices + graph.num_edges
    return cores if elements >= PARALLEL_ELEMENTS else 1


def _max_degree(graph: Graph) -> int:
    """The largest out-degree, computed once per graph."""
    return graph.memo("placement.max_degree",
                      lambda: int(np.diff(graph.row_offsets).max(initial=0)))
