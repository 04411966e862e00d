"""The target a call on a graph runs on, and the graph's arrays on a target: the graph's side
of the device runtime (:mod:`frontier.runtime.target`, which knows no graph).

:func:`resolve_target` turns what a caller passes (a name, a :class:`Target` or None) into a
target, applying the rule of ``"auto"`` (:mod:`frontier.placement`) to the call's graph;
:func:`graph_arrays` and :func:`csc_arrays` copy a graph's CSR and CSC arrays to a target,
refused with :class:`~frontier.errors.GraphTooLargeError` before a copy the device cannot hold
(:func:`frontier.limits.check_device`). :meth:`frontier.Graph.device_arrays` keeps the copies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from frontier.errors import TargetError
from frontier.limits import check_device
from frontier.placement import target_of, thread_count
from frontier.runtime import cpu_threads as threads_setting
from frontier.runtime import cuda_support, simulator
from frontier.runtime.target import TARGET_KINDS, CpuTarget, CudaTarget, Target, cpu_of, named

if TYPE_CHECKING:
    from frontier.graph import Graph

__all__ = ["resolve_target", "TARGET_NAMES", "GraphArrays", "CscArrays", "graph_arrays",
           "csc_arrays"]

#: Target names :func:`resolve_target` takes besides a :class:`Target` and None.
TARGET_NAMES = (*TARGET_KINDS, "auto")
#: The library's own kinds of :class:`Target` (any other subclass is one too).
_TARGET_TYPES = frozenset((CpuTarget, CudaTarget))


@dataclass(frozen=True)
class CscArrays:
    """A graph's incoming-edge arrays as the target holds them: ``col_offsets``, the source of
    each incoming edge (``row_indices``) and its CSR edge id (``edge_ids``)."""

    col_offsets: Any
    row_indices: Any
    edge_ids: Any


@dataclass(frozen=True)
class GraphArrays:
    """A graph's CSR arrays as the target holds them. ``weights`` is a one-element placeholder
    for an unweighted graph (kernels for such graphs never read it)."""

    num_vertices: int
    num_edges: int
    row_offsets: Any
    col_indices: Any
    weights: Any
    weighted: bool


def csc_arrays(target: Target, graph: Graph) -> CscArrays:
    """``graph``'s incoming-edge (CSC) arrays copied to ``target``."""
    csc = graph.csc()
    _check_room(target, csc.col_offsets.nbytes + csc.row_indices.nbytes + csc.edge_ids.nbytes,
                "the graph's incoming-edge (CSC) view")
    return CscArrays(target.to_device(csc.col_offsets), target.to_device(csc.row_indices),
                     target.to_device(csc.edge_ids))


def graph_arrays(target: Target, graph: Graph) -> GraphArrays:
    """``graph``'s CSR arrays copied to ``target``."""
    weights = graph.weights if graph.weights is not None else np.zeros(1, dtype=np.int32)
    _check_room(target, graph.row_offsets.nbytes + graph.col_indices.nbytes + weights.nbytes,
                "the graph")
    return GraphArrays(graph.num_vertices, graph.num_edges, target.to_device(graph.row_offsets),
                       target.to_device(graph.col_indices), target.to_device(weights),
                       graph.weights is not None)


def _check_room(target: Target, need: int, what: str) -> None:
    """GraphTooLargeError before copying ``need`` bytes that the device cannot hold."""
    check_device(what, need, target.free_bytes(), target.name)


def resolve_target(target: str | Target | None = None, graph: Graph | None = None, *,
                   elements: int | None = None, deep: bool = True,
                   inputs: Sequence[Any] = ()) -> Target:
    """The target for ``target``: a name (``"cuda"``, ``"cpu"``, ``"auto"``), a
    :class:`Target`, or None, which means ``"auto"``.

    ``"auto"`` is the cpu target where no GPU is usable; on a GPU, the target that
    :func:`frontier.placement.choose` picks for ``graph`` (the graph the call runs on) and the
    call's ``elements``, ``deep`` and ``inputs`` (the arrays it reads besides the graph; see
    there): the GPU when one of the inputs is a device array, else the cpu target for tiny
    inputs and for traversals of long thin graphs, the GPU otherwise. Without a graph or a
    count there is nothing to measure, and ``"auto"`` is the GPU. A call placed on the CPU runs
    on the threads :func:`frontier.placement.cpu_threads` gives it (every usable core for a
    large graph, one for a small one) unless ``FRONTIER_NUM_THREADS`` sets them (then the
    process's ``named("cpu")``). In the CUDA simulator
    (``NUMBA_ENABLE_CUDASIM=1``) ``"auto"`` is always the simulated GPU: the simulator is there
    to run the GPU's code in tests, and the rule's thresholds are a real GPU's fixed costs
    (under them every test graph would go to the cpu target). Arrays made for a call must be
    on the target it runs on: ``resolve_target(None, graph)`` gives it."""
    if target is None:  # the common cases first: None, the library's targets and names test
        target = "auto"  # no abstract class
    elif type(target) in _TARGET_TYPES:
        return target
    if isinstance(target, str) and target in TARGET_NAMES:
        if target == "auto":
            target = _auto(graph, elements, deep, inputs)
            if target == "cpu":
                return _cpu(graph, elements)
        return named(target)
    if isinstance(target, Target):
        return target
    raise TargetError(f"unknown target {target!r}; expected one of {TARGET_NAMES}, a "
                      "Target, or None (auto)")


def _auto(graph: Graph | None, elements: int | None, deep: bool, inputs: Sequence[Any] = ()
          ) -> str:
    """The name ``"auto"`` resolves to (see :func:`resolve_target`)."""
    if not cuda_support.cuda_usable():
        return "cpu"
    if simulator.enabled():
        return "cuda"
    return target_of(graph, elements=elements, deep=deep, inputs=inputs)


def _cpu(graph: Graph | None, elements: int | None) -> Target:
    """The cpu target of a call ``"auto"`` placed on the CPU: the process's (``named("cpu")``)
    where ``FRONTIER_NUM_THREADS`` is set, else the one of the threads
    :func:`frontier.placement.cpu_threads` gives the call."""
    if threads_setting.requested() is not None:
        return named("cpu")
    return cpu_of(thread_count(graph, elements=elements, cores=_cores()))


def _cores() -> int:
    """The cores this process may use, read once (:func:`frontier.runtime.cpu_threads.usable_cores`:
    a system call, and ``"auto"`` is resolved at every operator call)."""
    if not _CORES:
        _CORES.append(threads_setting.usable_cores())
    return _CORES[0]


_CORES: list[int] = []
