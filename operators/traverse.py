"""traverse: advance until the frontier is empty, fused into one kernel where it can be.

``traverse(G, f, op, *state, ...)`` means ``while f: f = advance(G, f, op, *state, ...)``. A host
loop of advances pays a kernel launch and a device-to-host read of the frontier length per step,
which dominates on graphs with thousands of thin levels (road networks). Fused, the code
generator wraps the balancer's advance body in a persistent kernel: every push step runs inside
one launch, separated by a grid-wide barrier (Busato & Bombieri, *Graph Algorithms on GPUs*,
inter-block synchronization; a cooperative launch of only as many blocks as the GPU holds at
once), and the loop ends on the device when the frontier empties. On the CPU target the same
text compiles to one sequential loop.

Which steps run where:

* ``direction="push"``: all steps fused (one launch; a balancer's helper kernels, two_phase's
  degree prefix sum, run inside it between grid barriers), unless the balancer cannot fuse
  (``fusable = False``) or ``fused=False``: then a host loop of advances;
* ``direction="pull"``: a host loop of pull advances (each pull step is one launch and one
  read of the frontier's length);
* ``direction="auto"`` (or a :class:`Direction`): the fused push runs until the frontier
  outgrows the direction's push limit, tested on the device after every step; the traversal
  then hands over to the host, which runs pull steps while the direction says pull, and back to
  a fused push phase once it says push again. ``fused=False`` runs every step in the host loop,
  choosing the direction per step.

Push steps keep the input frontier's form (queue or bitmap); pull steps read and produce
bitmaps, converted back to the input's form for the next push phase.

Errors. A fused phase stops at the first step whose output overflowed the sparse queue (the
pool's overflow flag, tested on the device with the frontier's length) and the traversal raises
:class:`frontier.FrontierOverflowError`; it never goes on reading a truncated frontier. A fused
phase that fails part-way (a functor raised) leaves every frontier of the pool stale (its steps
have reused all three slots): a retry raises :class:`frontier.StaleFrontierError` saying so,
instead of reading a half-written slot; a host-loop step that fails leaves the ring as it was
before that step (:func:`operators.common.run_step`). What the functor wrote into the state
arrays before the failure stays written.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frontier import validate
from frontier.frontier import DENSE, SPARSE, Frontier
from frontier.graph import Graph
from frontier.ring import STEPS_RAN, clear_next_slot
from operators.adaptive import BLOCK, FUSED, AdaptivePolicy, Decision, StaticPolicy
from operators.advance import advance, edge_functors, edge_spec
from operators.balancers import LoadBalancer, get_balancer
from operators.codegen import GeneratedKernel, build, indent
from operators.common import OperatorError, check_frontier, for_target
from operators.convention import kernel_arguments
from operators.cull import CULL_PARAMS, check_cull, cull_buffers
from operators.cull import NONE as NO_CULL
from operators.direction import AUTO, PUSH, Direction
from operators.small_frontier import block_push

__all__ = ["traverse", "Traversal", "fused_kernel"]


@dataclass(frozen=True)
class Traversal:
    """The frontier the traversal ended on (empty unless ``max_steps`` or ``stop_above``
    stopped it), the number of advance steps run, each step's host wall time (None for the
    steps of a fused phase, which the host does not see) and each step's
    :class:`operators.adaptive.Decision` (balancer, representation, direction, mode)."""

    frontier: Frontier
    steps: int
    step_seconds: list[float | None] = field(default_factory=list)
    choices: list[Decision] = field(default_factory=list)


def _slot_select(name: str, arrays: str, slot: str) -> str:
    a, b, c = (f"{arrays}{i}" for i in range(3))
    return f"{name} = {a} if {slot} == 0 else ({b} if {slot} == 1 else {c})\n"


def fused_kernel(graph: Graph, frontier: Frontier, op: Callable, condition: Callable | None,
                 num_state: int, balancer: LoadBalancer, cull: str = NO_CULL
                 ) -> GeneratedKernel:
    """The persistent kernel running push steps of ``balancer`` until the frontier is empty,
    ``max_steps`` ran or it holds more than ``stop_above`` elements; with ``cull``, step ``k``
    culls repeats with the stamp ``cull_base + k`` (:mod:`operators.cull`)."""
    kind = frontier.kind
    functors = edge_functors(op, condition, num_state)
    spec = edge_spec("traverse", graph, frontier, kind, num_state, functors, cull=cull)

    def body() -> str:  # built only when the kernel is not cached yet
        barrier = frontier.target.grid_barrier + "\n"
        # a balancer's helper kernels (two_phase's degree prefix sum) run in the step, each
        # over the persistent grid and followed by a grid barrier
        phases = "".join(text + barrier for _, text in balancer.phases(spec))
        # Stop on an overflowed input (a queue longer than its buffer): every thread tests the
        # same length, which no thread changes during the step, so all leave the loop together.
        overflowed = " or lens[in_slot] > ids0.shape[0]" if kind == SPARSE else ""
        # stop_below: hand a frontier that shrank back to the small-frontier mode
        step = (f"if lens[in_slot] == 0 or lens[in_slot] > stop_above{overflowed}"
                " or (step > 0 and lens[in_slot] <= stop_below):\n"
                "    break\n"
                "out_slot = (in_slot + 1) % 3\n"
                "clear_slot = (in_slot + 2) % 3\n"
                + _slot_select("in_ids", "ids", "in_slot")
                + _slot_select("out_ids", "ids", "out_slot")
                + _slot_select("in_words", "words", "in_slot")
                + _slot_select("out_words", "words", "out_slot")
                + _slot_select("clear_words", "words", "clear_slot")
                + f"clear_num_words = {'num_words' if kind == DENSE else '0'}\n"
                + ("cull_stamp = cull_base + step\n" if cull != NO_CULL else "")
                + clear_next_slot() + phases + balancer.advance_body(spec)
                + barrier
                + "in_slot = out_slot\n"
                "step += 1\n")
        return ("in_slot = start_slot\n"
                "step = 0\n"
                "while step < max_steps:\n" + indent(step)
                + "if tid == 0:\n    lens[STEPS_RAN] = step\n")
    return build(frontier.target, balancer, spec, functors, body,
                 balancer.extra_params(spec) + (CULL_PARAMS if cull != NO_CULL else ()))


def _fused_push(graph: Graph, frontier: Frontier, op: Callable, condition: Callable | None,
                state: tuple, balancer: LoadBalancer, max_steps: int, stop_above: int,
                blocks: int | None, cull: str = NO_CULL, stop_below: int = 0
                ) -> tuple[Frontier, int, int]:
    """One fused push phase; returns the frontier it ended on, the steps it ran and the
    frontier's length (read with the step count: one host read in all)."""
    target, pool, kind = frontier.target, frontier.pool, frontier.kind
    cull = cull if kind == SPARSE else NO_CULL
    kernel = fused_kernel(graph, frontier, op, condition, len(state), balancer, cull)
    slots = range(pool.SLOTS)
    io = {"universe": frontier.universe, "num_words": pool.num_words,
          **{f"ids{s}": pool.ids(s) if kind == SPARSE else pool.placeholder_ids for s in slots},
          **{f"words{s}": pool.words(s) if kind == DENSE else pool.placeholder for s in slots},
          "lens": pool.lengths, "start_slot": frontier.slot, "max_steps": max_steps,
          "stop_above": stop_above, "stop_below": stop_below, **cull_buffers(pool, cull),
          **balancer.buffers(kernel.spec, frontier)}
    args = kernel_arguments(kernel.params, graph, target, io, state)
    resident = target.resident_blocks(kernel.threads_per_block)
    grid = min(blocks or target.persistent_blocks(kernel.threads_per_block), resident)
    lengths = pool.run_traversal(
        frontier.slot, lambda: kernel.launch(target, grid, args, cooperative=True),
        "a fused traverse on its pool failed part-way (its steps reuse every slot, so the "
        "frontiers it started from are lost)")
    steps = int(lengths[STEPS_RAN])
    if cull != NO_CULL:
        pool.use_stamps(steps)  # step k used the stamp cull_base + k
    final = (frontier.slot + steps) % pool.SLOTS
    return Frontier(pool, final, kind, pool.adopt(final, kind)), steps, int(lengths[final])


def traverse(graph: Graph, frontier: Frontier, op: Callable, *state: Any,
             direction: str | Direction = PUSH, condition: Callable | None = None,
             balancer: str | LoadBalancer = "thread", fused: bool = True,
             max_steps: int | None = None, stop_above: int | None = None,
             blocks: int | None = None, cull: str = NO_CULL) -> Traversal:
    """Advance ``frontier`` with ``op`` (and ``condition``, ``direction``, ``balancer`` as in
    :func:`operators.advance`) step after step until it is empty, ``max_steps`` steps have
    run, or (with ``stop_above``) it holds more than ``stop_above`` elements, returned
    unexpanded. See the module docstring for which steps run fused and which in a host loop.

    ``balancer="auto"`` (or an :class:`operators.balancers.AutoBalancer`) lets the adaptive
    runtime (:mod:`operators.adaptive`) choose the balancer, the frontier's form and the mode
    at every step, and with ``direction="auto"`` it pulls no frontier of T2 elements or fewer
    (a copy of a passed :class:`Direction` carries that floor; the passed one is left as it
    was). The returned :class:`Traversal` records each step's choice either way.

    ``blocks`` sets the persistent kernel's grid (default: the target's ``persistent_blocks``,
    at most what the GPU holds at once); fewer blocks make the barrier between steps cheaper
    and each step slower. ``cull`` removes repeated heads from each push step's queue
    (:mod:`operators.cull`).
    """
    check_frontier(graph, frontier)
    check_cull(cull)
    if frontier.domain != "vertices":
        raise OperatorError("traverse runs over vertex frontiers; advance an edge frontier "
                            "with advance")
    unbounded = int(np.iinfo(np.int64).max)
    max_steps = unbounded if max_steps is None else validate.count("max_steps", max_steps)
    stop_above = (unbounded if stop_above is None
                  else validate.count("stop_above", stop_above, low=1))
    if blocks is not None:
        validate.count("blocks", blocks, low=1)
    validate.flag("fused", fused)
    plan = Direction.of(direction)
    edge_functors(op, condition, len(state))  # a functor that cannot take the state fails now
    chosen = get_balancer(balancer)
    if chosen.adaptive:
        policy: AdaptivePolicy | StaticPolicy = AdaptivePolicy(graph, frontier.target,
                                                               chosen.thresholds, fused)
        if plan.mode == AUTO:
            plan = plan.with_min_pull(policy.thresholds.t2)
        size = len(frontier)
    else:
        policy = StaticPolicy(for_target(frontier.target, chosen, graph), frontier.kind, fused)
        # a fused push-only traversal reads nothing before it ends
        size = None if policy.fuse and plan.mode == PUSH else len(frontier)
    n = graph.num_vertices
    steps, seconds, choices = 0, [], []
    small = cull == NO_CULL  # the small-frontier mode, until a phase of it runs no step
    while steps < max_steps and (size is None or 0 < size <= stop_above):
        way = PUSH if size is None else plan.choose(size, n)
        decision = policy.decide(frontier, size, way, small=small)
        small = cull == NO_CULL
        if decision.mode in (BLOCK, FUSED):  # a phase of steps on the device
            form = SPARSE if decision.mode == BLOCK else decision.representation
            if frontier.kind != form:
                frontier = frontier.to_dense() if form == DENSE else frontier.to_sparse()
            limit = _least(plan.push_limit(n), decision.until)
            bound = stop_above if limit is None else min(limit, stop_above)
            if decision.mode == BLOCK:
                frontier, ran, size = _block_push(graph, frontier, op, condition, state,
                                                  max_steps - steps, bound,
                                                  decision.until_edges)
                policy.remeasure()  # it stopped on a large frontier or a hub: measure it
                small = ran > 0
            else:
                frontier, ran, size = _fused_push(
                    graph, frontier, op, condition, state, policy.balancer(decision),
                    max_steps - steps, bound, blocks, cull, policy.block_floor(size, small))
            steps += ran
            seconds += [None] * ran
            choices += [decision] * ran
            policy.advanced(ran)
            if ran > 0 or size == 0 or decision.mode == BLOCK:
                continue  # the loop's test ends it: empty, max_steps or stop_above
        bal = policy.balancer(decision)
        start = time.perf_counter()
        frontier = advance(graph, frontier, op, *state, direction=way, condition=condition,
                           balancer=bal,
                           output=decision.representation if way == PUSH else DENSE,
                           cull=cull)
        size = len(frontier)
        steps += 1
        seconds.append(time.perf_counter() - start)
        choices.append(decision)
        policy.advanced(1)
    return Traversal(frontier, steps, seconds, choices)


def _block_push(graph: Graph, frontier: Frontier, op: Callable, condition: Callable | None,
                state: tuple, max_steps: int, stop_above: int, stop_edges: int | None
                ) -> tuple[Frontier, int, int]:
    """A phase of the small-frontier mode (:mod:`operators.small_frontier`)."""
    functors = edge_functors(op, condition, len(state))
    spec = edge_spec("traverse", graph, frontier, SPARSE, len(state), functors)
    return block_push(graph, frontier, functors, spec, state, max_steps, stop_above, stop_edges)


def _least(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else min(a, b)
