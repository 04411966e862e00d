"""The policy of one call: what ``balancer=`` means, resolved once.

``balancer=`` takes a name (``"thread"``, ``"warp:8"``), a :class:`operators.LoadBalancer`,
``"auto"`` (or an :class:`operators.balancers.AutoBalancer` carrying thresholds), or a policy
resolved before. :func:`resolve_policy` turns it, once, at the boundary of an operator or an
algorithm, into one of two policies for a graph and a target:

* :class:`StaticPolicy`: one balancer, bound to the graph and the target (on a target that
  does not spread work over threads, the cpu target, every balancer is the plain loop,
  :class:`NotApplied`, which recordings, ``explain`` and per-step stats show as
  ``"n/a on cpu"``); every push step runs it,
  fused where it can, every pull step is a host step over a bitmap;
* :class:`AdaptivePolicy`: the graph's profile and the target's thresholds, looked up once
  (one look at the calibration cache), and the decision maker
  (:func:`operators.adaptive.decide`) at every step: the adaptive runtime (Li & Becchi,
  *Deploying Graph Algorithms on GPUs: an Adaptive Solution*, §VI).

``advance``, ``traverse`` and the algorithms take the policy itself as ``balancer=`` and resolve
nothing again. A policy holds no traversal's state: :meth:`schedule` starts the decisions of one
traversal (a :class:`Schedule`; the adaptive one samples the frontier's degree sum, Li &
Becchi's §VI.E), so one policy serves every operator call of an algorithm, and calls from
several threads. Every :class:`operators.adaptive.Decision` a policy gives carries its balancer
bound.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from frontier.frontier import DENSE, SPARSE, Frontier
from frontier.graph import Graph
from frontier.options import Mode, Way
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target
from operators.adaptive.profile import GraphProfile, inspect, measure_degree_sum
from operators.adaptive.rule import NEVER, Decision, HandBack, blind, decide
from operators.adaptive.thresholds import Thresholds, thresholds_for
from operators.balancers import (
    AutoBalancer,
    BalancerError,
    LoadBalancer,
    ThreadMapped,
    get_balancer,
)
from operators.common import OperatorError

__all__ = ["Policy", "Schedule", "StaticPolicy", "AdaptivePolicy", "NotApplied", "resolve_policy",
           "bind"]


class Schedule(Protocol):
    """The decisions of one traversal."""

    def reads_size(self, frontier: Frontier) -> bool:
        """Whether the first push decision over ``frontier`` needs its length (a fused static
        balancer reads nothing before it ends; an adaptive one starts blind from a queue whose
        length only the device knows)."""

    def decide(self, frontier: Frontier, size: int | None, way: Way,
               small: bool = True) -> Decision:
        """The next step's decision, over ``frontier`` of ``size`` elements (None: not read)
        going ``way`` (``small=False``: not in the small-frontier mode)."""

    def advanced(self, steps: int) -> None:
        """``steps`` more steps ran since the last decision."""

    def remeasure(self) -> None:
        """The frontier changed in kind: measure it again at the next decision."""

    def hand_back(self, size: int | None, small: bool = True) -> HandBack:
        """When a grid-wide fused phase starting from a frontier of ``size`` (None: not read)
        hands back to the small-frontier mode."""


class Policy(Protocol):
    """What ``balancer=`` means for one call on one graph and target."""

    graph: Graph
    target: Target

    #: The frontier size at or below which a traversal never pulls (0: no floor).
    min_pull: int

    def push_balancer(self, frontier: Frontier) -> LoadBalancer:
        """The bound balancer of one push advance of ``frontier``."""

    def loop_balancer(self) -> LoadBalancer:
        """The bound balancer of every advance of a fused loop."""

    def fuses_rounds(self) -> bool:
        """Whether a loop of rounds over most of the graph runs fused."""

    def schedule(self, kind: str, fused: bool) -> Schedule:
        """The decisions of one traversal starting from a frontier of ``kind``."""


_BOUND: SharedCache[LoadBalancer] = SharedCache("bound balancers")
_NOT_APPLIED: SharedCache[NotApplied] = SharedCache("balancers not applied")


def bind(balancer: str | LoadBalancer, graph: Graph, target: Target) -> LoadBalancer:
    """``balancer`` (a static balancer or its name) bound to ``graph`` and ``target``
    (:meth:`LoadBalancer.bind`); on a target that does not spread work over threads every
    balancer is the plain loop (:class:`NotApplied`; a name is still checked). Kept per
    (balancer, target, the graph's sizes): all that binding depends on."""
    if not target.runs_balancers and isinstance(balancer, LoadBalancer):
        return _not_applied(target)
    key = (balancer, target, graph.num_vertices, graph.num_edges)
    return _BOUND.get(key, lambda: _bind(get_balancer(balancer), graph, target))


def _bind(balancer: LoadBalancer | AutoBalancer, graph: Graph, target: Target) -> LoadBalancer:
    if not isinstance(balancer, LoadBalancer):
        raise BalancerError(f"balancer {balancer!r} is no static balancer")
    return balancer.bind(graph, target) if target.runs_balancers else _not_applied(target)


def _not_applied(target: Target) -> NotApplied:
    """The one :class:`NotApplied` of ``target`` (kernels are looked up by their balancer)."""
    return _NOT_APPLIED.get(target, lambda: NotApplied(target))


class NotApplied(ThreadMapped):
    """Every balancer on a target that does not spread work over threads (the cpu target runs
    one loop over the frontier): that loop, named ``"n/a on <target>"`` where a balancer's name
    is shown (recordings, :func:`operators.explain`, ``frontier explain``, per-step stats), so
    a ``balancer=`` given there is not mistaken for one that ran. Its kernels are the thread
    balancer's, one thread per block."""

    def __init__(self, target: Target) -> None:
        super().__init__(1)
        self.name = target.no_balancer or ThreadMapped.name

    @property
    def slug(self) -> str:
        return ThreadMapped.name

#: The pull steps' balancer (a pull kernel maps one vertex to one thread whatever the policy).
_THREAD = ThreadMapped()


class StaticPolicy:
    """One balancer for every push step; every pull step a host step over a bitmap."""

    min_pull = 0

    def __init__(self, balancer: str | LoadBalancer, graph: Graph, target: Target) -> None:
        self.graph = graph
        self.target = target
        self.balancer = bind(balancer, graph, target)
        #: Per (frontier kind, fused): the schedule, made once (a static one holds no state).
        self._schedules: dict[tuple[str, bool], StaticSchedule] = {}

    def push_balancer(self, frontier: Frontier) -> LoadBalancer:
        return self.balancer

    def loop_balancer(self) -> LoadBalancer:
        """The balancer of every advance of a fused loop (:func:`operators.loop`)."""
        return self.balancer

    def fuses_rounds(self) -> bool:
        """Whether a loop of rounds over most of the graph runs fused (one balancer for every
        round): always, with one balancer named."""
        return True

    def schedule(self, kind: str, fused: bool) -> StaticSchedule:
        """The same push decision at every push step: made once per frontier kind and
        ``fused`` (from any thread: equal schedules, one of them kept)."""
        found = self._schedules.get((kind, fused))
        if found is None:
            found = self._schedules.setdefault((kind, fused), StaticSchedule(self, kind, fused))
        return found

    def __repr__(self) -> str:
        return f"StaticPolicy({self.balancer})"


class StaticSchedule:
    """A static policy's traversal: the same push decision at every push step (no state: one
    schedule serves every traversal of the policy)."""

    def __init__(self, policy: StaticPolicy, kind: str, fused: bool) -> None:
        fuse = fused and policy.balancer.fusable
        self._reads = not fuse
        self._push = Decision(policy.balancer, kind, Way.PUSH, Mode.FUSED if fuse else Mode.HOST)
        self._pull = Decision(bind(_THREAD, policy.graph, policy.target), DENSE, Way.PULL,
                              Mode.HOST)

    def reads_size(self, frontier: Frontier) -> bool:
        return self._reads

    def decide(self, frontier: Frontier, size: int | None, way: Way,
               small: bool = True) -> Decision:
        return self._pull if way == Way.PULL else self._push

    def advanced(self, steps: int) -> None:
        return None

    def remeasure(self) -> None:
        return None

    def hand_back(self, size: int | None, small: bool = True) -> HandBack:
        return NEVER


class AdaptivePolicy:
    """The decision maker fed with the frontier's size and degree sum, under the thresholds of
    the target (the calibration cache read once, here) or the ones given."""

    def __init__(self, graph: Graph, target: Target,
                 thresholds: Thresholds | None = None) -> None:
        self.graph = graph
        self.target = target
        self.profile: GraphProfile = inspect(graph)
        self.thresholds = thresholds if thresholds is not None else thresholds_for(target)
        self.min_pull = int(self.thresholds.t2)
        #: Per ``fused``: the decision on a target that runs every push step as one sequential
        #: loop, whatever the frontier (made once).
        self._sequential = ({} if target.runs_balancers
                            else {f: self._decided(0, 0, False, f) for f in (False, True)})
        #: The first phase over a queue whose length the host does not know (made once).
        self.blind: Decision | None = None
        #: :meth:`loop_policy`, made on first use.
        self._loop: StaticPolicy | None = None
        if target.runs_balancers:
            d = blind(self.profile, self.thresholds)
            self.blind = replace(d, balancer=self._bind(d.balancer))

    def _bind(self, balancer: LoadBalancer) -> LoadBalancer:
        return bind(balancer, self.graph, self.target)

    def pull(self) -> Decision:
        """The decision of a pull step: a host step over a bitmap."""
        return Decision(self._bind(_THREAD), DENSE, Way.PULL, Mode.HOST)

    def decide(self, size: int, degree_sum: int, small: bool, fused: bool) -> Decision:
        """The push decision for a frontier of ``size`` elements and ``degree_sum`` out-edges
        (``small=False``: not in the small-frontier mode; ``fused=False``: a host step), its
        balancer bound."""
        if not self.target.runs_balancers:
            return self._sequential[fused]
        return self._decided(size, degree_sum, small, fused)

    def _decided(self, size: int, degree_sum: int, small: bool, fused: bool) -> Decision:
        d = decide(self.profile, size, degree_sum, self.thresholds, self.target.runs_balancers,
                   small and fused)
        if d.balancer is None:
            return d
        return replace(d, balancer=self._bind(d.balancer), mode=d.mode if fused else Mode.HOST)

    def push_balancer(self, frontier: Frontier) -> LoadBalancer:
        """The balancer for one push advance: one read of the frontier's length and one
        measurement of its degree sum; nothing read on a target that runs every balancer as the
        same sequential loop (the decision is that loop whatever the frontier)."""
        if not self.target.runs_balancers:
            return self.decide(0, 0, False, False).balancer
        size = len(frontier)
        degree_sum = measure_degree_sum(self.graph, frontier, size)
        return self.decide(size, degree_sum, False, False).balancer

    def loop_balancer(self) -> LoadBalancer:
        """The balancer of every advance of a fused loop (:func:`operators.loop`), whose
        frontiers the host never sees: ``thread`` on a graph whose every vertex has fewer than
        ``t1`` out-arcs (road networks, meshes: a thread a vertex is balanced), else the blind
        start's
        ``dynamic_warp`` (its virtual warps follow the frontier, its blocks gather hubs); the
        sequential loop where the target runs one thread."""
        if not self.target.runs_balancers:
            return self.decide(0, 0, False, True).balancer
        if self.thin:
            return self._bind(_THREAD)
        return self.blind.balancer

    def loop_policy(self) -> StaticPolicy:
        """The static policy of :meth:`loop_balancer` on this policy's graph and target (a
        batch of sources runs its traversal under it, :meth:`operators.sources.Batch.policy`):
        made once per adaptive policy, as the balancer does not change (a policy holds no
        call's state; two threads asking first make equal ones, and one is kept)."""
        found = self._loop
        if found is None:
            found = self._loop = StaticPolicy(self.loop_balancer(), self.graph, self.target)
        return found

    def fuses_rounds(self) -> bool:
        """Whether a loop of rounds over most of the graph (an independent set's, a
        colouring's) runs fused, one balancer for every round: on a graph whose every vertex has
        fewer than ``t1`` out-arcs, where a round's launches and reads cost more than its work;
        on one with hubs each round's advance is decided from its frontier on the host, as a
        traversal's steps are (the rounds of a hub-heavy graph cost their work, and the
        balancer that suits the first, widest rounds is not the one that suits the last; a
        round's neighbour folds spread their hubs over the grid either way,
        :mod:`operators.folds`)."""
        return not self.target.runs_balancers or self.thin

    @property
    def thin(self) -> bool:
        """Every vertex has fewer than ``t1`` out-arcs."""
        return self.profile.max_degree < self.thresholds.t1

    def schedule(self, kind: str, fused: bool) -> AdaptiveSchedule:
        return AdaptiveSchedule(self, fused)

    def __repr__(self) -> str:
        return f"AdaptivePolicy({self.thresholds})"


class AdaptiveSchedule:
    """An adaptive policy's traversal: the degree sum is measured (one reduction over the
    frontier, or a read of a small queue) at the first decision and then every
    ``sample_every`` steps, and estimated from the frontier's size and the last measured mean
    degree in between (Li & Becchi's sampling, §VI.E, §VII.B). A fused traversal from a queue
    whose length only the device knows starts blind (:func:`operators.adaptive.blind`), reading
    nothing before its first launch."""

    def __init__(self, policy: AdaptivePolicy, fused: bool) -> None:
        self.policy = policy
        self.fused = fused
        self._mean = policy.profile.mean_degree
        self._since_sample: int | None = None

    def reads_size(self, frontier: Frontier) -> bool:
        return self.policy.blind is None or not self.fused or frontier.kind != SPARSE or (
            frontier.known_ids() is not None)

    def decide(self, frontier: Frontier, size: int | None, way: Way,
               small: bool = True) -> Decision:
        if size is None:
            return self.policy.blind
        if way == Way.PULL:
            self._since_sample = None  # the frontier after a pull is another population
            return self.policy.pull()
        if not self.policy.target.runs_balancers:  # one sequential loop, whatever the degrees
            return self.policy.decide(size, 0, small, self.fused)
        return self.policy.decide(size, self.degree_sum(frontier, size), small, self.fused)

    def remeasure(self) -> None:
        self._since_sample = None

    def hand_back(self, size: int | None, small: bool = True) -> HandBack:
        """For a phase that started above ``block_frontier`` (one that started below it did so
        for its degrees: it keeps going), once its frontier has stayed at half of it or below
        for ``hand_back_steps`` steps in a row: hysteresis both ways, since a hand-over costs a
        launch and a read, and a grid-wide step only a few µs more than a one-block step (a
        short tail runs on in the grid, a long one hands back after paying about one
        hand-over's worth). A blind start (``size`` None) counts as one from above."""
        if not (small and self.fused and self.policy.target.runs_balancers):
            return NEVER
        limits = self.policy.thresholds
        limit = int(limits.block_frontier)
        if size is not None and size <= limit:
            return NEVER
        return HandBack(limit // 2, int(limits.hand_back_steps))

    def degree_sum(self, frontier: Frontier, size: int) -> int:
        """The frontier's out-edges: measured at the first call and every ``sample_every``
        steps after, estimated from the last measured mean degree in between."""
        every = self.policy.thresholds.sample_every
        if self._since_sample is not None and self._since_sample < every:
            return int(round(size * self._mean))
        measured = measure_degree_sum(self.policy.graph, frontier, size)
        self._mean = measured / max(size, 1)
        self._since_sample = 0
        return measured

    def advanced(self, steps: int) -> None:
        if self._since_sample is not None:
            self._since_sample += steps


def resolve_policy(balancer: str | LoadBalancer | AutoBalancer | Policy, graph: Graph,
                   target: Target) -> Policy:
    """The policy ``balancer`` means on ``graph`` and ``target`` (see the module docstring);
    a policy is returned as it is, when it was resolved for this graph and target. Raises
    :class:`operators.BalancerError` for an unknown name or a bad parameter."""
    if isinstance(balancer, (StaticPolicy, AdaptivePolicy)):
        if balancer.graph is not graph or balancer.target is not target:
            raise OperatorError(f"balancer={balancer!r} was resolved for another "
                                f"{'graph' if balancer.graph is not graph else 'target'}; "
                                "resolve it for this one (operators.resolve_policy)")
        return balancer
    if isinstance(balancer, str) and balancer != AutoBalancer.name:  # parsed once per graph size
        return StaticPolicy(balancer, graph, target)
    chosen = get_balancer(balancer)
    if isinstance(chosen, AutoBalancer):
        return _adaptive(graph, target, chosen.thresholds)
    return StaticPolicy(chosen, graph, target)


def _adaptive(graph: Graph, target: Target, thresholds: Thresholds | None) -> AdaptivePolicy:
    """The adaptive policy of ``graph`` and ``target`` under ``thresholds`` (None: the
    target's, :func:`thresholds_for`), kept with the graph while they are the same object (a
    policy holds nothing of a call: its schedule does)."""
    if thresholds is None:
        thresholds = thresholds_for(target)
    kept = graph.memo(_ADAPTIVE, dict)  # per target identity: the last policy made
    identity = target.identity
    last = kept.get(identity)
    if last is not None and last.thresholds is thresholds:
        return last
    kept[identity] = policy = AdaptivePolicy(graph, target, thresholds)
    return policy


#: The graph's memo of its adaptive policies (:func:`_adaptive`).
_ADAPTIVE = "adaptive policies"
