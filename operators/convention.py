"""The kernel calling convention: the one place that names a generated kernel's parameters and
builds the matching launch arguments.

Every generated kernel takes, in this order:

1. the graph: ``num_vertices, num_edges, row_offsets, col_indices, weights``, then the
   incoming-edge (CSC) view ``col_offsets, row_indices, edge_ids`` where the kernel pulls or a
   functor wants the graph view, the rows sorted ``sorted_heads, sorted_tails`` and the arc id
   of each sorted head ``sorted_arcs`` where a functor wants the graph view
   (:mod:`frontier.graphview`), then ``edge_src`` (the tail of every edge)
   where the input is an edge frontier;
2. its input and output, by the kernel's I/O kind (:class:`KernelIO`, which the operator sets
   in the kernel's spec): the frontier ring (:data:`frontier.ring.RING_PARAMS`) for a kernel
   that is a step of the ring, its input half (:data:`INPUT_PARAMS`) for one that only reads a
   frontier, ``count`` for one over a range, or the three slots of the ring
   (:data:`FUSED_PARAMS`) for one that owns the ring (a fused traversal, the small-frontier
   mode);
3. the operator's and the balancer's own buffers (``extra``: names the operator or balancer
   declares, e.g. two-phase search's ``offsets``);
4. the user's state, ``s0, s1, ...``;
5. the numbers each functor reads from its closure (:mod:`operators.lifting`): ``functor_c0,
   functor_c1, ...``, ``condition_c0, ...``, by the name the kernel calls the functor, passed
   to it as its leading arguments. A call's values come with its plan's buffers or arguments
   (:func:`scalar_arguments` of the functors it resolved), so a kernel cached for one value
   runs with the next.

:func:`kernel_params` gives the names (the code generator writes them into the kernel's ``def``);
:func:`kernel_arguments` the values, by the same names, so the two cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from frontier.options import Domain, Option
from frontier.ring import RING_PARAMS

if TYPE_CHECKING:
    from frontier.graph import Graph
    from frontier.runtime.target import Target
    from operators.codegen import KernelSpec
    from operators.functors import Functor

__all__ = ["KernelIO", "GRAPH_PARAMS", "CSC_PARAMS", "VIEW_PARAMS", "COO_PARAMS", "RING_PARAMS",
           "FUSED_PARAMS", "LOOP_PARAMS", "kernel_params", "kernel_arguments", "scalar_params",
           "scalar_arguments"]


class KernelIO(Option):
    """How a kernel meets the frontier ring: the part of its parameters after the graph's."""

    #: A step of the ring: reads the input slot, writes the next (advance, filter, pull).
    STEP = "step"
    #: Reads a frontier and produces none: not a step of its pool (compute, reduce,
    #: neighbor_reduce over a frontier).
    READ = "read"
    #: Runs over ``range(count)`` (compute, reduce, neighbor_reduce over the vertices, tiles).
    RANGE = "range"
    #: Owns every slot of the ring and its own stop rules (a fused traversal, the
    #: small-frontier mode).
    RING = "ring"
    #: Owns the ring's queues for a loop of rounds (:func:`operators.loop`): each round reads
    #: one slot and writes the next.
    LOOP = "loop"


GRAPH_PARAMS = ("num_vertices", "num_edges", "row_offsets", "col_indices", "weights")
CSC_PARAMS = ("col_offsets", "row_indices", "edge_ids")
#: The sorted rows a functor's graph view iterates and intersects (:mod:`frontier.graphview`).
VIEW_PARAMS = ("sorted_heads", "sorted_tails", "sorted_arcs")
COO_PARAMS = ("edge_src",)
RANGE_PARAMS = ("count",)
#: A kernel that reads a frontier without producing one (compute, reduce, neighbor_reduce): the
#: input part of the ring only; it is not a step of the frontier's pool.
INPUT_PARAMS = RING_PARAMS[:5]
#: A fused traversal owns the whole ring: every slot's queue and bitmap, and its own stop rules.
FUSED_PARAMS = ("universe", "num_words", "ids0", "ids1", "ids2", "words0", "words1", "words2",
                "lens", "start_slot", "max_steps", "stop_above", "stop_below", "below_steps")
#: A fused loop owns the ring's queues: every slot's, the lengths (which hold its own
#: frontiers' lengths too), the slot it starts from and its bound on the rounds.
LOOP_PARAMS = ("universe", "ids0", "ids1", "ids2", "lens", "start_slot", "max_rounds")
_IO_PARAMS = {KernelIO.STEP: RING_PARAMS, KernelIO.READ: INPUT_PARAMS,
              KernelIO.RANGE: RANGE_PARAMS, KernelIO.RING: FUSED_PARAMS,
              KernelIO.LOOP: LOOP_PARAMS}


def kernel_params(spec: KernelSpec, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The parameter names of the kernel ``spec`` describes, ``extra`` buffers included."""
    return (GRAPH_PARAMS + (CSC_PARAMS if spec.needs_csc else ())
            + (VIEW_PARAMS if spec.graph_view else ())
            + (COO_PARAMS if spec.domain == Domain.EDGES and spec.input != "range" else ())
            + _IO_PARAMS[spec.io] + extra + tuple(f"s{i}" for i in range(spec.num_state)))


def scalar_params(functors: dict[str, Functor]) -> dict[str, tuple[str, ...]]:
    """Per functor name, the kernel parameters of the numbers it reads from its closure."""
    return {name: tuple(f"{name}_c{i}" for i in range(len(f.lifted)))
            for name, f in functors.items() if f.lifted}


def scalar_arguments(functors: dict[str, Functor]) -> dict[str, Any]:
    """The values of :func:`scalar_params` at this call, by parameter name (none, the common
    case, found without formatting a name)."""
    values: dict[str, Any] = {}
    for name, f in functors.items():
        if f.scalars:
            values.update((f"{name}_c{i}", value) for i, value in enumerate(f.scalars))
    return values


def kernel_arguments(params: tuple[str, ...], graph: Graph, target: Target,
                     io: dict[str, Any], state: tuple) -> tuple:
    """Values for ``params`` (names of :func:`kernel_params`, in its order; a kernel takes those
    its text uses): the graph's device arrays on ``target`` (its CSC and edge tails built only
    when named), ``io`` (ring, range or fused arguments and extra buffers, by name), and the
    state ``s0, s1, ...``. What each parameter tuple needs is worked out once
    (:class:`_Recipe`)."""
    recipe = _RECIPES.get(params)
    if recipe is None:  # the same recipe whichever thread makes it first
        recipe = _RECIPES.setdefault(params, _recipe(params))
    values = {**_graph_values(graph, target), **io} if recipe.graph else io.copy()
    values.update(zip(_STATE_NAMES, state, strict=False))
    if recipe.csc:
        csc = graph.device_csc(target)
        values.update(col_offsets=csc.col_offsets, row_indices=csc.row_indices,
                      edge_ids=csc.edge_ids)
    if recipe.view:
        (values["sorted_heads"], values["sorted_tails"],
         values["sorted_arcs"]) = graph.device_neighbors(target)
    if recipe.edge_src:
        values["edge_src"] = graph.device_edge_sources(target)
    try:
        taken = recipe.take(values)
    except KeyError as err:
        raise AssertionError(f"no value for kernel parameter {err}") from None
    return (taken,) if len(params) == 1 else taken


class _Recipe(NamedTuple):
    """What :func:`kernel_arguments` does for one parameter tuple: the values it takes (in
    order), and whether it names a value of the graph (:data:`GRAPH_PARAMS`), the CSC view, the
    sorted rows, the edge tails."""

    take: Callable[[dict[str, Any]], Any]
    graph: bool
    csc: bool
    view: bool
    edge_src: bool


def _recipe(params: tuple[str, ...]) -> _Recipe:
    return _Recipe(itemgetter(*params) if params else lambda values: (),
                   any(p in params for p in GRAPH_PARAMS),
                   any(p in params for p in ("col_offsets", "row_indices")),
                   any(p in params for p in VIEW_PARAMS), "edge_src" in params)


def _graph_values(graph: Graph, target: Target) -> dict[str, Any]:
    """The values of :data:`GRAPH_PARAMS` on ``target``, kept with the graph (read-only)."""

    def make() -> dict[str, Any]:
        ga = graph.device_arrays(target)
        return {"num_vertices": graph.num_vertices, "num_edges": graph.num_edges,
                "row_offsets": ga.row_offsets, "col_indices": ga.col_indices,
                "weights": ga.weights}

    return graph.memo(_ARGUMENTS_KEY + target.name, make)


_ARGUMENTS_KEY = "kernel arguments on "
#: Per parameter tuple: its :class:`_Recipe`.
_RECIPES: dict[tuple[str, ...], _Recipe] = {}
_STATE_NAMES = tuple(f"s{i}" for i in range(256))
