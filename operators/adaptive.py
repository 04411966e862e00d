"""The adaptive runtime: a graph inspector and a decision maker that choose, at every step of a
traversal, the load balancer, the frontier's representation, the direction and the kernel mode
(Li & Becchi, *Deploying Graph Algorithms on GPUs: an Adaptive Solution*, §VI; thresholds as in
their §VII.B).

* The **graph inspector** (:func:`inspect`) computes |V|, |E| and the out-degrees' mean, maximum
  and variance once per graph and keeps them with the graph (:meth:`frontier.Graph.memo`).
* The **decision maker** (:func:`decide`) is a pure function of the frontier's size, its degree
  sum (its out-edges: the work of a push step), the graph's profile and the thresholds. It
  extends Li & Becchi's decision space (their Fig. 11) to the seven balancers:

  - a step whose degree sum reaches ``hub_edges`` (enough edges for every thread of the GPU),
    or whose frontier's mean degree reaches ``hub_degree`` (hubs: the star's centre, rmat's
    first level, which a block-wide gather would leave to one block), splits its edges evenly
    over every thread: ``two_phase`` (Busato & Bombieri, §5.3.4). With ``hub_edges`` or more
    it is a host-loop step (a launch over the whole GPU; the launches are small against the
    step), with fewer a fused one (its degree prefix sum inside the persistent kernel) until
    the degree sum would reach ``hub_edges``;
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
  - the direction is the caller's :class:`operators.Direction` (Beamer's rule: pull while the
    frontier is large), a pull step being a host-loop step over a bitmap;
  - the mode is ``"fused"`` (the steps run in one persistent kernel until the frontier leaves
    the decision's range, ``Decision.until``) for the balancers that can fuse, ``"host"``
    (one launch sequence and one read per step) otherwise.

  The degree sum is measured (one reduction over the frontier, or a read of a small queue) at
  the first decision and then every ``sample_every`` steps, and estimated from the frontier's
  size and the last measured mean degree in between (Li & Becchi's sampling, §VI.E, §VII.B).
* The **thresholds** (:class:`Thresholds`) come from the target's properties
  (:func:`device_thresholds`), overridden by the per-user calibration cache that
  ``frontier calibrate`` writes (:func:`calibration_path`); everything works without it.

:class:`StaticPolicy` is what a named balancer means in the same loop (one decision for every
step), so ``traverse`` runs one loop for both.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict, dataclass, fields, replace
from numbers import Real
from pathlib import Path
from typing import Any

import numpy as np

from frontier.frontier import DENSE, SPARSE, Frontier
from frontier.graph import Graph
from frontier.shared_cache import SharedCache
from frontier.target import Target
from operators.balancers import LoadBalancer, ThreadMapped, get_balancer
from operators.common import for_target
from operators.direction import PULL, PUSH

__all__ = ["GraphProfile", "inspect", "Thresholds", "device_thresholds", "thresholds_for",
           "BLOCK_LOCAL", "BLOCK_CAPACITY", "Decision", "decide", "FUSED", "HOST", "BLOCK", "MODES",
           "AdaptivePolicy", "StaticPolicy",
           "calibration_path", "load_calibration", "save_calibration", "CACHE_ENV",
           "resolve_auto", "measure_degree_sum"]

FUSED, HOST, BLOCK = "fused", "host", "block"
MODES = (FUSED, HOST, BLOCK)

#: The name a small-frontier decision records for its kernel (:mod:`operators.small_frontier`).
BLOCK_LOCAL = "block_local"

#: The most vertices a level of the small-frontier mode holds in shared memory (each of its two
#: queues): ``block_frontier`` is capped at it.
BLOCK_CAPACITY = 2048

#: Environment variable naming the directory of the calibration cache (default
#: ``$XDG_CACHE_HOME/frontier`` or ``~/.cache/frontier``).
CACHE_ENV = "FRONTIER_CACHE_DIR"
CACHE_FILE = "calibration.json"

#: Sparse frontiers up to this size are read back to measure their degree sum on the host (one
#: small read) instead of reduced on the device (a write, a launch and a read).
_HOST_SAMPLE = 4096


@dataclass(frozen=True)
class GraphProfile:
    """What the graph inspector knows of a graph: sizes and out-degree statistics."""

    num_vertices: int
    num_edges: int
    mean_degree: float
    max_degree: int
    degree_variance: float


def inspect(graph: Graph) -> GraphProfile:
    """The graph's profile, computed once and kept with the graph."""
    return graph.memo("adaptive.profile", lambda: _profile(graph))


def _profile(graph: Graph) -> GraphProfile:
    degrees = graph.out_degrees()
    if degrees.size == 0:
        return GraphProfile(0, graph.num_edges, 0.0, 0, 0.0)
    return GraphProfile(graph.num_vertices, graph.num_edges, float(degrees.mean()),
                        int(degrees.max()), float(degrees.var()))


@dataclass(frozen=True)
class Thresholds:
    """The decision maker's thresholds (see the module docstring).

    ``t1``: mean frontier degree from which a vertex's edges are spread over a warp or more;
    ``t2``: frontier size from which one thread per vertex fills the GPU; ``t3``: fraction of
    |V| above which the frontier is a bitmap; ``hub_edges``: degree sum from which a step
    splits its edges evenly over all threads; ``hub_degree``: mean frontier degree from which it
    does so however few the edges (hubs); ``sample_every``: steps between two measurements of
    the degree sum; ``block_frontier`` and ``block_edges``: the largest queue and degree sum run
    in the small-frontier mode (one block, :mod:`operators.small_frontier`); ``source``: where
    the values come from."""

    t1: float = 32.0
    t2: int = 256 * 132
    t3: float = 0.06
    hub_edges: int = 2048 * 132
    hub_degree: int = 8192
    sample_every: int = 6
    block_frontier: int = 512
    block_edges: int = 2048
    source: str = "defaults"

    def __post_init__(self) -> None:
        for name in ("t1", "t2", "t3", "hub_edges", "hub_degree", "sample_every",
                     "block_frontier", "block_edges"):
            value = getattr(self, name)
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real) or not value > 0:
                raise ValueError(f"threshold {name}={value!r}; expected a number > 0")

    def with_values(self, values: dict[str, Any], source: str) -> Thresholds:
        """These thresholds with the known names of ``values`` replaced."""
        names = {f.name for f in fields(self)} - {"source"}
        return replace(self, **{k: v for k, v in values.items() if k in names}, source=source)


def device_thresholds(target: Target) -> Thresholds:
    """Thresholds from the target's properties: T2 = 256 threads per block x multiprocessors
    (Li & Becchi's threads per block x SMs) and ``hub_edges`` = one edge per thread that runs at
    once (2,048 per multiprocessor): below that a step cannot give every thread an edge, and
    two_phase's two extra launches and host read (~3 x 30 µs) cost more than its balance saves.
    On an H100 (132 SMs): T2 = 33,792, hub_edges = 270,336. ``hub_degree`` keeps its default
    until ``frontier calibrate`` measures it."""
    sms = target.multiprocessors
    return Thresholds(t2=256 * sms, hub_edges=2048 * sms,
                      source=f"device properties ({sms} multiprocessors)")


def calibration_path() -> Path:
    """The per-user calibration cache: ``$FRONTIER_CACHE_DIR/calibration.json``, else under
    ``$XDG_CACHE_HOME/frontier`` or ``~/.cache/frontier``."""
    root = os.environ.get(CACHE_ENV)
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "frontier")
    return Path(root) / CACHE_FILE


def load_calibration(device: str) -> dict[str, Any] | None:
    """The calibrated values stored for ``device``, or None (no cache, no entry, or a file that
    is not a calibration cache: then the device's defaults apply)."""
    path = calibration_path()
    try:
        entries = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    entry = entries.get(device) if isinstance(entries, dict) else None
    return entry if isinstance(entry, dict) else None


def save_calibration(device: str, thresholds: Thresholds, measured: dict[str, Any]) -> Path:
    """Store ``thresholds`` (and the measurements they come from) for ``device`` in the cache,
    keeping other devices' entries; returns the file written. Saves from several threads run
    one at a time (each keeps the entries of the others)."""
    path = calibration_path()
    with _SAVING:
        try:
            entries = json.loads(path.read_text())
            if not isinstance(entries, dict):
                entries = {}
        except (OSError, ValueError):
            entries = {}
        values = {k: v for k, v in asdict(thresholds).items() if k != "source"}
        entries[device] = {**values, "measured": measured}
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(entries, indent=2, sort_keys=True))
        tmp.replace(path)
    return path


_THRESHOLDS: SharedCache[Thresholds] = SharedCache("adaptive thresholds")
_SAVING = threading.Lock()


def thresholds_for(target: Target) -> Thresholds:
    """The thresholds used on ``target``: its device properties, overridden by the calibration
    cache's entry for its device when there is one (looked up again only when the cache file
    changes)."""
    path = calibration_path()
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        stamp = None
    key = (target.name, target.simulated, str(path), stamp)
    return _THRESHOLDS.get(key, lambda: _read_thresholds(target))


def _read_thresholds(target: Target) -> Thresholds:
    base = device_thresholds(target)
    stored = load_calibration(target.device_name)
    if stored is None:
        return base
    try:
        return base.with_values(stored, f"calibrated ({calibration_path()})")
    except (TypeError, ValueError):
        return base


@dataclass(frozen=True)
class Decision:
    """What one step runs: the balancer's name, the frontier's representation (``"sparse"``
    queue or ``"dense"`` bitmap), the direction (``"push"``/``"pull"``) and the mode
    (``"fused"``/``"host"``/``"block"``). ``until``: the largest frontier the decision holds
    for (a fused phase stops above it; None: no bound); ``until_edges``: for the small-frontier
    mode, the largest degree sum of a level it runs."""

    balancer: str
    representation: str
    direction: str
    mode: str
    until: int | None = None
    until_edges: int | None = None


def decide(profile: GraphProfile, size: int, degree_sum: int, thresholds: Thresholds,
           spreads: bool = True, small: bool = True) -> Decision:
    """The push step for a frontier of ``size`` vertices with ``degree_sum`` out-edges
    (deterministic: the same inputs give the same decision). ``spreads`` is False on a target
    that runs every balancer as one sequential loop (the CPU): the decision is then the loop.
    ``small=False`` leaves out the small-frontier mode."""
    bitmap_from = max(thresholds.t3 * profile.num_vertices, thresholds.t2)
    dense = size > bitmap_from
    representation = DENSE if dense else SPARSE
    limit_t3 = None if dense else int(bitmap_from)
    if not spreads:
        return Decision(ThreadMapped.name, representation, PUSH, FUSED, limit_t3)
    block_frontier = min(int(thresholds.block_frontier), BLOCK_CAPACITY)
    if small and size <= block_frontier and degree_sum <= thresholds.block_edges:
        return Decision(BLOCK_LOCAL, SPARSE, PUSH, BLOCK, block_frontier,
                        int(thresholds.block_edges))
    mean = degree_sum / max(size, 1)
    if degree_sum >= thresholds.hub_edges:
        return Decision("two_phase", representation, PUSH, HOST)
    if mean >= thresholds.hub_degree:
        until = int(thresholds.hub_edges / mean)
        return Decision("two_phase", representation, PUSH, FUSED, _least(until, limit_t3))
    if mean >= thresholds.t1:
        until = int(thresholds.hub_edges / mean)
        return Decision("dynamic_warp", representation, PUSH, FUSED, _least(until, limit_t3))
    if size < thresholds.t2:
        return Decision("warp", representation, PUSH, FUSED,
                        _least(int(thresholds.t2) - 1, limit_t3))
    return Decision(ThreadMapped.name, representation, PUSH, FUSED, limit_t3)


def _least(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else min(a, b)


def _degree(v: int, row_offsets: Any) -> int:
    """Out-degree from the CSR offsets alone (a graph view would build the CSC: an argsort
    of every arc and its device copy, only to read the offsets)."""
    return row_offsets[v + 1] - row_offsets[v]


class AdaptivePolicy:
    """The decisions of one traversal: the decision maker fed with the frontier's size and its
    sampled degree sum."""

    def __init__(self, graph: Graph, target: Target, thresholds: Thresholds | None = None,
                 fused: bool = True) -> None:
        self.graph = graph
        self.fused = fused
        self.target = target
        self.profile = inspect(graph)
        self.thresholds = thresholds if thresholds is not None else thresholds_for(target)
        self._mean = self.profile.mean_degree
        self._since_sample: int | None = None
        self._balancers: dict[str, LoadBalancer] = {}

    def decide(self, frontier: Frontier, size: int, way: str, small: bool = True) -> Decision:
        """The decision for the next step, over ``frontier`` of ``size`` going ``way``
        (``small=False``: not in the small-frontier mode)."""
        if way == PULL:
            self._since_sample = None  # the frontier after a pull is another population
            return Decision(ThreadMapped.name, DENSE, PULL, HOST)
        decision = decide(self.profile, size, self.degree_sum(frontier, size), self.thresholds,
                          self.target.runs_balancers, small and self.fused)
        return decision if self.fused else replace(decision, mode=HOST)

    def remeasure(self) -> None:
        """Measure the degree sum at the next decision (the frontier changed in kind)."""
        self._since_sample = None

    def block_floor(self, size: int | None, small: bool = True) -> int:
        """The frontier size at or below which a grid-wide fused phase stops to hand back to
        the small-frontier mode: half ``block_frontier`` (hysteresis: each hand-over costs a
        launch and a read) for a phase that started above it (one that started below it did so
        for its degrees: it keeps going), 0 for none."""
        if not (small and self.fused and self.target.runs_balancers):
            return 0
        limit = int(self.thresholds.block_frontier)
        return limit // 2 if size is not None and size > limit else 0

    def degree_sum(self, frontier: Frontier, size: int) -> int:
        """The frontier's out-edges: measured at the first call and every ``sample_every``
        steps after, estimated from the last measured mean degree in between."""
        if self._since_sample is not None and self._since_sample < self.thresholds.sample_every:
            return int(round(size * self._mean))
        measured = measure_degree_sum(self.graph, frontier, size)
        self._mean = measured / max(size, 1)
        self._since_sample = 0
        return measured

    def advanced(self, steps: int) -> None:
        """``steps`` more steps ran since the last decision."""
        if self._since_sample is not None:
            self._since_sample += steps

    def balancer(self, decision: Decision) -> LoadBalancer:
        """The balancer object a decision names, bound to the graph and the target."""
        found = self._balancers.get(decision.balancer)
        if found is None:
            found = for_target(self.target, get_balancer(decision.balancer), self.graph)
            self._balancers[decision.balancer] = found
        return found


class StaticPolicy:
    """A named balancer in the same loop: every push step runs it (fused where it can), every
    pull step is a host-loop step over a bitmap."""

    def __init__(self, balancer: LoadBalancer, push_kind: str, fused: bool) -> None:
        self.bound = balancer
        self.push_kind = push_kind
        self.fuse = fused and balancer.fusable

    def decide(self, frontier: Frontier | None, size: int | None, way: str,
               small: bool = True) -> Decision:
        if way == PULL:
            return Decision(ThreadMapped.name, DENSE, PULL, HOST)
        return Decision(str(self.bound), self.push_kind, PUSH, FUSED if self.fuse else HOST)

    def advanced(self, steps: int) -> None:
        return None

    def remeasure(self) -> None:
        return None

    def block_floor(self, size: int | None, small: bool = True) -> int:
        return 0

    def balancer(self, decision: Decision) -> LoadBalancer:
        return self.bound


def resolve_auto(graph: Graph, frontier: Frontier, auto: LoadBalancer) -> LoadBalancer:
    """The static balancer ``"auto"`` picks for one push advance of ``frontier`` (one read of
    its length, and one measurement of its degree sum)."""
    policy = AdaptivePolicy(graph, frontier.target, getattr(auto, "thresholds", None), False)
    return policy.balancer(policy.decide(frontier, len(frontier), PUSH))


def measure_degree_sum(graph: Graph, frontier: Frontier, size: int) -> int:
    """The out-degree sum of ``frontier``'s elements, summed on the host when it knows the ids
    (a frontier made from host ids) or can read them cheaply (a small queue), else reduced on
    the device."""
    ids = frontier.known_ids()
    if ids is None and frontier.kind == SPARSE and size <= _HOST_SAMPLE:
        ids = frontier.target.to_host(frontier.device_ids()[:size])
    if ids is not None:
        offsets = graph.row_offsets
        return int((offsets[ids.astype(np.int64) + 1] - offsets[ids]).sum())
    from operators.reduce import reduce

    offsets = graph.device_arrays(frontier.target).row_offsets
    return int(reduce(graph, frontier, _degree, offsets, op="sum"))
