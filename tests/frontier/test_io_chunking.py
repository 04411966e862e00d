"""frontier.io: whether a file loads, and the line its error names, depend on nothing but the
file: not on the chunk size of the reference reader, not on whether the compiled fast reader or
the reference reader reads it, not on how the fast reader cuts a text between threads.

Random valid files of every format are corrupted in the ways users' files are (truncated lines,
wrong counts, non-numeric tokens, ids out of range, zero ids in 1-based formats, CRLF, a BOM,
comments in odd places, empty files, trailing garbage, stray bytes) and loaded under every
reading configuration; all must give the same graph or the same GraphFormatError.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import frontier.io as fio
import frontier.parallel as parallel
import frontier.textscan as textscan
from frontier.io import GraphFormatError, load
from tests.tiers import examples


def _force_reference(*args, **kwargs):
    return None


# (description, settings applied to frontier.io / frontier.textscan)
CONFIGURATIONS: list[tuple[str, dict[tuple[object, str], object]]] = [
    ("fast reader, one piece", {}),
    ("fast reader, cut into many pieces", {(textscan, "_PARALLEL_BYTES"): 5,
                                           (parallel, "threads"): lambda: 7}),
    ("reference reader, default chunks", {(fio, "scan_entries"): _force_reference}),
    ("reference reader, 1-byte chunks", {(fio, "scan_entries"): _force_reference,
                                         (fio, "_CHUNK_BYTES"): 1}),
    ("reference reader, 7-byte chunks", {(fio, "scan_entries"): _force_reference,
                                         (fio, "_CHUNK_BYTES"): 7}),
    ("reference reader, 64-byte chunks", {(fio, "scan_entries"): _force_reference,
                                          (fio, "_CHUNK_BYTES"): 64}),
]


def outcome(path: Path, **options) -> tuple:
    """What loading gives, comparable across configurations."""
    try:
        g = load(path, **options)
    except GraphFormatError as err:
        return ("error", err.line, str(err))
    w = None if g.weights is None else (g.weights.dtype.str,
                                        [repr(x) for x in g.weights.tolist()])  # -0.0 != 0.0
    return ("graph", g.num_vertices, g.directed, g.row_offsets.tolist(),
            g.col_indices.tolist(), w)


def outcomes(path: Path, **options) -> dict[str, tuple]:
    found = {}
    for name, patches in CONFIGURATIONS:
        saved = {key: getattr(*key) for key in patches}
        try:
            for (module, attr), value in patches.items():
                setattr(module, attr, value)
            found[name] = outcome(path, **options)
        finally:
            for (module, attr), value in saved.items():
                setattr(module, attr, value)
    return found


def assert_independent_of_reading(text: bytes, suffix: str, **options) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"g{suffix}"
        path.write_bytes(text)
        found = outcomes(path, **options)
    first = next(iter(found.values()))
    for name, got in found.items():
        assert got == first, (name, got, next(iter(found)), first, text[:400])


# random files ------------------------------------------------------------------------------

WEIGHT_TOKENS = st.one_of(
    st.integers(-10**6, 10**6).map(str),
    st.integers(-2**63, 2**63).map(str),  # some overflow 64 bits
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    st.sampled_from(["1.5", "-0.25", "1e3", "2.5E-3", ".5", "5.", "+7", "-0", "0.1",
                     "3.14159265358979323846", "1e400", "nan", "inf", "0x10", "1.5.2", "e5",
                     "1e", "--1", "+", "123456789012345678901", "12345678901234567"]),
)


@st.composite
def graph_lines(draw, base: int, weighted: bool, prefix: str = "") -> tuple[list[str], int]:
    n = draw(st.integers(1, 9))
    m = draw(st.integers(0, 14))
    lines = []
    for _ in range(m):
        u, v = draw(st.integers(base, n - 1 + base)), draw(st.integers(base, n - 1 + base))
        fields = [prefix] if prefix else []
        fields += [str(u), str(v)]
        if weighted:
            fields.append(draw(WEIGHT_TOKENS))
        sep = draw(st.sampled_from([" ", "\t", "  ", " \t "]))
        lines.append(sep.join(fields))
    return lines, n


CORRUPTIONS = ["none", "truncate_line", "drop_line", "extra_line", "non_numeric", "id_zero",
               "id_too_big", "id_negative", "crlf", "bom", "comment_anywhere", "blank_lines",
               "trailing_garbage", "empty", "only_whitespace", "nul_byte", "no_final_newline",
               "extra_field", "huge_id", "leading_spaces"]


def corrupt(draw, lines: list[str], kind: str, comment: str, first_data: int) -> list[str]:
    """``lines`` changed in the way ``kind`` names; ``first_data`` is the index of the first
    data line (after any header)."""
    lines = list(lines)
    data = list(range(first_data, len(lines)))
    pick = (lambda: draw(st.sampled_from(data))) if data else None
    if kind == "truncate_line" and pick:
        i = pick()
        lines[i] = lines[i].rsplit(None, 1)[0] if len(lines[i].split()) > 1 else ""
    elif kind == "drop_line" and pick:
        del lines[pick()]
    elif kind == "extra_line" and pick:
        i = pick()
        lines.insert(i, lines[i])
    elif kind == "non_numeric" and pick:
        i = pick()
        tokens = lines[i].split()
        j = draw(st.integers(0, len(tokens) - 1))
        tokens[j] = draw(st.sampled_from(["x", "1x", "1.0", "--", "٣", "1_0"]))
        lines[i] = " ".join(tokens)
    elif kind in ("id_zero", "id_too_big", "id_negative", "huge_id") and pick:
        i = pick()
        tokens = lines[i].split()
        j = (1 if tokens[0] == "a" else 0) + draw(st.integers(0, 1))
        tokens[j] = {"id_zero": "0", "id_too_big": "10", "id_negative": "-1",
                     "huge_id": "99999999999999999999"}[kind]
        lines[i] = " ".join(tokens)
    elif kind == "comment_anywhere":
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, draw(st.sampled_from([comment, comment + " text", "  " + comment,
                                               comment + comment])))
    elif kind == "blank_lines":
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, draw(st.sampled_from(["", "   ", "\t"])))
    elif kind == "trailing_garbage":
        lines.append(draw(st.sampled_from(["garbage", "1 2 3 4 5", "%", "#x", "c", "a"])))
    elif kind == "extra_field" and pick:
        i = pick()
        lines[i] += " 7"
    elif kind == "leading_spaces" and pick:
        i = pick()
        lines[i] = "   " + lines[i]
    elif kind in ("empty", "only_whitespace"):
        lines = [] if kind == "empty" else ["  ", ""]
    return lines


def join(draw, lines: list[str], kind: str) -> bytes:
    eol = "\r\n" if kind == "crlf" else "\n"
    text = eol.join(lines) + ("" if kind == "no_final_newline" or not lines else eol)
    raw = text.encode()
    if kind == "bom":
        raw = b"\xef\xbb\xbf" + raw
    if kind == "nul_byte" and raw:
        at = draw(st.integers(0, len(raw) - 1))
        raw = raw[:at] + b"\x00" + raw[at:]
    return raw


@st.composite
def mtx_files(draw) -> bytes:
    field = draw(st.sampled_from(["pattern", "integer", "real"]))
    symmetry = draw(st.sampled_from(["general", "symmetric"]))
    body, n = draw(graph_lines(1, field != "pattern"))
    if field == "integer":
        body = [" ".join(t if i < 2 else t.split(".")[0].split("e")[0] or "1"
                         for i, t in enumerate(line.split())) for line in body]
    count = len(body) + draw(st.sampled_from([0, 0, 0, -1, 1]))
    lines = [f"%%MatrixMarket matrix coordinate {field} {symmetry}", "% a comment",
             f"{n} {n} {count}"] + body
    kind = draw(st.sampled_from(CORRUPTIONS))
    return join(draw, corrupt(draw, lines, kind, "%", 3), kind)


@st.composite
def snap_files(draw) -> bytes:
    body, _ = draw(graph_lines(0, draw(st.booleans())))
    lines = ["# Directed graph", "# FromNodeId\tToNodeId"] + body
    kind = draw(st.sampled_from(CORRUPTIONS))
    return join(draw, corrupt(draw, lines, kind, draw(st.sampled_from(["#", "%"])), 2), kind)


@st.composite
def dimacs_files(draw) -> bytes:
    body, n = draw(graph_lines(1, True, prefix="a"))
    body = [" ".join(t if i < 3 else t.split(".")[0].split("e")[0] or "1"
                     for i, t in enumerate(line.split())) for line in body]
    count = len(body) + draw(st.sampled_from([0, 0, 0, -1, 1]))
    lines = ["c a road network", f"p sp {n} {count}", "c arcs follow"] + body
    kind = draw(st.sampled_from(CORRUPTIONS))
    return join(draw, corrupt(draw, lines, kind, "c", 3), kind)


FEW = settings(max_examples=examples(150), deadline=None,
               suppress_health_check=[HealthCheck.too_slow])


@FEW
@given(mtx_files())
def test_matrix_market_outcome_does_not_depend_on_how_it_is_read(text):
    assert_independent_of_reading(text, ".mtx")


@FEW
@given(snap_files(), st.booleans())
@example(text=b"# Directed graph\n# FromNodeId\tToNodeId\n1.0 0 0\n0 0 9223372036854775296\n",
         relabel=False)  # the bulk reader took the id "1.0" in a one-line chunk
def test_snap_outcome_does_not_depend_on_how_it_is_read(text, relabel):
    assert_independent_of_reading(text, ".txt", relabel=relabel)


@FEW
@given(dimacs_files())
def test_dimacs_outcome_does_not_depend_on_how_it_is_read(text):
    assert_independent_of_reading(text, ".gr")


@pytest.mark.parametrize("line", [b"1.0 0 0.5", b"0 1e0 0.5", b"1. 0 0.5", b"0\t.0e1 2.5"])
def test_a_decimal_vertex_id_is_refused_by_every_reader_even_beside_decimal_weights(line):
    text = b"0 1 0.25\n" + line + b"\n1 1 3\n"
    assert_independent_of_reading(text, ".txt")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "g.txt"
        path.write_bytes(text)
        assert outcome(path)[:2] == ("error", 2)


REGRESSIONS: list[tuple[bytes, str, Callable[[tuple], bool]]] = []


def test_a_file_larger_than_a_chunk_reports_the_same_line_as_a_small_one():
    body = "".join(f"{i % 50} {(i * 7) % 50}\n" for i in range(3000))
    text = ("# header\n" + body + "1 x\n" + body).encode()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "g.txt"
        path.write_bytes(text)
        found = outcomes(path)
    assert {got[:2] for got in found.values()} == {("error", 3002)}


def test_fast_and_reference_readers_agree_on_decimals_exactly():
    rng = np.random.default_rng(3)
    values = [repr(float(x)) for x in rng.standard_normal(200) * 10.0 ** rng.integers(-8, 8, 200)]
    values += ["1.5", "0.1", "2.5e-3", "123456.789", "-0.0", "7e22", "1e-22"]
    text = "".join(f"{i % 9} {(i * 5) % 9} {v}\n" for i, v in enumerate(values)).encode()
    assert_independent_of_reading(text, ".txt")
