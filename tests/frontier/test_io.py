"""frontier.io: the real datasets load with their published counts, every format round-trips
(plain and gzip), and malformed files fail with GraphFormatError naming file and line."""

from __future__ import annotations

import gzip
import pickle
from pathlib import Path

import numpy as np
import pytest
import scipy.io
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components

import frontier.io as fio
from frontier.data import demo_graph_path
from frontier.graph import Graph
from frontier.io import GraphFormatError, load, load_with_labels
from frontier.testing import dataset_dir

DATASETS = dataset_dir()

# name: (load options, |V|, |E| arcs, max out-degree, directed, weighted, weak components),
# as published in the datasets README
README_COUNTS = {
    "luxembourg_osm.mtx.gz": ({}, 114_599, 239_332, 6, False, False, 1),
    "delaunay_n16.mtx.gz": ({}, 65_536, 393_150, 17, False, False, 1),
    "rome99.gr.gz": ({}, 3_353, 8_870, 5, True, True, 1),
    "email-Enron.txt.gz": ({}, 36_692, 367_660, 1_383, True, False, 1_066),
    "p2p-Gnutella31.txt.gz": ({}, 62_586, 147_892, 78, True, False, 12),
    "wiki-Vote.txt.gz": ({}, 8_298, 103_689, 893, True, False, 1_207),
    "facebook_combined.txt.gz": ({}, 4_039, 88_234, 1_043, True, False, 1),
}


def dataset(name: str) -> Path:
    if DATASETS is None or not (DATASETS / name).exists():
        pytest.skip(f"{name} not available (FRONTIER_DATASETS, or shared/datasets beside the "
                    "repository)")
    return DATASETS / name


def write(path: Path, text: str) -> Path:
    data = text.encode()
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def assert_same_graph(got: Graph, want: Graph) -> None:
    assert got.num_vertices == want.num_vertices
    assert got.directed == want.directed
    np.testing.assert_array_equal(got.row_offsets, want.row_offsets)
    np.testing.assert_array_equal(got.col_indices, want.col_indices)
    if want.weights is None:
        assert got.weights is None
    else:
        assert got.weights is not None and got.weights.dtype == want.weights.dtype
        np.testing.assert_array_equal(got.weights, want.weights)


def assert_format_error(path: Path, line: int | None, *words: str, **options) -> None:
    with pytest.raises(GraphFormatError) as info:
        load(path, **options)
    err = info.value
    assert err.path == str(path)
    assert err.line == line
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert str(err).startswith(where), str(err)
    assert "; expected " in str(err)
    for word in words:
        assert word in str(err), (word, str(err))


# the real datasets ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(README_COUNTS))
def test_dataset_loads_with_the_readme_counts(name):
    options, n, arcs, max_degree, directed, weighted, components = README_COUNTS[name]
    g = load(dataset(name), **options)
    assert (g.num_vertices, g.num_edges) == (n, arcs)
    assert int(g.out_degrees().max()) == max_degree
    assert (g.directed, g.weighted) == (directed, weighted)
    count, _ = connected_components(g.to_scipy(), directed=True, connection="weak")
    assert count == components


def test_matrix_market_dataset_equals_scipy_mmread():
    path = dataset("delaunay_n16.mtx.gz")
    with gzip.open(path) as f:
        want = scipy.sparse.csr_matrix(scipy.io.mmread(f))
    got = load(path).to_scipy()
    assert (got != want).nnz == 0


def test_shipped_demo_graph_is_luxembourg_osm():
    path = demo_graph_path()
    assert path.name == "luxembourg_osm.mtx.gz" and path.is_file()
    g = load(path)
    assert (g.num_vertices, g.num_edges, g.directed) == (114_599, 239_332, False)


def test_rome99_weights_are_integer_metres():
    g = load(dataset("rome99.gr.gz"))
    assert g.weights.dtype == np.int64
    assert g.weights.min() > 0


def test_enron_lists_both_directions_so_directed_false_keeps_its_arcs():
    g = load(dataset("email-Enron.txt.gz"), directed=False)
    assert (g.num_edges, g.directed) == (367_660, False)
    assert (g.to_scipy() != g.to_scipy().T).nnz == 0


def test_facebook_symmetrize_stores_each_pair_both_ways():
    g = load(dataset("facebook_combined.txt.gz"), symmetrize=True)
    assert (g.num_vertices, g.num_edges, g.directed) == (4_039, 2 * 88_234, False)
    assert int(g.out_degrees().max()) == 1_045


def test_facebook_is_not_undirected_without_symmetrize():
    path = dataset("facebook_combined.txt.gz")
    assert_format_error(path, None, "no matching reverse arc", "symmetrize=True",
                        directed=False)


def test_wiki_vote_relabel_compacts_its_sparse_ids():
    g, labels = load_with_labels(dataset("wiki-Vote.txt.gz"))
    assert (g.num_vertices, g.num_edges) == (7_115, 103_689)
    assert labels.dtype == np.int64 and labels[-1] == 8_297
    assert np.all(np.diff(labels) > 0)


# round trips ------------------------------------------------------------------------------------

def random_edges(seed: int, n: int = 40, m: int = 150):
    """Edges with repeats and self-loops, and integer and real weights for them."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    src[:3], dst[:3] = [5, 5, 7], [9, 9, 7]  # a repeated edge and a self-loop
    return src, dst, rng.integers(-50, 1000, m), np.round(rng.random(m) * 100, 3)


def number(x) -> str:
    """A weight as a file holds it: shortest repr for floats, digits for integers."""
    return repr(float(x)) if isinstance(x, (float, np.floating)) else str(int(x))


def mtx_text(src, dst, n, values=None, field="pattern", symmetry="general") -> str:
    lines = [f"%%MatrixMarket matrix coordinate {field} {symmetry}", "% a comment",
             f"{n} {n} {len(src)}"]
    for i, (u, v) in enumerate(zip(src, dst, strict=True)):
        lines.append(f"{u + 1} {v + 1}" + ("" if values is None else f" {number(values[i])}"))
    return "\n".join(lines) + "\n"


def snap_text(src, dst, values=None) -> str:
    body = [f"{u}\t{v}" + ("" if values is None else f"\t{number(values[i])}")
            for i, (u, v) in enumerate(zip(src, dst, strict=True))]
    return "# Directed graph\n# FromNodeId\tToNodeId\n" + "\n".join(body) + "\n"


def dimacs_text(src, dst, n, values) -> str:
    lines = ["c generated", f"p sp {n} {len(src)}", "c arcs follow"]
    lines += [f"a {u + 1} {v + 1} {w}" for u, v, w in zip(src, dst, values, strict=True)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("suffix", ["", ".gz"])
@pytest.mark.parametrize("field", ["pattern", "integer", "real"])
def test_matrix_market_general_round_trips(tmp_path, suffix, field):
    src, dst, ints, reals = random_edges(1)
    values = {"pattern": None, "integer": ints, "real": reals}[field]
    path = write(tmp_path / f"g.mtx{suffix}", mtx_text(src, dst, 45, values, field))
    weights = None if values is None else values.astype(np.float64 if field == "real" else int)
    assert_same_graph(load(path), Graph.from_edges(src, dst, weights, 45, directed=True))


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_matrix_market_symmetric_expands_both_ways_diagonal_once(tmp_path, suffix):
    src, dst, _, reals = random_edges(2)
    lower, upper = np.maximum(src, dst), np.minimum(src, dst)
    path = write(tmp_path / f"g.mtx{suffix}", mtx_text(lower, upper, 40, reals, "real",
                                                       "symmetric"))
    want = Graph.from_edges(lower, upper, reals, 40, directed=False)
    assert_same_graph(load(path), want)
    assert_same_graph(load(path, symmetrize=True), want)
    as_directed = load(path, directed=True)
    assert as_directed.directed and as_directed.num_edges == want.num_edges


@pytest.mark.parametrize("suffix", ["", ".gz"])
@pytest.mark.parametrize("weighted", ["none", "int", "real"])
def test_snap_round_trips(tmp_path, suffix, weighted):
    src, dst, ints, reals = random_edges(3)
    values = {"none": None, "int": ints, "real": reals}[weighted]
    path = write(tmp_path / f"g.txt{suffix}", snap_text(src, dst, values))
    want = Graph.from_edges(src, dst, values, directed=True)
    assert_same_graph(load(path), want)


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_dimacs_round_trips(tmp_path, suffix):
    src, dst, ints, _ = random_edges(4)
    path = write(tmp_path / f"g.gr{suffix}", dimacs_text(src, dst, 50, ints))
    assert_same_graph(load(path), Graph.from_edges(src, dst, ints, 50, directed=True))


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(-9, 9)),
                min_size=1, max_size=60),
       st.booleans())
def test_snap_loads_what_from_edges_builds(tmp_path_factory, edges, weighted):
    src, dst, w = (np.array(column) for column in zip(*edges, strict=True))
    path = write(tmp_path_factory.mktemp("snap") / "g.el",
                 snap_text(src, dst, w if weighted else None))
    want = Graph.from_edges(src, dst, w if weighted else None, directed=True)
    assert_same_graph(load(path), want)
    assert_same_graph(load(path, symmetrize=True),
                      Graph.from_edges(src, dst, w if weighted else None, directed=False))


@pytest.mark.parametrize("chunk", [8, 40, 1 << 25])
def test_bulk_reading_in_chunks_gives_the_same_graph(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(fio, "_CHUNK_BYTES", chunk)
    src, dst, ints, reals = random_edges(5)
    mixed = [int(w) if i % 2 else float(r)
             for i, (w, r) in enumerate(zip(ints, reals, strict=True))]
    text = snap_text(src, dst, mixed).replace("\n", "\n# comment in the body\n\n", 7)
    g = load(write(tmp_path / "g.txt", text))
    assert_same_graph(g, Graph.from_edges(src, dst, np.array(mixed, dtype=float)))
    gr = load(write(tmp_path / "g.gr", dimacs_text(src, dst, 40, ints)))
    assert_same_graph(gr, Graph.from_edges(src, dst, ints, 40))


def test_crlf_tabs_blank_lines_and_mid_file_comments_are_accepted(tmp_path):
    text = "c x\r\np sp 3 3\r\n\r\na 1 2 5\r\nc mid\r\na\t2 3 7\r\n  a 3 1 9  \r\n"
    g = load(write(tmp_path / "g.gr", text))
    assert_same_graph(g, Graph.from_edges([0, 1, 2], [1, 2, 0], [5, 7, 9], 3))


def test_gzip_is_detected_by_magic_bytes_without_the_suffix(tmp_path):
    path = tmp_path / "g.txt"
    path.write_bytes(gzip.compress(b"0 1\n1 2\n"))
    assert load(path).num_edges == 2


def test_matrix_market_header_wins_over_a_txt_name(tmp_path):
    path = write(tmp_path / "g.txt", mtx_text([0, 1], [1, 2], 3))
    g = load(path)
    assert (g.num_vertices, g.num_edges) == (3, 2)


def test_format_argument_overrides_detection(tmp_path):
    path = write(tmp_path / "g.mtx", "0 1\n1 2\n")
    assert load(path, format="snap").num_edges == 2
    with pytest.raises(ValueError, match="format="):
        load(path, format="csv")


def test_weight_dtypes_follow_the_file(tmp_path):
    mm_int = write(tmp_path / "i.mtx", mtx_text([0], [1], 2, [3], "integer"))
    mm_real = write(tmp_path / "r.mtx", mtx_text([0], [1], 2, [3], "real"))
    snap_int = write(tmp_path / "i.txt", "0 1 3\n")
    snap_real = write(tmp_path / "r.txt", "0 1 3\n1 0 2.5\n")
    assert load(mm_int).weights.dtype == np.int64
    assert load(mm_real).weights.dtype == np.float64
    assert load(snap_int).weights.dtype == np.int64
    assert load(snap_real).weights.dtype == np.float64


# relabel, symmetrize, directed -----------------------------------------------------------------

def test_relabel_numbers_ids_in_sorted_order_and_keeps_the_labels(tmp_path):
    path = write(tmp_path / "g.txt", "1000 5\n5 10\n10 1000\n7000000000 5\n")
    g, labels = load_with_labels(path)
    np.testing.assert_array_equal(labels, [5, 10, 1000, 7_000_000_000])
    assert_same_graph(g, Graph.from_edges([2, 0, 1, 3], [0, 1, 2, 0], num_vertices=4))
    assert_same_graph(load(path, relabel=True), g)


def test_relabel_keeps_one_based_labels_for_matrix_market(tmp_path):
    path = write(tmp_path / "g.mtx", mtx_text([4, 8], [8, 2], 10))
    g, labels = load_with_labels(path)
    np.testing.assert_array_equal(labels, [3, 5, 9])
    assert_same_graph(g, Graph.from_edges([1, 2], [2, 0], num_vertices=3))


def test_snap_graph_is_sized_by_the_largest_id(tmp_path):
    g = load(write(tmp_path / "g.txt", "3 7\n"))
    assert (g.num_vertices, g.num_edges) == (8, 1)


def test_symmetrize_adds_reverse_arcs_with_the_same_weight(tmp_path):
    g = load(write(tmp_path / "g.txt", "0 1 4\n1 2 6\n2 2 9\n"), symmetrize=True)
    assert not g.directed
    assert_same_graph(g, Graph.from_csr([0, 1, 3, 5], [1, 0, 2, 1, 2], [4, 4, 6, 6, 9],
                                        directed=False))


def test_symmetrize_with_directed_true_is_refused(tmp_path):
    with pytest.raises(ValueError, match="symmetrize=True"):
        load(write(tmp_path / "g.txt", "0 1\n"), directed=True, symmetrize=True)


def test_directed_false_needs_every_arc_paired_and_names_one_that_is_not(tmp_path):
    path = write(tmp_path / "g.gr", dimacs_text([0, 1, 1], [1, 0, 2], 3, [1, 1, 1]))
    assert_format_error(path, None, "arc 2 -> 3 has no matching reverse arc 3 -> 2",
                        directed=False)


# errors ------------------------------------------------------------------------------------------

def test_error_message_pickles_and_has_the_documented_form():
    err = GraphFormatError("g.txt", 3, "bad thing", "a good thing")
    assert str(err) == "g.txt:3: bad thing; expected a good thing"
    assert str(pickle.loads(pickle.dumps(err))) == str(err)
    assert isinstance(err, ValueError)


@pytest.mark.parametrize("name", ["g.mtx", "g.txt", "g.gr"])
def test_missing_file_is_a_format_error_without_line(tmp_path, name):
    assert_format_error(tmp_path / name, None, "no such file")


@pytest.mark.parametrize("name", ["g.mtx", "g.txt", "g.gr", "g.txt.gz"])
def test_empty_file_is_rejected(tmp_path, name):
    assert_format_error(write(tmp_path / name, " \n"), None, "file is empty")


def test_gz_name_without_gzip_data_is_rejected(tmp_path):
    assert_format_error(write(tmp_path / "g.txt", "0 1\n").rename(tmp_path / "g.txt.gz"),
                        None, "gzip magic")


def test_truncated_gzip_is_rejected(tmp_path):
    path = tmp_path / "g.txt.gz"
    path.write_bytes(gzip.compress(b"0 1\n" * 100)[:-8])
    assert_format_error(path, None, "corrupt or truncated")


MTX = "%%MatrixMarket matrix coordinate pattern general\n% c\n3 3 2\n"


@pytest.mark.parametrize("text, line, words", [
    ("1 2\n", 1, ["no Matrix Market header"]),
    ("%%MatrixMarket matrix coordinate pattern\n3 3 0\n", 1, ["4 fields"]),
    ("%%MatrixMarket matrix array real general\n3 3\n", 1, ["'array'"]),
    ("%%MatrixMarket matrix coordinate complex general\n", 1, ["field 'complex'"]),
    ("%%MatrixMarket matrix coordinate real hermitian\n", 1, ["symmetry 'hermitian'"]),
    ("%%MatrixMarket matrix coordinate real skew-symmetric\n", 1, ["'skew-symmetric'"]),
    ("%%MatrixMarket vector coordinate real general\n", 1, ["object 'vector'"]),
    ("%%MatrixMarket matrix coordinate pattern general\n% only comments\n", None,
     ["before the size line"]),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3\n", 2, ["size line", "three"]),
    ("%%MatrixMarket matrix coordinate pattern general\n3 4 0\n", 2, ["3 x 4", "square"]),
    (MTX + "1 2\n", 4, ["ends after 1 of 2 entries", "declared on line 3"]),
    (MTX + "1 2\n2 3\n3 1\n", 6, ["entry 3", "exactly 2"]),
    (MTX + "1 2\n0 3\n", 5, ["vertex id 0 is out of range", "1 <= id <= 3"]),
    (MTX + "1 4\n2 3\n", 4, ["vertex id 4 is out of range"]),
    (MTX + "1 2\n2 x\n", 5, ["'x' is not an integer"]),
    (MTX + "1 2\n2 3 1\n", 5, ["3 fields", "2 fields 'row col'"]),
    (MTX.replace("pattern", "real") + "1 2 1.5\n2 3 abc\n", 5, ["weight 'abc'"]),
    (MTX.replace("pattern", "integer") + "1 2 1.5\n2 3 4\n", 4, ["weight '1.5'",
                                                                  "an integer"]),
])
def test_matrix_market_errors_name_file_and_line(tmp_path, text, line, words):
    assert_format_error(write(tmp_path / "g.mtx", text), line, *words)


@pytest.mark.parametrize("text, line, words", [
    ("# only a comment\n", None, ["no edge lines"]),
    ("0 1\n1 x\n", 2, ["'x' is not an integer"]),
    ("0 1\n1 2 3\n", 2, ["3 fields", "2 fields 'u v' like the first edge line 1"]),
    ("# c\n0 1 5\n1 2\n", 3, ["2 fields", "3 fields 'u v w'"]),
    ("0\n", 1, ["1 fields", "'u v' or 3 fields"]),
    ("0 1\n\n2 -3\n", 3, ["vertex id -3 is negative"]),
    ("0 1\n2 3000000000\n", 2, ["3000000000 is out of range", "relabel=True"]),
    ("0 1 2\n1 2 nan\n", 2, ["weight 'nan'", "finite number"]),
    ("0 1 2\n1 2 1e999\n", 2, ["weight '1e999' is not finite"]),
    ("0 1 99999999999999999999\n", 1, ["does not fit 64 bits"]),
])
def test_snap_errors_name_file_and_line(tmp_path, text, line, words):
    assert_format_error(write(tmp_path / "g.txt", text), line, *words)


GR = "c x\np sp 3 2\n"


@pytest.mark.parametrize("text, line, words", [
    ("c only comments\n", None, ["no problem line"]),
    ("c x\na 1 2 3\n", 2, ["arc line before the problem line"]),
    ("c x\np max 3 2\n", 2, ["problem type 'max'"]),
    ("c x\np sp 3\n", 2, ["problem line has 3 fields"]),
    ("c x\np sp 3 x\n", 2, ["not a whole number"]),
    ("c x\nn 1 s\n", 2, ["line starts with 'n'"]),
    (GR + "a 1 2 5\n", 3, ["ends after 1 of 2 entries"]),
    (GR + "a 1 2 5\na 2 3 1\na 3 1 1\n", 5, ["entry 3", "exactly 2"]),
    (GR + "a 1 2 5\na 2 4 1\n", 4, ["vertex id 4 is out of range", "1 <= id <= 3"]),
    (GR + "a 0 2 5\na 2 3 1\n", 3, ["vertex id 0 is out of range"]),
    (GR + "a 1 2 5\na 2 3 x\n", 4, ["weight 'x' is not an integer"]),
    (GR + "a 1 2\na 2 3 1\n", 3, ["3 fields", "4 fields 'a u v w'"]),
    (GR + "a 1 2 5\nb 2 3 1\n", 4, ["line starts with 'b'"]),
    (GR + "a 1 2 5\np sp 3 2\n", 4, ["line starts with 'p'"]),
])
def test_dimacs_errors_name_file_and_line(tmp_path, text, line, words):
    assert_format_error(write(tmp_path / "g.gr", text), line, *words)


@pytest.mark.parametrize("chunk", [16, 1 << 25])
def test_error_far_into_a_large_file_reports_the_exact_line(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(fio, "_CHUNK_BYTES", chunk)
    lines = [f"{i} {i + 1}" for i in range(3000)]
    lines[2500] = "2500 25O1"
    path = write(tmp_path / "g.txt.gz", "# header\n" + "\n".join(lines) + "\n")
    assert_format_error(path, 2502, "'25O1' is not an integer")


def test_a_file_name_given_as_bytes_loads_and_saves_as_its_str(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n")
    graph = load(bytes(path))
    assert graph.num_edges == 2
    fio.save(graph, bytes(tmp_path / "h.npz"))
    assert load(tmp_path / "h.npz").col_indices.tolist() == graph.col_indices.tolist()


@pytest.mark.parametrize("name", ["a\nb.txt", "tab\there.txt", "bell\x07.txt"])
def test_a_file_name_with_unprintable_characters_is_escaped_on_one_line(tmp_path, name):
    path = tmp_path / name
    for exists in (False, True):
        if exists:
            path.write_text("0 x\n")
        with pytest.raises(GraphFormatError) as info:
            load(path)
        message = str(info.value)
        assert "\n" not in message and message.startswith(repr(str(path)) + ":")
