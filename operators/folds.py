"""A vertex's edges folded into one value: the text of :func:`operators.neighbor_reduce`'s fold,
in its own kernel or as a step of :func:`operators.loop`.

One thread owns each vertex and folds its edges in order (:func:`fold_body`), writing the
value once, without atomics; a ``logical_or`` stops at the vertex's first true value, after
which nothing changes it (the function is not called on the rest of its edges).

One thread per vertex leaves a hub's edges (an R-MAT graph's hubs have 10^5) to one thread while
the rest of the device waits for it. Where the fold's value does not depend on the order of
the values (:func:`splits_hubs`: the ors always; ``min``, ``max`` and ``sum`` of integers or
booleans into an integer or boolean ``out``, which the in-order fold compares and adds in int64;
never a float sum or a float minimum or maximum, whose value or zero's sign depends on the
order), a vertex of more than :data:`operators.lanes.HUB_DEGREE` edges is folded apart instead
(:func:`hub_text`), in three parts, a barrier after each of the first two:

1. every vertex of the input of at most ``HUB_DEGREE`` edges folded by its thread; a hub of a
   frontier marked, its entry of a stamp array set to this fold's stamp (no pass clears the
   marks): on its own, the calling thread's array (:func:`fresh_marks`: a call only reads its
   frontier, and calls from several threads over one frontier must not see each other's
   marks); in a fused loop, which holds its pool for the run, the pool's
   (:meth:`frontier.FrontierPool.next_stamp`), a stamp per round;
2. every chunk of :data:`operators.lanes.CHUNK` edges of the graph's hubs
   (:func:`operators.lanes.hubs_of`) whose hub is marked (over ``"vertices"``, every chunk)
   folded over a warp's lanes into ``partials`` (:func:`operators.lanes.over_lanes`; a lane of a
   ``logical_or`` stops at its first true value), the chunks spread over the grid's warps;
3. every marked hub's chunks' values folded over a warp's lanes into ``out``.

The lanes fold in int64, as the in-order fold does, so every target computes the values the
in-order fold computes, bit for bit. Busato & Bombieri, *Graph Algorithms on GPUs*, §5, map a
vertex's edges to a warp's lanes the same way (their warp-level mapping).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from operators import lanes
from operators.codegen import KernelSpec, arc_value, for_each_input, id_at, indent
from operators.common import thread_buffer
from operators.lanes import LANES, Hubs, LaneNames, hubs_of, over_lanes
from operators.reduce import combine, identity_of, result_dtype

if TYPE_CHECKING:
    from frontier.graph import Graph
    from frontier.runtime.target import Target
    from operators.functors import Functor

__all__ = ["fold_body", "splits_hubs", "HubFold", "hub_fold", "hub_params", "hub_arguments",
           "hub_text", "MARKS", "fresh_marks"]

#: The marks a hub fold over a frontier sets and reads: a stamp array and this fold's stamp.
MARKS = ("hub_marks", "hub_stamp")
#: Each thread's marks, per target: the array and the last stamp used in it.
_MARKS = threading.local()
#: The last stamp an int32 mark holds; the array is made again (zeroed) after it.
_LAST_STAMP = int(np.iinfo(np.int32).max)


def fresh_marks(tgt: Target, size: int) -> tuple[Any, int]:
    """The calling thread's marks on ``tgt`` (at least ``size`` int32, zeros when made) and a
    stamp none of them holds yet."""
    kept = getattr(_MARKS, "by_target", None)
    if kept is None:
        kept = _MARKS.by_target = {}
    key = (tgt.name, tgt.simulated)
    marks, stamp = kept.get(key, (None, 0))
    if marks is None or marks.shape[0] < size or stamp >= _LAST_STAMP:
        marks, stamp = tgt.zeros(max(size, 64), np.int32), 0
    kept[key] = (marks, stamp + 1)
    return marks, stamp + 1


def fold_body(spec: KernelSpec, edges: str, op: str, out: str = "out",
              identity: str = "identity") -> str:
    """The statements folding vertex ``v``'s ``edges`` with ``op`` into ``out[v]``, from
    ``identity``, in order (a ``logical_or`` stopping at the first true value)."""
    offsets = _offsets(edges)
    return (f"acc = {identity}\n"
            f"for p in range({offsets}[v], {offsets}[v + 1]):\n"
            + indent(arc_value(spec, edges, "p") + combine(op, "acc", "x", stops=True))
            + f"{out}[v] = acc\n")


def _offsets(edges: str) -> str:
    return "col_offsets" if edges == "in" else "row_offsets"


def splits_hubs(op: str, out_dtype: np.dtype, value_dtype: np.dtype | None) -> bool:
    """Whether folding a hub's values in int64 over lanes, in any order, gives what the in-order
    fold gives: a ``logical_or`` or a ``bit_or`` always; a ``min``, ``max`` or ``sum`` of
    values that are integers or booleans (``value_dtype`` int64: :func:`operators.reduce.
    result_dtype`) into an integer or boolean ``out`` that int64 holds (the in-order fold then
    compares and adds in int64 too)."""
    if op in ("logical_or", "bit_or"):
        return True
    if op not in ("min", "max", "sum") or value_dtype != np.int64:
        return False
    return out_dtype.kind in "bi" or (out_dtype.kind == "u" and out_dtype.itemsize < 8)


class HubFold(NamedTuple):
    """A fold whose hubs are folded apart: the graph's hubs in its direction, and the sizes
    they were found with (:data:`operators.lanes.HUB_DEGREE`, :data:`operators.lanes.CHUNK`)."""

    hubs: Hubs
    degree: int
    chunk: int


def hub_fold(graph: Graph, tgt: Target, functor: Functor, state: tuple, op: str, edges: str,
             out_dtype: np.dtype) -> HubFold | None:
    """The hubs of ``graph``'s ``edges`` where a fold of ``functor`` with ``op`` into an ``out``
    of ``out_dtype`` folds them apart (:func:`splits_hubs`; the functor's value type is
    inferred with ``state``, values or samples of the state's types); None where it folds every
    vertex in order (no hubs, or an order-dependent fold). The sizes are read now: a test may
    lower them."""
    if op not in ("logical_or", "bit_or", "min", "max", "sum"):
        return None
    degree, chunk = lanes.HUB_DEGREE, lanes.CHUNK
    hubs = hubs_of(graph, edges, tgt, degree, chunk)
    if not hubs.hub_count:
        return None
    value = (None if op in ("logical_or", "bit_or")
             else result_dtype(functor, graph, state, arcs=True))
    if op not in ("logical_or", "bit_or") and not splits_hubs(op, out_dtype, value):
        return None
    return HubFold(hubs, degree, chunk)


def hub_params(tag: str = "") -> tuple[str, ...]:
    """The parameters of a hub fold's text (:func:`hub_text`) besides its marks: the hubs'
    arrays and counts, the chunks' values, the lanes' identity and the sizes."""
    return (*(f"{name}{tag}" for name in Hubs._fields), f"partials{tag}",
            f"hub_identity{tag}", "hub_degree", "hub_chunk")


def hub_arguments(fold: HubFold, tgt: Target, op: str, out_dtype: np.dtype,
                  tag: str = "") -> dict[str, Any]:
    """The values of :func:`hub_params` for one fold; its chunks' values in this thread's
    buffer (:func:`operators.common.thread_buffer`) named by ``tag``."""
    hubs = fold.hubs
    return {**{f"{name}{tag}": value for name, value in hubs._asdict().items()},
            f"partials{tag}": thread_buffer(f"hub fold partials{tag}", tgt, hubs.chunk_count,
                                            np.int64),
            f"hub_identity{tag}": np.int64(identity_of(op, out_dtype)),
            "hub_degree": np.int64(fold.degree), "hub_chunk": np.int64(fold.chunk)}


def hub_text(spec: KernelSpec, edges: str, op: str, runs_balancers: bool, barrier: str,
             marked: bool, tag: str = "", out: str = "out", identity: str = "identity") -> str:
    """The three parts of a fold whose hubs are folded apart (see the module docstring),
    ``barrier`` (a statement) after each of the first two: over ``spec``'s input (a frontier,
    whose hubs are ``marked`` with ``hub_stamp`` in ``hub_marks``, or a range of every vertex),
    into ``out`` from ``identity``; ``tag`` ends the names of its arrays and variables (a loop's
    step index)."""
    offsets = _offsets(edges)
    light = (f"if {offsets}[v + 1] - {offsets}[v] <= hub_degree:\n"
             + indent(fold_body(spec, edges, op, out, identity)))
    if marked:
        light += "else:\n    hub_marks[v] = hub_stamp\n"
    first = for_each_input(spec, "v", light)
    names = LaneNames(f"hacc{tag}", f"hother{tag}", f"hub_lanes{tag}", "hub_lane")
    acc = names.acc
    # a logical or's lanes hold 0 or 1, combined by their bits
    lane_op = "bit_or" if op == "logical_or" else op
    if op == "logical_or":
        value = f"if x:\n    {acc} = 1\n    break\n"
    else:
        value = f"hx{tag} = int64(x)\n" + combine(op, acc, f"hx{tag}")
    if runs_balancers:  # a warp per chunk, per hub
        warps = (f"hub_lane = cuda.threadIdx.x & {LANES - 1}\nhub_warp = tid // {LANES}\n"
                 f"hub_warps = nthreads // {LANES}\n")
    else:  # the same lanes, one after the other, in an array of the lanes' values
        warps = (f"hub_warp = tid\nhub_warps = nthreads\n"
                 f"{names.lanes} = np.empty({LANES}, np.int64)\n")

    def only_marked(text: str) -> str:
        return "if hub_marks[v] == hub_stamp:\n" + indent(text) if marked else text

    chunk = over_lanes(lane_op, f"hub_identity{tag}",
                       f"for q in range(lo_e + hub_lane, hi_e, {LANES}):\n",
                       arc_value(spec, edges, "q") + value, runs_balancers,
                       f"partials{tag}[c] = {acc}\n", names)
    stored = f"{acc} != 0" if op == "logical_or" else acc
    hub = over_lanes(lane_op, f"hub_identity{tag}",
                     f"for c in range(hub_chunks{tag}[h] + hub_lane, hub_chunks{tag}[h + 1], "
                     f"{LANES}):\n",
                     f"hx{tag} = partials{tag}[c]\n" + combine(lane_op, acc, f"hx{tag}"),
                     runs_balancers, f"{out}[v] = {stored}\n", names)
    chunks = (f"for c in range(hub_warp, chunk_count{tag}, hub_warps):\n"
              + indent(f"v = {id_at(f'chunk_vertex{tag}', 'c')}\n"
                       + only_marked(f"lo_e = chunk_first{tag}[c]\n"
                                     f"hi_e = min(lo_e + hub_chunk, {offsets}[v + 1])\n"
                                     + chunk)))
    hubs = (f"for h in range(hub_warp, hub_count{tag}, hub_warps):\n"
            + indent(f"v = {id_at(f'hubs{tag}', 'h')}\n" + only_marked(hub)))
    return first + barrier + warps + chunks + barrier + hubs
