"""Warp intrinsics for Numba's CUDA simulator, which has none (no ``shfl_*_sync``, ``ballot_sync``,
``syncwarp``), so that CI can run the generated kernels of every load balancer. A core module:
:mod:`frontier.runtime.warp_intrinsics` hands these to generated kernels whenever the simulator runs
them.

The simulator runs each GPU thread of a block as a Python thread (``numba.cuda.simulator.kernel``:
a ``BlockThread`` per thread, with ``threadIdx`` and its block's ``BlockManager``). Here a warp is
32 consecutive linear thread ids of a block, as on the hardware. Each intrinsic call is an
*exchange* among the lanes named in its mask: every lane deposits its value, waits until all lanes
of the mask have deposited, then reads what it needs. Exchanges are keyed by mask, so lanes that
disagree on the mask never meet.

Whatever the hardware leaves undefined raises :class:`WarpError` instead of returning something
plausible, so tests catch kernels that rely on it:

* a lane calling with a mask that does not name it;
* a shuffle reading a lane that is not in the mask;
* a lane of the mask that exited, does not exist (block smaller than the warp), waits at a
  ``cuda.syncthreads()`` the others have not reached while they wait in the exchange, or waits in
  an exchange of another mask or kind (a deadlock on the hardware);
* lanes of one mask making different calls (a shuffle against a ballot, say);
* a shuffled value that is not a 32- or 64-bit signed int or float (Numba's ``shfl_sync`` rejects
  it at compile time), a width that is not a power of two in 1..32.

A lane found waiting at a barrier is a deadlock only if it waits at a later barrier than the one
the waiting lanes passed: the simulator's block manager releases a barrier's threads one after
another, so a lane released first can reach its next exchange while a partner is still marked as
waiting at the barrier they both passed (under load, for longer than a poll). Every simulated
thread therefore counts the barriers it enters (:func:`frontier.runtime.simulator.barriers_entered`,
installed by :func:`frontier.runtime.simulator.make_faithful` when this module is imported), and
only a partner that entered more of them than the waiting lane is reported.

The functions match :mod:`frontier.runtime.warp_intrinsics`, which maps generated kernels' names to
them.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from frontier.runtime.simulator import barriers_entered, make_faithful

__all__ = ["shfl_idx", "shfl_up", "ballot", "syncwarp", "ffs", "WarpError", "WARP_SIZE"]

WARP_SIZE = 32
_MASK32 = 0xFFFFFFFF
#: Seconds between checks for lanes that can no longer arrive.
_POLL = 0.02
#: Seconds after which a lane that never showed up is reported.
_NEVER_ARRIVED = 60.0


class WarpError(RuntimeError):
    """A warp intrinsic was used in a way whose result is undefined on the hardware."""


class _Exchange:
    """One intrinsic call shared by the lanes of ``mask``."""

    __slots__ = ("kind", "mask", "values", "done")

    def __init__(self, kind: str, mask: int) -> None:
        self.kind = kind
        self.mask = mask
        self.values: dict[int, Any] = {}
        self.done = False


class _Warp:
    """Exchanges in progress in one warp of one simulated block."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.open: dict[int, _Exchange] = {}
        self.waiting: dict[int, _Exchange] = {}


class _Block:
    """Per-block state: the warps, and the block's threads by linear id as far as seen."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.warps: dict[int, _Warp] = {}
        self.threads: dict[int, Any] = {}


#: Guards every _Block (kept on its simulated block's manager, so it lives as long as the block).
_lock = threading.Lock()
_STATE = "_frontier_warp_state"

make_faithful()  # the barrier counts the checks below read


def _current() -> tuple[Any, _Block]:
    thread = threading.current_thread()
    manager = getattr(thread, "_manager", None)
    if manager is None or not hasattr(thread, "thread_id"):
        raise WarpError("warp intrinsics can only be called from a kernel running in the "
                        "Numba CUDA simulator")
    with _lock:
        block = getattr(manager, _STATE, None)
        if block is None:
            block = _Block(int(np.prod(manager._block_dim)))
            setattr(manager, _STATE, block)
        block.threads[thread.thread_id] = thread
    return thread, block


def _known_threads(block: _Block, manager: Any, refresh: bool) -> dict[int, Any]:
    """The block's threads seen so far, by linear id (looking for new ones if ``refresh``)."""
    with _lock:
        if refresh:
            for t in threading.enumerate():
                if getattr(t, "_manager", None) is manager:
                    block.threads.setdefault(t.thread_id, t)
        return dict(block.threads)


def _bits(mask: int) -> list[int]:
    return [lane for lane in range(WARP_SIZE) if (mask >> lane) & 1]


def _exchange(kind: str, mask: Any, value: Any) -> tuple[dict[int, Any], int]:
    """Deposit ``value`` in the exchange of ``mask``; wait for every lane of it. Returns the
    values by lane and the caller's lane."""
    thread, block = _current()
    tid = thread.thread_id
    lane, warp_id = tid % WARP_SIZE, tid // WARP_SIZE
    mask = int(mask) & _MASK32
    if not (mask >> lane) & 1:
        raise WarpError(f"lane {lane} (thread {tid}) calls {kind} with mask {mask:#010x}, which "
                        "does not include it")
    with _lock:
        warp = block.warps.setdefault(warp_id, _Warp())
    with warp.cond:
        ex = warp.open.get(mask)
        if ex is None:
            ex = warp.open[mask] = _Exchange(kind, mask)
        if ex.kind != kind:
            raise WarpError(f"lanes of mask {mask:#010x} make different calls: {ex.kind} and "
                            f"{kind} (lane {lane})")
        ex.values[lane] = value
        if len(ex.values) == len(_bits(mask)):
            ex.done = True
            del warp.open[mask]
            warp.cond.notify_all()
        else:
            warp.waiting[lane] = ex
            start = time.monotonic()
            try:
                while not ex.done:
                    warp.cond.wait(_POLL)
                    if not ex.done:
                        _check_progress(thread, block, warp, warp_id, ex, start)
            finally:
                del warp.waiting[lane]
    return ex.values, lane


def _check_progress(thread: Any, block: _Block, warp: _Warp, warp_id: int, ex: _Exchange,
                    start: float) -> None:
    """Raise if a missing lane of ``ex`` can no longer arrive (called holding ``warp.cond``)."""
    if getattr(thread, "abort", False):
        raise WarpError("another thread of the block failed")
    missing = [lane for lane in _bits(ex.mask) if lane not in ex.values]
    threads = _known_threads(block, thread._manager, refresh=True)
    for lane in missing:
        tid = warp_id * WARP_SIZE + lane
        where = f"lane {lane} (thread {tid}) of mask {ex.mask:#010x} in {ex.kind}"
        if tid >= block.size:
            raise WarpError(f"{where} does not exist: the block has {block.size} threads")
        other = threads.get(tid)
        # The simulator starts a block's threads one after another, each start returning once
        # the thread runs: a thread of a higher id exists only after this one has started.
        started = tid < thread.thread_id or any(t > tid for t in threads)
        if started and (other is None or not other.is_alive()):
            failed = getattr(other, "exception", None)
            if failed:  # its own error is the diagnosis, whichever thread the launch reports
                raise WarpError(f"{where} stopped: {failed[0]}")
            raise WarpError(f"{where} has exited; the other lanes wait for it forever")
        # at the barrier this lane passed, it is being released; at a later one, it skipped
        # the exchange
        if (other is not None and other.syncthreads_blocked
                and barriers_entered(other) > barriers_entered(thread)):
            raise WarpError(f"{where} waits at syncthreads while the other lanes wait in "
                            f"{ex.kind}: a deadlock on the hardware")
        pending = warp.waiting.get(lane)
        if pending is not None and pending is not ex and not pending.done:
            raise WarpError(f"{where} waits in {pending.kind} with mask {pending.mask:#010x} "
                            f"instead: lanes disagree, a deadlock on the hardware")
    if time.monotonic() - start > _NEVER_ARRIVED:
        raise WarpError(f"lanes {missing} of mask {ex.mask:#010x} never reached {ex.kind}")


def _check_value(kind: str, value: Any) -> None:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, np.int32, np.int64, float, np.float32, np.float64)):
        raise WarpError(f"{kind} of {value!r} ({type(value).__name__}): shuffles take 32- or "
                        "64-bit signed ints and floats")


def _check_width(width: Any) -> int:
    width = int(width)
    if width < 1 or width > WARP_SIZE or width & (width - 1):
        raise WarpError(f"shuffle width {width}; expected a power of two from 1 to 32")
    return width


def _read(kind: str, values: dict[int, Any], mask: int, lane: int, src: int) -> Any:
    if src not in values:
        raise WarpError(f"{kind}: lane {lane} reads lane {src}, which is not in mask "
                        f"{int(mask) & _MASK32:#010x}: undefined on the hardware")
    return values[src]


def shfl_idx(mask: int, value: Any, src_lane: int, width: int) -> Any:
    """The ``value`` of lane ``src_lane % width`` of the caller's ``width``-lane segment."""
    _check_value("shfl_idx", value)
    width = _check_width(width)
    values, lane = _exchange("shfl_idx", mask, value)
    src = (lane & ~(width - 1)) | (int(src_lane) & (width - 1))
    return _read("shfl_idx", values, mask, lane, src)


def shfl_up(mask: int, value: Any, delta: int, width: int) -> Any:
    """The ``value`` of the lane ``delta`` below the caller within its ``width``-lane segment;
    the caller's own ``value`` where that lane would lie below the segment."""
    _check_value("shfl_up", value)
    width = _check_width(width)
    values, lane = _exchange("shfl_up", mask, value)
    delta = int(delta)
    src = lane - delta if (lane & (width - 1)) >= delta else lane
    return _read("shfl_up", values, mask, lane, src)


def ballot(mask: int, predicate: Any) -> int:
    """Bit ``i`` set for each lane ``i`` of ``mask`` whose predicate is true (a uint32)."""
    values, _ = _exchange("ballot", mask, bool(predicate))
    return sum(1 << lane for lane, p in values.items() if p)


def syncwarp(mask: int) -> None:
    """Wait until every lane of ``mask`` has reached a ``syncwarp`` of the same mask."""
    _exchange("syncwarp", mask, None)


def ffs(x: int) -> int:
    """One plus the index of the least significant set bit of the 32-bit ``x`` (0 for none)."""
    x = int(x) & _MASK32
    return (x & -x).bit_length()
