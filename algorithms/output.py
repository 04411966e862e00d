"""Where an algorithm's result arrays are returned: ``out="host"`` (the default: NumPy arrays,
copied back from the target) or ``out="device"`` (left on the target that ran the call, with no
device-to-host copy), the same for every algorithm of :data:`algorithms.CATALOG`.

On the cpu target a device array is a NumPy array. On a GPU it is a Numba device array, which
exposes ``__cuda_array_interface__``: ``cupy.asarray(a)`` or ``torch.as_tensor(a,
device="cuda")`` view it without a copy, ``a.copy_to_host()`` copies it. In the CUDA simulator
it is the simulator's stand-in for one (with ``copy_to_host`` too). A result's properties that
need the values on the host (``edges_traversed`` of a BFS, a k-core's ``degeneracy``, ...)
copy them there on first use (:func:`on_host`); scalar facts the algorithm needs anyway (the
number of components) are computed on the target.

On a GPU a host result of a megabyte or more is copied into page-locked memory the target lends
(:mod:`frontier.runtime.pinned`: several times faster to copy into than a fresh array): a NumPy
array like any other, except that it does not own its memory (``flags.owndata`` is False), which
goes back to the target when the array and every view of it are collected.

An algorithm checks ``out`` up front (:func:`check_out`) and hands every result array through
:func:`deliver`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frontier import validate
from frontier.options import Option
from frontier.runtime.target import Target

__all__ = ["Out", "check_out", "deliver", "on_host"]


class Out(Option):
    """Where a result's arrays are returned: copied to the host, or left on the target."""

    HOST = "host"
    DEVICE = "device"


def check_out(out: Any) -> Out:
    """``out`` as an :class:`Out`, else ``ValueError`` naming the choices."""
    return validate.one_of("out", out, Out, "place for the results")


def deliver(target: Target, array: Any, out: str, *, made: bool = False) -> Any:
    """A result array as the caller gets it: a host copy for ``out="host"``, the target's
    array itself for ``out="device"``. ``made``: the call made ``array`` for this result and
    nothing keeps it after the call, so a target whose arrays are host arrays hands it over
    with no copy (:meth:`frontier.runtime.target.Target.hand_over`)."""
    if out != "host":
        return array
    return target.hand_over(array) if made else target.to_host(array)


def on_host(array: Any) -> np.ndarray:
    """A result array's values as a NumPy array: the array itself where it is one (host results,
    the cpu target), else a copy from the device."""
    if isinstance(array, np.ndarray):
        return array
    return array.copy_to_host()
