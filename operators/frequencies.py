"""neighbor_reduce's ``"mode"`` and ``"histogram"``: how often each value occurs among a
vertex's arcs, read from its row sorted by value (:mod:`operators.segmented_sort`).

Label propagation takes, per vertex, the label most of its neighbours carry (Raghavan, Albert &
Kumara 2007; NetworkX's ``label_propagation_communities``); a histogram counts a vertex's
neighbours per class. Neither is a fold of one accumulator: a thread per vertex would need a
table of counts, and a hub's counts spread over threads would need an atomic per arc. Here the
vertex's row is sorted by value instead, and the equal values stand in runs:

* ``"mode"``: the value of the longest run; among runs of equal length the first, that is the
  smallest value. A row's thread scans its runs; a long row's block has each thread measure the
  runs ending at its positions (a run's start by binary search) and keep the longest, then the
  block's threads combine theirs in a tree in block memory, (length, end) by length and then by
  the earlier end.
* ``"histogram"``: ``out[v, b]`` is the number of arcs of value ``b``, for ``b`` from 0 to
  ``out.shape[1] - 1``; values outside are not counted. A short row's thread counts directly
  (it owns ``out[v]``: no sort needed); in a long row each run's last position writes its
  value's count, one writer per entry.

Both take integer or boolean values (``fn`` returning a float is refused: equal floats are a
poor thing to count) and are deterministic: the same on every target, block size and grid. A
vertex without arcs keeps ``out[v]`` as it was for the mode (a mode of nothing has no value; an
``out`` holding each vertex's own label makes it keep its label) and gets a row of zeros for the
histogram.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from frontier.frontier import Frontier
from frontier.graph import Graph
from frontier.runtime.target import Target
from operators.codegen import indent
from operators.common import OperatorError, Plan, vector_flaw
from operators.functors import FunctorError, as_functor
from operators.segmented_sort import (
    RowWork,
    array_home,
    key_dtype,
    run_ends,
    run_start,
    sorted_rows_plan,
)
from operators.shape import per_element

__all__ = ["NEIGHBOR_COUNTS", "counts_plan"]

#: The ops of :func:`operators.neighbor_reduce` that count values (here) rather than fold them
#: (:data:`operators.reduce.FOLDS`).
NEIGHBOR_COUNTS = ("mode", "histogram")


def _mode(tgt: Target, value: str) -> RowWork:
    """The mode's work on a sorted row (the module docstring)."""
    threads = per_element(tgt).threads_per_block
    barrier = tgt.block_barrier + "\n"
    ends = run_ends(False)
    by_thread = ("if hi > lo:\n"
                 + indent("most = 0\nstart = lo\nbest = lo\nfor p in range(lo, hi):\n"
                          + indent(f"if {ends}:\n"
                                   "    if p + 1 - start > most:\n"
                                   "        most = p + 1 - start\n        best = p\n"
                                   "    start = p + 1\n")
                          + "out[v] = keys[best]\n"))
    takes = ("run_length[thread + step] > run_length[thread] or (run_length[thread + step] == "
             "run_length[thread] and run_end[thread + step] < run_end[thread])")
    by_block = ("most = 0\nbest = hi\nfor p in range(lo + thread, hi, threads):\n"
                + indent(f"if {ends}:\n"
                         + indent(run_start(False) + "if p + 1 - a > most:\n"
                                  "    most = p + 1 - a\n    best = p\n"))
                + "run_length[thread] = most\nrun_end[thread] = best\n" + barrier
                + "step = 1\nwhile step < threads:\n"
                + indent("if thread % (2 * step) == 0 and thread + step < threads:\n"
                         f"    if {takes}:\n"
                         "        run_length[thread] = run_length[thread + step]\n"
                         "        run_end[thread] = run_end[thread + step]\n"
                         + barrier + "step *= 2\n")
                + "if thread == 0:\n    out[v] = keys[run_end[0]]\n" + barrier)
    head = (tgt.shared_array("run_length", str(threads), "int64")
            + tgt.shared_array("run_end", str(threads), "int64"))
    return RowWork(by_thread, by_block, ("out",), head=head)


def _histogram(tgt: Target, value: str) -> RowWork:
    """The histogram's work on a row (the module docstring); ``value`` sets ``x`` to the value
    of the arc at row position ``p``."""
    counted = "if x >= 0 and x < bins:\n"
    short = ("for b in range(bins):\n    out[v, b] = 0\nfor p in range(lo, hi):\n"
             + indent(value + counted + "    out[v, x] += 1\n"))
    by_block = ("for b in range(thread, bins, threads):\n    out[v, b] = 0\n"
                + tgt.block_barrier + "\n"
                + "for p in range(lo + thread, hi, threads):\n"
                + indent("x = keys[p]\n" + f"if {run_ends(False)}:\n"
                         + indent(counted + indent(run_start(False)
                                                   + "out[v, x] = p + 1 - a\n"))))
    return RowWork("", by_block, ("out", "bins"), short=short)


def _check_out(op: str, out: Any, n: int) -> str:
    """The target ``out`` lives on, after checking it fits ``op`` over ``n`` vertices."""
    if op == "mode":
        got = vector_flaw(out, n, "biu")
        if got is not None:
            raise OperatorError(f"neighbor_reduce(op='mode'): out= must be a one-dimensional "
                                f"array of at least |V| = {n} integers or booleans (a NumPy "
                                f"array for the cpu target, a device array for cuda); got "
                                f"{got}")
        return array_home(out)
    shape, dtype = getattr(out, "shape", None), getattr(out, "dtype", None)
    if not (isinstance(shape, tuple) and len(shape) == 2 and shape[0] >= n
            and isinstance(dtype, np.dtype) and dtype.kind in "iu"):
        got = (f"{out!r:.60} ({type(out).__name__})" if shape is None
               else f"a {type(out).__name__} of shape {shape} and dtype {dtype}")
        raise OperatorError(f"neighbor_reduce(op='histogram'): out= must be a two-dimensional "
                            f"integer array of at least |V| = {n} rows, one column per value "
                            f"counted (a NumPy array for the cpu target, a device array for "
                            f"cuda); got {got}")
    return array_home(out)


def counts_plan(graph: Graph, where: Frontier | str, fn: Callable, state: tuple, op: str,
                edges: str, out: Any) -> tuple[Plan, Target, dict[str, Any]]:
    """The launch of :func:`operators.neighbor_reduce` with ``op`` ``"mode"`` or
    ``"histogram"`` (``where``, ``edges`` and ``graph`` checked already)."""
    home = _check_out(op, out, graph.num_vertices)
    functor = as_functor(fn, "neighbour function", ("src", "dst", "eid", "weight"), len(state))
    keys = key_dtype(functor, graph, state)
    if keys.kind == "f":
        raise FunctorError(f"neighbor_reduce(op={op!r}): neighbour function {functor.name} "
                           f"({functor.location}) returns floats; {op} counts equal integer "
                           "or boolean values: return an integer (e.g. a label)")
    plan, tgt, io = sorted_rows_plan(graph, where, functor, state, edges, keys, op,
                                     _mode if op == "mode" else _histogram, home,
                                     "neighbor_reduce")
    plan.buffers["out"] = out
    if op == "histogram":
        plan.buffers["bins"] = out.shape[1]
    return plan, tgt, io

