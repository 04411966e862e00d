"""The fast reader of the text formats: one compiled pass over the bytes of a file's data lines.

:func:`scan_entries` reads the data lines of a Matrix Market, SNAP or DIMACS file (everything
after the header) into endpoint and weight arrays, checking every rule that :mod:`frontier.io`
states for a data line: comment lines, the DIMACS ``a`` prefix, the number of fields, integer
ids within range, integer weights within 64 bits, finite decimal weights, the declared entry
count. It never explains a failure: it stops at the first line that breaks a rule (or that it
cannot convert exactly, such as a decimal with more than 15 significant digits) and reports
"not done", and :mod:`frontier.io` then reads the file with its line-by-line parser, which
gives the same graph or names the line at fault. So the library's rules live in one place
(:class:`frontier.io._Layout`); this pass is only faster at applying them.

Decimal weights are converted with Clinger's fast path (a mantissa below ``2**53`` times or
divided by an exact power of ten up to ``1e22``), which rounds correctly, so the result equals
Python's ``float()`` of the token; any other decimal goes to the slow path.

Compiled with ``numba.njit(cache=True)`` (:func:`frontier.runtime.cache_dir.cached_njit`): the first
call on a machine compiles (about a second), later processes load it from the per-user cache.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from frontier import parallel
from frontier.runtime.cache_dir import cached_njit

__all__ = ["scan_entries", "DONE", "FULL", "STOP"]

DONE, FULL, STOP = 0, 1, 2
_POW10 = np.array([10.0 ** k for k in range(23)], dtype=np.float64)
_MAX_DIGITS = 18  # an integer token of up to 18 digits fits int64 exactly
_PARALLEL_BYTES = 1 << 22  # a text is read by several threads only above this size per thread


@cached_njit(nogil=True)
def _is_space(c: int) -> bool:
    return c <= 32 and (c == 32 or c == 9 or c == 13 or c == 11 or c == 12)


@cached_njit(nogil=True)
def _scan(buf, pos, entries, prefix, comment1, comment2, ncols, low, high, base, max_entries,
          weight_kind, src, dst, wi, wf, pow10):  # pragma: no cover - compiled
    """Entries from byte ``pos`` on, appended at ``entries`` (ids less ``base``). Returns
    (status, pos, entries, any_float, largest id less base). weight_kind: 0 none, 1 integer,
    2 integer or decimal."""
    n = buf.size
    cap = src.size
    any_float = False
    top = -1
    while pos < n:
        # one line: skip leading spaces
        p = pos
        while p < n and _is_space(buf[p]):
            p += 1
        if p >= n or buf[p] == 10:
            pos = p + 1
            continue
        c = buf[p]
        if c == comment1 or c == comment2:
            while p < n and buf[p] != 10:
                p += 1
            pos = p + 1
            continue
        if entries >= cap:
            return FULL, pos, entries, any_float, top
        if prefix >= 0:
            if c != prefix or p + 1 >= n or not _is_space(buf[p + 1]):
                return STOP, pos, entries, any_float, top
            p += 1
            while p < n and _is_space(buf[p]):
                p += 1
        if max_entries >= 0 and entries >= max_entries:
            return STOP, pos, entries, any_float, top
        for col in range(ncols):
            if p >= n or buf[p] == 10:
                return STOP, pos, entries, any_float, top
            negative = False
            if buf[p] == 43 or buf[p] == 45:
                negative = buf[p] == 45
                p += 1
            value = 0
            first = p
            while p < n:
                digit = np.int64(buf[p]) - 48
                if digit < 0 or digit > 9:
                    break
                value = value * 10 + digit
                p += 1
            digits = p - first
            if negative:
                value = -value
            end_ok = p >= n or buf[p] == 10 or _is_space(buf[p])
            if col < 2:
                if digits == 0 or digits > _MAX_DIGITS or not end_ok:
                    return STOP, pos, entries, any_float, top
                if value < low or value > high:
                    return STOP, pos, entries, any_float, top
                value -= base
                if value > top:
                    top = value
                if col == 0:
                    src[entries] = value
                else:
                    dst[entries] = value
            elif end_ok:
                if digits == 0 or digits > _MAX_DIGITS:
                    return STOP, pos, entries, any_float, top
                wi[entries] = value
                if weight_kind == 2:
                    wf[entries] = float(value)
                    if negative and value == 0:  # "-0": the float -0.0, which wi cannot hold
                        wf[entries] = -0.0
                        any_float = True
            else:
                # a decimal: [+-]?(digits[.digits]|.digits)([eE][+-]?digits)?
                if weight_kind != 2:
                    return STOP, pos, entries, any_float, top
                mantissa = abs(value)
                significant = digits
                scale = 0
                frac_digits = 0
                if p < n and buf[p] == 46:
                    p += 1
                    while p < n and 48 <= buf[p] <= 57:
                        mantissa = mantissa * 10 + (buf[p] - 48)
                        significant += 1
                        frac_digits += 1
                        p += 1
                        if significant > _MAX_DIGITS:
                            return STOP, pos, entries, any_float, top
                if digits + frac_digits == 0:
                    return STOP, pos, entries, any_float, top
                scale = -frac_digits
                if p < n and (buf[p] == 101 or buf[p] == 69):
                    p += 1
                    eneg = False
                    if p < n and (buf[p] == 43 or buf[p] == 45):
                        eneg = buf[p] == 45
                        p += 1
                    e = 0
                    edigits = 0
                    while p < n and 48 <= buf[p] <= 57:
                        e = e * 10 + (buf[p] - 48)
                        edigits += 1
                        p += 1
                        if edigits > 4:
                            return STOP, pos, entries, any_float, top
                    if edigits == 0:
                        return STOP, pos, entries, any_float, top
                    scale += -e if eneg else e
                if not (p >= n or buf[p] == 10 or _is_space(buf[p])):
                    return STOP, pos, entries, any_float, top
                if mantissa >= 2 ** 53 or scale > 22 or scale < -22:
                    return STOP, pos, entries, any_float, top
                f = float(mantissa)
                f = f * pow10[scale] if scale >= 0 else f / pow10[-scale]
                wf[entries] = -f if negative else f
                wi[entries] = 0
                any_float = True
            while p < n and _is_space(buf[p]):
                p += 1
        if p < n and buf[p] != 10:
            return STOP, pos, entries, any_float, top  # more fields than expected
        entries += 1
        pos = p + 1
    return DONE, pos, entries, any_float, top


def _scan_piece(buf: np.ndarray, start: int, stop: int, prefix: int, c1: int, c2: int,
                ncols: int, low: int, high: int, max_entries: int, weight_kind: int,
                capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool, int] | None:
    """The entries of ``buf[start:stop]`` (whole lines) and the largest id, or None when a line
    needs the slow path."""
    piece = buf[start:stop]
    cap = max(int(capacity), 16)
    ids = np.int32 if high - low <= np.iinfo(np.int32).max else np.int64
    src = np.empty(cap, dtype=ids)
    dst = np.empty(cap, dtype=ids)
    weighted = ncols == 3
    wi = np.empty(cap if weighted else 0, dtype=np.int64)
    wf = np.empty(cap if weighted and weight_kind == 2 else 0, dtype=np.float64)
    pos, entries, any_float, top = 0, 0, False, -1
    while True:
        status, pos, entries, floats, piece_top = _scan(
            piece, pos, entries, prefix, c1, c2, ncols, low, high, low, max_entries,
            weight_kind, src, dst, wi, wf, _POW10)
        any_float |= floats
        top = max(top, piece_top)
        if status == STOP:
            return None
        if status == DONE:
            break
        cap *= 2
        src, dst = np.resize(src, cap), np.resize(dst, cap)
        if weighted:
            wi = np.resize(wi, cap)
            wf = np.resize(wf, cap if weight_kind == 2 else 0)
    weights = (wf if any_float else wi)[:entries] if weighted else wi
    return src[:entries], dst[:entries], weights, any_float, top


def _split(data: bytes, start: int, pieces: int) -> list[int]:
    """Offsets that cut ``data[start:]`` into about ``pieces`` runs of whole lines."""
    cuts = [start]
    step = (len(data) - start) // pieces
    for i in range(1, pieces):
        at = data.find(b"\n", start + i * step)
        if at < 0 or at + 1 <= cuts[-1]:
            break
        cuts.append(at + 1)
    cuts.append(len(data))
    return cuts


def scan_entries(data: bytes, start: int, *, prefix: bytes | None, comments: bytes, ncols: int,
                 low: int, high: int, max_entries: int | None, weight_kind: int,
                 capacity: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int] | None:
    """``(src, dst, weights, top)`` (ids less ``low``, so 0-based: int32 when ``high - low``
    fits, else int64; weights int64, float64
    if any is a decimal, None when ``ncols == 2``; the largest id less ``low``, -1 if none)
    of the data lines of ``data`` from byte
    ``start``, or None when some line breaks a rule or needs the exact slow path.
    ``comments``: the one or two characters that start a comment line; ``weight_kind``: 1
    integer weights, 2 integer or decimal. A large text is cut at line ends into one piece per
    CPU core, read in parallel threads (the compiled pass releases the GIL) and joined in
    order; lines are independent, so the result does not depend on the cuts."""
    buf = np.frombuffer(data, dtype=np.uint8)
    pieces = max(1, min(parallel.threads(), (len(data) - start) // _PARALLEL_BYTES))
    cuts = _split(data, start, pieces)
    limit = -1 if max_entries is None else max_entries
    args = [(buf, a, b, -1 if prefix is None else prefix[0], comments[0], comments[-1], ncols,
             low, high, limit, weight_kind,
             capacity * (b - a) // max(len(data) - start, 1) + 16)
            for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    if len(args) == 1:
        parts = [_scan_piece(*args[0])]
    else:
        with ThreadPoolExecutor(len(args)) as pool:
            parts = list(pool.map(lambda a: _scan_piece(*a), args))
    if any(part is None for part in parts):
        return None
    total = sum(part[0].size for part in parts)
    if max_entries is not None and total > max_entries:
        return None
    top = max(part[4] for part in parts)
    if len(parts) == 1:
        src, dst, weights, _, _ = parts[0]
    else:
        src = np.concatenate([part[0] for part in parts])
        dst = np.concatenate([part[1] for part in parts])
        floats = any(part[3] for part in parts)
        weights = np.concatenate([part[2].astype(np.float64) if floats else part[2]
                                  for part in parts])
    return src, dst, (weights if ncols == 3 else None), top
