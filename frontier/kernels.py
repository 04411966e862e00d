"""The frontier's own device kernels: filling a frontier, and gathering frontiers into one.

Fixed kernel texts (see :mod:`frontier.ring` for the ring step they take part in):

* ``fill`` (a ring step): every element of the universe, as a queue ``0..n-1`` or a bitmap of
  ``n`` set bits (the last word masked), so a full frontier costs one launch and no host array
  (``Frontier.all_vertices`` / ``all_edges``);
* ``gather`` (a ring step): the elements of a *source* frontier, which may live in another pool,
  written into the step's output frontier of either kind (conversions, copies into a new pool);
* ``append`` (no ring step of its own: it runs right after a ``gather`` of the same step): the
  elements of a second source added to that output (unions).

A queue copied into a queue keeps its order (element ``i`` lands at ``i``, after the elements
already written when appending); everything else is pushed with atomics, in an order the threads
decide, and with ``unique`` an element whose stamp (as ``filter(unique=True)``) is already this
step's is dropped.

Busato & Bombieri, *Graph Algorithms on GPUs*, §2.1 describe the two frontier forms (queue and
bitmap) these kernels move between. Kernels are compiled through :meth:`Target.compile_source`
with the target's prologue and cached per (target, simulator or not, kernel name), built once
when several threads ask at once (:class:`frontier.runtime.shared_cache.SharedCache`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from frontier import ring
from frontier.ring import DENSE, SPARSE
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target

if TYPE_CHECKING:
    from frontier.frontier import Frontier, FrontierPool

__all__ = ["fill", "gather"]

#: Parameters through which ``gather`` and ``append`` read their source frontier, and the stamps
#: of ``unique``.
SOURCE_PARAMS = ("src_ids", "src_words", "src_lens", "src_slot", "stamps", "stamp")
#: Parameters of ``gather``: the ring step, then the source.
GATHER_PARAMS = ring.RING_PARAMS + SOURCE_PARAMS
#: Parameters of ``append``: the ring names it uses, then the source.
APPEND_PARAMS = ("universe", "lens", "in_slot", "out_slot", "out_ids", "out_words") + SOURCE_PARAMS
THREADS_PER_BLOCK = 256

_KERNELS: SharedCache[Callable] = SharedCache("frontier kernels")


def _indent(text: str, levels: int = 1) -> str:
    return textwrap.indent(text, "    " * levels)


def _text(target: Target, name: str, params: tuple[str, ...], body: Callable[[], str]) -> str:
    return f"def {name}({', '.join(params)}):\n" + _indent(target.prologue) + _indent(body())


def _compiled(target: Target, name: str, params: tuple[str, ...], body: Callable[[], str]
              ) -> Callable:
    return _KERNELS.get((target.compile_key, name), lambda: target.compile_source(
        name, _text(target, name, params, body), ring.namespace()))


def _fill_body(kind: str) -> str:
    if kind == SPARSE:
        fill = ("for i in range(tid, universe, nthreads):\n"
                "    out_ids[i] = i\n")
    else:
        fill = ("num_words = (universe + 31) >> 5\n"
                "rest = universe & 31\n"
                "for w in range(tid, num_words, nthreads):\n"
                "    if w == num_words - 1 and rest != 0:\n"
                "        out_words[w] = (uint32(1) << uint32(rest)) - uint32(1)\n"
                "    else:\n"
                "        out_words[w] = uint32(0xFFFFFFFF)\n")
    return ring.clear_next_slot() + fill + "if tid == 0:\n    lens[out_slot] = universe\n"


def _source_body(src_kind: str, out_kind: str, unique: bool, base: str | None) -> str:
    """Write the source frontier's elements into the output: at ``base + i`` for a queue into a
    queue (``base`` None: pushed like every other case), else pushed."""
    text = ("if tid == 0 and src_lens[OVERFLOW] != 0:\n"  # an overflowed source taints the
            "    lens[OVERFLOW] = 1\n")                   # output too
    if base is not None:
        return text + ("count = min(src_lens[src_slot], src_ids.shape[0])\n"
                       f"base = {base}\n"
                       "for i in range(tid, count, nthreads):\n"
                       "    if base + i < out_ids.shape[0]:\n"
                       "        out_ids[base + i] = src_ids[i]\n"
                       "if tid == 0:\n"
                       "    lens[out_slot] = base + count\n"
                       "    if base + count > out_ids.shape[0]:\n"
                       "        lens[OVERFLOW] = 1\n")
    add = ring.push(out_kind, "v")
    if unique:
        add = "if atomic_exch(stamps, v, stamp) != stamp:\n" + _indent(add)
    if src_kind == SPARSE:
        return text + ("for i in range(tid, min(src_lens[src_slot], src_ids.shape[0]), nthreads):\n"
                       "    v = src_ids[i]\n" + _indent(add))
    return text + ("for v in range(tid, universe, nthreads):\n"
                   f"    if {ring.is_active('src_words', 'v')}:\n" + _indent(add, 2))


def _in_order(src_kind: str, out_kind: str, unique: bool) -> bool:
    return src_kind == SPARSE and out_kind == SPARSE and not unique


def _gather_body(src_kind: str, out_kind: str, unique: bool) -> str:
    base = "0" if _in_order(src_kind, out_kind, unique) else None
    return ring.clear_next_slot() + _source_body(src_kind, out_kind, unique, base)


def _append_body(src_kind: str, out_kind: str, unique: bool) -> str:
    # After an in-order gather of the step's (sparse) input, the output holds exactly the
    # input's elements (gather's caller guarantees it): the appended ones start at its length.
    base = "min(lens[in_slot], out_ids.shape[0])" if _in_order(src_kind, out_kind, unique) else None
    return _source_body(src_kind, out_kind, unique, base)


def _threads(target: Target) -> int:
    return min(THREADS_PER_BLOCK, target.max_threads_per_block)


def _blocks(target: Target, work: int) -> int:
    """Blocks of a grid-stride loop over ``work`` items: enough to cover them, at most what
    the device runs at once."""
    threads = _threads(target)
    return max(1, min(-(-max(work, 1) // threads), target.resident_blocks(threads)))


def fill(pool: FrontierPool, kind: str) -> tuple[int, int]:
    """Fill a fresh pool's slot 0 with every element of its universe (one ring step, as if
    reading the last slot). Returns the slot and the token of the new frontier."""
    target = pool.target
    kernel = _compiled(target, f"fill_{kind}", ring.RING_PARAMS, lambda: _fill_body(kind))
    step = pool.begin_step(pool.SLOTS - 1, kind)
    args = pool.ring_arguments(None, step, kind)
    target.launch(kernel, _blocks(target, pool.universe), _threads(target),
                  tuple(args.values()))
    token = pool.end_step(step, kind)
    assert token is not None
    return step.out_slot, token


def _source_arguments(source: Frontier, stamps: Any, stamp: int) -> dict[str, Any]:
    source.check_current()
    pool = source.pool
    return {"src_ids": pool.ids(source.slot) if source.kind == SPARSE else pool.placeholder_ids,
            "src_words": pool.words(source.slot) if source.kind == DENSE else pool.placeholder,
            "src_lens": pool.lengths, "src_slot": source.slot, "stamps": stamps, "stamp": stamp}


def _name(op: str, src_kind: str, out_kind: str, unique: bool) -> str:
    return f"{op}_{src_kind}_to_{out_kind}" + ("_unique" if unique else "")


def gather(pool: FrontierPool, ring_input: Frontier | None, source: Frontier, out_kind: str,
           append: Frontier | None = None, unique: bool = False, what: str = "a copy"
           ) -> tuple[int, int]:
    """One ring step of ``pool`` reading ``ring_input`` (a frontier of ``pool``; None: the step
    writes slot 0 of a fresh pool) whose output, of ``out_kind``, holds the elements of
    ``source`` followed by those of ``append`` (a second launch; then ``source`` must be
    ``ring_input``). Either may live in another pool of the same universe, but not in another
    slot of ``pool`` (the step writes or clears those). ``unique`` drops repeats from a sparse
    output; ``what`` names the step (for a frontier it retires). Returns the slot and the token
    of the new frontier."""
    target = pool.target
    unique = unique and out_kind == SPARSE
    assert append is None or source is ring_input, "append after a gather of the ring input"
    for other in (source, append):
        assert other is None or other.pool is not pool or (
            ring_input is not None and other.slot == ring_input.slot), \
            "a source in a slot this step writes or clears"
    stamps, stamp = pool.next_stamp() if unique else (pool.placeholder_ids, 0)
    in_slot = ring_input.slot if ring_input is not None else pool.SLOTS - 1
    step = pool.begin_step(in_slot, out_kind, what)
    ring_args = pool.ring_arguments(ring_input, step, out_kind)
    launches = [("gather", GATHER_PARAMS, _gather_body, source)]
    if append is not None:
        launches.append(("append", APPEND_PARAMS, _append_body, append))
    for op, params, body, src in launches:
        kernel = _compiled(target, _name(op, src.kind, out_kind, unique), params,
                           lambda body=body, src=src: body(src.kind, out_kind, unique))
        args = {**ring_args, **_source_arguments(src, stamps, stamp)}
        target.launch(kernel, _blocks(target, _bound(src)), _threads(target),
                      tuple(args[name] for name in params))
    token = pool.end_step(step, out_kind)
    assert token is not None
    return step.out_slot, token


def _bound(frontier: Frontier) -> int:
    """Upper bound on a frontier's length known without a device read."""
    return frontier.pool.capacity if frontier.kind == SPARSE else frontier.pool.universe
