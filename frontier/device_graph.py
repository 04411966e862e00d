"""Graphs built from CSR arrays that live on the GPU (:meth:`frontier.Graph.from_csr` given
device arrays, :mod:`frontier.runtime.device_arrays`): every check the host constructor makes runs
on the device, and the graph keeps its arrays there.

The checks, each a launch that returns scalars: offsets a 1-D integer array that starts at 0,
ends at ``len(col_indices)`` and never falls; ids integers (or whole-number floats) in
``0 .. |V|-1``; weights integers or finite floats that survive the conversion to the stored
dtype; for ``directed=False``, every arc paired with a reverse arc, tested by comparing the sums
of a hash of ``(u, v)`` and of ``(v, u)`` over the arcs under two seeds (equal multisets of arcs
give equal sums; an unpaired arc passes unnoticed with probability about 2**-62). When a check
fails, the arrays are copied to the host and the host constructor runs on them: it raises the
error a host input gets.

The graph stores device copies in its own dtypes (int64 offsets, int32 ids, the weights' stored
dtype), made on the device: the caller's arrays are neither kept nor written. Two cases are
built on the host from a copy of the arrays instead, as the docstring of ``from_csr`` says:
``symmetrize=True`` (the edge-list builder sorts the mirrored arcs on the host) and an
undirected weighted graph (the check that both arcs of an edge carry one weight sorts them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frontier.dtypes import OFFSET_DTYPE, VERTEX_DTYPE, stored_dtype
from frontier.limits import check_graph
from frontier.runtime import device_arrays
from frontier.runtime.device_arrays import cast, descents, extremes, flaws, is_device_array, view

__all__ = ["checked_csr"]

_INT64_MAX = int(np.iinfo(np.int64).max)
_SEEDS = (1, 2)


class _Refused(Exception):
    """A device check failed: the host constructor gives the message."""


def _on_device(value: Any) -> Any:
    if is_device_array(value):
        return view(value)
    return device_arrays.cuda_target().to_device(np.asarray(value))


def checked_csr(row_offsets: Any, col_indices: Any, weights: Any, directed: bool,
                symmetrize: bool) -> tuple[Any, Any, Any] | None:
    """For :meth:`Graph.from_csr` given arrays of which at least one is a device array (a host
    one among them is uploaded; ``directed`` and ``symmetrize`` are checked bools): the graph's
    own device copies (int64 offsets, int32 ids, weights in their stored dtype or None), every
    check passed on the device; None where the host constructor builds the graph from a copy
    instead (``symmetrize``, an undirected weighted graph, or a check that failed: the host
    constructor then raises the error a host input gets)."""
    if symmetrize or (not directed and weights is not None):
        return None
    try:
        return _checked(_on_device(row_offsets), _on_device(col_indices),
                        None if weights is None else _on_device(weights), directed)
    except _Refused:
        return None


def _ids(name: str, cols: Any) -> None:
    kind = cols.dtype.kind
    if cols.ndim != 1 or kind not in "iuf":
        raise _Refused(name)
    if cols.shape[0] == 0:
        return
    if kind == "f" and any(flaws(cols)[i] for i in (0, 2)):
        raise _Refused(name)


def _checked(offs: Any, cols: Any, weights: Any, directed: bool) -> tuple[Any, Any, Any]:
    if offs.ndim != 1 or offs.shape[0] == 0 or offs.dtype.kind not in "iu":
        raise _Refused("row_offsets")
    low, high = extremes(offs)
    _ids("col_indices", cols)
    n, m = offs.shape[0] - 1, cols.shape[0]
    target = device_arrays.cuda_target()
    if (high > _INT64_MAX or target.read_scalar(offs, 0) != 0
            or target.read_scalar(offs, n) != m or descents(offs)):
        raise _Refused("row_offsets")
    if m:
        first, last = extremes(cols)
        if first < 0 or last >= n:
            raise _Refused("col_indices")
    if n > np.iinfo(VERTEX_DTYPE).max:
        raise _Refused("row_offsets")
    check_graph("Graph.from_csr", n, m, weights is not None)
    stored = None
    if weights is not None:
        if (weights.ndim != 1 or weights.shape[0] != m or weights.dtype.kind not in "iuf"):
            raise _Refused("weights")
        stored = stored_dtype(np.dtype(weights.dtype))
        if m and ((weights.dtype.kind == "f" and flaws(weights)[0])
                  or (weights.dtype == np.uint64 and extremes(weights)[1] > _INT64_MAX)):
            raise _Refused("weights")
    offsets, ids = cast(offs, OFFSET_DTYPE), cast(cols, VERTEX_DTYPE)
    if not directed:
        for seed in _SEEDS:
            forward, backward = device_arrays.arc_hash_sums(offsets, ids, seed)
            if forward != backward:
                raise _Refused("col_indices")
    return offsets, ids, None if weights is None else cast(weights, stored)
