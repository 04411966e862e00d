"""frontier.save then frontier.load gives back the same graph in every format (issue 20, item 3):
the vertex count with isolated vertices past the last id, directedness, weights (their dtype
too) or none, and edgeless graphs; the marker line that makes this so is read strictly, and a
truncated edge list is refused instead of loading silently."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import frontier.io as fio
from frontier import generators
from frontier.errors import GraphTooLargeError
from frontier.graph import Graph
from frontier.io import SAVE_FORMATS, GraphFormatError, load, save
from frontier_cli.commands import main

WEIGHTS = (None, "int32", "int64", "float32", "float64")


def weight_values(dtype: str) -> st.SearchStrategy:
    if dtype.startswith("int"):
        info = np.iinfo(dtype)
        low, high = (int(info.min), int(info.max)) if dtype == "int32" \
            else (int(info.min) + 1, int(info.max) - 1)  # the text formats' integer range
        return st.integers(low, high)
    return st.floats(allow_nan=False, allow_infinity=False, width=32 if dtype == "float32"
                     else 64)


@st.composite
def saved_graphs(draw: st.DrawFn) -> Graph:
    """Directed or undirected graphs with or without weights of every dtype, edgeless ones,
    and isolated vertices past the largest id."""
    n = draw(st.integers(0, 12))
    m = 0 if n == 0 or draw(st.booleans()) else draw(st.integers(1, 25))
    ids = st.lists(st.integers(0, max(n - 1, 0)), min_size=m, max_size=m)
    src, dst = draw(ids), draw(ids)
    dtype = draw(st.sampled_from(WEIGHTS))
    weights = None if dtype is None else np.array(
        draw(st.lists(weight_values(dtype), min_size=m, max_size=m)), dtype=dtype)
    tail = draw(st.integers(0, 3))
    return Graph.from_edges(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64),
                            weights, num_vertices=n + tail, directed=draw(st.booleans()))


def arcs(graph: Graph) -> list[tuple]:
    src = np.repeat(np.arange(graph.num_vertices), np.diff(graph.row_offsets))
    weights = [None] * src.size if graph.weights is None else graph.weights.tolist()
    return sorted(zip(src.tolist(), graph.col_indices.tolist(), weights, strict=True),
                  key=repr)


def assert_same(got: Graph, want: Graph) -> None:
    assert (got.num_vertices, got.directed, got.weighted) == \
        (want.num_vertices, want.directed, want.weighted)
    assert (got.weights is None) or got.weights.dtype == want.weights.dtype
    assert arcs(got) == arcs(want)
    assert list(map(repr, arcs(got))) == list(map(repr, arcs(want)))  # -0.0 is not 0.0


@given(graph=saved_graphs(), ending=st.sampled_from(sorted(SAVE_FORMATS)))
@example(graph=Graph.from_edges([0, 0], [0, 0], np.array([-0.0, -1.0]), num_vertices=1,
                                directed=False), ending=".edges")  # "-0" is written for -0.0
@example(graph=Graph.from_edges([0] * 3, [0] * 3, np.array([-0.0, -1.0, 1e300]), num_vertices=1,
                                directed=False), ending=".edges")  # 1e300: the reference reader
def test_every_format_save_writes_loads_back_as_the_same_graph(graph, ending):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"g{ending}"
        save(graph, path)
        assert_same(load(path), graph)


@pytest.mark.parametrize("reader", ["fast", "reference"])
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("ending", sorted(SAVE_FORMATS))
def test_a_negative_zero_weight_loads_back_negative_on_every_reader(tmp_path, monkeypatch, reader,
                                                                     directed, dtype, ending):
    """save writes -0.0 as "-0"; every reader reads that back as -0.0, also beside a weight the
    fast reader cannot convert (1e30: past its powers of ten), which sends the whole file to the
    reference reader."""
    if reader == "reference":
        monkeypatch.setattr(fio, "scan_entries", lambda *args, **kwargs: None)
    for weights in ([-0.0, -1.0, 0.5], [-0.0, -1.0, 1e30], [-0.0, 2.0]):
        graph = Graph.from_edges([0, 0, 1][:len(weights)], [0, 1, 1][:len(weights)],
                                 np.array(weights, dtype=dtype), num_vertices=2,
                                 directed=directed)
        path = tmp_path / f"g{ending}"
        save(graph, path)
        got = load(path)
        assert got.weights.dtype == dtype
        assert np.signbit(got.weights).tolist() == np.signbit(graph.weights).tolist(), weights
        assert_same(got, graph)


@pytest.mark.parametrize("reader", ["fast", "reference"])
def test_a_minus_zero_token_is_the_float_minus_zero_and_an_id_minus_zero_is_zero(
        tmp_path, monkeypatch, reader):
    if reader == "reference":
        monkeypatch.setattr(fio, "scan_entries", lambda *args, **kwargs: None)
    path = tmp_path / "g.txt"
    path.write_text("0 1 -0\n1 2 -00\n2 0 3\n")
    weights = load(path).weights
    assert (weights.dtype, weights.tolist(), np.signbit(weights).tolist()) == \
        (np.float64, [-0.0, -0.0, 3.0], [True, True, False])
    path.write_text("-0 1 0\n1 2 3\n")
    weights = load(path).weights
    assert (weights.dtype, weights.tolist()) == (np.int64, [0, 3])


def test_convert_of_rmat_to_txt_reloads_all_vertices_undirected(tmp_path, capsys):
    out = tmp_path / "r.txt"
    assert main(["convert", "rmat:10", str(out)]) == 0
    got, want = load(out), generators.from_spec("rmat:10")
    assert (got.num_vertices, got.directed) == (1024, False)
    assert_same(got, want)


@pytest.mark.parametrize("ending", [".txt", ".mtx"])
def test_an_edgeless_graph_loads_back_unweighted_with_its_vertices(tmp_path, ending):
    path = tmp_path / f"e{ending}"
    save(Graph.from_edges([], [], num_vertices=4, directed=False), path)
    got = load(path)
    assert (got.num_vertices, got.num_edges, got.directed, got.weighted) == (4, 0, False, False)


def test_the_text_files_stay_readable_by_other_tools(tmp_path):
    graph = Graph.from_edges([0, 1], [1, 2], [0.5, 2.0], num_vertices=5, directed=False)
    save(graph, tmp_path / "g.txt")
    save(graph, tmp_path / "g.mtx")
    assert (tmp_path / "g.txt").read_text().splitlines() == [
        "# frontier-graph vertices=5 arcs=4 directed=false weights=float64",
        "0 1 0.5", "1 0 0.5", "1 2 2", "2 1 2"]
    assert (tmp_path / "g.mtx").read_text().splitlines() == [
        "%%MatrixMarket matrix coordinate real symmetric", "%frontier-graph weights=float64",
        "5 5 2", "2 1 0.5", "3 2 2"]


def test_a_truncated_edge_list_is_refused_instead_of_loading_silently(tmp_path):
    path = tmp_path / "g.txt"
    save(generators.gnm(50, 200, seed=1), path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:100]))
    with pytest.raises(GraphFormatError, match="file ends after 99 of 400 entries"):
        load(path)


@pytest.mark.parametrize("text, words", [
    ("# frontier-graph vertices=3 arcs=1 directed=maybe weights=none\n0 1\n", "directed='maybe'"),
    ("# frontier-graph vertices=3 arcs=1 weights=none\n0 1\n", "has the fields"),
    ("# frontier-graph vertices=3 arcs=1 directed=true weights=none\n0 5\n",
     "vertex id 5 is out of range"),
    ("# frontier-graph vertices=3 arcs=1 directed=true weights=none\n0 1 7\n", "line has 3 fields"),
    ("# frontier-graph vertices=3 arcs=1 directed=true weights=int32\n0 1 4294967296\n",
     "does not fit the int32"),
    ("# frontier-graph vertices=3 arcs=1 directed=true weights=int64\n0 1 0.5\n",
     "weight '0.5' is not an integer"),
    ("# frontier-graph vertices=3 arcs=1 directed=true weights=none\n0 1\n1 2\n",
     "one more than the 1 declared on line 1"),
    ("# frontier-graph vertices=3 arcs=2 directed=false weights=none\n0 1\n1 2\n",
     "no matching reverse arc"),
])
def test_a_broken_marker_line_or_body_is_a_format_error(tmp_path, text, words):
    path = tmp_path / "g.txt"
    path.write_text(text)
    with pytest.raises(GraphFormatError, match=words):
        load(path)


def test_a_matrix_market_marker_must_agree_with_the_field(tmp_path):
    path = tmp_path / "g.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern general\n"
                    "%frontier-graph weights=float32\n2 2 1\n1 2\n")
    with pytest.raises(GraphFormatError, match="weights=float32 in a 'pattern' file"):
        load(path)


def test_integer_weights_the_text_readers_cannot_take_are_refused_before_writing(tmp_path):
    graph = Graph.from_edges([0], [1], np.array([np.iinfo(np.int64).max]))
    with pytest.raises(ValueError, match="the weight 9223372036854775807"):
        save(graph, tmp_path / "g.txt")
    assert list(tmp_path.iterdir()) == []
    save(graph, tmp_path / "g.npz")
    assert load(tmp_path / "g.npz").weights.tolist() == [np.iinfo(np.int64).max]


def test_save_refuses_what_is_not_a_graph(tmp_path):
    with pytest.raises(TypeError, match="expected a frontier.Graph"):
        save([(0, 1)], tmp_path / "g.txt")


@pytest.mark.parametrize("counts", ["vertices=3 arcs=1000000000000000",
                                    "vertices=2000000000 arcs=1"])
def test_a_marker_declaring_more_than_memory_holds_is_refused_before_reading(tmp_path, counts,
                                                                              monkeypatch):
    monkeypatch.setenv("FRONTIER_MAX_HOST_BYTES", str(1 << 30))
    path = tmp_path / "g.txt"
    path.write_text(f"# frontier-graph {counts} directed=true weights=none\n0 1\n")
    with pytest.raises(GraphTooLargeError):
        load(path)
