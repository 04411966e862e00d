"""The frontier ring's kernel text: what every frontier-producing kernel writes the same way.

The frontiers of one traversal share the three slots of a :class:`frontier.frontier.FrontierPool`:
a kernel reading slot ``s`` writes slot ``s+1`` and clears slot ``s+2`` for the step after, so a
loop of steps allocates nothing and needs no extra clearing launches (the double-buffered queues
of Busato & Bombieri, *Graph Algorithms on GPUs*, §2.1, with a third slot cleared in passing).
This module holds that protocol as source snippets, shared by the operators' generated kernels and
the frontier's own kernels (:mod:`frontier.kernels`), and the names of the parameters through
which a kernel receives the ring (:data:`RING_PARAMS`; :meth:`FrontierPool.ring_arguments` gives
their values).

Inside a kernel, ``lens`` is the pool's length array (one length per slot, then the overflow
flag), ``universe`` the number of possible elements (|V| for a vertex frontier, |E| for an edge
frontier), ``tid``/``nthreads`` come from the target's prologue, and the names of
:func:`namespace` are globals.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frontier.options import Kind
from frontier.runtime import atomics

__all__ = ["RING_PARAMS", "OVERFLOW_FLAG", "STEPS_RAN", "LOOP_LENGTHS", "SPARSE", "DENSE",
           "clear_next_slot", "push", "is_active", "namespace"]

#: The frontier kinds: a queue of element ids, or a bitmap of ``universe`` bits.
SPARSE = Kind.SPARSE
DENSE = Kind.DENSE

#: Index, in a pool's length array, of the sticky flag kernels set when a push overflows.
OVERFLOW_FLAG = 3

#: Index, in a pool's length array, where a fused traversal leaves the number of steps it ran
#: (read with the lengths in one transfer).
STEPS_RAN = 4

#: Index, in a pool's length array, where a fused loop's own frontiers' lengths begin
#: (:meth:`frontier.frontier.FrontierPool.make_room`).
LOOP_LENGTHS = STEPS_RAN + 1

#: Parameters through which a kernel receives one ring step, in this order: the universe size,
#: the input frontier (its queue and bitmap; the one of the other kind is a placeholder), the
#: length array, the three slots, the output frontier's queue and bitmap, and the bitmap (and its
#: word count, 0 when it is already clear) of the slot cleared for the next step.
RING_PARAMS = ("universe", "in_ids", "in_words", "lens", "in_slot", "out_slot", "clear_slot",
               "out_ids", "out_words", "clear_words", "clear_num_words")


def clear_next_slot() -> str:
    """Reset the ring slot the *next* kernel will write (see :class:`FrontierPool`)."""
    return ("if tid == 0:\n"
            "    lens[clear_slot] = 0\n"
            "for w in range(tid, clear_num_words, nthreads):\n"
            "    clear_words[w] = 0\n")


def is_active(words: str, v: str) -> str:
    """Expression: is element ``v`` set in bitmap ``words``."""
    return f"((({words}[{v} >> 5]) >> ({v} & 31)) & 1) != 0"


def push(output: str, v: str) -> str:
    """Statements adding element ``v`` to the output frontier of kind ``output`` (a sparse push
    past the queue's end sets the overflow flag instead; a dense push counts only new bits). The
    length grows by :func:`frontier.runtime.atomics.atomic_claim`: one atomic per warp's pushes on a
    GPU."""
    if output == SPARSE:
        return (f"pos = atomic_claim(lens, out_slot)\n"
                f"if pos < out_ids.shape[0]:\n    out_ids[pos] = {v}\n"
                f"else:\n    lens[OVERFLOW] = 1\n")
    if output == DENSE:
        return (f"word = {v} >> 5\n"
                f"bit = uint32(1) << uint32({v} & 31)\n"
                "if (out_words[word] & bit) == 0:\n"
                "    if (atomic_or(out_words, word, bit) & bit) == 0:\n"
                "        atomic_claim(lens, out_slot)\n")
    return "pass\n"


def namespace() -> dict[str, Any]:
    """The globals the snippets use: ``uint32``, ``OVERFLOW``, ``STEPS_RAN`` and the
    atomics."""
    return {"uint32": np.uint32, "OVERFLOW": OVERFLOW_FLAG, "STEPS_RAN": STEPS_RAN,
            **{n: getattr(atomics, n) for n in atomics.__all__}}
