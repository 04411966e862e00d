"""loop: a round of operator calls, written by the user, run round after round inside one
persistent kernel.

``loop(G, F, body, *state)`` means::

    while F:                    # and fewer than max_rounds rounds
        F = body(F, *state)

where ``body`` calls the operators over the round's frontiers and returns the next frontier. Run
from the host, every operator call of a round is a launch (25-40 µs of host time) and the test
``while F`` a device read. Fused, the loop calls ``body`` once, with stand-ins for the frontiers
(:class:`LoopFrontier`): each operator called in it hands its call to the loop
(:mod:`operators.tracing`), which records it as a step. The code generator then composes the
steps into one kernel: each step's text is the one its operator launches (the balancer's
advance, filter's keep loop, compute's call, neighbor_reduce's fold), a grid barrier after each
(Busato & Bombieri, *Graph Algorithms on GPUs*, inter-block synchronization, as
:func:`operators.traverse` fuses its advances), and the round's test on the device: the loop
ends when the frontier the body returns is empty (or, with ``refill``, when the refill run in
its place returns an empty one), after ``max_rounds`` rounds, or when a queue overflowed
(:class:`frontier.FrontierOverflowError`, as the host loop's step raises). The host reads the
lengths once, at the end. A launch of one block waits at block barriers instead; on the cpu
target the same text compiles to one sequential loop.

The frontiers: the round's input and the frontier the body returns take the slots of the input
frontier's pool in ring order (round ``r`` reads slot ``s + r`` and writes ``s + r + 1``, its
thread 0 clearing ``s + r + 2`` for the next round, as a ring step does); each other frontier
the body makes is a queue of the pool's capacity of its own, its length in one of three
rotating rows of the pool's length array (row ``r % 3`` written in round ``r``, row
``(r + 1) % 3`` cleared by thread 0 during it: no barrier more). A reduce's value takes a slot
in three rotating rows of int64 or float64 values the same way (cleared to its fold's identity).

What a fused body may call:

* ``advance``: push, a queue or no output, a condition, any balancer (every advance of a body
  with the same block size: the kernel's); ``balancer="auto"`` takes the adaptive policy's
  loop balancer (:meth:`operators.AdaptivePolicy.loop_balancer`: from the graph's degrees);
  over the edges leaving the frontier or, ``edges="in"``, those entering it (the transpose's
  arrays bound, for that step, to the names the balancer's text reads; its balancer resolved
  for the transpose); ``cull`` (:mod:`operators.cull`: every culling step of a body culls
  the same way, each with a stamp of its own, which the host reserves after the run);
* ``traverse``: an inner loop, its advance step after step until its frontier is empty (the
  same options as an advance; no ``max_steps``, ``stop_above`` or ``blocks``). Its steps go
  through a ring of three queues of the kernel's own, shared by the body's traversals (they
  run one after another), its lengths cleared a step ahead as the rounds' are; a thread-mapped
  one advances a frontier of at most a block's threads in block 0 alone, at block barriers,
  while it stays that small (the small-frontier mode, on a grid of several blocks); it
  returns a :class:`LoopTraversal` whose ``steps`` is a :class:`LoopValue`;
* ``filter`` over a frontier of the body or ``"vertices"``: a queue or no output;
* ``compute`` over a frontier of the body, ``"vertices"``, ``"edges"`` or a count;
* ``reduce`` over the same, with ``min``, ``max``, ``count`` or a float ``sum``: its value
  (a :class:`LoopValue`) stays on the device, valid in the round that computed it, and a later
  step's functor receives it as a state argument;
* ``neighbor_reduce`` over a frontier of the body or ``"vertices"``, with the folds of
  :data:`operators.neighbors.NEIGHBOR_REDUCTIONS`; its hubs folded apart as on its own
  (:mod:`operators.folds`: three parts, a grid barrier between them), a frontier's hubs marked
  with a stamp of the pool's, one per round (taken as the culling steps take theirs).

``refill(*state)``, made of the same calls, runs where the body's frontier is empty and makes
the next round's frontier (from ``"vertices"``): an outer loop in the same kernel
(:func:`algorithms.k_core`'s next ``k``).

What needs the host is refused with :class:`LoopError` naming the step: reading a frontier of
the body or a reduce's value on the host (``len(F)``, ``F.to_numpy()``, ``if total > 0``), a
traverse's frontier, an integer ``sum`` (exact past 64 bits only on the host), pull or auto
direction, bitmap output, ``unique``, two ways of culling, an in-edge step whose functor takes
the graph (its view is the loop's graph's), a frontier made outside the body, another graph,
and every other operator (``iterate``, ``stepping``, ...: they hand their calls to the loop
too, which refuses them). ``fused=False`` runs the body as the host loop instead: every call a
launch (a traverse from a copy of its frontier in a pool of the loop's own, so that the body's
other frontiers stay valid), the same results, and what the fused loop is tested against; the
race detector runs the host loop (its step is a launch).

The body runs once when fused: Python code in it besides the operator calls runs once, while
the loop learns the steps, and the state the functors read changes between rounds only on the
device. A number that changes per round is :data:`ROUND`, passed as a state argument: the
functor receives the round (an int64, 0 first).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from frontier import validate
from frontier.frontier import EDGES, SPARSE, VERTICES, Frontier
from frontier.graph import Graph
from frontier.options import Cull, Mode, Way
from frontier.ring import LOOP_LENGTHS, STEPS_RAN
from frontier.runtime import racecheck
from frontier.runtime.racecheck import WorkItems
from frontier.runtime.shared_cache import SharedCache
from operators.advance import edge_functors
from operators.balancers import LoadBalancer
from operators.balancers.thread import ThreadMapped
from operators.codegen import (
    NONE,
    RANGE,
    GeneratedKernel,
    KernelIO,
    KernelSpec,
    barrier,
    blocks_apart,
    build,
    declare_work_items,
    for_each_input,
    indent,
    one_block,
    slot_pick,
    slot_select,
)
from operators.common import EDGE_SETS, OperatorError, check_frontier
from operators.convention import kernel_arguments, scalar_arguments
from operators.cull import CULL_PARAMS, check_cull, cull_buffers
from operators.direction import Direction
from operators.filter import keep_body
from operators.folds import HubFold, fold_body, hub_arguments, hub_fold, hub_params, hub_text
from operators.functors import Functor, as_functor
from operators.neighbors import NEIGHBOR_REDUCTIONS, check_out_dtype, target_of
from operators.policy import resolve_policy
from operators.reduce import combine, identity_of, op_named, result_dtype
from operators.shape import LaunchShape, grid_blocks, per_element, persistent_grid
from operators.tracing import ROUND, receiving

__all__ = ["loop", "Looped", "LoopError", "LoopFrontier", "LoopValue", "LoopTraversal", "ROUND"]


class LoopError(OperatorError):
    """A loop body that the fused loop cannot run: a step needs the host, or an argument does
    not fit a fused loop (the message names the step)."""


@dataclass(frozen=True)
class Looped:
    """What :func:`loop` ran: the frontier it ended on (empty unless ``max_rounds`` stopped
    it), the rounds of the body and the calls of ``refill``."""

    frontier: Frontier
    rounds: int
    refills: int = 0


class LoopFrontier:
    """A frontier inside a fused loop's body: the round's input (``index`` 0) or the output of
    the body's step ``index - 1``. It lives on the device: reading it on the host is refused."""

    __slots__ = ("trace", "index")
    domain = VERTICES
    kind = SPARSE

    def __init__(self, trace: _Trace, index: int) -> None:
        self.trace = trace
        self.index = index

    def _on_host(self, what: str) -> LoopError:
        return LoopError(
            f"operators.loop: the body {what} {self!r} on the host; in a fused loop the body "
            "runs once, to learn its steps, and its frontiers live on the device (pass "
            "fused=False to run the body as a host loop, a launch per call)")

    def __len__(self) -> int:
        raise self._on_host("reads the length of")

    def __bool__(self) -> bool:
        raise self._on_host("tests")

    def __getattr__(self, name: str) -> Any:
        raise self._on_host(f"reads .{name} of")

    def __repr__(self) -> str:
        if self.index == 0:
            return "<the loop round's input frontier>"
        step = self.trace.steps[self.index - 1]
        return f"<the loop frontier of step {self.index - 1} ({step.operator})>"


class LoopValue:
    """A ``reduce``'s value (or a ``traverse``'s steps) inside a fused loop's body: it lives on
    the device, valid in the round (or refill) that computed it; pass it to a later step's
    functor as a state argument, which receives the number."""

    __slots__ = ("slot", "dtype")

    def __init__(self, slot: int, dtype: np.dtype) -> None:
        self.slot = slot
        self.dtype = dtype

    def _on_host(self) -> LoopError:
        return LoopError("operators.loop: the body reads a reduce's value on the host; in a "
                         "fused loop it lives on the device: pass it to a later step's functor "
                         "as a state argument (or pass fused=False for a host loop)")

    def __bool__(self) -> bool:
        raise self._on_host()

    def __float__(self) -> float:
        raise self._on_host()

    def __int__(self) -> int:
        raise self._on_host()

    def __index__(self) -> int:
        raise self._on_host()

    def __lt__(self, other: object) -> bool:
        raise self._on_host()

    __le__ = __gt__ = __ge__ = __lt__

    def __repr__(self) -> str:
        return f"<a loop reduce's value ({self.dtype})>"


class LoopTraversal:
    """A ``traverse``'s result inside a fused loop's body: ``steps``, the advance steps it ran
    (a :class:`LoopValue`: pass it to a later step's functor). It ran until its frontier was
    empty, so there is no frontier to read."""

    __slots__ = ("steps",)

    def __init__(self, steps: LoopValue) -> None:
        self.steps = steps

    def __getattr__(self, name: str) -> Any:
        raise LoopError(f"operators.loop: the body reads .{name} of a traverse's result; in a "
                        "fused loop a traverse runs until its frontier is empty and gives its "
                        "steps only (pass fused=False for a host loop)")

    def __repr__(self) -> str:
        return "<a loop traverse's result>"


class _Step(NamedTuple):
    """One operator call of the body: what it reads (a frontier's index, or a range: "vertices",
    "edges" or a count), the functors by the names its kernel calls them, its state, the
    frontier it makes (an index, or None), and what else its text depends on (a tuple: one is
    made per step of every call, learning the body)."""

    operator: str
    source: int | str
    count: int
    functors: dict[str, Functor]
    state: tuple
    output: int | None = None
    balancer: LoadBalancer | None = None
    op: str = ""
    edges: str = "out"
    out: Any = None
    identity: Any = None
    value: LoopValue | None = None
    cull: Cull = Cull.NONE
    #: A neighbour fold whose hubs are folded apart (:mod:`operators.folds`).
    hubs: HubFold | None = None


@dataclass
class _Trace:
    """The steps of one body, learned by calling it once with :class:`LoopFrontier` stand-ins
    (the operators hand their calls to :meth:`call`)."""

    graph: Graph
    frontier: Frontier
    steps: list[_Step] = field(default_factory=list)
    #: The body's steps come first; those of ``refill`` after them.
    body_steps: int = 0
    values: list[LoopValue] = field(default_factory=list)
    #: How the body's culling steps cull (one way for all: they share the marks).
    cull: Cull = Cull.NONE

    def call(self, operator: Callable, args: tuple, options: dict[str, Any]) -> Any:
        name = operator.__name__
        where = f"step {len(self.steps)} ({name})"
        record = _RECORDERS.get(name)
        if record is None:
            raise LoopError(f"operators.loop: {where} is not an operator a fused loop runs; "
                            "expected advance, traverse, filter, compute, reduce or "
                            "neighbor_reduce (pass fused=False for a host loop)")
        graph, source, fn, *state = args
        if graph is not self.graph and not (graph is None and name == "compute"):
            raise LoopError(f"operators.loop: {where} runs on another graph; every step of a "
                            "fused loop runs on the loop's graph")
        for value in state:
            if isinstance(value, LoopValue) and value not in self.values:
                raise LoopError(f"operators.loop: {where} takes a reduce's value of another "
                                "loop")
            if isinstance(value, (LoopFrontier, Frontier)):
                raise LoopError(f"operators.loop: {where} takes a frontier as a state "
                                "argument; expected arrays and numbers")
        step = record(self, where, source, fn, tuple(state), **options)
        self.steps.append(step)
        if step.operator == "traverse":
            return LoopTraversal(step.value)
        if step.value is not None:
            return step.value
        return None if step.output is None else LoopFrontier(self, step.output)

    def source(self, where: str, frontier: Any, ranges: tuple[str, ...] = ()) -> tuple[int | str,
                                                                                       int]:
        """What a step reads: a frontier of this body (its index) or one of ``ranges`` (and
        the count of its elements)."""
        if isinstance(frontier, LoopFrontier) and frontier.trace is self:
            return frontier.index, 0
        graph = self.graph
        if isinstance(frontier, str) and frontier in ranges:
            return frontier, graph.num_vertices if frontier == "vertices" else graph.num_edges
        if "count" in ranges and validate.integer(frontier) and frontier >= 0:
            return "count", int(frontier)
        raise LoopError(f"operators.loop: {where} reads {frontier!r:.80}; expected a frontier "
                        "made in the body (the round's input or a step's output)"
                        + (f" or one of {ranges}" if ranges else ""))

    def output(self, where: str, output: str | None) -> int | None:
        if output not in (None, SPARSE, NONE):
            raise LoopError(f"operators.loop: {where} has output={output!r}; a fused loop's "
                            "frontiers are queues (output 'sparse' or 'none')")
        return None if output == NONE else len(self.steps) + 1


def _advance(trace: _Trace, where: str, source: Any, fn: Callable, state: tuple, *,
             direction: Any, condition: Callable | None, balancer: Any, output: str | None,
             cull: str, edges: str) -> _Step:
    index, _ = trace.source(where, source)
    _push_only(where, direction)
    functors = edge_functors(fn, condition, len(state))
    edges = _edges(trace, where, edges, functors)
    output = trace.output(where, output)
    return _Step("advance", index, 0, functors, state, output,
                 _fused_balancer(balancer, trace, where, edges), edges=edges,
                 cull=_cull(trace, where, cull) if output is not None else Cull.NONE)


def _traverse(trace: _Trace, where: str, source: Any, fn: Callable, state: tuple, *,
              direction: Any, condition: Callable | None, balancer: Any, fused: bool,
              max_steps: Any, stop_above: Any, blocks: Any, cull: str, edges: str) -> _Step:
    """A traverse: its advance, step after step, until its frontier is empty, inside the
    round (an inner loop); its steps a :class:`LoopValue`."""
    index, _ = trace.source(where, source)
    _push_only(where, direction)
    for name, value in (("max_steps", max_steps), ("stop_above", stop_above),
                        ("blocks", blocks)):
        if value is not None:
            raise LoopError(f"operators.loop: {where} has {name}={value!r:.40}; a traverse in "
                            "a fused loop runs until its frontier is empty on the loop's grid "
                            "(expected None)")
    if validate.flag("fused", fused) is not True:
        raise LoopError(f"operators.loop: {where} has fused=False; a traverse in a fused loop "
                        "runs inside its kernel (pass fused=False to the loop instead)")
    functors = edge_functors(fn, condition, len(state))
    edges = _edges(trace, where, edges, functors)
    value = LoopValue(len(trace.values), np.dtype(np.int64))
    trace.values.append(value)
    return _Step("traverse", index, 0, functors, state, None,
                 _fused_balancer(balancer, trace, where, edges), edges=edges,
                 cull=_cull(trace, where, cull), identity=np.int64(0), value=value)


def _push_only(where: str, direction: Any) -> None:
    if Direction.of(direction).mode != Way.PUSH:
        raise LoopError(f"operators.loop: {where} has direction={direction!r}; a fused loop "
                        "pushes (a pull reads a bitmap the host converts)")


def _edges(trace: _Trace, where: str, edges: str, functors: dict[str, Functor]) -> str:
    """The edges an advance of the body walks: ``"in"`` only on a directed graph (an
    undirected one's in-edges are its out-edges)."""
    if not isinstance(edges, str) or edges not in EDGE_SETS:
        raise LoopError(f"operators.loop: {where} has edges={edges!r}; expected one of "
                        f"{EDGE_SETS}")
    if edges == "in" and trace.graph.directed:
        if any(f.wants_graph for f in functors.values()):
            raise LoopError(f"operators.loop: {where} walks edges='in' with a functor that "
                            "takes the graph; in a fused loop its graph view is the loop's "
                            "graph, not the transpose the step walks (pass fused=False)")
        return "in"
    return "out"


def _cull(trace: _Trace, where: str, cull: str) -> Cull:
    """The step's culling (:mod:`operators.cull`), the same for every culling step of a body:
    they share the marks and a stamp per step."""
    try:
        chosen = check_cull(cull)
    except ValueError as err:
        raise LoopError(f"operators.loop: {where}: {err}") from None
    if chosen != Cull.NONE:
        if trace.cull not in (Cull.NONE, chosen):
            raise LoopError(f"operators.loop: {where} has cull={chosen.value!r} where an "
                            f"earlier step has cull={trace.cull.value!r}; expected one way "
                            "of culling in a fused loop")
        trace.cull = chosen
    return chosen


def _filter(trace: _Trace, where: str, source: Any, fn: Callable, state: tuple, *,
            unique: bool, output: str | None) -> _Step:
    index, count = trace.source(where, source, ("vertices",))
    if validate.flag("unique", unique):
        raise LoopError(f"operators.loop: {where} has unique=True; expected unique=False in a "
                        "fused loop (remove repeats in the functor, e.g. with atomic_cas)")
    functor = as_functor(fn, "filter predicate", ("v",), len(state))
    return _Step("filter", index, count, {"functor": functor}, state,
                 trace.output(where, output))


#: The folds of a fused reduce: exact in int64 or float64 (an integer sum, exact on the host
#: past 64 bits, is not one of them).
LOOP_REDUCTIONS = ("min", "max", "count", "sum")


def _reduce(trace: _Trace, where: str, source: Any, fn: Callable, state: tuple, *, op: str,
            target: Any) -> _Step:
    index, count = trace.source(where, source, ("vertices", "edges", "count"))
    op = op_named(op, LOOP_REDUCTIONS, "reduce")
    functor = as_functor(fn, "reduce function", ("i",), len(state))
    dtype = np.dtype(np.int64) if op == "count" else result_dtype(functor, trace.graph,
                                                                    _samples(state))
    if dtype.kind == "u" or (op == "sum" and dtype.kind != "f"):
        raise LoopError(f"operators.loop: {where} reduces {dtype} values with op={op!r}; a "
                        "fused loop folds int64 with min, max or count and float64 with any "
                        "(an exact integer sum runs on the host: fused=False)")
    value = LoopValue(len(trace.values), dtype)
    trace.values.append(value)
    return _Step("reduce", index, count, {"functor": functor}, state, op=op,
                 identity=identity_of("sum" if op == "count" else op, dtype), value=value)


def _compute(trace: _Trace, where: str, source: Any, fn: Callable, state: tuple, *,
             target: Any) -> _Step:
    index, count = trace.source(where, source, ("vertices", "edges", "count"))
    functor = as_functor(fn, "compute function", ("i",), len(state))
    return _Step("compute", index, count, {"functor": functor}, state)


def _neighbor_reduce(trace: _Trace, where: str, source: Any, fn: Callable, state: tuple, *,
                     out: Any, op: str, edges: str) -> _Step:
    index, count = trace.source(where, source, ("vertices",))
    if isinstance(op, str) and op not in NEIGHBOR_REDUCTIONS:
        raise LoopError(f"operators.loop: {where} has op={op!r}; a fused loop folds with one "
                        f"of {NEIGHBOR_REDUCTIONS}")
    op = op_named(op, NEIGHBOR_REDUCTIONS, "neighbor_reduce")
    if edges not in EDGE_SETS:
        raise LoopError(f"operators.loop: {where} has edges={edges!r}; expected one of "
                        f"{EDGE_SETS}")
    target_of(out, trace.graph.num_vertices)
    check_out_dtype(op, out)
    functor = as_functor(fn, "neighbour function", ("src", "dst", "eid", "weight"),
                         len(state))
    hubs = hub_fold(trace.graph, trace.frontier.target, functor, _samples(state), op, edges,
                    out.dtype)
    return _Step("neighbor_reduce", index, count, {"functor": functor}, state, op=op,
                 edges=edges, out=out, identity=identity_of(op, out.dtype), hubs=hubs)


def _samples(state: tuple) -> tuple:
    """``state`` with a value of each type in place of the round and a reduce's value (what a
    functor's result type is inferred with)."""
    return tuple(_SAMPLES.get(type(v), v) if not isinstance(v, LoopValue)
                 else v.dtype.type(0) for v in state)


_RECORDERS: dict[str, Callable[..., _Step]] = {
    "advance": _advance, "traverse": _traverse, "filter": _filter, "compute": _compute,
    "reduce": _reduce, "neighbor_reduce": _neighbor_reduce}
#: What a state argument's type is typed as when a fused reduce's result type is inferred.
_SAMPLES = {type(ROUND): np.int64(0)}


def _fused_balancer(balancer: Any, trace: _Trace, where: str, edges: str = "out"
                    ) -> LoadBalancer:
    """The balancer of a fused advance: its policy's loop balancer (a named one as it is),
    resolved on the graph it walks (the transpose for ``edges="in"``)."""
    graph, target = trace.graph, trace.frontier.target
    walked = graph.transpose() if edges == "in" else graph
    chosen = resolve_policy(balancer, walked, target).loop_balancer()
    if not chosen.fusable:
        raise LoopError(f"operators.loop: {where} has balancer={chosen}, which cannot run "
                        "inside a persistent kernel; expected a fusable balancer")
    return chosen


# the kernel ------------------------------------------------------------------------------------
#: A row of the pool's length array after LOOP_LENGTHS: the body's rounds, then three rows of
#: the loop's own frontiers' lengths, then the three lengths of the traversals' queues and the
#: culling steps run (:class:`_Names`).
_ROUNDS = LOOP_LENGTHS
_MIDS = LOOP_LENGTHS + 1


class _Names:
    """The kernel's names: each distinct state object (by identity) ``s0, s1, ...``, the
    round ``loop_round``, a reduce's value its slot in a row of ``loop_ints`` or
    ``loop_floats``; the frontiers' queues and length slots; the traversals' ring (the
    queues ``walk0..2``, their lengths from ``walks``) and where the culling steps are
    counted (``culled``)."""

    def __init__(self, trace: _Trace, returned: set[int]) -> None:
        self.state: dict[int, tuple[str, Any]] = {}
        #: Per step: its state's names, then its ``out``'s and its value's (None where it has
        #: none): what the kernel's text reads and writes.
        self.step_names: list[tuple[str | None, ...]] = []
        self.returned = returned
        values = self._place_values(trace.values)
        made: list[int] = []
        walking = reversed_ = marks_hubs = False
        state = self.state
        # per object's id: its name in the text (the round, a reduce's value, a state object)
        named = {id(ROUND): "loop_round"}
        named.update((id(value), values[value.slot]) for value in trace.values)
        for step in trace.steps:  # one pass: the state named, the flags below found
            row = []
            for value in (*step.state, step.out) if step.out is not None else step.state:
                key = id(value)
                name = named.get(key)
                if name is None:
                    name = named[key] = f"s{len(state)}"
                    state[key] = (name, value)
                row.append(name)
            if step.out is None:
                row.append(None)
            row.append(None if step.value is None else values[step.value.slot])
            self.step_names.append(tuple(row))
            if step.output is not None:
                made.append(step.output)
            walking = walking or step.operator == "traverse"
            reversed_ = reversed_ or (step.edges == "in" and step.balancer is not None)
            marks_hubs = marks_hubs or (step.hubs is not None and isinstance(step.source, int))
        #: The body's own frontiers (neither the input nor a returned one), by index: their
        #: position in a row of lengths.
        self.mids = {index: k for k, index in enumerate(i for i in made if i not in returned)}
        self.walks = _MIDS + 3 * len(self.mids)
        self.culled = self.walks + 3
        #: Where the small-frontier mode hands the ring's step count and a traverse's steps
        #: back to the grid (two lengths).
        self.handed = self.culled + 1
        #: Whether a traverse runs (the ring's queues) and whether a step walks in-edges.
        self.walking = walking
        self.reversed = reversed_
        #: Whether a step marks a frontier's hubs (:mod:`operators.folds`): with stamps of the
        #: pool's stamp array, counted with the culling steps' (``loop_culls``).
        self.marks_hubs = marks_hubs

    def _place_values(self, loop_values: list[LoopValue]) -> dict[int, str]:
        """Place each reduce's value (by slot) in a row of its array (:attr:`values`; the rows'
        sizes in :attr:`rows`); returns each one's name in the kernel's text."""
        #: Per reduce's value: its array and position in a row of that array.
        self.values: dict[int, tuple[str, int]] = {}
        counts = {"loop_ints": 0, "loop_floats": 0}
        named = {}
        for value in loop_values:
            array = "loop_floats" if value.dtype.kind == "f" else "loop_ints"
            self.values[value.slot] = (array, counts[array])
            named[value.slot] = f"{array}[{array}_row + {counts[array]}]"
            counts[array] += 1
        self.rows = counts
        return named

    def of(self, value: Any) -> str:
        if value is ROUND:
            return "loop_round"
        if isinstance(value, LoopValue):
            array, k = self.values[value.slot]
            return f"{array}[{array}_row + {k}]"
        return self.state[id(value)][0]

    def queue(self, index: int) -> tuple[str, str]:
        """The queue and the length slot of frontier ``index``, as kernel expressions."""
        if index in self.mids:
            return f"mid{index}", f"loop_row + {self.mids[index]}"
        slot = "loop_in" if index == 0 else "loop_out"
        return slot_pick("ids", slot), slot


def _step_items(spec: KernelSpec, name: str) -> WorkItems:
    """A composed kernel's work items: functor ``step{i}_{name}`` forms those of functor
    ``name`` in step ``i``'s spec (as its operator declared them)."""
    step, _, name = name.partition("_")
    return spec.steps[int(step.removeprefix("step"))].work_items(name)


declare_work_items("loop", _step_items)


def _spec(graph: Graph, step: _Step, i: int, names: _Names) -> KernelSpec:
    """The spec of step ``i``'s part of the kernel (its operator's spec, functors named
    ``step{i}_...``, state by the kernel's names; the variant says what it reads and writes)."""
    functors = step.functors
    source = step.source if isinstance(step.source, str) else f"f{step.source}"
    output = NONE if step.output is None else SPARSE
    wiring = f"_{source}_to_{'none' if step.output is None else f'f{step.output}'}"
    common = {"weighted": graph.weighted, "num_state": len(step.state),
              "graph_view": any(f.wants_graph for f in functors.values()),
              "prefix": f"step{i}_", "state_names": tuple(map(names.of, step.state))}
    kind = RANGE if isinstance(step.source, str) else SPARSE
    domain = EDGES if step.source == "edges" else VERTICES
    io = KernelIO.RANGE if kind == RANGE else KernelIO.READ
    if step.operator in ("advance", "traverse"):
        walks = step.operator == "traverse"
        return KernelSpec("advance", SPARSE, SPARSE if walks else output,
                          condition="condition" in functors, cull=step.cull,
                          variant=wiring + ("_walk" if walks else "") + f"_{step.edges}",
                          io=KernelIO.STEP, **common)
    if step.operator == "filter":
        return KernelSpec("filter", kind, output, variant=wiring, io=KernelIO.STEP, **common)
    if step.operator == "compute":
        return KernelSpec("compute", kind, NONE, domain=domain, variant=wiring, io=io, **common)
    if step.operator == "reduce":
        into = names.of(step.value).replace("[", "_").replace(" + ", "_").rstrip("]")
        return KernelSpec("reduce", kind, NONE, domain=domain, io=io,
                          variant=f"{wiring}_{step.op}_{step.value.dtype}_into_{into}", **common)
    return KernelSpec("neighbors", kind, NONE, csc=step.edges == "in",
                      variant=(f"{wiring}_{step.edges}_{step.op}_into_{names.of(step.out)}"
                               + ("_hubs" if step.hubs is not None else "")),
                      io=io, **common)


#: The count of a range a step reads, by the range's name (a count of its own: ``count{i}``).
_COUNTS = {"vertices": "num_vertices", "edges": "num_edges"}


def _reduce_text(step: _Step, i: int, spec: KernelSpec, names: _Names) -> str:
    """A fused reduce: each thread folds its elements, then one atomic per thread into the
    value's slot of this round's row (cleared to the identity by the round before)."""
    acc = f"acc{i}"
    value = spec.call("functor", "v")
    if step.op == "count":
        fold = f"if {value}:\n    {acc} += 1\n"
    else:
        fold = f"x{i} = {value}\n" + combine(step.op, acc, f"x{i}")
    array, k = names.values[step.value.slot]
    atomic = {"min": "atomic_min", "max": "atomic_max"}.get(step.op, "atomic_add")
    return (f"{acc} = identity{i}\n" + for_each_input(spec, "v", fold)
            + f"{atomic}({array}, {array}_row + {k}, {acc})\n")


def _advance_text(step: _Step, spec: KernelSpec, barrier: str) -> str:
    """One advance: the balancer's helper phases (each followed by ``barrier``) and its
    advance, a culling one stamped with the kernel's next stamp (``loop_culls`` counts them)."""
    balancer = step.balancer
    text = balancer.fused_phases(spec, barrier)
    if spec.cull != Cull.NONE:
        text = "cull_stamp = cull_base + loop_culls\nloop_culls += 1\n" + text
    return text + balancer.advance_body(spec)


@dataclass(frozen=True)
class _Small:
    """The small-frontier mode of a kernel's thread-mapped traversals: the target's block
    prologue and barrier, the prologue that binds the grid's thread ids back, and the largest
    frontier one block takes (a vertex per thread)."""

    prologue: str
    barrier: str
    restore: str
    frontier: int


def _traversal_text(step: _Step, spec: KernelSpec, names: _Names, barrier: str,
                    small: _Small | None) -> str:
    """A traverse: advance steps from the step's input, each into the next queue of the
    traversals' ring (``loop_walks`` counts the ring's steps over the whole kernel, so the
    queue a step writes was cleared by thread 0 in the ring's step before), until a step's
    output is empty. Every thread tests the same length, which no thread writes in the test's
    step. An overflowed queue ends the loop (the host raises FrontierOverflowError); else
    thread 0 writes the steps into the traverse's value.

    With ``small``, a frontier of at most ``small.frontier`` vertices is advanced by block 0
    alone, step after step at block barriers, while it stays that small (the rest of the grid
    waits at the next grid barrier; Luo, Wong & Hwu's block-level queue, as
    :mod:`operators.small_frontier` does for ``traverse``): it then hands the ring's step
    count and its steps to the grid through two lengths, which every thread reads after the
    barrier. It is entered only on a frontier it would advance, and left on one it would not,
    so a grid step (a grid barrier) always lies between two of its hand-overs."""
    walks = names.walks
    array, k = names.values[step.value.slot]

    def stepping(step_barrier: str) -> str:
        return ("walk_k = loop_walks % 3\n"
                + slot_select("out_ids", "walk", "walk_k")
                + f"out_slot = {walks} + walk_k\n"
                "if tid == 0:\n"
                f"    lens[{walks} + (loop_walks + 1) % 3] = 0\n"
                + _advance_text(step, spec, step_barrier) + step_barrier
                + "in_ids = out_ids\nin_slot = out_slot\nloop_walks += 1\nwalked += 1\n")

    advance = stepping(barrier)
    if small is not None:
        handed = names.handed
        # at most a block's threads, and not overflowed (a push past a queue's end still
        # counts, so a length of one block can hold more than the queue: the grid stops then)
        fits = f"lens[in_slot] <= {small.frontier} and lens[in_slot] <= in_ids.shape[0]"
        alone = ("tid = thread\nnthreads = threads\n"
                 f"while lens[in_slot] != 0 and {fits}:\n" + indent(stepping(small.barrier))
                 + "if tid == 0:\n"
                   f"    lens[{handed}] = loop_walks\n"
                   f"    lens[{handed + 1}] = walked\n")
        advance = (f"if {fits}:\n"
                   + indent(small.prologue + "if block == 0:\n" + indent(alone)
                            + small.restore + barrier
                            + f"loop_walks = lens[{handed}]\n"
                              f"walked = lens[{handed + 1}]\n"
                              "walk_k = (loop_walks - 1) % 3\n"
                            + slot_select("in_ids", "walk", "walk_k")
                            + f"in_slot = {walks} + walk_k\n")
                   + "else:\n" + indent(advance))
    return ("walked = 0\n"
            "while lens[in_slot] != 0 and lens[in_slot] <= in_ids.shape[0]:\n"
            + indent(advance)
            + "if lens[in_slot] != 0:\n"
              "    break\n"
              "if tid == 0:\n"
              f"    {array}[{array}_row + {k}] = walked\n")


def _walked(step: _Step, spec: KernelSpec, text: str) -> str:
    """``text`` over the graph's in-edges where ``step`` walks them: the transpose's arrays
    (``rev_...``) bound to the names a balancer's text reads, the graph's bound back after."""
    if step.edges != "in":
        return text
    names = _REBOUND + (("weights",) if spec.weighted else ())
    return ("".join(f"{n} = rev_{n}\n" for n in names) + text
            + "".join(f"{n} = fwd_{n}\n" for n in names))


#: The graph's arrays an in-edge step reads from the transpose (and its weights, if weighted).
_REBOUND = ("row_offsets", "col_indices")


def _step_text(step: _Step, i: int, spec: KernelSpec, names: _Names, barrier: str,
               small: _Small | None, runs_balancers: bool) -> str:
    """Step ``i``'s statements: its frontiers bound to the names its operator's text reads,
    then that text, then ``barrier`` (``small``: the small-frontier mode of a thread-mapped
    traverse, where the kernel has one; ``runs_balancers``: the target's warps fold a
    neighbour fold's hubs, :mod:`operators.folds`)."""
    text = ""
    if isinstance(step.source, int):
        ids, slot = names.queue(step.source)
        text += f"in_ids = {ids}\nin_slot = {slot}\n"
    else:
        text += f"count = {_COUNTS.get(step.source, f'count{i}')}\n"
    if step.output is not None:
        ids, slot = names.queue(step.output)
        text += f"out_ids = {ids}\nout_slot = {slot}\n"
    if step.operator == "advance":
        text += _walked(step, spec, _advance_text(step, spec, barrier))
    elif step.operator == "traverse":
        mapped = small if step.balancer.name == ThreadMapped.name else None
        text += _walked(step, spec, _traversal_text(step, spec, names, barrier, mapped))
    elif step.operator == "filter":
        text += keep_body(spec)
    elif step.operator == "compute":
        text += for_each_input(spec, "v", spec.call("functor", "v") + "\n")
    elif step.operator == "reduce":
        text += _reduce_text(step, i, spec, names)
    elif step.hubs is not None:
        marked = isinstance(step.source, int)
        if marked:  # a stamp of its own, as a culling step's
            text += "hub_stamp = cull_base + loop_culls\nloop_culls += 1\n"
        text += hub_text(spec, step.edges, step.op, runs_balancers, barrier, marked, str(i),
                         names.of(step.out), f"identity{i}")
    else:
        text += for_each_input(spec, "v", fold_body(spec, step.edges, step.op,
                                                    names.of(step.out), f"identity{i}"))
    return text + barrier


def _clear_rows(steps: list[_Step], names: _Names, row: str) -> str:
    """Thread 0's statements resetting the lengths of the loop's own frontiers and the
    reduces' values in rows ``row`` (an expression: 0, 1, 2)."""
    mids = len(names.mids)
    text = (f"    nxt = {_MIDS} + ({row}) * {mids}\n"
            f"    for j in range({mids}):\n"
            "        lens[nxt + j] = 0\n") if mids else ""
    for i, step in enumerate(steps):
        if step.value is not None:
            array, k = names.values[step.value.slot]
            text += f"    {array}[({row}) * {names.rows[array]} + {k}] = identity{i}\n"
    return text


def _loop_text(trace: _Trace, specs: list[KernelSpec], names: _Names, barrier: str,
               refill: bool, small: _Small | None) -> str:
    """Every iteration: the stop test (all threads read lengths no thread writes in it), the
    slots, thread 0 clearing the next iteration's rows, then the body's steps (a round) or,
    where the input is empty, the refill's."""
    mids = len(names.mids)
    overflowed = "".join(
        f" or (loop_step > 0 and lens[{_MIDS} + ((loop_step + 2) % 3) * {mids} + "
        f"{k}] > mid{index}.shape[0])" for index, k in names.mids.items())
    cleared = _clear_rows(trace.steps, names, "(loop_step + 1) % 3")
    runs_balancers = trace.frontier.target.runs_balancers
    steps = [_step_text(step, i, spec, names, barrier, small, runs_balancers)
             for i, (step, spec) in enumerate(zip(trace.steps, specs, strict=True))]
    body, refilling = "".join(steps[:trace.body_steps]), "".join(steps[trace.body_steps:])
    text = ("loop_in = (start_slot + loop_step) % 3\n"
            f"if lens[loop_in] > ids0.shape[0]{overflowed}:\n"
            "    break\n"
            f"if lens[loop_in] == 0 and {'refilled == 1' if refill else 'True'}:\n"
            "    break\n"
            "loop_out = (loop_in + 1) % 3\n"
            f"loop_row = {_MIDS} + (loop_step % 3) * {mids}\n"
            + "".join(f"{a}_row = (loop_step % 3) * {n}\n" for a, n in names.rows.items() if n)
            + "if tid == 0:\n"
              "    lens[(loop_in + 2) % 3] = 0\n" + cleared)
    if refill:
        text += ("if lens[loop_in] == 0:\n" + indent(refilling + "refilled = 1\n")
                 + "else:\n" + indent(body + "refilled = 0\nloop_round += 1\n"))
    else:
        text += body + "loop_round += 1\n"
    return text + "loop_step += 1\n"


def _shape(steps: list[_Step], tgt: Any) -> LaunchShape:
    """The kernel's launch shape: its advances' block size (one for all), the globals of
    every balancer (worked out once per set of balancers and target)."""
    balancers = frozenset(step.balancer for step in steps if step.balancer is not None)
    return _SHAPES.get((balancers, tgt, tgt.simulated), lambda: _shape_of(balancers, tgt))


#: The fused loops' launch shapes, per set of balancers and target.
_SHAPES: SharedCache[LaunchShape] = SharedCache("fused loop shapes")


def _shape_of(balancers: frozenset[LoadBalancer], tgt: Any) -> LaunchShape:
    if not balancers:
        return per_element(tgt)
    shapes = [b.shape(tgt) for b in sorted(balancers, key=str)]
    sizes = {s.threads_per_block for s in shapes}
    if len(sizes) > 1:
        raise LoopError(f"operators.loop: the body's advances use balancers of different "
                        f"block sizes ({', '.join(map(str, sorted(balancers, key=str)))}); a "
                        "fused loop's kernel has one block size: expected balancers that share "
                        "it")
    namespace = dict(pair for s in shapes for pair in s.namespace)
    return LaunchShape("loop", sizes.pop(), None, tuple(sorted(namespace.items())),
                       tuple(str(b) for b in sorted(balancers, key=str)))


#: The fused loops' kernels with their steps' specs, by everything their text depends on
#: (:func:`_kernel_key`): a repeated loop neither rebuilds its specs nor looks its kernel up
#: by them.
_LOOP_KERNELS: SharedCache[tuple[GeneratedKernel, list]] = SharedCache("fused loop kernels")


def _kernel_key(trace: _Trace, names: _Names, shape: LaunchShape, block: bool,
                refill: bool) -> tuple:
    """What :func:`_kernel`'s kernel depends on: the target's compile mode, the graph's
    weights, the launch shape and mode, and per step what its spec and its text read (its
    operator, what it reads and makes, its functors, its state and output by the kernel's
    names, its fold, whether it has an identity, its balancer); not the numbers a launch
    passes (a range's count, an identity's value, the closures' numbers)."""
    return (trace.frontier.target.compile_key, trace.graph.weighted, shape, block, refill,
            trace.body_steps, tuple(names.mids.items()), tuple(names.rows.items()),
            tuple(names.step_names),
            tuple((s.operator, s.source, s.output, tuple(s.functors.items()), s.op, s.edges,
                   None if s.value is None else s.value.dtype,
                   s.identity is not None, s.balancer,
                   None if s.hubs is None else (s.hubs.degree, s.hubs.chunk))
                  for s in trace.steps))


def _kernel(trace: _Trace, names: _Names, shape: LaunchShape, block: bool, refill: bool
            ) -> tuple[GeneratedKernel, list]:
    """The fused loop's kernel and its steps' specs (built once per :func:`_kernel_key`)."""
    return _LOOP_KERNELS.get(_kernel_key(trace, names, shape, block, refill),
                             lambda: _built(trace, names, shape, block, refill))


def _built(trace: _Trace, names: _Names, shape: LaunchShape, block: bool, refill: bool
           ) -> tuple[GeneratedKernel, list]:
    graph, tgt = trace.graph, trace.frontier.target
    steps = trace.steps
    specs = [_spec(graph, step, i, names) for i, step in enumerate(steps)]
    walks, reversed_ = names.walking, names.reversed
    # a grid of several blocks on a target whose blocks wait apart from the grid: small
    # frontiers of a thread-mapped traverse go to one block
    small = (_Small(tgt.block_prologue, barrier(tgt, True), tgt.prologue,
                    shape.threads_per_block)
             if walks and not block and blocks_apart(tgt) else None)
    between = barrier(tgt, block)
    extra = tuple(dict.fromkeys(
        [f"mid{index}" for index in names.mids]
        + [a for a, n in names.rows.items() if n]
        + [f"count{i}" for i, s in enumerate(steps) if s.source == "count"]
        + [f"identity{i}" for i, s in enumerate(steps) if s.identity is not None]
        + [p for s, spec in zip(steps, specs, strict=True) if s.balancer is not None
           for p in s.balancer.extra_params(spec)]
        + [f"walk{k}" for k in range(3) if walks]
        + [f"rev_{n}" for n in _REBOUND + ("weights",) if reversed_]
        + list(CULL_PARAMS if trace.cull != Cull.NONE else ())
        + [p for i, s in enumerate(steps) if s.hubs is not None for p in hub_params(str(i))]
        + (["hub_marks", "cull_base"] if names.marks_hubs else [])))
    spec = KernelSpec("loop", SPARSE, SPARSE, graph.weighted, len(names.state),
                      graph_view=any(s.graph_view for s in specs),
                      csc=any(s.needs_csc for s in specs),
                      variant=("_block" if block else "") + (
                          f"_refill{trace.body_steps}" if refill else ""),
                      io=KernelIO.LOOP, steps=tuple(specs))
    functors = {f"step{i}_{name}": f for i, step in enumerate(steps)
                for name, f in step.functors.items()}
    mids = len(names.mids)

    def body() -> str:
        cleared = 3 * mids + (3 if walks else 0)  # the mids' rows, then the ring's lengths
        first = (f"for j in range(tid, {cleared}, nthreads):\n"
                 f"    lens[{_MIDS} + j] = 0\n") if cleared else ""
        rows = "".join(_clear_rows(steps, names, str(r)) for r in range(3))
        if rows:
            first += "if tid == 0:\n" + rows
        kept = "".join(f"fwd_{n} = {n}\n" for n in _REBOUND + (("weights",) if graph.weighted
                                                              else ()) if reversed_)
        return ((first + between if first else "") + kept
                + "loop_round = 0\nloop_step = 0\nrefilled = 0\nloop_walks = 0\nloop_culls = 0\n"
                "while loop_round < max_rounds:\n"
                + indent(_loop_text(trace, specs, names, between, refill, small))
                + "if tid == 0:\n"
                  "    lens[STEPS_RAN] = loop_step\n"
                  f"    lens[{_ROUNDS}] = loop_round\n"
                  f"    lens[{names.culled}] = loop_culls\n")

    named = re.sub(r"\W", "_", "_".join(f.name for f in functors.values()))[:80]
    kernel = build(tgt, shape, spec, functors, body, extra,
                   name=f"loop{len(steps)}{spec.variant}__{named}")
    return kernel, specs


#: A traversal's ring in a fused loop: each queue's parameter and its pool scratch's name.
_WALKS = tuple((f"walk{k}", f"loop traversal {k}") for k in range(3))


def _fused(trace: _Trace, returned: set[int], max_rounds: int, blocks: int | None,
           refill: bool) -> Looped:
    graph, frontier = trace.graph, trace.frontier
    tgt, pool = frontier.target, frontier.pool
    names = _Names(trace, returned)
    pool.make_room(names.handed + 2 - LOOP_LENGTHS)
    shape = _shape(trace.steps, tgt)
    threads = shape.threads_per_block
    grid = min(persistent_grid(tgt, threads, blocks),
               grid_blocks(tgt, threads, max(graph.num_vertices, 1)))
    kernel, specs = _kernel(trace, names, shape, one_block(tgt, grid), refill)
    io: dict[str, Any] = {
        "universe": frontier.universe, "lens": pool.lengths, "start_slot": frontier.slot,
        "max_rounds": max_rounds, "ids0": pool.ids(0), "ids1": pool.ids(1), "ids2": pool.ids(2),
        **{f"mid{index}": pool.scratch(f"loop frontier {k}", pool.capacity, np.int32)
           for index, k in names.mids.items()},
        **{array: tgt.empty(3 * n, np.float64 if array == "loop_floats" else np.int64)
           for array, n in names.rows.items() if n},
        **cull_buffers(pool, trace.cull)}
    if names.walking:  # the traversals' ring
        for name, scratch in _WALKS:
            io[name] = pool.scratch(scratch, pool.capacity, np.int32)
    if names.reversed:
        reverse = graph.transpose().device_arrays(tgt)
        io.update(rev_row_offsets=reverse.row_offsets, rev_col_indices=reverse.col_indices,
                  rev_weights=reverse.weights)
    for i, (step, spec) in enumerate(zip(trace.steps, specs, strict=True)):
        if any([f.scalars for f in step.functors.values()]):  # closure numbers, named by step
            io.update(scalar_arguments({f"step{i}_{n}": f for n, f in step.functors.items()}))
        if step.source == "count":
            io[f"count{i}"] = step.count
        if step.identity is not None:
            io[f"identity{i}"] = step.identity
        if step.balancer is not None:
            io.update(step.balancer.buffers(spec, frontier))
        if step.hubs is not None:
            io.update(hub_arguments(step.hubs, tgt, step.op, step.out.dtype, str(i)))
    if names.marks_hubs:
        io["hub_marks"], stamp = pool.next_stamp()
        io.setdefault("cull_base", stamp)
    state = tuple(value for _, value in names.state.values())
    args = kernel_arguments(kernel.params, graph, tgt, io, state)
    lengths = pool.run_traversal(
        frontier.slot, lambda: kernel.launch(tgt, grid, args, cooperative=grid > 1,
                                             mode=Mode.FUSED),
        "a fused loop on its pool failed part-way (its rounds reuse every slot, so the "
        "frontiers it started from are lost)")
    held = lengths.tolist()
    steps, rounds = held[STEPS_RAN], held[_ROUNDS]
    if trace.cull != Cull.NONE or names.marks_hubs:
        pool.use_stamps(held[names.culled])  # culling step k stamped cull_base + k
    final = (frontier.slot + steps) % pool.SLOTS
    return Looped(Frontier(pool, final, SPARSE, pool.adopt(final, SPARSE, "a fused loop")),
                  rounds, steps - rounds)


class _HostRounds:
    """The host loop's receiver: runs each operator call for real, with the round number in
    place of :data:`ROUND`, an operator over a range on the loop's target (as the fused loop
    runs it), the vertices as a frontier where a filter reads them, and a traverse from a copy
    of its frontier in a pool of the loop's own (a traversal writes every slot of its pool:
    run in place, it would leave the body's other frontiers of that pool stale)."""

    def __init__(self, graph: Graph, frontier: Frontier) -> None:
        self.round = np.int64(0)
        self.graph = graph
        self.target = frontier.target
        self.walks: Frontier | None = None

    def call(self, operator: Callable, args: tuple, options: dict[str, Any]) -> Any:
        args = tuple(self.round if a is ROUND else a for a in args)
        if options.get("target", self.target) is None:  # a range: on the loop's target
            options = {**options, "target": self.target}
        if operator.__name__ == "filter" and isinstance(args[1], str) and args[1] == "vertices":
            args = (args[0], Frontier.all_vertices(self.graph, kind=SPARSE, target=self.target),
                    *args[2:])
        if operator.__name__ == "traverse" and isinstance(args[1], Frontier):
            if self.walks is None:
                self.walks = Frontier.from_vertices(self.graph, [], target=self.target,
                                                    capacity=args[1].pool.capacity)
            args = (args[0], self.walks.union(args[1]), *args[2:])
        with receiving(None):
            ran = operator(*args, **options)
        if operator.__name__ == "traverse":  # its frontier, empty unless a bound stopped it
            bounded = options.get("max_steps") is not None or options.get("stop_above") is not None
            self.walks = None if bounded else ran.frontier
        return ran


def _next(frontier: Any) -> Frontier:
    if not isinstance(frontier, Frontier):
        raise LoopError(f"operators.loop: the body returned {frontier!r:.80}; expected the "
                        "next round's frontier (what an advance or a filter returned)")
    return frontier


def _host_loop(graph: Graph, frontier: Frontier, body: Callable, refill: Callable | None,
               state: tuple, max_rounds: int) -> Looped:
    rounds = refills = 0
    refilled = False
    receiver = _HostRounds(graph, frontier)
    while rounds < max_rounds:
        receiver.round = np.int64(rounds)
        if len(frontier) == 0:
            if refill is None or refilled:
                break
            with receiving(receiver):
                frontier = _next(refill(*state))
            refills += 1
            refilled = True
            continue
        with receiving(receiver):
            frontier = _next(body(frontier, *state))
        rounds += 1
        refilled = False
    return Looped(frontier, rounds, refills)


def _traced(trace: _Trace, call: Callable[[], Any], what: str) -> int:
    """Trace ``call`` (the body or the refill) into ``trace``; the index of the frontier it
    returns."""
    with receiving(trace):
        returned = call()
    if not (isinstance(returned, LoopFrontier) and returned.trace is trace
            and returned.index > 0):
        raise LoopError(f"operators.loop: the {what} returned {returned!r:.80}; expected the "
                        f"next round's frontier, made in the {what} by an advance or a filter")
    return returned.index


def loop(graph: Graph, frontier: Frontier, body: Callable[..., Frontier], *state: Any,
         refill: Callable[..., Frontier] | None = None, max_rounds: int | None = None,
         fused: bool = True, blocks: int | None = None) -> Looped:
    """Run ``frontier = body(frontier, *state)`` until the frontier is empty or ``max_rounds``
    rounds ran, as one persistent kernel (see the module docstring for what a fused body may
    call, and ``fused=False`` for the host loop). ``body`` calls the operators on ``graph``
    over the round's frontier and the frontiers its steps make, and returns the next round's
    frontier; ``state`` is passed to it as it is. ``refill(*state)``, if given, runs where the
    frontier is empty (before the first round too) and returns the next round's frontier
    (made from ``"vertices"``); the loop ends when a refill returns an empty one. ``blocks``
    sets the persistent kernel's grid (default: the target's ``persistent_blocks``). Returns
    the frontier the loop ended on, the body's rounds and the refills."""
    check_frontier(graph, frontier)
    if frontier.domain != VERTICES:
        raise LoopError("operators.loop runs over vertex frontiers; expected a vertex frontier")
    for name, fn in (("body", body), ("refill", refill)):
        if not callable(fn) and not (name == "refill" and fn is None):
            raise LoopError(f"operators.loop: {name}={fn!r:.80}; expected a function of "
                            + ("the round's frontier and the state" if name == "body"
                               else "the state"))
    max_rounds = _UNBOUNDED if max_rounds is None else validate.count("max_rounds", max_rounds)
    if blocks is not None:
        validate.count("blocks", blocks, low=1)
    validate.flag("fused", fused)
    if not fused or racecheck.checking():  # the race detector's step is one launch
        return _host_loop(graph, frontier, body, refill, state, max_rounds)
    if frontier.kind != SPARSE:
        frontier = frontier.to_sparse()
    trace = _Trace(graph, frontier)
    returned = {_traced(trace, lambda: body(LoopFrontier(trace, 0), *state), "body")}
    trace.body_steps = len(trace.steps)
    if refill is not None:
        returned.add(_traced(trace, lambda: refill(*state), "refill"))
    return _fused(trace, returned, max_rounds, blocks, refill is not None)


#: No bound on the rounds: the most a kernel's int64 holds.
_UNBOUNDED = int(np.iinfo(np.int64).max)
