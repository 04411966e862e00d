"""Large numpy passes spread over the CPU cores, for building graphs of billions of arcs.

numpy releases the GIL in its sorts, searches, ufunc loops, fancy indexing and random fills
over large arrays, so plain threads run such calls in parallel. :func:`spans` cuts a range into
one piece per core (none smaller than a grain), :func:`each` runs a function over such pieces
in threads, and :func:`chunks` walks a piece in cache-sized steps so elementwise work needs no
array-sized temporaries.

:func:`sort`, :func:`sorted_unique` and :func:`sort_pairs` are sample sorts of int64 keys built
on them: every piece is sorted in its own thread, splitters taken from the sorted pieces cut
each into buckets, and each bucket (its parts of every piece, in piece order) is sorted in its
own thread. They give exactly the arrays numpy's sort and unique give, whatever the number of
threads. Each needs one array the size of its input besides the input itself, which it uses as
scratch space.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

__all__ = ["GRAIN", "threads", "spans", "chunks", "each", "sort", "sorted_unique",
           "sort_pairs"]

#: Pieces of work get their own thread only when at least this many elements long.
GRAIN = 1 << 21
# elementwise passes work through this many elements at a time
_CHUNK = 1 << 18
# splitter candidates taken from each sorted piece, per bucket
_SAMPLES = 16


def threads() -> int:
    """The CPU cores this process may run on (its affinity mask where the platform has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def spans(total: int, grain: int | None = None) -> list[tuple[int, int]]:
    """``0 .. total`` cut into contiguous ``(start, stop)`` pieces, one per core but none
    shorter than ``grain`` (:data:`GRAIN` if None; one piece, possibly empty, when ``total <
    2 * grain``)."""
    grain = GRAIN if grain is None else grain
    if total < 0 or grain < 1:
        raise ValueError(f"spans({total}, grain={grain}): expected total >= 0 and grain >= 1")
    pieces = max(1, min(threads(), total // grain))
    cuts = [total * i // pieces for i in range(pieces + 1)]
    return list(zip(cuts[:-1], cuts[1:], strict=True))


def chunks(start: int, stop: int) -> Iterator[tuple[int, int]]:
    """``start .. stop`` in consecutive cache-sized ``(start, stop)`` steps."""
    for a in range(start, stop, _CHUNK):
        yield a, min(a + _CHUNK, stop)


def each(fn: Callable[..., Any], calls: Sequence[tuple]) -> list[Any]:
    """``[fn(*args) for args in calls]``, the calls run in parallel threads when there are
    several; the first exception raised is re-raised once all calls have ended."""
    if len(calls) <= 1:
        return [fn(*args) for args in calls]
    with ThreadPoolExecutor(len(calls)) as pool:
        futures = [pool.submit(fn, *args) for args in calls]
    return [future.result() for future in futures]


def _check_keys(name: str, keys: np.ndarray) -> None:
    if not isinstance(keys, np.ndarray) or keys.dtype != np.int64 or keys.ndim != 1:
        raise ValueError(f"{name}: keys is {getattr(keys, 'dtype', type(keys))!s} "
                         f"{getattr(keys, 'shape', '')}; expected a 1-D int64 array")
    if not keys.flags.writeable:
        raise ValueError(f"{name}: keys is read-only; expected a writeable array (it is used "
                         "as scratch space)")


def _buckets(runs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """For sorted ``runs``, ``(cut, starts)``: bucket ``j`` holds ``runs[i][cut[i, j]:cut[i,
    j + 1]]`` of every run ``i``, at ``starts[j] .. starts[j + 1]`` of the sorted whole. Equal
    keys fall in one bucket, and every key of a bucket is below every key of the next."""
    count = len(runs)
    picks = [r[np.linspace(0, r.size - 1, _SAMPLES * count).astype(np.int64)]
             for r in runs if r.size]
    samples = np.sort(np.concatenate(picks))
    splitters = samples[np.arange(1, count) * samples.size // count]
    cut = np.array([[0, *np.searchsorted(r, splitters), r.size] for r in runs], dtype=np.int64)
    starts = np.zeros(count + 1, dtype=np.int64)
    np.cumsum((cut[:, 1:] - cut[:, :-1]).sum(axis=0), out=starts[1:])
    return cut, starts


def _gather(runs: list[np.ndarray], cut: np.ndarray, j: int, out: np.ndarray) -> None:
    """Bucket ``j``'s parts of ``runs``, one after the other, into ``out``."""
    at = 0
    for i, run in enumerate(runs):
        part = run[cut[i, j]:cut[i, j + 1]]
        out[at:at + part.size] = part
        at += part.size


def _sort_parts(region: np.ndarray, parts: int) -> None:
    """Sorts ``region``, made of ``parts`` sorted parts, in place: timsort merges two parts
    faster than numpy's quicksort sorts them, which wins from three parts on."""
    region.sort(kind="stable" if parts <= 2 else "quicksort")


def _sorted_runs(keys: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, np.ndarray] | None:
    """``keys`` sorted piece by piece in place, the pieces and their buckets (:func:`_buckets`);
    None when ``keys`` is one piece (then sorted whole)."""
    parts = spans(keys.size)
    if len(parts) == 1:
        keys.sort()
        return None
    runs = [keys[a:b] for a, b in parts]
    each(np.ndarray.sort, [(run,) for run in runs])
    return (runs, *_buckets(runs))


def sort(keys: np.ndarray) -> np.ndarray:
    """``np.sort(keys)`` (1-D int64) computed on every core. ``keys`` is scratch space: its
    contents are lost, and the result may be ``keys`` itself."""
    _check_keys("sort", keys)
    sorted_runs = _sorted_runs(keys)
    if sorted_runs is None:
        return keys
    return _bucket_sorted(keys, sorted_runs, lambda region: None)[0]


def _bucket_sorted(keys: np.ndarray, sorted_runs: tuple, finish: Callable[[np.ndarray], Any]
                   ) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Every bucket of ``sorted_runs`` gathered into its region of a new array and sorted
    there, then ``finish(region)``, one thread per bucket: the array, the buckets' starts in
    it and what ``finish`` returned for each."""
    runs, cut, starts = sorted_runs
    out = np.empty_like(keys)

    def bucket(j: int) -> Any:
        region = out[starts[j]:starts[j + 1]]
        _gather(runs, cut, j, region)
        _sort_parts(region, len(runs))
        return finish(region)

    return out, starts, each(bucket, [(j,) for j in range(len(runs))])


def _compact(region: np.ndarray) -> int:
    """Moves the distinct values of sorted ``region`` to its front; returns their count."""
    kept = 0
    last = None
    for a, b in chunks(0, region.size):
        part = region[a:b]
        keep = np.empty(part.size, dtype=bool)
        keep[0] = last is None or part[0] != last
        np.not_equal(part[1:], part[:-1], out=keep[1:])
        last = part[-1]
        distinct = part[keep]
        region[kept:kept + distinct.size] = distinct
        kept += distinct.size
    return kept


def sorted_unique(keys: np.ndarray) -> np.ndarray:
    """``np.unique(keys)`` (1-D int64: the distinct values, ascending) computed on every core,
    and much faster than np.unique even on one. ``keys`` is scratch space: its contents are
    lost, and the result may share its memory."""
    _check_keys("sorted_unique", keys)
    sorted_runs = _sorted_runs(keys)
    if sorted_runs is None:
        if not keys.size:
            return keys
        keep = np.empty(keys.size, dtype=bool)
        keep[0] = True
        np.not_equal(keys[1:], keys[:-1], out=keep[1:])
        return keys[keep]
    out, starts, kept = _bucket_sorted(keys, sorted_runs, _compact)
    at = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(kept, out=at[1:])

    def move(j: int) -> None:
        keys[at[j]:at[j + 1]] = out[starts[j]:starts[j] + kept[j]]

    each(move, [(j,) for j in range(len(kept))])
    return keys[:at[-1]]


def sort_pairs(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(keys[order], values[order])`` with ``order = np.argsort(keys)``, computed on every
    core, for *distinct* keys (1-D int64; equal keys come out in an unspecified order) and
    ``values`` of the same length. Both inputs are scratch space: their contents are lost."""
    _check_keys("sort_pairs", keys)
    if not isinstance(values, np.ndarray) or values.shape != keys.shape:
        raise ValueError(f"sort_pairs: values has shape {getattr(values, 'shape', None)}; "
                         f"expected {keys.shape}, one value per key")
    parts = spans(keys.size)
    if len(parts) == 1:
        order = np.argsort(keys)
        return keys[order], values[order]
    out_keys = np.empty_like(keys)
    out_values = np.empty_like(values)

    def piece(a: int, b: int) -> None:
        order = np.argsort(keys[a:b])
        np.take(keys[a:b], order, out=out_keys[a:b])
        np.take(values[a:b], order, out=out_values[a:b])

    each(piece, parts)
    runs = [out_keys[a:b] for a, b in parts]
    value_runs = [out_values[a:b] for a, b in parts]
    cut, starts = _buckets(runs)
    buckets = [(j,) for j in range(len(runs))]

    def gather(j: int) -> None:
        _gather(runs, cut, j, keys[starts[j]:starts[j + 1]])
        _gather(value_runs, cut, j, values[starts[j]:starts[j + 1]])

    each(gather, buckets)

    def bucket(j: int) -> None:
        a, b = starts[j], starts[j + 1]
        order = np.argsort(keys[a:b], kind="stable")  # merges the bucket's sorted parts
        np.take(keys[a:b], order, out=out_keys[a:b])
        np.take(values[a:b], order, out=out_values[a:b])

    each(bucket, buckets)
    return out_keys, out_values
