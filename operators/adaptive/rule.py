"""The decision maker: what one push step runs, as a pure function of the frontier's size, its
degree sum (its out-edges: the work of a push step), the graph's profile and the thresholds
(Li & Becchi, *Deploying Graph Algorithms on GPUs: an Adaptive Solution*, §VI). It extends
Li & Becchi's decision space (their Fig. 11) to the seven balancers:

- a small queue (at most ``block_frontier`` vertices and ``block_edges`` out-edges) runs its
  levels inside one thread block, the small-frontier mode (:mod:`operators.small_frontier`);
- a step whose degree sum reaches ``hub_edges`` (enough edges for every thread of the GPU),
  or whose frontier's mean degree reaches ``hub_degree`` (hubs: the star's centre, rmat's
  first level, which a block-wide gather would leave to one block), splits its edges evenly
  over every thread: ``two_phase`` (Busato & Bombieri, §5.3.4). With ``host_edges`` or
  more it is a host-loop step (launches over the whole GPU, small against such a step), with
  fewer a fused one (its degree prefix sum inside the persistent kernel) until the degree sum
  would reach ``host_edges``;
- otherwise a mean frontier degree of at least ``t1`` (Li & Becchi's T1 = 32, a warp) gets
  ``dynamic_warp``, whose virtual-warp width follows |F| and whose blocks gather hubs
  (Busato & Bombieri, §5.2.1, BFS-4K);
- a frontier smaller than ``t2`` (Li & Becchi's T2: threads per block x multiprocessors, the
  size below which thread mapping leaves the GPU idle, where they take block mapping) gets
  virtual warps (``warp``), which measured best on road networks and meshes
  (docs/balancers.md);
- a larger frontier of thin vertices gets one thread per vertex (``thread``);
- the frontier is a bitmap above ``t3`` x |V| (Li & Becchi's T3 = 6 %) and above ``t2`` (on
  small graphs a conversion costs more than a short queue), a queue below;
- the mode is ``"fused"`` (the steps run in one persistent kernel until the frontier leaves
  the decision's range, ``Decision.until``) for the balancers that can fuse, ``"host"``
  (one launch sequence and one read per step) otherwise;
- a queue whose length the host does not know (made on the device: a filter's output, a
  peeling round's claimed vertices) starts blind (:func:`blind`): ``dynamic_warp``, fused,
  over the sizes where a frontier of the graph's mean degree stays under ``host_edges`` and a
  queue, for at most ``blind_steps`` steps, with no read of its length or degree sum first;
  the kernel stops at once on a frontier outside that range, whose length its read then
  gives;
- a target that runs every balancer as one sequential loop (the CPU) takes that loop over a
  queue in one fused phase for every step: the loop touches only the frontier's vertices,
  where a bitmap costs a scan of |V| / 32 words per step and a conversion (docs/adaptive.md,
  "Mode", has the measurement).

The balancers are not named here: each step above falls in a :class:`operators.balancers.Regime`
(hubs, heavy, small, thin, blind, sequential) and runs the registered balancer whose class
serves it (``LoadBalancer.serves``; the names above are today's).

The direction is not the rule's: it is the caller's :class:`operators.Direction`, a pull step
being a host-loop step over a bitmap. The rule names the balancer as a technique (unbound); the
policy that asked binds it to the graph and the target (:mod:`operators.policy`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from frontier.options import Kind, Mode, Way
from operators.adaptive.profile import GraphProfile
from operators.adaptive.thresholds import Thresholds
from operators.balancers import LoadBalancer, Regime, serving
from operators.small_frontier import BLOCK_LOCAL, CAPACITY

__all__ = ["Decision", "HandBack", "NEVER", "decide", "blind"]

#: What runs each regime's steps, from the balancers' declared traits.
_RUNS = {regime: serving(regime) for regime in Regime}


@dataclass(frozen=True)
class Decision:
    """What one step runs: the load balancer (None in the small-frontier mode, which has a
    kernel of its own), the frontier's representation (``"sparse"`` queue or ``"dense"``
    bitmap), the direction (``"push"``/``"pull"``) and the mode (``"fused"``/``"host"``/
    ``"block"``). ``until``: the largest frontier the decision holds for (a fused phase stops
    above it; None: no bound); ``until_edges``: for the small-frontier mode, the largest degree
    sum of a level it runs; ``steps``: the most steps it holds for (None: no bound). The
    decision maker names the balancer; a policy's decisions carry it bound to the graph and the
    target."""

    balancer: LoadBalancer | None
    representation: Kind
    direction: Way
    mode: Mode
    until: int | None = None
    until_edges: int | None = None
    steps: int | None = None

    @property
    def label(self) -> str:
        """The name of what runs the step: the balancer's technique (``"warp"``), or
        ``"block_local"`` for the small-frontier mode."""
        return BLOCK_LOCAL if self.balancer is None else self.balancer.name


class HandBack(NamedTuple):
    """When a grid-wide fused phase hands its frontier back to the small-frontier mode: once
    it has held ``below`` elements or fewer for ``steps`` steps in a row (``below`` 0: never)."""

    below: int
    steps: int


#: A fused phase that never hands back.
NEVER = HandBack(0, 1)


def decide(profile: GraphProfile, size: int, degree_sum: int, thresholds: Thresholds,
           spreads: bool = True, small: bool = True) -> Decision:
    """The push step for a frontier of ``size`` vertices with ``degree_sum`` out-edges
    (deterministic: the same inputs give the same decision). ``spreads`` is False on a target
    that runs every balancer as one sequential loop (the CPU): the decision is then the loop.
    ``small=False`` leaves out the small-frontier mode."""
    push, fused, host = Way.PUSH, Mode.FUSED, Mode.HOST
    if not spreads:
        return Decision(_RUNS[Regime.SEQUENTIAL], Kind.SPARSE, push, fused)
    bitmap_from = max(thresholds.t3 * profile.num_vertices, thresholds.t2)
    dense = size > bitmap_from
    representation = Kind.DENSE if dense else Kind.SPARSE
    limit_t3 = None if dense else int(bitmap_from)
    block_frontier = min(int(thresholds.block_frontier), CAPACITY)
    if small and size <= block_frontier and degree_sum <= thresholds.block_edges:
        return Decision(None, Kind.SPARSE, push, Mode.BLOCK, block_frontier,
                        int(thresholds.block_edges))
    mean = degree_sum / max(size, 1)
    if degree_sum >= thresholds.hub_edges or mean >= thresholds.hub_degree:
        if degree_sum >= thresholds.host_edges:
            return Decision(_RUNS[Regime.HUBS], representation, push, host)
        until = int(thresholds.host_edges / mean)
        return Decision(_RUNS[Regime.HUBS], representation, push, fused,
                        _least(until, limit_t3))
    if mean >= thresholds.t1:
        until = int(thresholds.hub_edges / mean)
        return Decision(_RUNS[Regime.HEAVY], representation, push, fused,
                        _least(until, limit_t3))
    if size < thresholds.t2:
        return Decision(_RUNS[Regime.SMALL], representation, push, fused,
                        _least(int(thresholds.t2) - 1, limit_t3))
    return Decision(_RUNS[Regime.THIN], representation, push, fused, limit_t3)


def blind(profile: GraphProfile, thresholds: Thresholds) -> Decision:
    """The first push phase over a queue whose length and degree sum the host does not know:
    one read of each before the first launch costs more than a step does (a read waits for the
    kernels queued before it, and the next launch is prepared only then, the GPU idle
    meanwhile). The degree sum is estimated from the graph's mean degree, as Li & Becchi
    estimate it between two samples (§VI.E). ``dynamic_warp``: its virtual warps follow the
    frontier's size and its blocks gather hubs, so a frontier of hubs does not make it slow.
    Fused until the frontier's estimated out-edges reach ``host_edges`` or it would be a
    bitmap: the range in which :func:`decide` fuses, and in which a step's work is small
    against the host round trips a measurement costs (the ski-rental arithmetic of
    ``host_edges``). For at most ``blind_steps``: a long traversal is then measured and decided
    as any other (on a road network's or a grid's thousands of thin levels ``warp`` takes a
    third of ``dynamic_warp``'s time a level)."""
    mean = max(profile.mean_degree, 1.0)
    bitmap_from = max(thresholds.t3 * profile.num_vertices, thresholds.t2)
    return Decision(_RUNS[Regime.BLIND], Kind.SPARSE, Way.PUSH, Mode.FUSED,
                    min(int(thresholds.host_edges / mean), int(bitmap_from)),
                    steps=int(thresholds.blind_steps))


def _least(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else min(a, b)
