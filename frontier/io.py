"""Load and save graphs: Matrix Market, SNAP edge lists, DIMACS shortest-path ``.gr``, and
Frontier's binary ``.npz`` CSR.

:func:`load` reads a file, plain or gzip-compressed, into a :class:`~frontier.graph.Graph`;
:func:`load_with_labels` also returns the original id of every vertex after compacting the ids.
Formats:

* Matrix Market coordinate (``.mtx``): ``%%MatrixMarket matrix coordinate <field> <symmetry>``
  with field ``pattern``, ``integer`` or ``real`` and symmetry ``general`` or ``symmetric``;
  1-based. Entry ``(i, j)`` is the arc ``i -> j``; a symmetric file is expanded into both
  directions (diagonal entries once) and loads as undirected. Integer and real values become
  weights (int64, float64; a comment line ``%frontier-graph weights=<dtype>`` before the size
  line, which :func:`save` writes, gives their dtype).
* SNAP edge list (``.txt``, ``.edges``, ``.el``, ``.tsv`` and anything not recognised): ``#`` or
  ``%`` comment lines, then ``u v`` or ``u v w`` per line. Ids are used as given, so the graph
  has ``max id + 1`` vertices; a third column becomes weights (every line must then have one).
  Loads as directed. A file :func:`save` wrote starts with the comment line ``# frontier-graph
  vertices=N arcs=M directed=true|false weights=none|<dtype>`` (:data:`MARKER`): the graph then
  has N vertices, is directed or not (an undirected one lists both arcs of every edge), and
  must have exactly M data lines (a truncated file is refused), with weights as declared.
* DIMACS shortest path (``.gr``): ``c`` comment lines, one ``p sp <nodes> <arcs>`` line, then
  ``a u v w`` arcs; 1-based, integer weights, directed.
* Frontier binary (``.npz``): the CSR arrays as :func:`save` writes them (layout in its
  docstring and docs/io.md); validated like :meth:`Graph.from_csr`, each array's npy header
  checked against its size and the memory available before the array is read.

Every format :func:`save` writes loads back as the same graph (tests/frontier/test_io_roundtrip.py);
:func:`save` writes through :func:`frontier.safefile.writing`, so a failed or interrupted save
never leaves a half-written file.

Reading: the compiled reader of :mod:`frontier.textscan` reads the data lines in one pass (in
parallel pieces on a large file) under the same rules as the reference reader here; when it
stops (a line breaks a rule, or a decimal it cannot convert exactly), the reference reader
reads the file in line-aligned chunks, each converted in bulk with numpy, and a chunk that fails
line by line, to report the exact line. Whether a file loads, and the line an error names, do
not depend on which reader or which chunk size was used (tests/frontier/test_io_chunking.py). Every
problem with a file raises :class:`GraphFormatError` (a :class:`~frontier.errors.GraphError`).

Size: a file's header (the Matrix Market size line, the DIMACS problem line) or, for an edge
list, its size is checked against the memory available before the body is read, and the vertex
count again before the CSR is allocated; gzip is decompressed in a stream bounded by
:func:`frontier.limits.text_bound`, and so is a file that is not a regular file (a device such
as ``/dev/zero``, a pipe, a FIFO: its size reads 0), read in chunks. Past the limit:
:class:`~frontier.errors.GraphTooLargeError`.
"""

from __future__ import annotations

import math
import os
import re
import stat
import threading
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np

from frontier import messages, validate
from frontier.errors import GraphError, GraphTooLargeError
from frontier.graph import Graph, build_graph, unpaired_arc, unpaired_arc_error
from frontier.limits import check_graph, host_limit_bytes, text_bound, text_estimate
from frontier.safefile import writing
from frontier.textscan import scan_entries

__all__ = ["GraphFormatError", "load", "load_with_labels", "save"]

FORMATS = ("mtx", "snap", "dimacs", "npz")
#: What ``save`` writes for each file name ending (``.gz`` is not written).
SAVE_FORMATS = {".npz": "npz", ".mtx": "mtx", ".txt": "snap", ".el": "snap", ".edges": "snap"}
NPZ_VERSION = "frontier-csr-1"

# Bytes of text converted per numpy call; a chunk that fails is rescanned line by line.
_CHUNK_BYTES = 1 << 25
_INT64 = np.iinfo(np.int64)
# Largest id a file may use without relabelling: the graph then has id + 1 <= int32 max vertices.
_MAX_PLAIN_ID = int(np.iinfo(np.int32).max) - 1

_INT_TOKEN = re.compile(rb"[+-]?[0-9]+")
_FLOAT_TOKEN = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INT_CHARS = b"0123456789+- \t\r\n\x0b\x0c"
_FLOAT_CHARS = _INT_CHARS + b".eE"
_BAD_SIGN = re.compile(rb"[+-](?![0-9.])|(?<=[^ \t\r\n\x0b\x0ceE])[+-]")
# an integer token of value zero with a minus sign ("-0", "-00"): where weights may be decimal,
# the float -0.0 (which save writes as "-0"), not the integer 0
_NEGATIVE_ZERO = re.compile(rb"(?<![^ \t\r\n\x0b\x0c])-0+(?![^ \t\r\n\x0b\x0c])")
# a line whose first or second token (a vertex id) holds a decimal point or an exponent
_DECIMAL_ID = re.compile(rb"(?m)^[ \t\r\x0b\x0c]*(?:[^ \t\r\n\x0b\x0c]+[ \t\r\x0b\x0c]+)?"
                         rb"[^ \t\r\n\x0b\x0c]*[.eE]")
_MM_FIELDS = ("pattern", "integer", "real")
_MM_SYMMETRIES = ("general", "symmetric")
#: The comment line :func:`save` writes so that a file loads back as the same graph (other tools
#: skip it as a comment): ``# frontier-graph vertices=N arcs=M directed=true|false weights=W``
#: in an edge list, ``%frontier-graph weights=W`` in Matrix Market (whose header holds the
#: rest); W is ``none`` or the weights' dtype.
MARKER = "frontier-graph"
_WEIGHT_NAMES = ("int32", "int64", "float32", "float64")
_SNAP_MARKER = ("vertices", "arcs", "directed", "weights")
_MTX_MARKER = ("weights",)
_MARKER_LINE = re.compile(rb"[ \t]*[#%][ \t]*" + MARKER.encode() + rb"(?![^ \t\r\n])(.*)", re.S)


class GraphFormatError(GraphError):
    """A graph file is missing or malformed.

    ``path`` names the file, ``line`` is the 1-based line at fault (``None`` when the problem
    is not on one line, such as an empty file); ``str()`` reads
    ``"<path>:<line>: <what is wrong>; expected <what was expected>"``.
    """

    def __init__(self, path: str | os.PathLike[str], line: int | None, problem: str,
                 expected: str) -> None:
        super().__init__(os.fspath(path), line, problem, expected)
        self.path = os.fspath(path)
        self.line = line
        self.problem = problem
        self.expected = expected

    def __str__(self) -> str:
        shown = messages.path(self.path)
        where = shown if self.line is None else f"{shown}:{self.line}"
        return f"{where}: {self.problem}; expected {self.expected}"


# reading ----------------------------------------------------------------------------------------

_HEAD_BYTES = 1 << 16  # enough for any header: the size checks run on this much of a file
_READ_BYTES = 1 << 22


def _too_much_text(path: str, size: int, how: str) -> GraphTooLargeError:
    shown = messages.path(path)
    what = {"file": f"{shown} ({size:,} bytes of text)",
            "gzip": f"{shown} (gzip data expanding past {size:,} bytes of text)",
            "stream": f"{shown} (a device or pipe giving more than {size:,} bytes of text)"}[how]
    return GraphTooLargeError(what, text_estimate(size), host_limit_bytes())


def _gunzip(path: str, f: BinaryIO, first: bytes, check_head: Callable[[bytes], None]
            ) -> bytes:
    """The gzip stream ``first`` + the rest of ``f`` decompressed, at most text_bound() bytes:
    GraphTooLargeError as soon as it expands past that, before holding more."""
    bound = text_bound()
    out = bytearray()
    inflate = zlib.decompressobj(31)
    checked = False
    chunk = first
    try:
        while True:
            while chunk:
                out += inflate.decompress(chunk, bound + 1 - len(out))
                if len(out) > bound:
                    raise _too_much_text(path, bound, "gzip")
                if not checked and len(out) >= _HEAD_BYTES:
                    check_head(bytes(out[:_HEAD_BYTES]))
                    checked = True
                chunk = inflate.unconsumed_tail
                if not chunk and inflate.eof and inflate.unused_data:
                    chunk = inflate.unused_data  # the next member of a multi-member file
                    inflate = zlib.decompressobj(31)
            chunk = f.read(_READ_BYTES)
            if not chunk:
                break
    except zlib.error as err:
        raise GraphFormatError(path, None, f"gzip data is corrupt or truncated ({err})",
                               "a complete gzip file") from None
    if not inflate.eof:
        raise GraphFormatError(path, None, "gzip data is corrupt or truncated (the stream "
                               "ends early)", "a complete gzip file")
    if not checked:
        check_head(bytes(out[:_HEAD_BYTES]))
    return bytes(out)


def _read_bytes(path: str, check_head: Callable[[bytes], None] = lambda head: None) -> bytes:
    """The file's text (gzip decompressed in a stream, a BOM removed). ``check_head`` sees the
    first bytes of the text before the rest is read (the header size checks); the text itself
    is bounded by :func:`frontier.limits.text_bound`: a regular file by its size, before it is
    read, anything else (a device such as ``/dev/zero``, a pipe, a FIFO, whose size reads 0) as
    it is read, in chunks."""
    try:
        with open(path, "rb") as f:
            first = f.read(_HEAD_BYTES)
            if first[:2] == b"\x1f\x8b":
                raw = _gunzip(path, f, first, lambda head: check_head(_strip_bom(head)))
            else:
                if path.lower().endswith(".gz") and first:
                    raise GraphFormatError(path, None, "has a .gz name but does not start with "
                                           "the gzip magic bytes 1f 8b", "gzip-compressed data")
                status = os.fstat(f.fileno())
                bound = text_bound()
                regular = stat.S_ISREG(status.st_mode)
                if regular and status.st_size > bound:
                    raise _too_much_text(path, status.st_size, "file")
                check_head(_strip_bom(first))
                if regular:
                    f.seek(0)
                    raw = f.read()
                else:
                    raw = _read_stream(path, f, first, bound)
    except FileNotFoundError:
        raise GraphFormatError(path, None, "no such file", "an existing graph file") from None
    except IsADirectoryError:
        raise GraphFormatError(path, None, "is a directory", "a graph file") from None
    except OSError as err:
        raise GraphFormatError(path, None, f"cannot be read ({err.strerror or err})",
                               "a readable graph file") from None
    return _strip_bom(raw)


def _read_stream(path: str, f: BinaryIO, first: bytes, bound: int) -> bytes:
    """``first`` and the rest of ``f`` (not a regular file: its size is unknown), read in
    chunks: GraphTooLargeError as soon as the text passes ``bound`` bytes."""
    parts, total = [], 0
    chunk = first
    while chunk:
        total += len(chunk)
        if total > bound:
            raise _too_much_text(path, bound, "stream")
        parts.append(chunk)
        chunk = f.read(_READ_BYTES)
    return b"".join(parts)


def _strip_bom(data: bytes) -> bytes:
    return data[3:] if data[:3] == b"\xef\xbb\xbf" else data


def _first_token(data: bytes) -> bytes:
    """The first whitespace-separated token of the first non-blank line."""
    match = re.search(rb"\S+", data[:4096])
    return match.group() if match else b""


def _detect_format(path: str, data: bytes) -> str:
    if data[:14].lower() == b"%%matrixmarket":
        return "mtx"
    name = path.lower().removesuffix(".gz")
    if name.endswith((".mtx", ".mm")):
        return "mtx"
    if name.endswith(".gr") or _first_token(data) in (b"c", b"p"):
        return "dimacs"
    return "snap"


def _lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """``(offset after the line, line)`` for each line of ``data``."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end + 1
        yield end, data[start:end]
        start = end


def _next_data_line(lines: Iterator[tuple[int, bytes]], line: int, comments: tuple[bytes, ...]
                    ) -> tuple[int, int, bytes, list[bytes]] | None:
    """The first line after line number ``line`` that is neither blank nor a comment: its
    number, the offset after it, the line and its tokens; None at the end of the file."""
    for end, raw in lines:
        line += 1
        tokens = raw.split()
        if tokens and not tokens[0].startswith(comments):
            return line, end, raw, tokens
    return None


def _show(token: bytes) -> str:
    text = token.decode("utf-8", "replace")
    return repr(text if len(text) <= 40 else text[:37] + "...")


# one line at a time: the reference rules, and the error messages ---------------------------------

@dataclass
class _Layout:
    """What the data lines of one file look like, and the rules they must follow."""

    path: str
    comments: tuple[bytes, ...]      # a line whose first token starts with one is a comment
    prefix: bytes | None             # first token of every data line (DIMACS ``a``)
    ncols: int                       # numbers per data line, after the prefix
    shape: str                       # a data line, for messages
    low: int                         # smallest valid vertex id
    high: int                        # largest valid vertex id
    range_note: str                  # why ids must lie in [low, high]
    weight: str | None               # None, "int" or "number" (int or float)
    entries: int | None = None       # data lines the header declares
    header_line: int | None = None   # where it declares them

    def error(self, line: int | None, problem: str, expected: str) -> GraphFormatError:
        return GraphFormatError(self.path, line, problem, expected)

    def is_comment(self, token: bytes) -> bool:
        return token.startswith(self.comments)

    def expected_line(self) -> str:
        return f"{self.ncols + (self.prefix is not None)} fields {self.shape}"

    def vertex(self, line: int, token: bytes) -> int:
        if not _INT_TOKEN.fullmatch(token):
            raise self.error(line, f"vertex id {_show(token)} is not an integer",
                             f"integer ids, {self.shape}")
        v = int(token)
        if not self.low <= v <= self.high:
            raise self.error(line, f"vertex id {v} is {'negative' if v < 0 else 'out of range'}",
                             f"{self.low} <= id <= {self.high} ({self.range_note})")
        return v

    def weight_value(self, line: int, token: bytes) -> int | float:
        if _INT_TOKEN.fullmatch(token):
            w = int(token)
            if not _INT64.min < w < _INT64.max:
                raise self.error(line, f"weight {_show(token)} does not fit 64 bits",
                                 f"an integer weight between {_INT64.min + 1} and "
                                 f"{_INT64.max - 1}")
            if w == 0 and self.weight == "number" and token.startswith(b"-"):
                return -0.0  # "-0": the float -0.0, which an integer cannot hold
            return w
        if self.weight == "number" and _FLOAT_TOKEN.fullmatch(token):
            w = float(token)
            if not np.isfinite(w):
                raise self.error(line, f"weight {_show(token)} is not finite",
                                 "a finite number")
            return w
        kind = "an integer" if self.weight == "int" else "a finite number"
        raise self.error(line, f"weight {_show(token)} is not {kind}", f"{kind}, {self.shape}")

    def entry(self, line: int, raw: bytes, number: int) -> tuple[int, int, int | float] | None:
        """The values on data line ``raw`` (entry ``number``, 1-based); None for a blank or
        comment line. Raises GraphFormatError for anything else."""
        tokens = raw.split()
        if not tokens or self.is_comment(tokens[0]):
            return None
        if self.prefix is not None:
            if tokens[0] != self.prefix:
                raise self.error(line, f"line starts with {_show(tokens[0])}",
                                 f"an arc line {self.shape} or a comment line 'c ...'")
            tokens = tokens[1:]
        if self.entries is not None and number > self.entries:
            raise self.error(line, f"entry {number} is one more than the {self.entries} "
                             f"declared on line {self.header_line}",
                             f"exactly {self.entries} entries")
        if len(tokens) != self.ncols:
            raise self.error(line, f"line has {len(tokens) + (self.prefix is not None)} "
                             "fields", self.expected_line())
        u, v = self.vertex(line, tokens[0]), self.vertex(line, tokens[1])
        return u, v, (self.weight_value(line, tokens[2]) if self.ncols == 3 else 0)


# in bulk --------------------------------------------------------------------------------------

_COMMENT_LINES = {
    b"#%": re.compile(rb"(?m)^[ \t]*[#%][^\n]*"),
    b"%": re.compile(rb"(?m)^[ \t]*%[^\n]*"),
    b"c": re.compile(rb"(?m)^[ \t]*c[^\n]*"),
}


def _blank_comments(text: bytes, layout: _Layout) -> bytes:
    """``text`` with comment lines emptied (line numbers are kept) and DIMACS ``a`` removed."""
    chars = b"".join(layout.comments)
    if any(bytes([c]) in text for c in chars):
        text = _COMMENT_LINES[chars].sub(b"", text)
    if layout.prefix is not None:
        text = text.replace(b"\na ", b"\n  ").replace(b"\na\t", b"\n \t")
        if text[:2] in (b"a ", b"a\t"):
            text = b" " + text[1:]
    return text


def _tokens_per_line(text: bytes) -> np.ndarray:
    """How many whitespace-separated tokens each line of ``text`` holds."""
    if not text:
        return np.zeros(0, dtype=np.int64)
    b = np.frombuffer(text, dtype=np.uint8)
    space = b <= 32
    event = np.empty(b.size, dtype=bool)
    event[0] = not space[0]
    np.less(space[1:], space[:-1], out=event[1:])  # a token starts after a space
    newline = b == 10
    event |= newline
    where = np.flatnonzero(event)
    nl_at = np.flatnonzero(newline[where])
    tokens_before = nl_at - np.arange(nl_at.size)  # token starts before each newline
    if not text.endswith(b"\n"):
        tokens_before = np.append(tokens_before, where.size - nl_at.size)
    return np.diff(tokens_before, prepend=0)


def _numbers(text: bytes, count: int, allow_float: bool) -> np.ndarray | None:
    """The ``count`` numbers in ``text`` as int64 (or float64 if allowed and needed), or None
    when the text holds anything else."""
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    # numpy's conversion is laxer than the rules (a lone sign reads as 0, "0x10" as 16.0, "nan"
    # as nan): text with any other character, or a sign not starting a number, goes line by line
    if text.translate(None, _FLOAT_CHARS if allow_float else _INT_CHARS) or \
            _BAD_SIGN.search(text):
        return None
    for dtype in (np.int64, np.float64) if allow_float else (np.int64,):
        try:
            with warnings.catch_warnings():
                # numpy < 2.3 warns about text it cannot convert instead of raising
                warnings.simplefilter("error", DeprecationWarning)
                values = np.fromstring(text, dtype=dtype, sep=" ")
        except (ValueError, DeprecationWarning):
            continue
        return values if values.size == count else None
    return None


def _bulk_chunk(layout: _Layout, text: bytes, entries_before: int
                ) -> tuple[np.ndarray, np.ndarray | None] | None:
    """Ids (E x 2, int64) and weights of one chunk, or None if any line may break a rule."""
    text = _blank_comments(text, layout)
    counts = _tokens_per_line(text)
    data_lines = int(np.count_nonzero(counts))
    if np.any((counts != 0) & (counts != layout.ncols)):
        return None
    if layout.entries is not None and entries_before + data_lines > layout.entries:
        return None
    values = _numbers(text, data_lines * layout.ncols, layout.weight == "number")
    if values is None:
        return None
    values = values.reshape(data_lines, layout.ncols)
    ids = values[:, :2]
    if ids.dtype == np.float64:
        # an id token such as "1.0" or "1e0" converts to a whole number but is not an integer
        if np.any(np.abs(ids) > 2.0 ** 53) or np.any(ids != np.floor(ids)) or \
                _DECIMAL_ID.search(text):
            return None
        ids = ids.astype(np.int64)
    if ids.size and (ids.min() < layout.low or ids.max() > layout.high):
        return None
    if layout.ncols == 2:
        return ids, None
    w = values[:, 2].copy()
    if w.dtype == np.float64:
        # a whole number of 2**63 or more may be an integer token that does not fit int64,
        # which only the line-by-line rules can tell from a decimal
        if not np.all(np.isfinite(w)) or np.any(np.abs(w) >= 2.0 ** 63):
            return None
    elif w.size and (w.min() == _INT64.min or w.max() == _INT64.max):
        return None
    elif layout.weight == "number" and np.any(w == 0) and _NEGATIVE_ZERO.search(text):
        return None  # a "-0" weight is the float -0.0, which the int64 conversion reads as 0
    return ids, w


def _scan_chunk(layout: _Layout, text: bytes, first_line: int, entries_before: int
                ) -> tuple[np.ndarray, np.ndarray | None]:
    """One chunk read line by line: raises GraphFormatError at its first bad line."""
    rows = []
    for offset, raw in enumerate(text.split(b"\n")):
        row = layout.entry(first_line + offset, raw, entries_before + len(rows) + 1)
        if row is not None:
            rows.append(row)
    ids = np.array([r[:2] for r in rows], dtype=np.int64).reshape(len(rows), 2)
    if layout.ncols == 2:
        return ids, None
    weights = [r[2] for r in rows]
    is_float = any(isinstance(w, float) for w in weights)
    return ids, np.array(weights, dtype=np.float64 if is_float else np.int64)


def _read_entries(layout: _Layout, data: bytes, start: int, first_line: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    """Sources, destinations (int32 or int64, less the smallest valid id ``layout.low``, so
    0-based),
    weights and the largest of those ids (-1 if none) of the data lines from byte
    ``start``, which begins line ``first_line``. Weights are int64, or float64 if any is not an
    integer. The compiled reader (:mod:`frontier.textscan`) reads a valid file in one pass;
    when it stops, the file is read chunk by chunk, each chunk in bulk with numpy or, if that
    fails, line by line, which names the line at fault."""
    capacity = (layout.entries if layout.entries is not None
                else (len(data) - start) // 12 + 16)
    fast = scan_entries(data, start, prefix=layout.prefix, comments=b"".join(layout.comments),
                        ncols=layout.ncols, low=layout.low, high=layout.high,
                        max_entries=layout.entries, capacity=capacity,
                        weight_kind={None: 0, "int": 1, "number": 2}[layout.weight])
    if fast is not None:
        return fast
    ids, weights = _read_entries_in_chunks(layout, data, start, first_line)
    ids -= layout.low
    return ids[:, 0], ids[:, 1], weights, int(ids.max(initial=-1))


def _read_entries_in_chunks(layout: _Layout, data: bytes, start: int, first_line: int
                            ) -> tuple[np.ndarray, np.ndarray | None]:
    """Ids (E x 2, int64, as written) and weights of the data lines from byte ``start``, read
    in chunks of ``_CHUNK_BYTES``: the reference reader, whose rules the fast one follows."""
    id_parts, weight_parts = [], []
    entries, line = 0, first_line
    while start < len(data):
        end = data.find(b"\n", start + _CHUNK_BYTES)
        end = len(data) if end < 0 else end + 1
        text = data[start:end]
        part = _bulk_chunk(layout, text, entries)
        if part is None:
            part = _scan_chunk(layout, text, line, entries)
        id_parts.append(part[0])
        weight_parts.append(part[1])
        entries += part[0].shape[0]
        line += text.count(b"\n")
        start = end
    ids = np.concatenate(id_parts) if id_parts else np.zeros((0, 2), dtype=np.int64)
    if layout.ncols == 2:
        return ids, None
    if not weight_parts:
        return ids, np.zeros(0, dtype=np.int64)
    if any(w.dtype == np.float64 for w in weight_parts):
        weight_parts = [w.astype(np.float64) for w in weight_parts]
    return ids, np.concatenate(weight_parts)


def _last_line(data: bytes) -> int:
    return data.count(b"\n") + (not data.endswith(b"\n"))


def _check_count(layout: _Layout, data: bytes, found: int) -> None:
    if layout.entries is not None and found < layout.entries:
        raise layout.error(_last_line(data), f"file ends after {found} of {layout.entries} "
                           "entries", f"{layout.entries} entries as declared on line "
                           f"{layout.header_line}")


# the formats -----------------------------------------------------------------------------------

@dataclass
class _Parsed:
    """A file's entries: sources and destinations (int64, less ``base``), weights or None."""

    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None
    num_vertices: int            # from the header, else the largest id + 1
    base: int                    # the smallest id in the file (1 for 1-based formats)
    listed_undirected: bool      # each entry stands for both directions (symmetric MM)
    directed_default: bool


def _empty_check(path: str, data: bytes, expected: str) -> None:
    if not data or data.isspace():
        raise GraphFormatError(path, None, "file is empty", expected)


@dataclass
class _MtxHeader:
    rows: int
    nnz: int
    field: str
    symmetry: str
    line: int    # the size line
    end: int     # the offset after it


def _mtx_header(path: str, data: bytes) -> _MtxHeader:
    banner = "'%%MatrixMarket matrix coordinate <pattern|integer|real> <general|symmetric>'"
    _empty_check(path, data, f"a Matrix Market header {banner}")
    lines = _lines(data)
    end, raw = next(lines)
    fields = [t.decode("utf-8", "replace") for t in raw.lower().split()]
    if not fields or fields[0] != "%%matrixmarket":
        raise GraphFormatError(path, 1, "no Matrix Market header", f"a first line {banner}")
    if len(fields) != 5:
        raise GraphFormatError(path, 1, f"header has {len(fields)} fields", banner)
    _, obj, layout_kind, field, symmetry = fields
    if obj != "matrix":
        raise GraphFormatError(path, 1, f"unsupported Matrix Market object '{obj}'", "'matrix'")
    if layout_kind != "coordinate":
        raise GraphFormatError(path, 1, f"unsupported Matrix Market format '{layout_kind}'",
                               "'coordinate' (the dense 'array' format is not supported)")
    if field not in _MM_FIELDS:
        raise GraphFormatError(path, 1, f"unsupported Matrix Market field '{field}'",
                               "'pattern', 'integer' or 'real'")
    if symmetry not in _MM_SYMMETRIES:
        raise GraphFormatError(path, 1, f"unsupported Matrix Market symmetry '{symmetry}'",
                               "'general' or 'symmetric'")
    found = _next_data_line(lines, 1, (b"%",))
    if found is None:
        raise GraphFormatError(path, None, "file ends before the size line",
                               "a line 'rows cols entries' after the header")
    line, end, raw, tokens = found
    if len(tokens) != 3 or not all(_INT_TOKEN.fullmatch(t) for t in tokens):
        raise GraphFormatError(path, line, f"size line {_show(raw.strip())} is not three "
                               "integers", "'rows cols entries'")
    rows, cols, nnz = map(int, tokens)
    if min(rows, cols, nnz) < 0:
        raise GraphFormatError(path, line, "size line has a negative count",
                               "'rows cols entries', all >= 0")
    if rows != cols:
        raise GraphFormatError(path, line, f"matrix is {rows} x {cols}",
                               "a square matrix: rows = cols = the number of vertices")
    if rows > _MAX_PLAIN_ID + 1:
        raise GraphFormatError(path, line, f"{rows} vertices do not fit int32 vertex ids",
                               f"at most {_MAX_PLAIN_ID + 1} rows")
    return _MtxHeader(rows, nnz, field, symmetry, line, end)


def _mtx_size(path: str, head: bytes) -> None:
    h = _mtx_header(path, head)
    check_graph(messages.path(path), h.rows, h.nnz * (2 if h.symmetry == "symmetric" else 1),
                h.field != "pattern", extra_bytes=len(head))


def _read_mtx(path: str, data: bytes) -> _Parsed:
    h = _mtx_header(path, data)
    weight = {"pattern": None, "integer": "int"}.get(h.field, "number")
    layout = _Layout(path, (b"%",), None, 2 if weight is None else 3,
                     "'row col'" if weight is None else "'row col value'", 1, h.rows,
                     "the size line's row count", weight, h.nnz, h.line)
    src, dst, weights, top = _read_entries(layout, data, h.end, h.line + 1)
    _check_count(layout, data, src.size)
    if weight == "number":
        weights = weights.astype(np.float64)
    marker = _marker(path, data[:h.end], "%", _MTX_MARKER)
    if marker is not None:
        declared, line = marker[0]["weights"], marker[1]
        fits = {"pattern": ("none",), "integer": ("int32", "int64"),
                "real": ("float32", "float64")}[h.field]
        if declared not in fits:
            raise GraphFormatError(path, line, f"weights={declared} in a '{h.field}' file",
                                   f"weights={' or '.join(fits)} for the field of line 1")
        weights = _as_declared(path, line, weights, declared)
    return _Parsed(src, dst, weights, h.rows, 1, h.symmetry == "symmetric",
                   h.symmetry == "general")


def _dimacs_header(path: str, data: bytes) -> tuple[int, int, int, int, int]:
    """Nodes, arcs, the problem line, and the offset and line number of the first arc."""
    problem = "'p sp <nodes> <arcs>'"
    _empty_check(path, data, f"a DIMACS problem line {problem} and arc lines 'a u v w'")
    header: tuple[int, int, int] | None = None
    start, first = len(data), 0  # no arc lines unless one is found
    for line, (end, raw) in enumerate(_lines(data), start=1):
        tokens = raw.split()
        if not tokens or tokens[0].startswith(b"c"):
            continue
        if tokens[0] == b"a":
            if header is None:
                raise GraphFormatError(path, line, "arc line before the problem line",
                                       f"the problem line {problem} before the first arc")
            start, first = end - len(raw), line
            break
        if tokens[0] != b"p":
            raise GraphFormatError(path, line, f"line starts with {_show(tokens[0])}",
                                   f"'c' comment lines, one problem line {problem}, then "
                                   "arc lines 'a u v w'")
        if header is not None:
            raise GraphFormatError(path, line, "a second problem line",
                                   f"one problem line {problem}, on line {header[2]}")
        if len(tokens) != 4:
            raise GraphFormatError(path, line, f"problem line has {len(tokens)} fields",
                                   problem)
        if tokens[1] != b"sp":
            raise GraphFormatError(path, line, f"problem type {_show(tokens[1])}",
                                   f"'sp' (shortest path): {problem}")
        if not all(_INT_TOKEN.fullmatch(t) and int(t) >= 0 for t in tokens[2:]):
            raise GraphFormatError(path, line, "node or arc count is not a whole number",
                                   f"{problem} with counts >= 0")
        header = (int(tokens[2]), int(tokens[3]), line)
    if header is None:
        raise GraphFormatError(path, None, "no problem line", problem)
    n, m, header_line = header
    if n > _MAX_PLAIN_ID + 1:
        raise GraphFormatError(path, header_line, f"{n} nodes do not fit int32 vertex ids",
                               f"at most {_MAX_PLAIN_ID + 1} nodes")
    return n, m, header_line, start, first


def _dimacs_size(path: str, head: bytes) -> None:
    n, m, *_ = _dimacs_header(path, head)
    check_graph(messages.path(path), n, m, True, extra_bytes=len(head))


def _read_dimacs(path: str, data: bytes) -> _Parsed:
    n, m, header_line, start, first = _dimacs_header(path, data)
    layout = _Layout(path, (b"c",), b"a", 3, "'a u v w'", 1, n,
                     "the problem line's node count", "int", m, header_line)
    src, dst, weights, top = _read_entries(layout, data, start, first)
    _check_count(layout, data, src.size)
    return _Parsed(src, dst, weights, n, 1, False, True)


def _read_snap(path: str, data: bytes, relabel: bool) -> _Parsed:
    shapes = "2 fields 'u v' or 3 fields 'u v w'"
    _empty_check(path, data, f"edge lines with {shapes}")
    found = _next_data_line(_lines(data), 0, (b"#", b"%"))
    start = len(data) if found is None else found[1] - len(found[2])
    marker = _marker(path, data[:start], "# ", _SNAP_MARKER)
    if marker is not None:
        return _read_marked_snap(path, data, start, 0 if found is None else found[0], *marker)
    if found is None:
        raise GraphFormatError(path, None, "no edge lines, only comments",
                               f"edge lines with {shapes}")
    line, end, raw, tokens = found
    if len(tokens) not in (2, 3):
        raise GraphFormatError(path, line, f"line has {len(tokens)} fields", shapes)
    shape = "'u v'" if len(tokens) == 2 else "'u v w'"
    if relabel:
        high, note = int(_INT64.max) - 1, "64-bit ids"
    else:
        high, note = _MAX_PLAIN_ID, "ids index int32 vertices; relabel=True compacts larger ids"
    layout = _Layout(path, (b"#", b"%"), None, len(tokens),
                     f"{shape} like the first edge line {line}", 0, high, note,
                     "number" if len(tokens) == 3 else None)
    src, dst, weights, top = _read_entries(layout, data, end - len(raw), line)
    return _Parsed(src, dst, weights, top + 1, 0, False, True)


def _read_marked_snap(path: str, data: bytes, start: int, first_line: int,
                      marker: dict[str, Any], line: int) -> _Parsed:
    """An edge list that :func:`save` wrote: sized, directed and weighted as its marker line
    ``line`` says, with exactly the arcs it declares (so a truncated file is refused)."""
    n, declared = marker["vertices"], marker["weights"]
    check_graph(messages.path(path), n, marker["arcs"], declared != "none",
                extra_bytes=len(data))
    kind = None if declared == "none" else "int" if declared.startswith("int") else "number"
    shape = "'u v'" if kind is None else "'u v w'"
    layout = _Layout(path, (b"#", b"%"), None, 2 if kind is None else 3,
                     f"{shape} as line {line} declares", 0, n - 1,
                     f"the {n} vertices line {line} declares", kind, marker["arcs"], line)
    src, dst, weights, _ = _read_entries(layout, data, start, first_line)
    _check_count(layout, data, src.size)
    return _Parsed(src, dst, _as_declared(path, line, weights, declared), n, 0, False,
                   marker["directed"])


def _marker(path: str, block: bytes, comment: str, keys: tuple[str, ...]
            ) -> tuple[dict[str, Any], int] | None:
    """The fields of the :data:`MARKER` line among the comment lines ``block`` (before the
    first data line) and its line number, or None when there is none."""
    for number, (_, raw) in enumerate(_lines(block), start=1):
        match = _MARKER_LINE.match(raw)
        if match is None:
            continue
        fields = match.group(1).split()
        expected = (f"'{comment}{MARKER} " + " ".join(
            f"{key}=<{_MARKER_VALUES[key][0]}>" for key in keys) + "' as frontier.save writes")
        pairs = dict(f.decode("utf-8", "replace").partition("=")[::2] for f in fields)
        if len(fields) != len(keys) or sorted(pairs) != sorted(keys):
            raise GraphFormatError(path, number, f"{MARKER} line has the fields "
                                   f"{_show(b' '.join(fields))}", expected)
        values = {}
        for key in keys:
            value = _MARKER_VALUES[key][1](pairs[key])
            if value is None:
                raise GraphFormatError(path, number, f"{MARKER} line has {key}="
                                       f"{_show(pairs[key].encode())}", expected)
            values[key] = value
        return values, number
    return None


def _count_field(most: int) -> Callable[[str], int | None]:
    """The reader of a marker field that holds a count from 0 to ``most``."""
    def read(text: str) -> int | None:
        value = int(text) if _INT_TOKEN.fullmatch(text.encode()) else -1
        return value if 0 <= value <= most else None
    return read


_MARKER_VALUES: dict[str, tuple[str, Callable[[str], Any]]] = {
    "vertices": (f"a count up to {_MAX_PLAIN_ID + 1}", _count_field(_MAX_PLAIN_ID + 1)),
    "arcs": ("a count", _count_field(int(_INT64.max) - 1)),
    "directed": ("true|false", {"true": True, "false": False}.get),
    "weights": ("none|" + "|".join(_WEIGHT_NAMES),
                lambda text: text if text in ("none", *_WEIGHT_NAMES) else None),
}


def _as_declared(path: str, line: int, weights: np.ndarray | None, declared: str
                 ) -> np.ndarray | None:
    """``weights`` as read (int64 or float64) converted to the dtype the marker line ``line``
    declares; GraphFormatError for a weight that does not fit it."""
    if weights is None or declared in ("none", weights.dtype.name):
        return weights
    cast = weights.astype(declared)
    bad = ~np.isfinite(cast) if cast.dtype.kind == "f" else cast != weights
    if np.any(bad):
        raise GraphFormatError(path, line, f"weight {weights[np.flatnonzero(bad)[0]]} does not "
                               f"fit the {declared} this line declares",
                               f"weights that fit {declared}")
    return cast


# building the graph ---------------------------------------------------------------------------

def _compact(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ids, sorted, and ``ids`` replaced by their positions among them."""
    flat = ids
    if flat.size == 0:
        return np.zeros(0, dtype=np.int64), ids
    top = int(flat.max())
    if top < 4 * flat.size + 1024:
        present = np.zeros(top + 1, dtype=bool)
        present[flat] = True
        return np.flatnonzero(present), (np.cumsum(present) - 1)[ids]
    ordered = np.sort(flat)
    labels = ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])]
    return labels, np.searchsorted(labels, ids)


def _check_head(path: str, fmt: str | None) -> Callable[[bytes], None]:
    """The size check run on the first bytes of a file: from the Matrix Market size line or
    the DIMACS problem line, before the body is read. (A header too malformed to read here is
    reported by the full parse.)"""
    def check(head: bytes) -> None:
        kind = fmt or _detect_format(path, head)
        reader = {"mtx": _mtx_size, "dimacs": _dimacs_size}.get(kind)
        if reader is not None:
            try:
                reader(path, head)
            except GraphFormatError:
                pass
    return check


def _load(path: str | os.PathLike[str], directed: bool | None, symmetrize: bool,
          relabel: bool, format: str | None) -> tuple[Graph, np.ndarray | None]:
    directed = validate.flag("directed", directed, none=True)
    symmetrize = validate.flag("symmetrize", symmetrize)
    relabel = validate.flag("relabel", relabel)
    if format is not None and format not in FORMATS:
        raise ValueError(f"format={format!r}; expected one of {', '.join(FORMATS)} or None")
    if symmetrize and directed:
        raise ValueError("symmetrize=True builds an undirected graph; expected directed=None "
                         "or False with it")
    path = validate.file_path("path", path)
    if format == "npz" or (format is None and path.lower().endswith(".npz")):
        return _load_npz(path, directed, symmetrize, relabel), None
    data = _read_bytes(path, _check_head(path, format))
    fmt = format or _detect_format(path, data)
    if fmt == "mtx":
        parsed = _read_mtx(path, data)
    elif fmt == "dimacs":
        parsed = _read_dimacs(path, data)
    else:
        parsed = _read_snap(path, data, relabel)
    del data
    src, dst, labels = parsed.src, parsed.dst, None
    if relabel:
        labels, both = _compact(np.concatenate([src, dst]))
        src, dst = both[:src.size], both[src.size:]
        labels += parsed.base
        n = labels.size
    else:
        n = parsed.num_vertices
    mirror = symmetrize or parsed.listed_undirected
    if symmetrize:
        is_directed = False
    else:
        is_directed = parsed.directed_default if directed is None else directed
    check_graph(messages.path(path), n, src.size * (2 if mirror else 1),
                parsed.weights is not None)
    graph = build_graph(src, dst, parsed.weights, n, directed=not mirror)
    if is_directed != graph.directed:
        graph = Graph._trusted(graph.row_offsets, graph.col_indices, graph.weights, is_directed)
    if not is_directed and not mirror:
        arc = unpaired_arc(graph.row_offsets, graph.col_indices)
        if arc is not None:
            shown = tuple(int(labels[x]) if labels is not None else x + parsed.base for x in arc)
            raise GraphFormatError(path, None, unpaired_arc_error(arc, shown).split("; ")[0],
                                   "every arc listed in both directions for directed=False "
                                   "(symmetrize=True adds the reverse arcs)")
    return graph, labels


def load(path: str | os.PathLike[str], directed: bool | None = None, symmetrize: bool = False,
         relabel: bool = False, format: str | None = None) -> Graph:
    """Read a graph file (plain or gzip) into a :class:`~frontier.graph.Graph`.

    ``format`` is ``"mtx"``, ``"snap"``, ``"dimacs"`` or ``"npz"``; by default it is detected
    from the content (a ``%%MatrixMarket`` header) and the name (``.npz``, ``.mtx``, ``.gr``;
    anything else is read as a SNAP edge list), ignoring a ``.gz`` suffix. Gzip is recognised
    by its magic bytes. A ``.npz`` file is one :func:`save` wrote; ``directed`` and
    ``symmetrize`` apply to it as to :meth:`Graph.from_csr`.

    ``directed=None`` keeps the format's default: a general Matrix Market file, SNAP and DIMACS
    files are directed, a symmetric Matrix Market file undirected. ``directed=False`` on a
    directed format marks the graph undirected without adding arcs, so the file must already
    list every arc in both directions (as email-Enron does); otherwise GraphFormatError.
    ``directed=True`` on a symmetric Matrix Market file keeps both directions as arcs of a
    directed graph.

    ``symmetrize=True`` treats every entry as an undirected edge and stores it both ways (a
    self-loop once), giving an undirected graph. It is meant for files that list each pair
    once, such as facebook_combined; on a file that already lists both directions it doubles
    every arc.

    ``relabel=True`` drops ids that appear in no entry and numbers the rest ``0 .. k-1`` in
    order of original id; :func:`load_with_labels` also returns the original ids.

    Raises GraphFormatError (a GraphError, so a ValueError) naming the file and line for a
    missing, empty, truncated or malformed file, and GraphTooLargeError, before the body is
    read or the graph allocated, for a graph that cannot fit in memory.
    """
    return _load(path, directed, symmetrize, relabel, format)[0]


def load_with_labels(path: str | os.PathLike[str], directed: bool | None = None,
                     symmetrize: bool = False, format: str | None = None
                     ) -> tuple[Graph, np.ndarray]:
    """:func:`load` with ``relabel=True``, also returning ``labels`` (int64): ``labels[i]`` is
    the id that vertex ``i`` has in the file (1-based for Matrix Market and DIMACS)."""
    graph, labels = _load(path, directed, symmetrize, True, format)
    assert labels is not None
    return graph, labels


# the binary format ------------------------------------------------------------------------------

_NPZ_KEYS = {"format", "row_offsets", "col_indices", "num_vertices", "directed"}
_NPZ_WEIGHTS = ("float64", "float32", "int64", "int32")


def _npz_error(path: str, problem: str) -> GraphFormatError:
    return GraphFormatError(path, None, problem,
                            f"a Frontier .npz graph ({NPZ_VERSION}: row_offsets int64, "
                            "col_indices int32, optional weights, num_vertices, directed), as "
                            "frontier.save writes")


def _load_npz(path: str, directed: bool | None, symmetrize: bool, relabel: bool) -> Graph:
    """A graph that :func:`save` wrote to ``.npz``, validated like :meth:`Graph.from_csr`."""
    if relabel:
        raise ValueError("relabel=True applies to text formats; a .npz graph's ids are "
                         "already 0 .. num_vertices-1")
    try:
        with zipfile.ZipFile(path) as archive:
            arrays = _npz_arrays(path, archive)
    except GraphError:
        raise
    except FileNotFoundError:
        raise GraphFormatError(path, None, "no such file", "an existing graph file") from None
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error) as err:
        raise _npz_error(path, f"is not a readable .npz archive ({err})") from None
    if arrays["format"].shape != () or str(arrays["format"]) != NPZ_VERSION:
        raise _npz_error(path, f"format is {str(arrays['format'])[:40]!r}")
    offsets, cols = arrays["row_offsets"], arrays["col_indices"]
    weights = arrays.get("weights")
    n, is_directed = arrays["num_vertices"], arrays["directed"]
    if n.shape != () or n.dtype != np.int64 or is_directed.shape != () or \
            is_directed.dtype != np.bool_:
        raise _npz_error(path, "num_vertices or directed is not a scalar int64 / bool")
    if offsets.dtype != np.int64 or offsets.shape != (int(n) + 1,) or \
            cols.dtype != np.int32 or cols.ndim != 1:
        raise _npz_error(path, f"row_offsets {offsets.dtype}{offsets.shape} or col_indices "
                         f"{cols.dtype}{cols.shape} do not match num_vertices = {int(n)}")
    if weights is not None and (weights.dtype.name not in _NPZ_WEIGHTS or weights.ndim != 1):
        raise _npz_error(path, f"weights have dtype {weights.dtype} and {weights.ndim} "
                         f"dimensions; expected a 1-D array of {', '.join(_NPZ_WEIGHTS)}")
    want = bool(is_directed) if directed is None and not symmetrize else bool(directed)
    try:
        return Graph.from_csr(offsets, cols, weights, directed=want and not symmetrize,
                              symmetrize=symmetrize)
    except GraphTooLargeError:
        raise
    except GraphError as err:
        raise _npz_error(path, str(err).split("; expected")[0]) from None


def _npz_arrays(path: str, archive: zipfile.ZipFile) -> dict[str, np.ndarray]:
    """The arrays of a .npz archive by name, once the names and the sizes in the archive's
    directory are checked."""
    infos = archive.infolist()
    sizes = {info.filename.removesuffix(".npy"): info.file_size for info in infos}
    if len(sizes) != len(infos):
        raise _npz_error(path, "archive holds an array name twice")
    missing = sorted(_NPZ_KEYS - set(sizes))
    extra = sorted(set(sizes) - _NPZ_KEYS - {"weights"})
    if missing or extra:
        raise _npz_error(path, f"archive {'lacks ' + ', '.join(missing) if missing else ''}"
                         f"{'; ' if missing and extra else ''}"
                         f"{'has unknown ' + ', '.join(extra) if extra else ''}")
    check_graph(messages.path(path), sizes["row_offsets"] // 8, sizes["col_indices"] // 4,
                "weights" in sizes)
    return {info.filename.removesuffix(".npy"): _npz_array(path, archive, info)
            for info in infos}


#: NumPy parses an npy header with ``ast.literal_eval``, and CPython before 3.11.8 and 3.12.1
#: keeps the AST conversion's recursion depth in state shared by all threads (gh-106905): two
#: threads parsing at once fail with "SystemError: AST constructor recursion depth mismatch".
#: Headers are parsed one at a time.
_NPY_HEADERS = threading.Lock()


def _npz_array(path: str, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    """One array of a .npz archive. Its npy header is read and checked first: a shape whose
    data would not fit in memory is GraphTooLargeError, one that does not match the member's
    size (from the archive's directory) GraphFormatError, before the array is allocated."""
    name = info.filename.removesuffix(".npy")
    with archive.open(info) as member:
        try:
            version = np.lib.format.read_magic(member)
            if version not in ((1, 0), (2, 0)):
                raise ValueError(f"npy format version {version[0]}.{version[1]}")
            read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                           else np.lib.format.read_array_header_2_0)
            with _NPY_HEADERS:
                shape, fortran, dtype = read_header(member)
        except ValueError as err:
            raise _npz_error(path, f"array {name} has no readable npy header ({err})") from None
        if dtype.hasobject:
            raise _npz_error(path, f"array {name} holds Python objects, which are not read")
        if any(d < 0 for d in shape):
            raise _npz_error(path, f"array {name} declares the shape {shape}")
        nbytes = math.prod(shape) * dtype.itemsize
        limit = host_limit_bytes()
        if nbytes > limit:
            raise GraphTooLargeError(f"{messages.path(path)} (array {name} declaring "
                                     f"{math.prod(shape):,} "
                                     f"elements of {dtype})", nbytes, limit)
        held = info.file_size - member.tell()
        if nbytes != held:
            raise _npz_error(path, f"array {name} declares {nbytes:,} bytes of data (shape "
                             f"{shape}, {dtype}) but holds {held:,}")
        data = member.read(nbytes)
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def save(graph: Graph, path: str | os.PathLike[str]) -> None:
    """Write ``graph`` to ``path``, in the format its ending names, so that :func:`load` gives
    back the same graph: its vertex count (isolated vertices included), directedness, weights
    (their dtype too) or none, its arcs (an edgeless graph too).

    * ``.npz``: binary CSR, read back many times faster than text. The layout
      (``numpy.savez``, uncompressed): ``format`` (the string ``"frontier-csr-1"``),
      ``row_offsets`` (int64, |V|+1), ``col_indices`` (int32, one per arc), ``weights`` (only
      for a weighted graph: float64, float32, int64 or int32, one per arc), ``num_vertices``
      (int64 scalar) and ``directed`` (bool scalar). An undirected graph stores both arcs of
      every edge, as in memory.
    * ``.mtx``: Matrix Market, ``pattern``, ``integer`` or ``real``; ``symmetric`` with each
      undirected edge once (the lower triangle), else ``general``; a comment line
      ``%frontier-graph weights=<dtype>`` keeps the weights' dtype.
    * ``.txt``, ``.el``, ``.edges``: an edge list, 0-based, one line ``u v`` or ``u v w`` per arc
      (both arcs of an undirected edge), after the comment line ``# frontier-graph vertices=N
      arcs=M directed=true|false weights=<dtype or none>``, which sizes the graph, says how to
      read it, and makes a truncated file fail to load.

    The file is written to a temporary file beside ``path`` and renamed over it at the end
    (:mod:`frontier.safefile`): a full disk or Ctrl-C never leaves a half-written file.
    ValueError for an unknown ending, :class:`frontier.safefile.OutputError` (a ValueError)
    for an output that cannot be created, before anything is written.
    """
    validate.graph(graph, "save(graph, path)")
    path = validate.file_path("path", path)
    kind = SAVE_FORMATS.get(os.path.splitext(path.lower())[1])
    if kind is None:
        raise ValueError(f"cannot save to {messages.path(path)}: expected a name ending in "
                         f"{', '.join(SAVE_FORMATS)}")
    w = graph.weights
    if kind != "npz" and w is not None and w.dtype == np.int64 and w.size and \
            (w.min() == _INT64.min or w.max() == _INT64.max):
        bad = int(w.min()) if w.min() == _INT64.min else int(w.max())
        raise ValueError(f"cannot save to {messages.path(path)}: the weight {bad} is outside "
                         "what the "
                         "text formats read back; "
                         f"expected integer weights between {_INT64.min + 1} and "
                         f"{_INT64.max - 1}, or a .npz file")
    with writing(path) as partial:
        _WRITERS[kind](graph, partial)


def _weights_name(graph: Graph) -> str:
    return "none" if graph.weights is None else graph.weights.dtype.name


def _save_npz(graph: Graph, path: str) -> None:
    arrays = {"format": np.array(NPZ_VERSION), "row_offsets": graph.row_offsets,
              "col_indices": graph.col_indices,
              "num_vertices": np.array(graph.num_vertices, dtype=np.int64),
              "directed": np.array(graph.directed)}
    if graph.weights is not None:
        arrays["weights"] = graph.weights
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _save_mtx(graph: Graph, path: str) -> None:
    src, dst, w = graph.coo().src, graph.col_indices, graph.weights
    if not graph.directed:
        keep = src >= dst
        src, dst, w = src[keep], dst[keep], None if w is None else w[keep]
    field = "pattern" if w is None else "integer" if w.dtype.kind == "i" else "real"
    n = graph.num_vertices
    with open(path, "w") as f:
        f.write(f"%%MatrixMarket matrix coordinate {field} "
                f"{'general' if graph.directed else 'symmetric'}\n"
                f"%{MARKER} weights={_weights_name(graph)}\n{n} {n} {src.size}\n")
        _write_rows(f, src, dst, w, 1)


def _save_snap(graph: Graph, path: str) -> None:
    with open(path, "w") as f:
        f.write(f"# {MARKER} vertices={graph.num_vertices} arcs={graph.num_edges} "
                f"directed={str(graph.directed).lower()} weights={_weights_name(graph)}\n")
        _write_rows(f, graph.coo().src, graph.col_indices, graph.weights, 0)


_WRITERS: dict[str, Callable[[Graph, str], None]] = {
    "npz": _save_npz, "mtx": _save_mtx, "snap": _save_snap}
_ROWS_PER_WRITE = 1 << 16


def _write_rows(f: Any, src: np.ndarray, dst: np.ndarray, weights: np.ndarray | None,
                base: int) -> None:
    """One line ``u v`` or ``u v w`` per arc, ids plus ``base``; decimal weights with 17
    significant digits, which read back exactly."""
    fmt = "%d %d" if weights is None else "%d %d %d" if weights.dtype.kind == "i" \
        else "%d %d %.17g"
    columns = [src, dst] if weights is None else [src, dst, weights]
    for lo in range(0, src.size, _ROWS_PER_WRITE):
        part = [column[lo:lo + _ROWS_PER_WRITE] for column in columns]
        table = np.empty((part[0].size, len(part)), dtype=object)
        table[:, 0] = part[0].astype(np.int64) + base
        table[:, 1] = part[1].astype(np.int64) + base
        if weights is not None:
            table[:, 2] = part[2]
        np.savetxt(f, table, fmt=fmt)
