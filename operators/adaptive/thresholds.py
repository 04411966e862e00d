"""The decision maker's thresholds and the calibration cache they may come from.

The thresholds come from the target's properties (:func:`device_thresholds`), overridden by the
per-user calibration cache that ``frontier calibrate`` writes (:func:`calibration_path`,
:mod:`operators.calibrate`); everything works without it. Li & Becchi, *Deploying Graph
Algorithms on GPUs: an Adaptive Solution*, §VII.B, give T1, T2 and T3.

The calibration cache is ``calibration.json`` in the disk cache's directory
(:func:`frontier.runtime.cache_dir.cache_dir`), kept by the disk cache's rules
(:mod:`frontier.runtime.cache_files`): it is read only from a directory
:func:`frontier.runtime.cache_files.cache_directory` accepts (else the device's values apply, with
the cache's one warning) and only where it is the user's regular file, not a link; it is written
private (0600), under a fresh name renamed into place, never through a link; ``frontier
calibrate`` refuses a directory that may not be used before it measures
(:func:`check_calibration_output`). It is plain JSON, not sealed with a checksum, which would
add nothing: it runs no code, a file that does not parse or holds values that are not thresholds
gives the device's values, and values that do parse only choose among balancers that all give
the same results.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import asdict, dataclass, fields, replace
from numbers import Real
from pathlib import Path
from typing import Any

import numpy as np

from frontier import environ
from frontier.runtime.cache_dir import CACHE_DIR_INPUTS, CACHE_DIR_VARIABLE, cache_dir
from frontier.runtime.cache_files import cache_directory, check_root, read_file, write_file
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target
from frontier.safefile import OutputError

__all__ = ["Thresholds", "device_thresholds", "thresholds_for", "calibration_path",
           "load_calibration", "save_calibration", "check_calibration_output", "CACHE_ENV"]

#: Environment variable naming the directory of the calibration cache (the disk cache's:
#: :func:`frontier.runtime.cache_dir.cache_dir`).
CACHE_ENV = CACHE_DIR_VARIABLE
CACHE_FILE = "calibration.json"


@dataclass(frozen=True)
class Thresholds:
    """The decision maker's thresholds (:mod:`operators.adaptive.rule`).

    ``t1``: mean frontier degree from which a vertex's edges are spread over a warp or more;
    ``t2``: frontier size from which one thread per vertex fills the GPU; ``t3``: fraction of
    |V| above which the frontier is a bitmap; ``hub_edges``: degree sum from which a step
    splits its edges evenly over all threads; ``hub_degree``: mean frontier degree from which it
    does so however few the edges (hubs); ``host_edges``: degree sum from which such a step is
    launched from the host over the whole GPU rather than run inside the persistent kernel;
    ``sample_every``: steps between two measurements of the degree sum; ``block_frontier`` and
    ``block_edges``: the largest queue and degree sum run in the small-frontier mode (one block,
    :mod:`operators.small_frontier`); ``hand_back_steps``: how many steps in a row a grid-wide
    phase's frontier stays at half ``block_frontier`` or below before the phase hands it back to
    that mode; ``blind_steps``: the most steps a traversal from a queue whose length the host
    does not know runs before its first measurement (:func:`operators.adaptive.rule.blind`);
    ``source``: where the values come from."""

    t1: float = 32.0
    t2: int = 256 * 132
    t3: float = 0.06
    hub_edges: int = 2048 * 132
    hub_degree: int = 8192
    host_edges: int = 16 * 2048 * 132
    sample_every: int = 6
    block_frontier: int = 512
    block_edges: int = 2048
    hand_back_steps: int = 16
    blind_steps: int = 16
    source: str = "defaults"

    def __post_init__(self) -> None:
        for name in ("t1", "t2", "t3", "hub_edges", "hub_degree", "host_edges", "sample_every",
                     "block_frontier", "block_edges", "hand_back_steps", "blind_steps"):
            value = getattr(self, name)
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real) or not value > 0:
                raise ValueError(f"threshold {name}={value!r}; expected a number > 0")

    def with_values(self, values: dict[str, Any], source: str) -> Thresholds:
        """These thresholds with the known names of ``values`` replaced."""
        names = {f.name for f in fields(self)} - {"source"}
        return replace(self, **{k: v for k, v in values.items() if k in names}, source=source)


def device_thresholds(target: Target) -> Thresholds:
    """Thresholds from the target's properties: T2 = 256 threads per block x multiprocessors
    (Li & Becchi's threads per block x SMs); ``hub_edges`` = one edge per thread that runs at
    once (2,048 per multiprocessor): below that a step cannot give every thread an edge, and
    two_phase's degree prefix sum costs more than its balance saves; ``host_edges`` = 16 times
    that: a host step costs three launches and a read, which only a step of that many edges
    repays (below it two_phase runs inside the persistent kernel). On an H100 (132 SMs): T2 =
    33,792, hub_edges = 270,336, host_edges = 4,325,376. ``hub_degree`` keeps its default
    until ``frontier calibrate`` measures it."""
    sms = target.multiprocessors
    return Thresholds(t2=256 * sms, hub_edges=2048 * sms, host_edges=16 * 2048 * sms,
                      source=f"device properties ({sms} multiprocessors)")


def calibration_path() -> Path:
    """The per-user calibration cache: ``calibration.json`` in
    :func:`frontier.runtime.cache_dir.cache_dir` (``$FRONTIER_CACHE_DIR``, else the platform's
    per-user cache directory), as named (a link to the directory is not resolved here)."""
    return _calibration_file()[0]


def _calibration_file() -> tuple[Path, str]:
    """:func:`calibration_path` and its name as a string (kept together: a traversal looks the
    file up by name on every call)."""
    env = environ.snapshot(CACHE_DIR_INPUTS)
    found = _PATHS.get(env)
    if found is None:
        path = cache_dir() / CACHE_FILE
        found = _PATHS[env] = (path, str(path))
    return found


#: The calibration cache's path (and its name) per value of the environment variables it
#: comes from.
_PATHS: dict[tuple, tuple[Path, str]] = {}
#: Seconds during which :func:`thresholds_for` trusts its last look at a calibration file's
#: modification time (a calibration saved by this process is seen at once).
RESTAT_AFTER_S = 1.0
#: Per calibration file: when it was last looked at (time.monotonic) and its modification time
#: then (None: no file).
_STAMPS: dict[str, tuple[float, int | None]] = {}


def _parse(data: bytes | None) -> dict[str, Any]:
    """The entries of a calibration cache's content; empty where there is none or it is not a
    calibration cache (not JSON, not an object)."""
    try:
        entries = json.loads(data) if data is not None else {}
    except ValueError:
        return {}
    return entries if isinstance(entries, dict) else {}


def load_calibration(device: str) -> dict[str, Any] | None:
    """The calibrated values stored for ``device``, or None (no cache, no entry, a file that is
    not a calibration cache, a link or another user's file, or a cache directory that may not
    be used: then the device's defaults apply)."""
    path = calibration_path()
    if not os.path.lexists(path):
        return None  # nothing to read: the directory is neither checked nor made
    folder = cache_directory(path.parent)
    if folder is None:
        return None
    try:
        entry = _parse(read_file(folder / CACHE_FILE)).get(device)
    except OSError:
        return None
    return entry if isinstance(entry, dict) else None


def save_calibration(device: str, thresholds: Thresholds, measured: dict[str, Any]) -> Path:
    """Store ``thresholds`` (and the measurements they come from) for ``device`` in the cache,
    keeping other devices' entries; returns the file written. Raises as
    :func:`check_calibration_output` does where the cache directory may not be used. Saves from
    several threads run one at a time (each keeps the entries of the others); a save from
    another process at once leaves one whole file, never a mixed one (each writes a file of its
    own under a fresh name, renamed into place)."""
    with _SAVING:
        path = check_calibration_output()
        try:
            entries = _parse(read_file(path))
        except OSError:  # an unreadable file of the user's: replaced
            entries = {}
        values = {k: v for k, v in asdict(thresholds).items() if k != "source"}
        entries[device] = {**values, "measured": measured}
        write_file(path, json.dumps(entries, indent=2, sort_keys=True).encode())
        _STAMPS.pop(str(calibration_path()), None)
        _LAST.clear()
    return path


def check_calibration_output() -> Path:
    """The calibration cache's file in its directory, which is checked and made (mode 0700) as
    :func:`frontier.runtime.cache_files.check_root` does it, so that ``frontier calibrate`` is
    refused before it measures: :class:`frontier.safefile.OutputError` where a file is in the
    directory's place or a directory in the file's; ValueError naming the directory, the
    problem and what was expected where it is refused (another user could write it) or cannot
    be made or written."""
    root = calibration_path().parent
    if os.path.isfile(root):
        raise OutputError(root, "is not a directory (a file is in its place)",
                          f"a directory for the calibration cache: {CACHE_ENV} (or "
                          "XDG_CACHE_HOME) naming a directory this user may create or write, "
                          "or unset")
    folder, why = check_root(root)
    if folder is None:
        raise ValueError(f"the calibration cache cannot be kept: {why}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"the calibration cache cannot be kept: {root}: no permission to "
                         "create files in it; expected a directory this user may write")
    path = folder / CACHE_FILE
    if os.path.isdir(path) and not os.path.islink(path):
        raise OutputError(path, "is a directory", "the calibration cache's file (or nothing)")
    return path


_THRESHOLDS: SharedCache[Thresholds] = SharedCache("adaptive thresholds")
_SAVING = threading.Lock()


def thresholds_for(target: Target) -> Thresholds:
    """The thresholds used on ``target``: its device properties, overridden by the calibration
    cache's entry for its device when there is one (looked up again only when the cache file
    changes, which is looked at again after :data:`RESTAT_AFTER_S`)."""
    env = environ.snapshot(CACHE_DIR_INPUTS)
    now = time.monotonic()
    last = _LAST.get(target)  # the common case: the same cache folder, looked at lately
    if last is not None and last[0] == env and now - last[1] <= RESTAT_AFTER_S:
        return last[2]
    path, name = _calibration_file()
    seen = _STAMPS.get(name)
    if seen is None or now - seen[0] > RESTAT_AFTER_S:
        try:
            stamp = os.lstat(path).st_mtime_ns
        except OSError:
            stamp = None
        _STAMPS[name] = seen = (now, stamp)
    key = (target.name, target.simulated, name, seen[1])
    found = _THRESHOLDS.get(key, lambda: _read_thresholds(target))
    _LAST[target] = (env, seen[0], found)
    return found


#: Per target: the cache folder's variables, when its calibration file was last looked at and
#: the thresholds then (what :func:`thresholds_for` answers without a look until
#: :data:`RESTAT_AFTER_S` has passed since, or the variables change).
_LAST: dict[Target, tuple[tuple, float, Thresholds]] = {}


def _read_thresholds(target: Target) -> Thresholds:
    base = device_thresholds(target)
    stored = load_calibration(target.device_name)
    if stored is None:
        return base
    try:
        return base.with_values(stored, f"calibrated ({calibration_path()})")
    except (TypeError, ValueError):
        return base
