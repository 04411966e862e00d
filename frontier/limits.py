"""How big a graph may be: the one place that estimates the memory a graph needs and refuses
one that cannot fit, before anything is read or allocated.

Every loader (from a file's header or size), every generator (from its arguments) and every
:class:`~frontier.graph.Graph` constructor calls :func:`check_graph` with the vertex and arc
counts it is about to build; targets call :func:`check_device` before copying a graph to a
device. Both raise :class:`GraphTooLargeError`, naming what was asked, the estimate and the
limit, so a graph that cannot fit fails in microseconds instead of ending in a MemoryError (or
the machine swapping) minutes later.

The host limit is the memory available now: ``MemAvailable`` of ``/proc/meminfo`` (or
``os.sysconf`` free pages where there is no ``/proc``), lowered to the room left under an
address-space limit (``ulimit -v``). The environment variable ``FRONTIER_MAX_HOST_BYTES`` sets
it explicitly (tests use it to make a small limit).

The estimate (:func:`estimate_bytes`) is the CSR itself (int64 row offsets, int32 column
indices, int64 weights) plus the working arrays of construction: about
:data:`WORK_BYTES_PER_ARC` per arc (int64 endpoint pairs and sort keys) and
:data:`WORK_BYTES_PER_VERTEX` per vertex. Text input is bounded by :func:`text_bound`: a text of
``S`` bytes holds at most ``S / 4`` arcs (``"0 1\\n"``), so ``S`` may be at most the size at
which the text and that worst-case graph together still fit under the limit; gzip input is
decompressed in a stream and refused once it expands past the bound.
"""

from __future__ import annotations

import os
import resource

from frontier import messages
from frontier.environ import SettingError
from frontier.errors import GraphTooLargeError

__all__ = ["host_limit_bytes", "estimate_bytes", "check_graph",
           "check_device", "device_cap", "text_bound", "text_estimate", "MIN_LINE_BYTES"]

#: Working memory of graph construction per arc (endpoint pairs, sort keys, permutation).
WORK_BYTES_PER_ARC = 32
#: Working memory of graph construction per vertex (row-offset search, degree counts).
WORK_BYTES_PER_VERTEX = 16
#: The shortest data line of any text format, ``"0 1\n"``: a text of S bytes has <= S / 4 arcs.
MIN_LINE_BYTES = 4
_ENV = "FRONTIER_MAX_HOST_BYTES"
_DEVICE_ENV = "FRONTIER_MAX_DEVICE_BYTES"


def _meminfo(key: str) -> int | None:
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(key.encode() + b":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _address_space_left() -> int | None:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    used = 0
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmSize:"):
                    used = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return max(soft - used, 0)


def host_limit_bytes() -> int:
    """Bytes a new graph may take on the host now (see the module docstring)."""
    env = os.environ.get(_ENV)
    if env:
        return _bytes_setting(_ENV, env, "the memory available")
    available = _meminfo("MemAvailable")
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            available = 1 << 62
    room = _address_space_left()
    return available if room is None else min(available, room)


def estimate_bytes(num_vertices: int, num_arcs: int, weighted: bool = True,
                   work_per_arc: int = WORK_BYTES_PER_ARC) -> int:
    """Bytes to build a graph of ``num_vertices`` and ``num_arcs`` stored arcs: the CSR arrays
    and ``work_per_arc`` bytes of working memory per arc."""
    n, m = max(int(num_vertices), 0), max(int(num_arcs), 0)
    per_arc = 4 + (8 if weighted else 0) + work_per_arc
    return 8 * (n + 1) + WORK_BYTES_PER_VERTEX * n + per_arc * m


def check_graph(what: str, num_vertices: int, num_arcs: int, weighted: bool = True,
                work_per_arc: int = WORK_BYTES_PER_ARC, extra_bytes: int = 0) -> None:
    """Raise GraphTooLargeError if the graph ``what`` names (``num_vertices``, ``num_arcs``;
    plus ``extra_bytes`` the caller holds meanwhile) cannot fit in host memory."""
    need = estimate_bytes(num_vertices, num_arcs, weighted, work_per_arc) + int(extra_bytes)
    limit = host_limit_bytes()
    if need > limit:
        raise GraphTooLargeError(f"{what} ({int(num_vertices):,} vertices, "
                                 f"{int(num_arcs):,} arcs)", need, limit)


def device_cap() -> int | None:
    """``FRONTIER_MAX_DEVICE_BYTES``: the most a graph's device copy may take, on every
    target, whatever the device has free (a smaller device, for tests and for showing a graph
    that one device refuses running over several); None where it is not set."""
    env = os.environ.get(_DEVICE_ENV)
    return _bytes_setting(_DEVICE_ENV, env, "the device's free memory") if env else None


def _bytes_setting(name: str, value: str, unset: str) -> int:
    """The value of the environment variable ``name``, a limit in bytes (``unset``: what
    applies without it): a whole number > 0 (``-5``, ``0``, ``1e9`` and ``lots`` are refused
    with a :class:`~frontier.environ.SettingError` naming the variable)."""
    try:
        limit = int(value)
    except ValueError:
        limit = 0
    if limit <= 0:
        raise SettingError(f"{name}={messages.text(value)}; expected a whole number of bytes "
                           f"> 0 (or the variable unset, for {unset})")
    return limit


def check_device(what: str, need: int, free: int | None, where: str) -> None:
    """Raise GraphTooLargeError if ``need`` bytes exceed ``free`` on device ``where``
    (nothing when the device cannot tell its free memory), or :func:`device_cap`."""
    cap = device_cap()
    if cap is not None and (free is None or cap < free):
        free, where = cap, f"{where} (limited by {_DEVICE_ENV})"
    if free is not None and need > free:
        raise GraphTooLargeError(what, need, free, where)


def text_estimate(size: int) -> int:
    """Bytes that reading ``size`` bytes of text may need: the text itself and the graph of
    ``size / MIN_LINE_BYTES`` arcs it can hold at most."""
    return int(size * (1 + estimate_bytes(0, 1) / MIN_LINE_BYTES))


def text_bound() -> int:
    """The most bytes of text a loader reads (or a gzip stream expands to): the largest size
    whose :func:`text_estimate` fits under the host limit."""
    return int(host_limit_bytes() / (1 + estimate_bytes(0, 1) / MIN_LINE_BYTES))
