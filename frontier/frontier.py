"""The frontier: the active elements (vertices or edges) of one traversal step.

A frontier is *sparse* (a queue of ids) or *dense* (a bitmap), the two working-set forms of
Busato & Bombieri, *Graph Algorithms on GPUs*, §2.1 and Li & Becchi, *Deploying Graph Algorithms
on GPUs: an Adaptive Solution*, §IV; it converts to the other form on the device. Its elements
are vertex ids (domain ``"vertices"``, universe |V|) or CSR edge ids (domain ``"edges"``,
universe |E|). Its length lives in device memory, so a kernel can consume one frontier and
produce the next without any host round trip.

The frontiers of one traversal share a :class:`FrontierPool`: three slots of preallocated buffers
used as a ring (the kernel text of the protocol is :mod:`frontier.ring`). A *ring step* reading
slot ``r`` writes its output frontier into slot ``r+1`` and clears slot ``r+2`` (mod 3) for the
step after, so a loop of operator calls allocates nothing and needs no extra launches. Every
operator call that takes a frontier is one ring step on its pool (``compute``, ``reduce`` and
``neighbor_reduce`` excepted: they write no frontier and clear nothing), and so are the
conversions and
:meth:`Frontier.union`; a fused ``traverse`` is many.

Lifetime rule. A frontier in slot ``s`` of its pool stays valid until a ring step on that pool
writes or clears slot ``s``:

* in a chain ``x1 = op(x0)``, ``x2 = op(x1)``, ``x3 = op(x2)``, ... each frontier is valid as the
  input of the next step and becomes stale when the step after that runs (``x0`` dies when ``x2``
  is made, which clears its slot): a frontier made by an operator or a constructor stays valid
  until two more ring steps have run on its pool, the second of which reuses its slot;
* steps that read the frontier itself leave it valid, but advancing the same frontier twice makes
  the first output stale: the second call writes into the same slot;
* a fused ``traverse`` leaves only its result valid;
* ``x.union(y)`` is a step on ``x``'s pool only: it leaves ``y`` valid when ``y`` lives in another
  pool (in another slot of ``x``'s pool, ``y`` is read first and then reused like any slot).

Constructors and :meth:`Frontier.copy` make a new pool, so a copy outlives any number of steps
on the original's pool: ``copy()`` is how to keep a frontier longer. Using a stale frontier (its
length, ``to_numpy``, ``device_ids``, ``device_words``, a conversion, ``copy``, ``union`` or as
the input of any kernel) raises :class:`StaleFrontierError`, which names the step that retired
it (the operator, its output form, and the caller's line it was called from: the first frame
outside the library) and says to copy() that frontier before that step. A step retiring a
frontier that no code holds any more notes nothing (nobody can use it), and looks no line up.

Threads. A pool and its frontiers belong to the thread stepping them: steps on one pool from
two threads at once are not guarded. Calls on one graph from several threads never share a
pool: constructors make a new one, and the pools kept with a graph for reuse
(:meth:`FrontierPool.shared`) are per thread.
"""

from __future__ import annotations

import itertools
import sys
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from frontier import kernels, validate
from frontier.graph import Graph
from frontier.limits import check_device, host_limit_bytes
from frontier.options import Domain, Kind, values
from frontier.ring import DENSE, LOOP_LENGTHS, OVERFLOW_FLAG, RING_PARAMS, SPARSE, STEPS_RAN
from frontier.runtime.target import Target
from frontier.target import resolve_target

__all__ = ["Frontier", "FrontierPool", "StaleFrontierError", "FrontierError",
           "FrontierOverflowError"]

VERTICES = Domain.VERTICES
EDGES = Domain.EDGES
LENGTH_DTYPE = np.int64
#: The largest element id a frontier holds: queues are int32 (vertex ids are int32 anyway; an
#: edge frontier of a graph with more arcs than this cannot be made).
ID_LIMIT = int(np.iinfo(np.int32).max)
WORD_DTYPE = np.uint32
#: The graph memo key of the per-thread shared pools (:meth:`FrontierPool.shared`).
_POOLS = "frontier.pools"


class FrontierError(ValueError):
    """A frontier was built from, or used with, something that does not fit."""


class StaleFrontierError(FrontierError):
    """The frontier's slot has been written or cleared by a later ring step on its pool."""


class FrontierOverflowError(FrontierError):
    """An operator produced more entries than the sparse frontier buffers hold."""


def _words_for(universe: int) -> int:
    return (universe + 31) // 32


def universe_of(graph: Graph, domain: str) -> int:
    """How many elements a frontier of ``domain`` can hold: |V| or |E|."""
    if domain not in values(Domain):
        raise FrontierError(f"frontier domain {domain!r}; expected one of {values(Domain)}")
    return graph.num_vertices if domain == VERTICES else graph.num_edges


class FrontierPool:
    """Three slots of frontier buffers on one target, for one graph and one domain.

    ``lengths`` is a device array of three lengths, one per slot, then the overflow flag, then
    the step count of the last fused traversal (:data:`frontier.ring.STEPS_RAN`). A
    slot's sparse queue (``capacity`` ids) and bitmap (``universe`` bits) are allocated the first
    time a frontier of that kind lands there.
    """

    SLOTS = 3

    def __init__(self, graph: Graph, target: Target, capacity: int,
                 domain: str = VERTICES) -> None:
        self.graph = graph
        self.target = target
        self.capacity = max(int(capacity), 1)
        self.domain = domain
        self.universe = universe_of(graph, domain)
        if self.universe > ID_LIMIT:
            raise FrontierError(f"a frontier of {domain} holds int32 ids, but this graph has "
                                f"{self.universe:,} {domain} (at most {ID_LIMIT:,})")
        self.num_words = _words_for(self.universe)
        # a few zeros: copied up rather than filled by a launch each
        self.lengths = target.to_device(np.zeros(STEPS_RAN + 1, LENGTH_DTYPE))
        self._ids: list[Any] = [None] * self.SLOTS
        self._words: list[Any] = [None] * self.SLOTS
        self._dirty_words = [False] * self.SLOTS
        self._owner: list[int | None] = [None] * self.SLOTS
        #: Per slot: the token of the last frontier a step retired from it, and that step (what
        #: it was, where it was called, what it did to the slot: put in words when asked).
        self._retired: list[tuple[int, str, str, str] | None] = [None] * self.SLOTS
        #: Per slot: the token of its frontier and a weak reference to the :class:`Frontier`
        #: object made for it (:func:`_nobody` until one is): a frontier nobody holds any more
        #: needs no retirement note, as nobody can use it.
        self._held: list[tuple[int, Callable[[], Any]]] = [(0, _nobody)] * self.SLOTS
        self._clean = [True] * self.SLOTS
        self._tokens = itertools.count(1)
        self._stamps: Any = None
        self._stamp_value = 0
        self._scratch: dict[str, Any] = {}
        self._parts: dict[tuple, tuple[Any, ...]] = {}
        #: One-element stand-ins for a slot's bitmap or queue where a kernel takes the other
        #: kind (never read or written): made once per graph and target, not per pool.
        self.placeholder, self.placeholder_ids = graph.memo(
            f"frontier placeholders {target.name} {target.simulated}",
            lambda: (target.to_device(np.zeros(1, WORD_DTYPE)),
                     target.to_device(np.zeros(1, np.int32))))
        self.lost: str | None = None

    @classmethod
    def shared(cls, graph: Graph, target: Target, capacity: int, domain: str = VERTICES,
               purpose: str = "") -> FrontierPool:
        """The calling thread's pool kept with ``graph`` for ``target``, ``capacity``,
        ``domain`` and ``purpose`` (a caller whose frontiers must outlive another's in the same
        thread names its own), made on its first use in that thread and :meth:`restart`-ed by
        the caller:
        a traversal that keeps no frontier beyond its call reuses its buffers instead of
        allocating them per call (every frontier of an earlier use of the pool becomes stale).

        Each thread has pools of its own (a ``threading.local`` kept in the graph's memo), so
        calls from several threads on one graph never share buffers, and a thread's pools are
        freed when the thread ends (or the graph goes)."""
        mine = graph.memo(_POOLS, threading.local).__dict__  # this thread's own dict
        key = (target.identity, domain, max(int(capacity), 1), purpose)
        pool = mine.get(key)
        if pool is None:
            pool = cls(graph, target, capacity, domain)
            mine[key] = pool
        return pool

    def restart(self, first_length: int) -> None:
        """Forget every frontier of this pool (they become stale), clear its bitmaps and set the
        lengths to ``first_length`` for slot 0 and 0 for the others (one upload)."""
        if any(self._dirty_words):
            for slot in range(self.SLOTS):
                if self._dirty_words[slot] and self._words[slot] is not None:
                    self.target.fill(self._words[slot], 0)
        self._dirty_words = [False] * self.SLOTS
        self._clean = [True] * self.SLOTS
        self._retire_all(range(self.SLOTS),
                         "a later call that reused this pool (FrontierPool.restart)",
                         "reset its slot")
        self.lost = None
        self.target.upload(self.lengths, _first_lengths(first_length))

    def make_room(self, lengths: int) -> None:
        """Room for ``lengths`` more lengths after :data:`frontier.ring.LOOP_LENGTHS` in the
        length array (a fused loop's own frontiers, :func:`operators.loop`): the array grown
        once, keeping its values."""
        need = LOOP_LENGTHS + lengths
        if self.lengths.shape[0] < need:
            grown = np.zeros(need, LENGTH_DTYPE)
            held = self.target.to_host(self.lengths)
            grown[:held.size] = held
            self.lengths = self.target.to_device(grown)

    def ids(self, slot: int) -> Any:
        if self._ids[slot] is None:
            self._ids[slot] = self.target.empty(self.capacity, np.int32)
        return self._ids[slot]

    def words(self, slot: int) -> Any:
        if self._words[slot] is None:
            self._words[slot] = self.target.zeros(max(self.num_words, 1), WORD_DTYPE)
        return self._words[slot]

    def next_stamp(self) -> tuple[Any, int]:
        """A per-element stamp array and a fresh stamp value, for duplicate removal without
        clearing: an element is new to this call when swapping in the value returns another."""
        if self._stamps is None:
            self._stamps = self.target.zeros(max(self.universe, 1), np.int32)
        self._stamp_value += 1
        return self._stamps, self._stamp_value

    def use_stamps(self, count: int) -> int:
        """Reserve ``count`` consecutive fresh stamp values (a fused traversal stamps each of its
        steps with one); returns the first."""
        first = self._stamp_value + 1
        self._stamp_value += max(int(count), 0)
        return first

    def scratch(self, name: str, size: int, dtype: Any) -> Any:
        """A named device buffer of at least ``size`` elements, allocated once per pool (for
        operator and balancer temporaries)."""
        buf = self._scratch.get(name)
        if buf is None or buf.shape[0] < size or buf.dtype != np.dtype(dtype):
            buf = self.target.empty(max(size, 1), dtype)
            self._scratch[name] = buf
        return buf

    def results(self, name: str, size: int, parts: int, dtype: Any) -> tuple[Any, ...]:
        """A call's result buffer of ``parts * size`` elements and its ``parts`` pieces, which
        ``target.hand_over`` gives to the caller at the end: fresh arrays where the target's
        arrays are host arrays (handed over as they are, with no copy), else this pool's
        scratch ``name`` (:meth:`scratch_parts`; handed over as a host copy)."""
        if self.target.host_arrays:
            whole = self.target.empty(parts * size, dtype)
            return (whole, *split(whole, size, parts))
        return self.scratch_parts(name, size, parts, dtype)

    def scratch_parts(self, name: str, size: int, parts: int, dtype: Any) -> tuple[Any, ...]:
        """One scratch buffer of ``parts * size`` elements followed by its ``parts`` consecutive
        pieces of ``size`` elements (views made once): several per-element arrays that one fill
        and one copy cover."""
        whole = self.scratch(name, parts * size, dtype)
        key = (name, size, parts)
        found = self._parts.get(key)
        if found is None or found[0] is not whole:
            found = (whole, *split(whole, size, parts))
            self._parts[key] = found
        return found

    def prepare_traversal(self, start_slot: int) -> None:
        """Make ``start_slot``'s successor ready for a fused traversal's first step."""
        out_slot = (start_slot + 1) % self.SLOTS
        if not self._clean[out_slot]:
            self._reset(out_slot, "a fused traverse")

    def run_traversal(self, start_slot: int, launch: Callable[[], None], what: str
                      ) -> np.ndarray:
        """Run ``launch``, a kernel that traverses from ``start_slot`` writing any slot, with the
        successor slot made ready first; returns the lengths it left (one read). If it fails,
        every frontier of the pool becomes stale, ``what`` saying why."""
        self.prepare_traversal(start_slot)
        try:
            launch()
        except BaseException:
            self.abandon(what)
            raise
        return self.read_lengths()

    def adopt(self, slot: int, kind: str, what: str = "a fused traverse") -> int:
        """After a fused traversal (``what``): the frontier it ended on is in ``slot``; nothing
        is known of the other slots' queues."""
        self._retire_all(range(self.SLOTS), what, "may have written its slot")
        self._clean = [False] * self.SLOTS
        if kind == DENSE:  # a traversal over queues leaves the bitmaps as they were; one over
            # bitmaps may have written any of them
            self._dirty_words = [dirty or words is not None
                                 for dirty, words in zip(self._dirty_words, self._words,
                                                         strict=True)]
        return self.claim(slot, kind)

    def read_lengths(self) -> np.ndarray:
        """The slot lengths, read to the host in one transfer; raises if any operator
        overflowed the sparse buffers since the pool was made."""
        lengths = self.target.to_host(self.lengths)
        if lengths[OVERFLOW_FLAG]:
            raise FrontierOverflowError(
                f"an operator produced more than {self.capacity} frontier entries, the capacity "
                "of this traversal's sparse frontiers (a frontier with repeated vertices can "
                "advance to more than |E| entries); pass a larger capacity= to "
                "Frontier.from_vertices / from_edges, or remove repeats with "
                "filter(..., unique=True), union(..., unique=True) or advance / traverse(..., "
                "cull='bitmap')")
        return lengths

    def input_arguments(self, frontier: Frontier | None, slot: int) -> dict[str, Any]:
        """The input half of :data:`frontier.ring.RING_PARAMS` (universe, queue, bitmap, lengths,
        slot) for a kernel reading ``frontier`` (None: no input) in ``slot`` of this pool; also
        what a kernel that reads a frontier without producing one takes."""
        kind = None
        if frontier is not None:
            frontier.check_current()
            kind = frontier.kind
        return {"universe": self.universe,
                "in_ids": self.ids(slot) if kind == SPARSE else self.placeholder_ids,
                "in_words": self.words(slot) if kind == DENSE else self.placeholder,
                "lens": self.lengths, "in_slot": slot}

    def ring_arguments(self, frontier: Frontier | None, step: StepSlots,
                       out_kind: str | None) -> dict[str, Any]:
        """The value of every name of :data:`frontier.ring.RING_PARAMS` for one kernel launch
        of ``step`` (from :meth:`begin_step`) reading ``frontier`` (None: a kernel with no ring
        input, such as a constructor's fill) and writing a frontier of ``out_kind`` (None: no
        output frontier)."""
        if frontier is not None:
            if frontier.pool is not self:
                raise FrontierError("ring_arguments: the input frontier belongs to another pool")
            if frontier.slot != step.in_slot:
                raise FrontierError(f"ring_arguments: the input frontier is in slot "
                                    f"{frontier.slot}, the step reads slot {step.in_slot}")
        values = {
            **self.input_arguments(frontier, step.in_slot),
            "out_slot": step.out_slot,
            "clear_slot": step.clear_slot,
            "out_ids": self.ids(step.out_slot) if out_kind == SPARSE else self.placeholder_ids,
            "out_words": self.words(step.out_slot) if out_kind == DENSE else self.placeholder,
            "clear_words": step.clear_words,
            "clear_num_words": step.clear_num_words,
        }
        assert tuple(values) == RING_PARAMS
        return values

    def is_current(self, slot: int, token: int) -> bool:
        return self._owner[slot] == token

    def retired_by(self, slot: int, token: int) -> str | None:
        """The step that retired the frontier of ``token`` from ``slot`` (what it was, what it
        did to the slot, and where it was called), or None when that is not known."""
        found = self._retired[slot]
        if found is None or found[0] != token:
            return None
        _, what, site, how = found
        return f"{what}{site} {how}"

    def _retire(self, slot: int, what: str, how: str) -> None:
        """Forget the frontier in ``slot``, if any, noting that the step ``what`` retired it
        (``how``: what the step did to the slot) and the caller's line it ran from."""
        self._retire_all((slot,), what, how)

    def _retire_all(self, slots: Iterable[int], what: str, how: str) -> None:
        """:meth:`_retire` each of ``slots``, the caller's line looked up once (a walk up the
        stack) for all of them, and only where one of them holds a frontier that some code may
        still hold (the frontier object made for it is alive): a frontier nobody holds cannot
        be used, so its retirement is noted nowhere (the common case of a pool reused call after
        call, whose previous frontiers are gone)."""
        site = None
        for slot in slots:
            token = self._owner[slot]
            if token is not None:
                held_token, holder = self._held[slot]  # set with the token (claim)
                if held_token != token or holder() is not None:
                    if site is None:
                        site = _call_site(2)  # this method and the pool's one calling it
                    self._retired[slot] = (token, what, site, how)
                self._owner[slot] = None

    def begin_step(self, in_slot: int, out_kind: str | None, what: str = "a ring step"
                   ) -> StepSlots:
        """Plan one operator call (``what``, named in the error of a frontier it retires)
        reading ``in_slot``: where its output goes, and which slot (and bitmap) the kernel
        clears for the call after it."""
        out_slot = (in_slot + 1) % self.SLOTS
        clear_slot = (in_slot + 2) % self.SLOTS
        if out_kind is not None and not self._clean[out_slot]:
            self._reset(out_slot, what)
        clear_words = self._dirty_words[clear_slot]
        return StepSlots(in_slot, out_slot, clear_slot,
                         self.words(clear_slot) if clear_words else self.placeholder,
                         self.num_words if clear_words else 0, what)

    def abort_step(self, step: StepSlots, out_kind: str | None) -> None:
        """Forget a step whose kernel failed part-way: its output slot may hold part of an output
        and its clear slot may be half cleared, so both are reset before their next use, and a
        frontier in the clear slot is stale."""
        for slot in (step.out_slot, step.clear_slot):
            self._clean[slot] = False
            self._dirty_words[slot] = self._words[slot] is not None
        self._retire(step.clear_slot, f"{step.what} (which failed)", "cleared its slot")

    def abandon(self, reason: str) -> None:
        """Forget every slot after a kernel that owns the whole ring (a fused traversal) failed
        part-way: every frontier of the pool becomes stale, and ``reason`` says why when one is
        used; every slot is reset before its next use."""
        for slot in range(self.SLOTS):
            self._owner[slot] = None
            self._clean[slot] = False
            self._dirty_words[slot] = self._words[slot] is not None
        self.lost = reason

    def end_step(self, step: StepSlots, out_kind: str | None) -> int | None:
        """Record what the launched kernel did; returns the token of the output frontier."""
        self._retire(step.clear_slot, step.what, "cleared its slot for the step after it")
        self._clean[step.clear_slot] = True
        self._dirty_words[step.clear_slot] = False
        if out_kind is None:
            return None
        return self.claim(step.out_slot, out_kind)

    def claim(self, slot: int, kind: str) -> int:
        """A new frontier of ``kind`` in ``slot``: its token (held by nobody until a
        :class:`Frontier` is made for it)."""
        token = next(self._tokens)
        self._owner[slot] = token
        self._held[slot] = (token, _nobody)
        self._clean[slot] = False
        if kind == DENSE:
            self._dirty_words[slot] = True
        return token

    def _reset(self, slot: int, what: str) -> None:
        """Clear a slot out of ring order (an older frontier advanced again, by ``what``)."""
        self.target.write_scalar(self.lengths, slot, 0)
        if self._dirty_words[slot] and self._words[slot] is not None:
            self.target.fill(self._words[slot], 0)
        self._dirty_words[slot] = False
        self._retire(slot, what, "wrote its output into its slot")
        self._clean[slot] = True


class StepSlots:
    """The slots one operator call uses (see :meth:`FrontierPool.begin_step`)."""

    __slots__ = ("in_slot", "out_slot", "clear_slot", "clear_words", "clear_num_words", "what")

    def __init__(self, in_slot: int, out_slot: int, clear_slot: int, clear_words: Any,
                 clear_num_words: int, what: str = "a ring step") -> None:
        self.in_slot = in_slot
        self.out_slot = out_slot
        self.clear_slot = clear_slot
        self.clear_words = clear_words
        self.clear_num_words = clear_num_words
        self.what = what


class Frontier:
    """The active elements of one step, sparse or dense, vertices or edges, held on a target.

    Build the first frontier of a traversal with :meth:`from_vertices`, :meth:`from_edges`,
    :meth:`all_vertices` or :meth:`all_edges`; operators return the later ones.

    Lifetime rule: a frontier in slot ``s`` of its pool stays valid until a ring step on that pool
    writes or clears slot ``s``. A frontier made by an operator or a constructor therefore stays
    valid until two more ring steps have run on its pool, the second of which reuses its slot (in
    a chain ``x1 = op(x0)``, ``x2 = op(x1)``, making ``x2`` makes ``x0`` stale); steps reading the
    frontier itself leave it valid, but advancing the same frontier twice makes the first output
    stale (the second call writes into the same slot); a fused ``traverse`` leaves only its result
    valid.
    :meth:`copy` (a new pool) keeps a frontier for longer. Every use of a stale frontier (its
    length, :meth:`to_numpy`, :meth:`device_ids`, :meth:`device_words`, the conversions,
    :meth:`copy`, :meth:`union`, or as the input of any kernel) raises
    :class:`StaleFrontierError`.
    """

    __slots__ = ("pool", "slot", "kind", "_token", "_host_ids", "__weakref__")

    def __init__(self, pool: FrontierPool, slot: int, kind: str, token: int,
                 host_ids: np.ndarray | None = None) -> None:
        self.pool = pool
        self.slot = slot
        self.kind = kind
        self._token = token
        self._host_ids = host_ids
        pool._held[slot] = (token, weakref.ref(self))

    # constructors ---------------------------------------------------------------------------
    @classmethod
    def from_vertices(cls, graph: Graph, vertices: Any, *, kind: str = SPARSE,
                      target: str | Target | None = None, capacity: int | None = None,
                      shared: bool = False) -> Frontier:
        """A frontier holding ``vertices`` (ids in ``0..|V|-1``; a sparse frontier keeps their
        order and repeats). ``capacity`` bounds every sparse frontier of the traversal; the
        default, max(|E|, |V|), fits any advance output (|V| fits a traversal whose operator
        accepts each vertex at most once, as BFS's compare-and-swap does).

        ``shared=True`` takes the calling thread's pooled buffers of the graph for this target
        and capacity (:meth:`FrontierPool.shared`) instead of allocating new ones: for
        algorithms that keep no frontier beyond their call, as it makes every frontier of the
        pool's earlier use in this thread stale (other threads have pools of their own).

        A capacity above the default is checked against the memory where the target keeps its
        arrays before anything is allocated (GraphTooLargeError)."""
        validate.flag("shared", shared)
        return cls._from_ids(graph, VERTICES, vertices, kind, target, capacity, shared)

    @classmethod
    def from_edges(cls, graph: Graph, edges: Any, *, kind: str = SPARSE,
                   target: str | Target | None = None, capacity: int | None = None
                   ) -> Frontier:
        """A frontier holding CSR edge ids ``edges`` (in ``0..|E|-1``: edge ``e`` leaves the
        vertex ``v`` with ``row_offsets[v] <= e < row_offsets[v+1]``); otherwise as
        :meth:`from_vertices`."""
        return cls._from_ids(graph, EDGES, edges, kind, target, capacity)

    @classmethod
    def all_vertices(cls, graph: Graph, *, kind: str = DENSE,
                     target: str | Target | None = None, shared: bool = False) -> Frontier:
        """A frontier holding every vertex, filled on the device (no host array);
        ``shared=True`` fills the calling thread's pooled buffers (as :meth:`from_vertices`)."""
        validate.flag("shared", shared)
        return cls._all(graph, VERTICES, kind, target, shared)

    @classmethod
    def all_edges(cls, graph: Graph, *, kind: str = DENSE,
                  target: str | Target | None = None) -> Frontier:
        """A frontier holding every edge id, filled on the device (no host array)."""
        return cls._all(graph, EDGES, kind, target)

    @classmethod
    def _from_ids(cls, graph: Graph, domain: str, values: Any, kind: str,
                  target: str | Target | None, capacity: int | None,
                  shared: bool = False) -> Frontier:
        validate.graph(graph, "a frontier's graph")
        _check_kind(kind)
        ids = np.asarray(values).reshape(-1)
        if ids.size == 0:
            ids = ids.astype(np.int64)
        if ids.dtype.kind not in "iu":
            raise FrontierError(f"{_ID_OF[domain]} ids have dtype {ids.dtype}; expected "
                                "integers")
        n = universe_of(graph, domain)
        if ids.size:
            low, high = validate.bounds(ids)
            if low < 0 or high >= n:
                raise FrontierError(f"{_ID_OF[domain]} {low if low < 0 else high} is out of "
                                    f"range; expected 0 <= id < {n}")
        default = _default_capacity(graph)
        if capacity is None:
            capacity = max(default, ids.size)
        tgt = resolve_target(target, graph)
        if validate.integer(capacity) and capacity > default:
            _check_room(graph, tgt, int(capacity))  # before count's int64 bound: too large first
        capacity = validate.count("capacity", capacity, low=0)
        if ids.size > capacity:
            raise FrontierError(f"{ids.size} {_ID_OF[domain]} ids exceed the frontier capacity "
                                f"{capacity}")
        if kind == SPARSE:
            length = ids.size
        else:
            words, length = _bitmap(ids, n)
        if shared:
            pool = FrontierPool.shared(graph, tgt, capacity, domain)
            pool.restart(length)
        else:
            pool = FrontierPool(graph, tgt, capacity, domain)
            tgt.write_scalar(pool.lengths, 0, length)
        if kind == SPARSE:
            ids = ids.astype(np.int32)
            tgt.upload(pool.ids(0), ids)
        elif shared:
            tgt.upload(pool.words(0), words)
        else:
            pool._words[0] = tgt.to_device(words)
        known = ids if kind == SPARSE else np.flatnonzero(np.unpackbits(
            words.view(np.uint8), bitorder="little")[:n]).astype(np.int32)
        known.setflags(write=False)
        return cls(pool, 0, kind, pool.claim(0, kind), known)

    @classmethod
    def _all(cls, graph: Graph, domain: str, kind: str, target: str | Target | None,
             shared: bool = False) -> Frontier:
        validate.graph(graph, "a frontier's graph")
        _check_kind(kind)
        tgt = resolve_target(target, graph)
        if shared:
            pool = FrontierPool.shared(graph, tgt, _default_capacity(graph), domain)
            pool.restart(0)
        else:
            pool = FrontierPool(graph, tgt, _default_capacity(graph), domain)
        slot, token = kernels.fill(pool, kind)
        return cls(pool, slot, kind, token)

    # properties ----------------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        return self.pool.graph

    @property
    def target(self) -> Target:
        return self.pool.target

    @property
    def domain(self) -> str:
        """``"vertices"`` or ``"edges"``: what the ids of this frontier name."""
        return self.pool.domain

    @property
    def universe(self) -> int:
        """How many distinct elements the frontier can hold: |V| or |E|."""
        return self.pool.universe

    @property
    def is_sparse(self) -> bool:
        return self.kind == SPARSE

    def is_current(self) -> bool:
        """False once the frontier is stale (see the lifetime rule in the class docstring)."""
        return self.pool.is_current(self.slot, self._token)

    def check_current(self) -> None:
        """Raise :class:`StaleFrontierError` if the frontier is stale."""
        if not self.pool.is_current(self.slot, self._token):  # is_current(), a call fewer
            if self.pool.lost is not None:
                raise StaleFrontierError(f"this {self.kind} frontier of {self.domain} is no "
                                         f"longer valid: {self.pool.lost}; make it again")
            retired = self.pool.retired_by(self.slot, self._token)
            if retired is not None:
                raise StaleFrontierError(
                    f"this {self.kind} frontier of {self.domain} (slot {self.slot} of its pool) "
                    f"is stale: {retired}. To use this frontier after that step, keep a copy "
                    "of it made before that step (kept = this_frontier.copy()) and use the copy; "
                    "a ring step retires the frontier two steps before its output, even one "
                    "with output='none'")
            raise StaleFrontierError(
                f"this {self.kind} frontier of {self.domain} (slot {self.slot} of its pool) is "
                "stale: a later ring step on its pool wrote or cleared its slot. Lifetime rule: "
                "a frontier stays valid until a ring step writes or clears its slot, i.e. for "
                "two more ring steps on its pool (the second reuses its slot), and advancing "
                "the same frontier twice makes the first output stale; keep a frontier longer "
                "with copy()")

    def device_ids(self) -> Any:
        """The sparse queue buffer (valid up to ``len(self)``)."""
        self.check_current()
        return self.pool.ids(self.slot)

    def device_words(self) -> Any:
        """The dense bitmap: element i is bit i % 32 of uint32 word i // 32."""
        self.check_current()
        return self.pool.words(self.slot)

    # host views ----------------------------------------------------------------------------
    def __len__(self) -> int:
        """Number of entries (a host read: one synchronization on the GPU, except for a
        frontier made from host ids, whose length the host knows)."""
        self.check_current()
        if self._host_ids is not None:
            return int(self._host_ids.size)
        return int(self.pool.read_lengths()[self.slot])

    def known_ids(self) -> np.ndarray | None:
        """The ids (read-only, as :meth:`to_numpy` would give them) when the host knows them
        without a device read: for a frontier made from host ids by :meth:`from_vertices` or
        :meth:`from_edges`; None for one made by an operator or on the device."""
        self.check_current()
        return self._host_ids

    def is_empty(self) -> bool:
        return len(self) == 0

    def to_numpy(self) -> np.ndarray:
        """The ids as an int32 host array: queue order for a sparse frontier (repeats kept),
        ascending for a dense one."""
        n = len(self)
        if self.kind == SPARSE:
            return self.target.to_host(self.pool.ids(self.slot)[:n]).astype(np.int32)
        words = self.target.to_host(self.pool.words(self.slot))
        bits = np.unpackbits(words.view(np.uint8), bitorder="little")
        return np.flatnonzero(bits[: self.universe]).astype(np.int32)

    # device-side frontier operations (each one ring step; see frontier.kernels) -------------
    def to_dense(self) -> Frontier:
        """This frontier as a bitmap: the next ring step of its pool (repeats collapse)."""
        return self._gathered(DENSE, what="to_dense()")

    def to_sparse(self) -> Frontier:
        """This frontier as a queue of ids: the next ring step of its pool (from a dense
        frontier, order unspecified)."""
        return self._gathered(SPARSE, what="to_sparse()")

    def copy(self) -> Frontier:
        """An independent copy in a new pool (same graph, target, domain, kind and capacity),
        made on the device: it stays valid whatever later runs on this frontier's pool."""
        self.check_current()
        pool = FrontierPool(self.graph, self.target, self.pool.capacity, self.domain)
        slot, token = kernels.gather(pool, None, self, self.kind)
        return Frontier(pool, slot, self.kind, token)

    def union(self, other: Frontier, *, unique: bool = False) -> Frontier:
        """This frontier's elements followed by ``other``'s, as the next ring step of this
        frontier's pool (one operator call on it), of this frontier's kind. ``other`` may live in
        another pool of the same graph, target and domain (a frontier in another slot of this
        pool is copied first, as the step writes or clears that slot); a vertex frontier's
        ``other`` may also be a frontier of the graph's transpose (:meth:`Graph.transpose`).

        A sparse result holds this frontier's queue in order, then ``other``'s (in order when
        ``other`` is sparse too). ``unique=True`` drops every repeat from a sparse result: the
        elements of this frontier come first, each once, then those of ``other`` not in it
        (on a GPU, in the order the threads find them). A dense result never repeats an
        element. The result overflows, like an operator's output, when the sparse capacity is
        too small (reading it then raises :class:`FrontierOverflowError`)."""
        validate.flag("unique", unique)
        self.check_current()
        if not isinstance(other, Frontier):
            raise FrontierError(f"union with a {type(other).__name__}; expected a Frontier")
        if self.target is not other.target:
            raise FrontierError(f"union of frontiers on different targets ({self.target!r} and "
                                f"{other.target!r}); expected the same target")
        if self.domain != other.domain:
            raise FrontierError(f"union of a frontier of {self.domain} with one of "
                                f"{other.domain}; expected the same domain")
        if not (self.graph.same_vertices(other.graph) if self.domain == VERTICES
                else self.graph is other.graph):
            raise FrontierError(f"union of frontiers of {self.domain} on different graphs "
                                f"({self.graph!r} and {other.graph!r}); expected the same "
                                "graph" + (" or its transpose" if self.domain == VERTICES
                                           else ""))
        other.check_current()
        if other.pool is self.pool and other.slot != self.slot:
            other = other.copy()
        return self._gathered(self.kind, other, unique, "union()")

    def _gathered(self, kind: str, append: Frontier | None = None, unique: bool = False,
                  what: str = "a conversion") -> Frontier:
        """The next ring step of this frontier's pool (``what``): its elements, then
        ``append``'s."""
        self.check_current()
        slot, token = kernels.gather(self.pool, self, self, kind, append, unique, what)
        return Frontier(self.pool, slot, kind, token)

    def __repr__(self) -> str:
        state = f"slot {self.slot}" if self.is_current() else "stale"
        return f"<Frontier {self.kind} of {self.domain} on {self.target.name}, {state}>"


def _first_lengths(first_length: int) -> np.ndarray:
    """The slot lengths of a restarted pool: ``first_length`` for slot 0, 0 for the rest and
    the flags (read-only; kept for the lengths 0 and 1, the common ones)."""
    found = _FIRST_LENGTHS.get(first_length)
    if found is None:
        found = np.zeros(STEPS_RAN + 1, LENGTH_DTYPE)
        found[0] = first_length
        found.setflags(write=False)
        if first_length <= 1:
            _FIRST_LENGTHS[first_length] = found
    return found


_FIRST_LENGTHS: dict[int, np.ndarray] = {}


def _nobody() -> None:
    """The holder of a token no :class:`Frontier` was made for (what a dead weak reference
    gives)."""
    return None


#: Top-level packages of the library: a step's call site is the first frame outside them.
_LIBRARY = frozenset({"frontier", "operators", "algorithms", "frontier_nx"})


def _call_site(known: int = 0) -> str:
    """`` at FILE:LINE`` of the innermost caller outside the library ("" when there is none);
    the caller's ``known`` innermost frames (itself and its callers) are the library's, so the
    walk up the stack starts above them (each frame the walk reads costs it an object)."""
    frame = sys._getframe(1 + known)
    known = _LIBRARY_CODE
    while frame is not None:  # the known code's answer looked up here: no call per frame
        code = frame.f_code
        seen = known.get(id(code))
        if seen is None or seen[0] is not code:
            if not _in_library(frame):
                break
        elif not seen[1]:
            break
        frame = frame.f_back
    return "" if frame is None else f" at {frame.f_code.co_filename}:{frame.f_lineno}"


def _in_library(frame: Any) -> bool:
    """Whether ``frame`` runs code of the library (known per code object after its first
    look)."""
    code = frame.f_code
    seen = _LIBRARY_CODE.get(id(code))
    if seen is not None and seen[0] is code:
        return seen[1]
    found = frame.f_globals.get("__name__", "").partition(".")[0] in _LIBRARY
    if len(_LIBRARY_CODE) >= _LIBRARY_CODE_SIZE:
        _LIBRARY_CODE.clear()  # code made at run time, again and again: start over
    _LIBRARY_CODE[id(code)] = (code, found)
    return found


#: Per code object's id: the code (ids are reused once code goes) and whether it is the
#: library's. Keyed by id: hashing a code object hashes its whole body.
_LIBRARY_CODE: dict[int, tuple[Any, bool]] = {}
_LIBRARY_CODE_SIZE = 4096


def split(array: Any, size: int, parts: int) -> tuple[Any, ...]:
    """The first ``parts`` consecutive pieces of ``size`` elements of ``array`` (views)."""
    return tuple(array[i * size:(i + 1) * size] for i in range(parts))


#: What one id of a frontier of each domain names, in messages.
_ID_OF = {VERTICES: "vertex", EDGES: "edge"}


def _check_kind(kind: str) -> None:
    if kind not in values(Kind):
        raise FrontierError(f"frontier kind {kind!r}; expected one of {values(Kind)}")


def _default_capacity(graph: Graph) -> int:
    """max(|E|, |V|): fits any advance output from a frontier without repeats, and any full
    frontier of either domain."""
    return max(graph.num_edges, graph.num_vertices)


def _check_room(graph: Graph, target: Target, capacity: int) -> None:
    """GraphTooLargeError, before anything is allocated, when the sparse queues of a pool of
    ``capacity`` (one int32 queue per slot) cannot fit where ``target`` keeps its arrays: its
    free device memory, or host memory where the target cannot tell (the cpu target and the
    simulator keep host arrays). Only a capacity above the default is checked: the default is
    no larger than the graph, which is in memory already."""
    need = FrontierPool.SLOTS * int(capacity) * np.dtype(np.int32).itemsize
    free = target.free_bytes()
    where = target.name if free is not None else "host"
    check_device(f"a frontier of capacity {int(capacity):,} (three int32 queues) on a graph of "
                 f"{graph.num_vertices:,} vertices", need,
                 free if free is not None else host_limit_bytes(), where)


def _bitmap(ids: np.ndarray, universe: int) -> tuple[np.ndarray, int]:
    """The bitmap of ``ids`` (at least one word) and its number of set bits."""
    bits = np.zeros(max(_words_for(universe), 1) * 32, dtype=np.uint8)
    bits[ids] = 1
    return np.packbits(bits, bitorder="little").view(WORD_DTYPE), int(np.count_nonzero(bits))
