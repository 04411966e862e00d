"""loop: a round of operator calls, written by the user, run round after round inside one
persistent kernel.

``loop(G, F, body, *state)`` means::

    while F:                    # and fewer than max_rounds rounds
        F = body(F, *state)

where ``body`` calls the operators over the round's frontiers and returns the next frontier.
Run from the host, every operator call of a round is a launch (25-40 µs of host time) and the
test ``while F`` a device read. Fused, the loop calls ``body`` once, with stand-ins for the
frontiers (:class:`LoopFrontier`): each operator called in it hands its call to the loop
(:mod:`operators.tracing`), which records it as a step. The code generator then composes the
steps into one kernel: each step's text is the one its operator launches (the balancer's
advance, filter's keep loop, compute's call, neighbor_reduce's fold), a grid barrier after each
(Busato & Bombieri, *Graph Algorithms on GPUs*, inter-block synchronization, as
:func:`operators.traverse` fuses its advances), and the round's test on the device: the loop
ends when the frontier the body returns is empty, after ``max_rounds`` rounds, or when a queue
overflowed (:class:`frontier.FrontierOverflowError`, as the host loop's step raises). The host
reads the lengths once, at the end. A launch of one block waits at block barriers instead; on
the cpu target the same text compiles to one sequential loop.

The frontiers: the round's input and the frontier the body returns take the slots of the input
frontier's pool in ring order (round ``r`` reads slot ``s + r`` and writes ``s + r + 1``, its
thread 0 clearing ``s + r + 2`` for the next round, as a ring step does); each other frontier
the body makes is a queue of the pool's capacity of its own, its length in one of three
rotating rows of the pool's length array (row ``r % 3`` written in round ``r``, row
``(r + 1) % 3`` cleared by thread 0 during it: no barrier more).

What a fused body may call:

* ``advance``: push, a queue or no output, a condition, any balancer (every advance of a body
  with the same block size: the kernel's); ``balancer="auto"`` takes the balancer the adaptive
  runtime starts a traversal with when it cannot see the frontier
  (:func:`operators.adaptive.blind`);
* ``filter``: a queue or no output;
* ``compute`` over a frontier of the body, ``"vertices"``, ``"edges"`` or a count;
* ``neighbor_reduce`` over a frontier of the body or ``"vertices"``, with the folds of
  :data:`operators.neighbors.NEIGHBOR_REDUCTIONS`.

What needs the host is refused with :class:`LoopError` naming the step: ``reduce`` (its value
goes to the host), reading a frontier of the body (``len(F)``, ``F.to_numpy()``), pull or
auto direction, bitmap output, ``cull``, ``unique``, a frontier made outside the body, another
graph. ``fused=False`` runs the body as the host loop instead: every call a launch, the same
results, and what the fused loop is tested against; the race detector runs the host loop (its
step is a launch).

The body runs once when fused: Python code in it besides the operator calls runs once, while
the loop learns the steps, and the state the functors read changes between rounds only on the
device. A number that changes per round is :data:`ROUND`, passed as a state argument: the
functor receives the round (an int64, 0 first).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frontier import racecheck, validate
from frontier.frontier import EDGES, SPARSE, VERTICES, Frontier
from frontier.graph import Graph
from frontier.options import Mode
from frontier.ring import LOOP_LENGTHS, STEPS_RAN
from operators.advance import edge_functors
from operators.balancers import LoadBalancer
from operators.codegen import (
    NONE,
    RANGE,
    GeneratedKernel,
    KernelIO,
    KernelSpec,
    build,
    for_each_input,
)
from operators.common import EDGE_SETS, OperatorError, check_frontier
from operators.convention import kernel_arguments, scalar_arguments
from operators.direction import PUSH, Direction
from operators.filter import keep_body
from operators.functors import Functor, as_functor
from operators.neighbors import (
    NEIGHBOR_REDUCTIONS,
    check_out_dtype,
    fold_body,
    target_of,
)
from operators.policy import AdaptivePolicy, resolve_policy
from operators.reduce import identity_of, op_named
from operators.shape import LaunchShape, grid_blocks, per_element
from operators.tracing import ROUND, receiving

__all__ = ["loop", "Looped", "LoopError", "LoopFrontier", "ROUND"]


class LoopError(OperatorError):
    """A loop body that the fused loop cannot run: a step needs the host, or an argument does
    not fit a fused loop (the message names the step)."""


@dataclass(frozen=True)
class Looped:
    """What :func:`loop` ran: the frontier it ended on (empty unless ``max_rounds`` stopped
    it) and the rounds."""

    frontier: Frontier
    rounds: int


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


@dataclass(frozen=True)
class _Step:
    """One operator call of the body: what it reads (a frontier's index, or a range: "vertices",
    "edges" or a count), the functors by the names its kernel calls them, its state, the
    frontier it makes (an index, or None), and what else its text depends on."""

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


@dataclass
class _Trace:
    """The steps of one body, learned by calling it once with :class:`LoopFrontier` stand-ins
    (the operators hand their calls to :meth:`call`)."""

    graph: Graph
    frontier: Frontier
    steps: list[_Step] = field(default_factory=list)

    def call(self, operator: Callable, args: tuple, options: dict[str, Any]) -> Any:
        name = operator.__name__
        where = f"step {len(self.steps)} ({name})"
        record = _RECORDERS.get(name)
        if record is None:
            raise LoopError(f"operators.loop: {where} returns a value to the host, which a "
                            "fused loop cannot (pass fused=False for a host loop)")
        graph, source, fn, *state = args
        if graph is not self.graph and not (graph is None and name == "compute"):
            raise LoopError(f"operators.loop: {where} runs on another graph; every step of a "
                            "fused loop runs on the loop's graph")
        for value in state:
            if isinstance(value, (LoopFrontier, Frontier)):
                raise LoopError(f"operators.loop: {where} takes a frontier as a state "
                                "argument; expected arrays and numbers")
        step = record(self, where, source, fn, tuple(state), **options)
        self.steps.append(step)
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
    if Direction.of(direction).mode != PUSH:
        raise LoopError(f"operators.loop: {where} has direction={direction!r}; a fused loop "
                        "pushes (a pull reads a bitmap the host converts)")
    if cull != NONE:
        raise LoopError(f"operators.loop: {where} has cull={cull!r}; expected 'none' in a "
                        "fused loop")
    if edges not in EDGE_SETS or (edges == "in" and trace.graph.directed):
        raise LoopError(f"operators.loop: {where} has edges={edges!r}; a fused loop advances "
                        "over the edges leaving the frontier (advance over graph.transpose() "
                        "in a loop of its own)")
    functors = edge_functors(fn, condition, len(state))
    return _Step("advance", index, 0, functors, state, trace.output(where, output),
                 _fused_balancer(balancer, trace, where))


def _filter(trace: _Trace, where: str, source: Any, fn: Callable, state: tuple, *,
            unique: bool, output: str | None) -> _Step:
    index, _ = trace.source(where, source)
    if validate.flag("unique", unique):
        raise LoopError(f"operators.loop: {where} has unique=True; expected unique=False in a "
                        "fused loop (remove repeats in the functor, e.g. with atomic_cas)")
    functor = as_functor(fn, "filter predicate", ("v",), len(state))
    return _Step("filter", index, 0, {"functor": functor}, state, trace.output(where, output))


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
    return _Step("neighbor_reduce", index, count, {"functor": functor}, state, op=op,
                 edges=edges, out=out, identity=identity_of(op, out.dtype))


_RECORDERS: dict[str, Callable[..., _Step]] = {
    "advance": _advance, "filter": _filter, "compute": _compute,
    "neighbor_reduce": _neighbor_reduce}


def _fused_balancer(balancer: Any, trace: _Trace, where: str) -> LoadBalancer:
    """The balancer of a fused advance: a named one as it is; the adaptive policy's choice for
    a frontier it cannot see (the blind start of a traversal on a GPU, the sequential loop on
    the cpu target)."""
    graph, target = trace.graph, trace.frontier.target
    policy = resolve_policy(balancer, graph, target)
    if isinstance(policy, AdaptivePolicy):
        return (policy.blind or policy.decide(0, 0, False, True)).balancer
    chosen = policy.push_balancer(trace.frontier)
    if not chosen.fusable:
        raise LoopError(f"operators.loop: {where} has balancer={chosen}, which cannot run "
                        "inside a persistent kernel; expected a fusable balancer")
    return chosen


# the kernel ------------------------------------------------------------------------------------
class _Names:
    """The kernel's names: each distinct state object (by identity) ``s0, s1, ...``, the
    round ``loop_round``; the frontiers' queues and length slots."""

    def __init__(self, steps: list[_Step], returned: int) -> None:
        self.state: dict[int, tuple[str, Any]] = {}
        for step in steps:
            for value in (*step.state, step.out):
                if value is not None and value is not ROUND and id(value) not in self.state:
                    self.state[id(value)] = (f"s{len(self.state)}", value)
        self.returned = returned
        made = [s.output for s in steps if s.output is not None]
        #: The body's own frontiers (neither the input nor the returned one), by index: their
        #: position in a row of lengths.
        self.mids = {index: k for k, index in enumerate(i for i in made if i != returned)}

    def of(self, value: Any) -> str:
        return "loop_round" if value is ROUND else self.state[id(value)][0]

    def queue(self, index: int) -> tuple[str, str]:
        """The queue and the length slot of frontier ``index``, as kernel expressions."""
        if index in self.mids:
            return f"mid{index}", f"loop_row + {self.mids[index]}"
        slot = "loop_in" if index == 0 else "loop_out"
        return f"ids0 if {slot} == 0 else (ids1 if {slot} == 1 else ids2)", slot


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
    if step.operator == "advance":
        return KernelSpec("advance", SPARSE, output, condition="condition" in functors,
                          variant=wiring, io=KernelIO.STEP, **common)
    if step.operator == "filter":
        return KernelSpec("filter", SPARSE, output, variant=wiring, io=KernelIO.STEP, **common)
    if step.operator == "compute":
        return KernelSpec("compute", kind, NONE, domain=domain, variant=wiring, io=io, **common)
    return KernelSpec("neighbors", kind, NONE, csc=step.edges == "in",
                      variant=f"{wiring}_{step.edges}_{step.op}_into_{names.of(step.out)}",
                      io=io, **common)


#: The count of a range a step reads, by the range's name (a count of its own: ``count{i}``).
_COUNTS = {"vertices": "num_vertices", "edges": "num_edges"}


def _step_text(step: _Step, i: int, spec: KernelSpec, names: _Names, barrier: str) -> str:
    """Step ``i``'s statements: its frontiers bound to the names its operator's text reads,
    then that text, then ``barrier``."""
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
        balancer = step.balancer
        text += "".join(body + barrier for _, body in balancer.phases(spec))
        text += balancer.advance_body(spec)
    elif step.operator == "filter":
        text += keep_body(spec)
    elif step.operator == "compute":
        text += for_each_input(spec, "v", spec.call("functor", "v") + "\n")
    else:
        text += for_each_input(spec, "v", fold_body(spec, step.edges, step.op,
                                                    names.of(step.out), f"identity{i}"))
    return text + barrier


def _round_text(steps: list[_Step], specs: list[KernelSpec], names: _Names,
                barrier: str) -> str:
    """Every round: the stop test (all threads read lengths no thread writes in the round),
    the slots, thread 0 clearing the next round's, the steps."""
    rows = len(names.mids)
    overflowed = "".join(
        f" or (loop_round > 0 and lens[{LOOP_LENGTHS} + ((loop_round + 2) % 3) * {rows} + "
        f"{k}] > mid{index}.shape[0])" for index, k in names.mids.items())
    clear = (f"    nxt = {LOOP_LENGTHS} + ((loop_round + 1) % 3) * {rows}\n"
             f"    for j in range({rows}):\n"
             "        lens[nxt + j] = 0\n") if rows else ""
    text = ("loop_in = (start_slot + loop_round) % 3\n"
            f"if lens[loop_in] == 0 or lens[loop_in] > ids0.shape[0]{overflowed}:\n"
            "    break\n"
            "loop_out = (loop_in + 1) % 3\n"
            f"loop_row = {LOOP_LENGTHS} + (loop_round % 3) * {rows}\n"
            "if tid == 0:\n"
            "    lens[(loop_in + 2) % 3] = 0\n" + clear)
    for i, (step, spec) in enumerate(zip(steps, specs, strict=True)):
        text += _step_text(step, i, spec, names, barrier)
    return text + "loop_round += 1\n"


def _shape(steps: list[_Step], tgt: Any) -> LaunchShape:
    """The kernel's launch shape: its advances' block size (one for all), the globals of
    every balancer."""
    balancers = {step.balancer for step in steps if step.balancer is not None}
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


def _kernel(trace: _Trace, names: _Names, one_block: bool) -> tuple[GeneratedKernel, list]:
    graph, tgt = trace.graph, trace.frontier.target
    steps = trace.steps
    specs = [_spec(graph, step, i, names) for i, step in enumerate(steps)]
    barrier = (tgt.block_barrier if one_block else tgt.grid_barrier) + "\n"
    extra = tuple(dict.fromkeys(
        [f"mid{index}" for index in names.mids]
        + [f"count{i}" for i, s in enumerate(steps) if s.source == "count"]
        + [f"identity{i}" for i, s in enumerate(steps) if s.operator == "neighbor_reduce"]
        + [p for s, spec in zip(steps, specs, strict=True) if s.balancer is not None
           for p in s.balancer.extra_params(spec)]))
    spec = KernelSpec("loop", SPARSE, SPARSE, graph.weighted, len(names.state),
                      graph_view=any(s.graph_view for s in specs),
                      csc=any(s.needs_csc for s in specs),
                      variant="_block" if one_block else "", io=KernelIO.LOOP,
                      steps=tuple(specs))
    functors = {f"step{i}_{name}": f for i, step in enumerate(steps)
                for name, f in step.functors.items()}
    mids = len(names.mids)

    def body() -> str:
        clear = (f"for j in range(tid, {3 * mids}, nthreads):\n"
                 f"    lens[{LOOP_LENGTHS} + j] = 0\n" + barrier) if mids else ""
        return (clear + "loop_round = 0\n"
                "while loop_round < max_rounds:\n"
                + _indent(_round_text(steps, specs, names, barrier))
                + "if tid == 0:\n    lens[STEPS_RAN] = loop_round\n")

    kernel = build(tgt, _shape(steps, tgt), spec, functors, body, extra,
                   name=f"loop{len(steps)}{spec.variant}__"
                        + "_".join(f.name for f in functors.values())[:80])
    return kernel, specs


def _indent(text: str) -> str:
    return "".join("    " + line + "\n" for line in text.splitlines())


def _fused(trace: _Trace, returned: int, max_rounds: int, blocks: int | None) -> Looped:
    graph, frontier = trace.graph, trace.frontier
    tgt, pool = frontier.target, frontier.pool
    names = _Names(trace.steps, returned)
    pool.make_room(3 * len(names.mids))
    threads = _shape(trace.steps, tgt).threads_per_block
    grid = min(blocks or tgt.persistent_blocks(threads), tgt.resident_blocks(threads),
               grid_blocks(tgt, threads, max(graph.num_vertices, 1)))
    one_block = grid == 1 and tgt.block_barrier != tgt.grid_barrier
    kernel, specs = _kernel(trace, names, one_block)
    io: dict[str, Any] = {
        "universe": frontier.universe, "lens": pool.lengths, "start_slot": frontier.slot,
        "max_rounds": max_rounds, **{f"ids{s}": pool.ids(s) for s in range(pool.SLOTS)},
        **{f"mid{index}": pool.scratch(f"loop frontier {k}", pool.capacity, np.int32)
           for index, k in names.mids.items()}}
    for i, (step, spec) in enumerate(zip(trace.steps, specs, strict=True)):
        io.update(scalar_arguments({f"step{i}_{n}": f for n, f in step.functors.items()}))
        if step.source == "count":
            io[f"count{i}"] = step.count
        if step.identity is not None:
            io[f"identity{i}"] = step.identity
        if step.balancer is not None:
            io.update(step.balancer.buffers(spec, frontier))
    state = tuple(value for _, value in names.state.values())
    args = kernel_arguments(kernel.params, graph, tgt, io, state)
    lengths = pool.run_traversal(
        frontier.slot, lambda: kernel.launch(tgt, grid, args, cooperative=grid > 1,
                                             mode=Mode.FUSED),
        "a fused loop on its pool failed part-way (its rounds reuse every slot, so the "
        "frontiers it started from are lost)")
    rounds = int(lengths[STEPS_RAN])
    final = (frontier.slot + rounds) % pool.SLOTS
    return Looped(Frontier(pool, final, SPARSE, pool.adopt(final, SPARSE, "a fused loop")),
                  rounds)


class _HostRounds:
    """The host loop's receiver: runs each operator call for real, with the round number in
    place of :data:`ROUND`."""

    def __init__(self) -> None:
        self.round = np.int64(0)

    def call(self, operator: Callable, args: tuple, options: dict[str, Any]) -> Any:
        args = tuple(self.round if a is ROUND else a for a in args)
        with receiving(None):
            return operator(*args, **options)


def _host_loop(frontier: Frontier, body: Callable, state: tuple, max_rounds: int) -> Looped:
    rounds = 0
    receiver = _HostRounds()
    while rounds < max_rounds and len(frontier) > 0:
        receiver.round = np.int64(rounds)
        with receiving(receiver):
            nxt = body(frontier, *state)
        if not isinstance(nxt, Frontier):
            raise LoopError(f"operators.loop: the body returned {nxt!r:.80}; expected the "
                            "next round's frontier (what an advance or a filter returned)")
        frontier = nxt
        rounds += 1
    return Looped(frontier, rounds)


def loop(graph: Graph, frontier: Frontier, body: Callable[..., Frontier], *state: Any,
         max_rounds: int | None = None, fused: bool = True, blocks: int | None = None
         ) -> Looped:
    """Run ``frontier = body(frontier, *state)`` until the frontier is empty or ``max_rounds``
    rounds ran, as one persistent kernel (see the module docstring for what a fused body may
    call, and ``fused=False`` for the host loop). ``body`` calls the operators on ``graph``
    over the round's frontier and the frontiers its steps make, and returns the next round's
    frontier; ``state`` is passed to it as it is. ``blocks`` sets the persistent kernel's grid
    (default: the target's ``persistent_blocks``). Returns the frontier the loop ended on and
    the rounds it ran."""
    check_frontier(graph, frontier)
    if frontier.domain != VERTICES:
        raise LoopError("operators.loop runs over vertex frontiers; expected a vertex frontier")
    if not callable(body):
        raise LoopError(f"operators.loop: body={body!r:.80}; expected a function of the "
                        "round's frontier and the state")
    max_rounds = _UNBOUNDED if max_rounds is None else validate.count("max_rounds", max_rounds)
    if blocks is not None:
        validate.count("blocks", blocks, low=1)
    validate.flag("fused", fused)
    if not fused or racecheck.checking():  # the race detector's step is one launch
        return _host_loop(frontier, body, state, max_rounds)
    if frontier.kind != SPARSE:
        frontier = frontier.to_sparse()
    trace = _Trace(graph, frontier)
    with receiving(trace):
        returned = body(LoopFrontier(trace, 0), *state)
    if not (isinstance(returned, LoopFrontier) and returned.trace is trace
            and returned.index > 0):
        raise LoopError(f"operators.loop: the body returned {returned!r:.80}; expected the "
                        "next round's frontier, made in the body by an advance or a filter")
    return _fused(trace, returned.index, max_rounds, blocks)


#: No bound on the rounds: the most a kernel's int64 holds.
_UNBOUNDED = int(np.iinfo(np.int64).max)
