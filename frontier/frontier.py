"""The frontier: the active vertices of one traversal step.

Seed 004 §2.1 (frontier-based traversal); seed 000 §IV (queue and bitmap working sets).

A frontier is *sparse* (a queue of vertex ids) or *dense* (a bitmap of |V| bits), and converts to
the other form on demand. Its length lives in device memory, so an operator can consume one
frontier and produce the next without any host round trip.

The frontiers of one traversal share a :class:`FrontierPool`: three slots of preallocated buffers
used as a ring. An operator reading slot ``s`` writes slot ``s+1`` and clears slot ``s+2`` for the
step after, so a loop of operator calls allocates nothing and needs no extra launches. The price
is the usual one of double-buffered GPU frontiers (Gunrock's too): an operator's output stays
valid for the next operator call only; a frontier whose slot was reused raises
:class:`StaleFrontierError`.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from frontier.graph import Graph
from frontier.ring import DENSE, OVERFLOW_FLAG, RING_PARAMS, SPARSE
from frontier.target import Target, resolve_target

__all__ = ["Frontier", "FrontierPool", "StaleFrontierError", "FrontierError",
           "FrontierOverflowError"]

KINDS = (SPARSE, DENSE)
LENGTH_DTYPE = np.int64
WORD_DTYPE = np.uint32


class FrontierError(ValueError):
    """A frontier was built from, or used with, something that does not fit."""


class StaleFrontierError(FrontierError):
    """The frontier's buffer has been reused by a later operator call."""


class FrontierOverflowError(FrontierError):
    """An operator produced more entries than the sparse frontier buffers hold."""


def _words_for(num_vertices: int) -> int:
    return (num_vertices + 31) // 32


class FrontierPool:
    """Three slots of frontier buffers on one target, for one graph.

    ``lengths`` is a device array of three lengths, one per slot, then the overflow flag. A
    slot's sparse queue (``capacity`` ids) and bitmap are allocated the first time a frontier
    of that kind lands there.
    """

    SLOTS = 3

    def __init__(self, graph: Graph, target: Target, capacity: int) -> None:
        self.graph = graph
        self.target = target
        self.capacity = max(int(capacity), 1)
        self.universe = graph.num_vertices
        self.num_words = _words_for(self.universe)
        self.lengths = target.zeros(self.SLOTS + 1, LENGTH_DTYPE)
        self._ids: list[Any] = [None] * self.SLOTS
        self._words: list[Any] = [None] * self.SLOTS
        self._dirty_words = [False] * self.SLOTS
        self._owner: list[int | None] = [None] * self.SLOTS
        self._clean = [True] * self.SLOTS
        self._tokens = itertools.count(1)
        self._stamps: Any = None
        self._stamp_value = 0
        self._scratch: dict[str, Any] = {}
        self.placeholder = target.zeros(1, WORD_DTYPE)
        self.placeholder_ids = target.zeros(1, np.int32)

    def ids(self, slot: int) -> Any:
        if self._ids[slot] is None:
            self._ids[slot] = self.target.empty(self.capacity, np.int32)
        return self._ids[slot]

    def words(self, slot: int) -> Any:
        if self._words[slot] is None:
            self._words[slot] = self.target.zeros(max(self.num_words, 1), WORD_DTYPE)
        return self._words[slot]

    def next_stamp(self) -> tuple[Any, int]:
        """A per-vertex stamp array and a fresh stamp value, for duplicate removal without
        clearing: a vertex is new to this call when swapping in the value returns another."""
        if self._stamps is None:
            self._stamps = self.target.zeros(max(self.graph.num_vertices, 1), np.int32)
        self._stamp_value += 1
        return self._stamps, self._stamp_value

    def scratch(self, name: str, size: int, dtype: Any) -> Any:
        """A named device buffer of at least ``size`` elements, allocated once per pool (for
        operator and balancer temporaries)."""
        buf = self._scratch.get(name)
        if buf is None or buf.shape[0] < size or buf.dtype != np.dtype(dtype):
            buf = self.target.empty(max(size, 1), dtype)
            self._scratch[name] = buf
        return buf

    def prepare_traversal(self, start_slot: int) -> None:
        """Make ``start_slot``'s successor ready for a fused traversal's first step."""
        out_slot = (start_slot + 1) % self.SLOTS
        if not self._clean[out_slot]:
            self._reset(out_slot)

    def adopt(self, slot: int, kind: str) -> int:
        """After a fused traversal: the frontier it ended on is in ``slot``; nothing is known
        of the other slots."""
        for s in range(self.SLOTS):
            self._owner[s] = None
            self._clean[s] = False
            self._dirty_words[s] = kind == DENSE
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
                "Frontier.from_vertices, or remove repeats with filter(..., unique=True)")
        return lengths

    def ring_arguments(self, frontier: Frontier | None, step: StepSlots,
                       out_kind: str | None) -> dict[str, Any]:
        """The value of every name of :data:`frontier.ring.RING_PARAMS` for one kernel launch
        of ``step`` (from :meth:`begin_step`) reading ``frontier`` (None: a kernel with no ring
        input, such as a constructor's fill) and writing a frontier of ``out_kind`` (None: no
        output frontier)."""
        in_kind = None
        if frontier is not None:
            if frontier.pool is not self:
                raise FrontierError("ring_arguments: the input frontier belongs to another pool")
            if frontier.slot != step.in_slot:
                raise FrontierError(f"ring_arguments: the input frontier is in slot "
                                    f"{frontier.slot}, the step reads slot {step.in_slot}")
            frontier.check_current()
            in_kind = frontier.kind
        values = {
            "universe": self.universe,
            "in_ids": self.ids(step.in_slot) if in_kind == SPARSE else self.placeholder_ids,
            "in_words": self.words(step.in_slot) if in_kind == DENSE else self.placeholder,
            "lens": self.lengths,
            "in_slot": step.in_slot,
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

    def begin_step(self, in_slot: int, out_kind: str | None) -> StepSlots:
        """Plan one operator call reading ``in_slot``: where its output goes, and which slot (and
        bitmap) the kernel clears for the call after it."""
        out_slot = (in_slot + 1) % self.SLOTS
        clear_slot = (in_slot + 2) % self.SLOTS
        if out_kind is not None and not self._clean[out_slot]:
            self._reset(out_slot)
        clear_words = self._dirty_words[clear_slot]
        return StepSlots(in_slot, out_slot, clear_slot,
                         self.words(clear_slot) if clear_words else self.placeholder,
                         self.num_words if clear_words else 0)

    def end_step(self, step: StepSlots, out_kind: str | None) -> int | None:
        """Record what the launched kernel did; returns the token of the output frontier."""
        self._owner[step.clear_slot] = None
        self._clean[step.clear_slot] = True
        self._dirty_words[step.clear_slot] = False
        if out_kind is None:
            return None
        return self.claim(step.out_slot, out_kind)

    def claim(self, slot: int, kind: str) -> int:
        token = next(self._tokens)
        self._owner[slot] = token
        self._clean[slot] = False
        if kind == DENSE:
            self._dirty_words[slot] = True
        return token

    def _reset(self, slot: int) -> None:
        """Clear a slot out of ring order (an older frontier advanced again)."""
        self.target.write_scalar(self.lengths, slot, 0)
        if self._dirty_words[slot]:
            self._words[slot] = self.target.zeros(max(self.num_words, 1), WORD_DTYPE)
            self._dirty_words[slot] = False
        self._owner[slot] = None
        self._clean[slot] = True


class StepSlots:
    """The slots one operator call uses (see :meth:`FrontierPool.begin_step`)."""

    __slots__ = ("in_slot", "out_slot", "clear_slot", "clear_words", "clear_num_words")

    def __init__(self, in_slot: int, out_slot: int, clear_slot: int, clear_words: Any,
                 clear_num_words: int) -> None:
        self.in_slot = in_slot
        self.out_slot = out_slot
        self.clear_slot = clear_slot
        self.clear_words = clear_words
        self.clear_num_words = clear_num_words


class Frontier:
    """Active vertices of one step, sparse or dense, held on a target.

    Build the first frontier of a traversal with :meth:`from_vertices` (or :meth:`all_vertices`);
    operators return the later ones.
    """

    __slots__ = ("pool", "slot", "kind", "_token")

    def __init__(self, pool: FrontierPool, slot: int, kind: str, token: int) -> None:
        self.pool = pool
        self.slot = slot
        self.kind = kind
        self._token = token

    @classmethod
    def from_vertices(cls, graph: Graph, vertices: Any, *, kind: str = SPARSE,
                      target: str | Target | None = None, capacity: int | None = None
                      ) -> Frontier:
        """A frontier holding ``vertices`` (ids in ``0..|V|-1``; a sparse frontier keeps their
        order and repeats). ``capacity`` bounds every sparse frontier of the traversal; the
        default, max(|E|, |V|), fits any advance output."""
        if kind not in KINDS:
            raise FrontierError(f"frontier kind {kind!r}; expected one of {KINDS}")
        ids = np.asarray(vertices).reshape(-1)
        if ids.size == 0:
            ids = ids.astype(np.int64)
        if not np.issubdtype(ids.dtype, np.integer):
            raise FrontierError(f"vertex ids have dtype {ids.dtype}; expected integers")
        n = graph.num_vertices
        if ids.size and (ids.min() < 0 or ids.max() >= n):
            bad = int(ids.min() if ids.min() < 0 else ids.max())
            raise FrontierError(f"vertex {bad} is out of range; expected 0 <= id < {n}")
        tgt = resolve_target(target)
        if capacity is None:
            capacity = max(graph.num_edges, n, ids.size)
        if ids.size > capacity:
            raise FrontierError(f"{ids.size} vertices exceed the frontier capacity {capacity}")
        pool = FrontierPool(graph, tgt, capacity)
        if kind == SPARSE:
            tgt.upload(pool.ids(0), ids.astype(np.int32))
            length = ids.size
        else:
            words = _bitmap(ids, n)
            pool._words[0] = tgt.to_device(words if words.size else np.zeros(1, WORD_DTYPE))
            length = int(np.unique(ids).size)
        tgt.write_scalar(pool.lengths, 0, length)
        return cls(pool, 0, kind, pool.claim(0, kind))

    @classmethod
    def all_vertices(cls, graph: Graph, *, target: str | Target | None = None) -> Frontier:
        """A dense frontier holding every vertex."""
        return cls.from_vertices(graph, np.arange(graph.num_vertices), kind=DENSE, target=target)

    # properties ----------------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        return self.pool.graph

    @property
    def target(self) -> Target:
        return self.pool.target

    @property
    def is_sparse(self) -> bool:
        return self.kind == SPARSE

    def check_current(self) -> None:
        if not self.pool.is_current(self.slot, self._token):
            raise StaleFrontierError(
                "this frontier's buffer was reused by a later operator call; an operator's output "
                "stays valid for the next call only (copy it with to_numpy() to keep it)")

    def device_ids(self) -> Any:
        """The sparse queue buffer (valid up to ``len(self)``)."""
        self.check_current()
        return self.pool.ids(self.slot)

    def device_words(self) -> Any:
        """The dense bitmap: vertex v is bit v % 32 of uint32 word v // 32."""
        self.check_current()
        return self.pool.words(self.slot)

    # host views ----------------------------------------------------------------------------
    def __len__(self) -> int:
        """Number of entries (a host read: one synchronization on the GPU)."""
        self.check_current()
        return int(self.pool.read_lengths()[self.slot])

    def is_empty(self) -> bool:
        return len(self) == 0

    def to_numpy(self) -> np.ndarray:
        """The vertex ids as an int32 host array: queue order for a sparse frontier (repeats
        kept), ascending for a dense one."""
        n = len(self)
        if self.kind == SPARSE:
            return self.target.to_host(self.pool.ids(self.slot)[:n]).astype(np.int32)
        words = self.target.to_host(self.pool.words(self.slot))
        bits = np.unpackbits(words.view(np.uint8), bitorder="little")
        return np.flatnonzero(bits[: self.graph.num_vertices]).astype(np.int32)

    def to_dense(self) -> Frontier:
        """This frontier as a bitmap (a new frontier; duplicates collapse)."""
        return self._convert(DENSE)

    def to_sparse(self) -> Frontier:
        """This frontier as a queue of ids (a new frontier; from a dense one, order unspecified)."""
        return self._convert(SPARSE)

    def _convert(self, kind: str) -> Frontier:
        from operators import filter as filter_op

        return filter_op(self.graph, self, _keep_all, output=kind)

    def __repr__(self) -> str:
        state = "stale" if not self.pool.is_current(self.slot, self._token) else f"slot {self.slot}"
        return f"<Frontier {self.kind} on {self.target.name}, {state}>"


def _keep_all(v: int) -> bool:
    return True


def _bitmap(ids: np.ndarray, num_vertices: int) -> np.ndarray:
    bits = np.zeros(_words_for(num_vertices) * 32, dtype=np.uint8)
    bits[ids] = 1
    return np.packbits(bits, bitorder="little").view(WORD_DTYPE)
