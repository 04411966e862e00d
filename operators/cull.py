"""Duplicate culling in a push advance's output queue (Busato & Bombieri, *Graph Algorithms on
GPUs*, §2.2: duplicate vertices in the frontier and BFS-4K's detection; H-BF, §3.2, enqueues each
improved vertex once per iteration).

A push advance whose functor accepts the same head from several edges (an atomic-min relaxation,
an unordered BFS) puts it in a sparse output once per accepting edge; each repeat is expanded
again by the next step. ``advance(..., cull=...)`` and ``traverse(..., cull=...)`` remove them as
they are pushed:

* ``"none"``: every accepted edge pushes its head (the default);
* ``"bitmap"``: exact — a visited mark per vertex, so each head enters the output once. The mark
  is the frontier pool's per-vertex stamp array (what ``filter(unique=True)`` uses): a vertex is
  marked for this step when its stamp equals the step's stamp, so the marks are "cleared" for the
  next step by taking a new stamp, never by a pass over the vertices (a bit per vertex would
  need clearing every step, which costs |V|/32 writes per level on a graph of thousands of
  levels);
* ``"hash"``: BFS-4K's scheme (Busato & Bombieri, Algorithm 3): each push writes the pair
  (step, vertex), merged into one 64-bit word, into a small table at a hash of the vertex and
  reads back what was there; the same word means the vertex was pushed already this step. A
  collision overwrites the entry, so some repeats get through, but nothing is dropped wrongly
  (the step in the word tells this step's entries from older ones). BFS-4K keeps the table in
  shared memory per SM; here it is one table of :data:`HASH_TABLE_SIZE` words in global memory
  (it stays in L2), which every target, the CPU and the simulator included, can hold.

Culling applies where repeats can occur: the sparse output of a push. A dense output or a pull
step holds each vertex once already, and ignores the option.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from frontier.options import Cull, values

if TYPE_CHECKING:
    from frontier.frontier import FrontierPool

__all__ = ["check_cull", "CULL_PARAMS", "culled", "cull_buffers", "HASH_TABLE_SIZE"]

#: Entries of the hash scheme's table (a power of two).
HASH_TABLE_SIZE = 1 << 16
#: The buffers a culling kernel takes: the marks (stamp array or hash table), the step's stamp
#: (a fused traversal takes ``cull_base`` and adds its step), and the table's index mask.
CULL_PARAMS = ("cull_marks", "cull_stamp", "cull_base", "cull_mask")


def check_cull(cull: str) -> Cull:
    """``cull`` as a :class:`frontier.options.Cull`; ValueError listing the choices otherwise."""
    found = Cull._value2member_map_.get(cull) if isinstance(cull, str) else None
    if found is None:
        raise ValueError(f"cull={cull!r}; expected one of {values(Cull)}")
    return found


def culled(cull: str, v: str, push_text: str) -> str:
    """Statements pushing ``v`` with ``push_text`` unless ``cull`` finds it already pushed in
    this step (``cull_stamp`` names the step)."""
    if cull == Cull.BITMAP:
        test = f"atomic_exch(cull_marks, {v}, cull_stamp) != cull_stamp"
        return f"if {test}:\n" + _indent(push_text)
    if cull == Cull.HASH:
        return (f"cull_key = (int64(cull_stamp) << 32) | int64({v})\n"
                f"cull_at = (int64({v}) * 2654435761) & cull_mask\n"
                "if atomic_exch(cull_marks, cull_at, cull_key) != cull_key:\n"
                + _indent(push_text))
    return push_text


def _indent(text: str) -> str:
    return "".join("    " + line + "\n" for line in text.splitlines())


_TABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def cull_buffers(pool: FrontierPool, cull: str) -> dict[str, Any]:
    """The values of :data:`CULL_PARAMS` for one culling step on ``pool`` (its stamp is fresh;
    a fused traversal adds its step to ``cull_base`` and then calls ``pool.use_stamps``)."""
    if cull == Cull.NONE:
        return {}
    if cull == Cull.BITMAP:
        marks, stamp = pool.next_stamp()
    else:
        marks = _TABLES.get(pool)
        if marks is None:  # zeroed: stamp 0 is never a step's, so no entry matches at first
            marks = pool.target.zeros(HASH_TABLE_SIZE, np.int64)
            _TABLES[pool] = marks
        stamp = pool.use_stamps(1)
    return {"cull_marks": marks, "cull_stamp": stamp, "cull_base": stamp,
            "cull_mask": HASH_TABLE_SIZE - 1}
