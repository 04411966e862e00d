"""traverse: advance until the frontier is empty, fused into one kernel where it can be.

``traverse(G, f, op, *state, ...)`` means ``while f: f = advance(G, f, op, *state, ...)``. A host
loop of advances pays a kernel launch and a device-to-host read of the frontier length per step,
which dominates on graphs with thousands of thin levels (road networks). Fused, the code
generator wraps the balancer's advance body in a persistent kernel: every push step runs inside
one launch, separated by a grid-wide barrier, and the loop ends on the device when the frontier
empties (:class:`operators.phases.FusedPhase`).

``traverse`` is a loop of phases: the call's policy (:mod:`operators.policy`, resolved once from
``balancer=``) decides each step or phase, the decision becomes a phase
(:func:`operators.phases.phase_for`: a fused grid, the small-frontier block, or a host step)
that runs, and the loop keeps the direction (:class:`operators.Direction`) and the stop rules.

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

Under the race detector (:func:`frontier.testing.check_race_free`) every step is a host step
(as with ``fused=False``): its steps are kernel launches, and a fused phase or the
small-frontier mode would run many levels in one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frontier import validate
from frontier.frontier import VERTICES, Frontier
from frontier.graph import Graph
from frontier.options import Cull, Mode, Way
from frontier.runtime import racecheck
from operators.adaptive.rule import Decision
from operators.advance import edge_functors
from operators.balancers import LoadBalancer
from operators.common import OperatorError, check_frontier, oriented
from operators.cull import check_cull
from operators.direction import Direction
from operators.phases import Walk, phase_for
from operators.policy import Policy, resolve_policy
from operators.runs import Runs
from operators.tracing import hands_over

__all__ = ["traverse", "Traversal"]


@dataclass(frozen=True)
class Traversal:
    """The frontier the traversal ended on (empty unless ``max_steps`` or ``stop_above``
    stopped it), the number of advance steps run, each step's host wall time (None for the
    steps of a fused phase, which the host does not see) and each step's
    :class:`operators.adaptive.Decision` (balancer, representation, direction, mode), both
    kept as runs of equal entries (:class:`operators.runs.Runs`: a sequence of one entry per
    step that stores a fused phase's steps once)."""

    frontier: Frontier
    steps: int
    step_seconds: Runs[float | None] = field(default_factory=Runs)
    choices: Runs[Decision] = field(default_factory=Runs)


@hands_over
def traverse(graph: Graph, frontier: Frontier, op: Callable, *state: Any,
             direction: str | Direction = Way.PUSH, condition: Callable | None = None,
             balancer: str | LoadBalancer | Policy = "thread", fused: bool = True,
             max_steps: int | None = None, stop_above: int | None = None,
             blocks: int | None = None, cull: str = Cull.NONE, edges: str = "out") -> Traversal:
    """Advance ``frontier`` with ``op`` (and ``condition``, ``direction``, ``balancer`` as in
    :func:`operators.advance`) step after step until it is empty, ``max_steps`` steps have
    run, or (with ``stop_above``) it holds more than ``stop_above`` elements, returned
    unexpanded. See the module docstring for which steps run fused and which in a host loop.

    ``balancer="auto"`` (or an :class:`operators.balancers.AutoBalancer`, or an
    :class:`operators.policy.AdaptivePolicy`) lets the adaptive runtime
    (:mod:`operators.adaptive`) choose the balancer, the frontier's form and the mode at every
    step, and with ``direction="auto"`` it pulls no frontier of T2 elements or fewer (a copy
    of a passed :class:`Direction` carries that floor; the passed one is left as it was). The
    returned :class:`Traversal` records each step's choice either way.

    ``blocks`` sets the persistent kernel's grid (default: the target's ``persistent_blocks``,
    at most what the GPU holds at once); fewer blocks make the barrier between steps cheaper
    and each step slower. ``cull`` removes repeated heads from each push step's queue
    (:mod:`operators.cull`). ``edges="in"`` walks backward, every step over the edges entering
    the frontier (on ``graph.transpose()``, as :func:`operators.advance` does).
    """
    check_frontier(graph, frontier)
    graph = oriented(graph, frontier, edges)
    check_cull(cull)
    if frontier.domain != VERTICES:
        raise OperatorError("traverse runs over vertex frontiers; advance an edge frontier "
                            "with advance")
    max_steps = _UNBOUNDED if max_steps is None else validate.count("max_steps", max_steps)
    stop_above = (_UNBOUNDED if stop_above is None
                  else validate.count("stop_above", stop_above, low=1))
    if blocks is not None:
        validate.count("blocks", blocks, low=1)
    validate.flag("fused", fused)
    # the race detector's step is one launch: no levels fused into one (frontier.runtime.racecheck)
    fused = fused and not racecheck.checking()
    plan = Direction.of(direction)
    functors = edge_functors(op, condition, len(state))  # one that cannot take the state fails
    policy = resolve_policy(balancer, graph, frontier.target)
    schedule = policy.schedule(frontier.kind, fused)
    if plan.mode == Way.AUTO and policy.min_pull:
        plan = plan.with_min_pull(policy.min_pull)
    # a fused push-only traversal of one balancer reads nothing before it ends, nor does an
    # adaptive one from a queue only the device knows before its first phase
    size = None if plan.mode == Way.PUSH and not schedule.reads_size(frontier) else len(frontier)
    walk = Walk(graph, op, condition, state, cull, blocks, functors)
    n = graph.num_vertices
    steps, seconds, choices = 0, Runs(), Runs()
    small = True  # the small-frontier mode, until a phase of it runs no step
    while steps < max_steps and (size is None or 0 < size <= stop_above):
        way = Way.PUSH if size is None else plan.choose(size, n)
        decision = schedule.decide(frontier, size, way, small=small)
        small = True
        limit = _least(plan.push_limit(n), decision.until)
        bound = stop_above if limit is None else min(limit, stop_above)
        phase = phase_for(decision, max_steps - steps, bound, schedule.hand_back(size, small),
                          blind=size is None)
        ran = phase.run(walk, frontier)
        frontier, size = ran.frontier, ran.size
        steps += ran.steps
        seconds.add(ran.seconds, ran.steps)
        choices.add(decision, ran.steps)
        schedule.advanced(ran.steps)
        if decision.mode == Mode.BLOCK:
            schedule.remeasure()  # it stopped on a large frontier or a hub: measure it
            small = ran.steps > 0
    return Traversal(frontier, steps, seconds, choices)


#: No bound on the steps or the frontier's size: the most a kernel's int64 holds.
_UNBOUNDED = int(np.iinfo(np.int64).max)


def _least(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else min(a, b)
