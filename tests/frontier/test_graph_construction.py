"""Hardening of graph construction (issue 9, items 1 and 3; issue 13, item 4's .npz): graphs
that cannot fit are refused before anything is read or allocated, undirected input must be
symmetric (or be symmetrized), to_scipy() gives the caller its own arrays, counts and id
dtypes are validated, and the binary .npz format round-trips and rejects malformed archives;
the public ``Graph(...)`` constructor checks what ``from_csr`` checks (issue 47, item 5)."""

from __future__ import annotations

import gzip
import pickle
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import frontier
from frontier import generators
from frontier.errors import GraphError, GraphTooLargeError
from frontier.graph import Graph
from frontier.io import GraphFormatError, load, save
from frontier.limits import estimate_bytes, host_limit_bytes, text_bound
from frontier.runtime.target import CpuTarget
from frontier.testing import dataset_dir
from frontier_cli.commands import main
from tests.tiers import examples

DATASETS = dataset_dir()


def dataset(name: str) -> Path:
    if DATASETS is None or not (DATASETS / name).exists():
        pytest.skip(f"{name} not available")
    return DATASETS / name


@pytest.fixture
def small_limit(monkeypatch):
    """A host limit of 1 MiB, so modest inputs are too large."""
    monkeypatch.setenv("FRONTIER_MAX_HOST_BYTES", str(1 << 20))
    return 1 << 20


def assert_graphs_equal(a: Graph, b: Graph) -> None:
    assert (a.num_vertices, a.directed) == (b.num_vertices, b.directed)
    np.testing.assert_array_equal(a.row_offsets, b.row_offsets)
    np.testing.assert_array_equal(a.col_indices, b.col_indices)
    if b.weights is None:
        assert a.weights is None
    else:
        assert a.weights.dtype == b.weights.dtype
        np.testing.assert_array_equal(a.weights, b.weights)


# sizes checked before allocation ----------------------------------------------------------

def test_graph_too_large_error_is_exported_a_graph_error_and_pickles():
    assert frontier.GraphTooLargeError is GraphTooLargeError
    err = GraphTooLargeError("rmat(30)", 10 << 30, 1 << 30)
    assert isinstance(err, GraphError) and isinstance(err, ValueError)
    assert "rmat(30)" in str(err) and "10.0 GiB" in str(err) and "1.0 GiB" in str(err)
    assert str(pickle.loads(pickle.dumps(err))) == str(err)


def test_the_limit_follows_the_environment_and_available_memory(monkeypatch):
    monkeypatch.delenv("FRONTIER_MAX_HOST_BYTES", raising=False)
    assert 0 < host_limit_bytes() < 1 << 50
    monkeypatch.setenv("FRONTIER_MAX_HOST_BYTES", "12345")
    assert host_limit_bytes() == 12345
    assert text_bound() < 12345
    assert estimate_bytes(10, 100, weighted=False) < estimate_bytes(10, 100, weighted=True)


@pytest.mark.parametrize("value", ["-5", "0", "1e9", "lots", "5 GB"])
@pytest.mark.parametrize("variable", ["FRONTIER_MAX_HOST_BYTES", "FRONTIER_MAX_DEVICE_BYTES"])
def test_a_memory_limit_that_is_not_a_positive_whole_number_is_refused_naming_it(
        monkeypatch, variable, value):
    from frontier.environ import SettingError

    monkeypatch.setenv(variable, value)
    build = (lambda: generators.from_spec("path:5")) if "HOST" in variable else (
        lambda: generators.path(5).device_arrays(CpuTarget()))
    with pytest.raises(SettingError, match=rf"^{variable}={value!r}; expected a whole number of "
                                           r"bytes > 0 \(or the variable unset"):
        build()


def test_huge_matrix_market_header_is_refused_before_the_body_is_read(tmp_path, monkeypatch):
    # 4e9 arcs fit in the free memory of a large host (256 GiB): a host of 64 GiB, whatever runs
    monkeypatch.setenv("FRONTIER_MAX_HOST_BYTES", str(64 << 30))
    path = tmp_path / "huge.mtx"
    body = "1 2\n" * 200_000 + "not even numbers\n"
    path.write_text("%%MatrixMarket matrix coordinate pattern general\n"
                    "2000000000 2000000000 4000000000\n" + body)
    start = time.perf_counter()
    with pytest.raises(GraphTooLargeError) as info:
        load(path)
    assert time.perf_counter() - start < 1.0
    assert str(path) in str(info.value) and "4,000,000,000 arcs" in str(info.value)


def test_huge_gzip_matrix_market_header_is_refused_from_the_first_block(tmp_path):
    path = tmp_path / "huge.mtx.gz"
    path.write_bytes(gzip.compress(b"%%MatrixMarket matrix coordinate real symmetric\n"
                                   b"100000000 100000000 3000000000\n" + b"1 1 1\n" * 50_000))
    with pytest.raises(GraphTooLargeError, match="6,000,000,000 arcs"):
        load(path)


def test_huge_dimacs_problem_line_is_refused(tmp_path):
    path = tmp_path / "huge.gr"
    path.write_text("c big\np sp 1000000000 9000000000\na 1 2 3\n")
    with pytest.raises(GraphTooLargeError, match="9,000,000,000 arcs"):
        load(path)


def test_edge_list_larger_than_the_limit_allows_is_refused_from_its_size(tmp_path, small_limit):
    path = tmp_path / "big.txt"
    path.write_bytes(b"0 1\n" * (text_bound() // 4 + 10))
    with pytest.raises(GraphTooLargeError, match="bytes of text"):
        load(path)


def test_gzip_bomb_is_refused_while_streaming_not_decompressed_whole(tmp_path, small_limit,
                                                                    monkeypatch):
    path = tmp_path / "bomb.txt.gz"
    path.write_bytes(gzip.compress(b"0 1\n" * (4 << 20)))  # 16 MiB of text in ~50 KiB
    monkeypatch.setattr(gzip, "decompress", None)  # whole-file decompression is not used
    with pytest.raises(GraphTooLargeError, match="gzip data expanding past"):
        load(path)


def test_edge_list_with_a_vertex_id_too_large_to_allocate_is_refused(tmp_path, small_limit):
    path = tmp_path / "far.txt"
    path.write_text("0 1\n1 2000000\n")
    with pytest.raises(GraphTooLargeError, match="2,000,001 vertices"):
        load(path)


@pytest.mark.parametrize("spec", ["rmat:30", "gnm:2000000000:4000000000", "grid:46000x46000",
                                  "chunglu:2000000000:1000"])
def test_generator_spec_too_large_is_refused_within_a_second(spec):
    start = time.perf_counter()
    with pytest.raises(GraphTooLargeError, match="generator spec"):
        generators.from_spec(spec)
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("build", [
    lambda: generators.rmat(12), lambda: generators.gnm(20_000, 40_000),
    lambda: generators.grid2d(300, 300), lambda: generators.path(100_000),
    lambda: generators.star(100_000), lambda: generators.binary_tree(100_000),
    lambda: generators.chung_lu(50_000, 4),
])
def test_every_generator_checks_its_size(small_limit, build):
    with pytest.raises(GraphTooLargeError):
        build()


def test_graph_constructors_check_the_vertex_count_before_allocating(small_limit):
    with pytest.raises(GraphTooLargeError, match="from_edges"):
        Graph.from_edges([0], [1], num_vertices=2_000_000_000)
    offsets = np.zeros(1_000_001, dtype=np.int64)
    with pytest.raises(GraphTooLargeError, match="from_csr"):
        Graph.from_csr(offsets, np.zeros(0, dtype=np.int32))


def test_device_copy_checks_the_free_device_memory():
    class Small(CpuTarget):
        def free_bytes(self) -> int:
            return 100

    g = generators.path(100)
    with pytest.raises(GraphTooLargeError, match="free memory on cpu"):
        g.device_arrays(Small())


@pytest.mark.parametrize("graph", ["rmat:30", "gnm:2000000000:4000000000"])
def test_cli_turns_too_large_into_one_line_and_exit_2(capsys, graph):
    assert main(["run", "bfs", graph]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs about" in err and "Traceback" not in err


# undirected input, to_scipy, counts and id dtypes ----------------------------------------------

NON_SYMMETRIC = sp.csr_matrix((np.ones(3), ([0, 1, 2], [1, 2, 3])), shape=(4, 4))


MALFORMED_CSR = [
    pytest.param(([0, 1, 2, 3], [1, 1_000_000, 0], None, True), "col_indices holds vertex 1000000",
                 id="arc-to-vertex-10**6-of-3"),
    pytest.param(([0, 1, 2, 3], [1, -1, 0], None, True), "col_indices holds vertex -1",
                 id="negative-id"),
    pytest.param(([0, 2, 1, 3], [1, 2, 0], None, True), r"row_offsets\[2\] = 1 is below",
                 id="falling-offsets"),
    pytest.param(([1, 2, 3], [1, 0], None, True), "must rise from 0", id="offsets-from-1"),
    pytest.param(([0, 1, 2, 4], [1, 2, 0], None, True), "run from 0 to 4",
                 id="offsets-past-the-ids"),
    pytest.param(([], [], None, True), "non-empty 1-D integer", id="no-offsets"),
    pytest.param(([[0, 1]], [0], None, True), "non-empty 1-D integer", id="2-d-offsets"),
    pytest.param(([0.0, 1.0], [0], None, True), "dtype float64", id="float-offsets"),
    pytest.param(([0, 1, 2], [0.5, 1], None, True), "not a whole number", id="fractional-ids"),
    pytest.param(([0, 1, 2], ["a", "b"], None, True), "dtype <U1", id="string-ids"),
    pytest.param(([0, 1, 2], [1, 0], [1.0], True), r"weights has shape \(1,\)",
                 id="weights-too-short"),
    pytest.param(([0, 1, 2], [1, 0], [np.inf, 1.0], True), "expected finite",
                 id="infinite-weight"),
    pytest.param(([0, 1, 2], [1, 1], None, False), "no matching reverse arc",
                 id="undirected-unpaired"),
    pytest.param(([0, 1, 2], [1, 0], [1.0, 2.0], False), "undirected edge 0 - 1 has weight",
                 id="undirected-unequal-weights"),
]


@pytest.mark.parametrize("arrays, words", MALFORMED_CSR)
def test_the_public_constructor_refuses_what_from_csr_refuses_with_the_same_message(arrays,
                                                                                     words):
    offsets, ids, weights, directed = (np.asarray(a) if isinstance(a, list) else a
                                       for a in arrays)
    with pytest.raises(GraphError, match=words) as direct:
        Graph(offsets, ids, weights, directed)
    with pytest.raises(GraphError, match=words) as checked:
        Graph.from_csr(offsets, ids, weights, directed)
    assert str(direct.value) == str(checked.value)


def test_the_public_constructor_copies_the_callers_arrays_and_leaves_them_writable():
    offsets, ids, weights = np.array([0, 1, 2]), np.array([1, 0]), np.array([2.0, 3.0])
    g = Graph(offsets, ids, weights, True)
    assert g.row_offsets.dtype == np.int64 and g.col_indices.dtype == np.int32
    assert all(a.flags.writeable for a in (offsets, ids, weights))
    ids[0] = 99
    assert g.col_indices.tolist() == [1, 0] and not g.col_indices.flags.writeable


def test_the_public_constructor_sends_device_arrays_to_from_csr():
    class OnDevice:
        __cuda_array_interface__ = {"shape": (2,), "typestr": "<i8", "data": (0, False),
                                    "version": 3}

    with pytest.raises(GraphError, match=r"host arrays; expected Graph\.from_csr"):
        Graph(OnDevice(), np.array([0]), None, True)


def test_a_graph_with_an_arc_out_of_range_never_reaches_an_algorithm():
    from algorithms import connected_components

    with pytest.raises(GraphError, match="1000000"):
        connected_components(Graph(np.array([0, 1, 2, 3]), np.array([1, 1_000_000, 0], np.int32),
                                   None, True), target="cpu")


def test_from_scipy_undirected_needs_a_symmetric_matrix_and_names_an_unpaired_entry():
    with pytest.raises(GraphError, match="arc 0 -> 1 has no matching reverse arc 1 -> 0"):
        Graph.from_scipy(NON_SYMMETRIC, directed=False)


def test_from_csr_undirected_needs_paired_arcs():
    with pytest.raises(GraphError, match="no matching reverse arc"):
        Graph.from_csr(NON_SYMMETRIC.indptr, NON_SYMMETRIC.indices, directed=False)
    g = Graph.from_csr([0, 1, 2], [1, 0], directed=False)
    assert not g.directed and g.num_edges == 2


def test_symmetrize_adds_the_reverse_arcs_in_from_scipy_and_from_csr():
    want = Graph.from_edges([0, 1, 2], [1, 2, 3], np.ones(3), 4, directed=False)
    assert_graphs_equal(Graph.from_scipy(NON_SYMMETRIC, directed=False, symmetrize=True), want)
    got = Graph.from_csr(NON_SYMMETRIC.indptr, NON_SYMMETRIC.indices, np.ones(3),
                         directed=False, symmetrize=True)
    assert_graphs_equal(got, want)
    with pytest.raises(GraphError, match="symmetrize"):
        Graph.from_scipy(NON_SYMMETRIC, directed=True, symmetrize=True)


def test_loader_undirected_refusal_is_a_graph_error_too(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n2 1\n")
    with pytest.raises(GraphError, match="arc 0 -> 1"):
        load(path, directed=False)


def test_to_scipy_arrays_belong_to_the_caller():
    g = load(dataset("rome99.gr.gz"))
    before = g.weights.copy()
    A = g.to_scipy()
    A.sum_duplicates()
    A.data[0] = -1
    assert A.indices.flags.writeable and A.indptr.flags.writeable
    np.testing.assert_array_equal(g.weights, before)
    u = generators.path(5).to_scipy()
    u.data[:] = 7
    u.sum_duplicates()


def test_to_scipy_pattern_merges_repeated_arcs_so_scipy_strong_components_end():
    from scipy.sparse.csgraph import connected_components

    g = Graph.from_edges([0, 0, 1, 1, 2], [1, 1, 0, 1, 2], num_vertices=3)
    A = g.to_scipy(pattern=True)
    assert A.has_canonical_format and A.nnz == 4 and set(A.data.tolist()) == {1.0}
    assert connected_components(A, directed=True, connection="strong")[0] == 2
    assert g.to_scipy().nnz == 5  # the weighted matrix keeps repeats apart


@pytest.mark.parametrize("count", [3.7, 3.0, "3", True])
def test_num_vertices_must_be_an_integer(count):
    with pytest.raises((TypeError, ValueError)):
        Graph.from_edges([0], [1], num_vertices=count)


def test_numpy_integer_counts_are_accepted():
    assert Graph.from_edges([0], [1], num_vertices=np.int64(3)).num_vertices == 3


@pytest.mark.parametrize("dtype", [np.uint64, np.uint32, np.int16, np.float64, np.float32])
def test_ids_of_other_dtypes_convert_when_lossless(dtype):
    g = Graph.from_edges(np.array([0, 1], dtype=dtype), np.array([1, 2], dtype=dtype))
    assert_graphs_equal(g, Graph.from_edges([0, 1], [1, 2]))


@pytest.mark.parametrize("ids", [np.array([0.5, 1.0]), np.array([np.nan, 1.0]),
                                 np.array([2**63 + 5, 1], dtype=np.uint64),
                                 np.array(["0", "1"]), np.array([True, False])])
def test_ids_that_cannot_convert_exactly_are_refused_clearly(ids):
    with pytest.raises(GraphError, match="src"):
        Graph.from_edges(ids, [1, 1])


def test_from_edges_builds_rows_ordered_with_repeated_weighted_arcs_in_input_order():
    g = Graph.from_edges([2, 0, 0, 1, 0], [0, 1, 1, 0, 2], [5, 3, 4, 9, 1], directed=False)
    assert g.row_offsets.tolist() == [0, 5, 8, 10]
    assert g.col_indices.tolist() == [1, 1, 1, 2, 2, 0, 0, 0, 0, 0]
    # equal arcs: the listed ones in input order, then the mirrored ones in input order
    assert g.weights.tolist() == [3, 4, 9, 1, 5, 9, 3, 4, 5, 1]


# the binary format ---------------------------------------------------------------------------

@pytest.mark.parametrize("graph", [
    generators.rmat(8, seed=3), generators.rmat(7, directed=True, weights=(1, 9)),
    Graph.from_edges([0, 1], [1, 1], [0.5, -2.25], num_vertices=4),
    Graph.from_edges([], [], num_vertices=0), generators.grid2d(3, 4, weights=(-5, 5)),
])
@pytest.mark.parametrize("ending", [".npz", ".mtx", ".txt"])
def test_save_and_load_round_trip(tmp_path, graph, ending):
    path = tmp_path / f"g{ending}"
    save(graph, path)
    if ending == ".npz":
        assert_graphs_equal(load(path), graph)
        return
    if graph.num_edges == 0:
        return  # an edge list without edges is not a graph file
    got = load(path, directed=graph.directed if ending == ".txt" else None)
    if ending == ".txt":  # an edge list says nothing of isolated vertices past the last id
        n = got.num_vertices
        assert np.all(graph.row_offsets[n:] == graph.num_edges)
        graph = Graph(graph.row_offsets[:n + 1].copy(), graph.col_indices, graph.weights,
                      graph.directed)
    assert_graphs_equal(got, graph)


def test_npz_layout_is_the_documented_one(tmp_path):
    path = tmp_path / "g.npz"
    save(generators.rmat(5, weights=(1, 3)), path)
    with np.load(path) as npz:
        assert sorted(npz.files) == ["col_indices", "directed", "format", "num_vertices",
                                     "row_offsets", "weights"]
        assert str(npz["format"]) == "frontier-csr-1"
        assert npz["row_offsets"].dtype == np.int64 and npz["col_indices"].dtype == np.int32


def _npz(path: Path, **arrays) -> Path:
    base = {"format": np.array("frontier-csr-1"), "row_offsets": np.array([0, 1, 2]),
            "col_indices": np.array([1, 0], dtype=np.int32),
            "num_vertices": np.array(2, dtype=np.int64), "directed": np.array(True)}
    base.update(arrays)
    np.savez(path, **{k: v for k, v in base.items() if v is not None})
    return path


@pytest.mark.parametrize("arrays, words", [
    ({"format": np.array("something else")}, "format is"),
    ({"row_offsets": None}, "lacks row_offsets"),
    ({"extra": np.zeros(2)}, "unknown extra"),
    ({"row_offsets": np.array([0, 2, 1])}, "row_offsets must rise"),
    ({"col_indices": np.array([1, 5], dtype=np.int32)}, "col_indices holds vertex 5"),
    ({"col_indices": np.array([1, 0], dtype=np.int64)}, "do not match"),
    ({"num_vertices": np.array(3, dtype=np.int64)}, "do not match"),
    ({"weights": np.array(["a", "b"])}, "weights have dtype"),
    ({"weights": np.array([1.0])}, "weights has shape"),
    ({"directed": np.array(False), "col_indices": np.array([1, 1], dtype=np.int32)},
     "no matching reverse arc"),
])
def test_malformed_npz_is_a_format_error(tmp_path, arrays, words):
    path = _npz(tmp_path / "g.npz", **arrays)
    with pytest.raises(GraphFormatError, match=words):
        load(path)


def test_truncated_or_foreign_npz_is_a_format_error(tmp_path):
    good = _npz(tmp_path / "good.npz")
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:200])
    with pytest.raises(GraphFormatError, match="not a readable .npz"):
        load(cut)
    text = tmp_path / "text.npz"
    text.write_text("0 1\n")
    with pytest.raises(GraphFormatError):
        load(text)
    pickled = tmp_path / "obj.npz"
    np.savez(pickled, **{"format": np.array([object()], dtype=object)})
    with pytest.raises(GraphFormatError):
        load(pickled)
    assert zipfile.is_zipfile(good)


def test_convert_writes_npz_that_loads_back_equal(tmp_path, capsys):
    out = tmp_path / "wv.npz"
    assert main(["convert", str(dataset("wiki-Vote.txt.gz")), str(out)]) == 0
    assert_graphs_equal(load(out), load(dataset("wiki-Vote.txt.gz")))
    assert main(["convert", "rmat:6", str(tmp_path / "r.mtx")]) == 0
    assert_graphs_equal(load(tmp_path / "r.mtx"), generators.rmat(6))


@pytest.mark.parametrize("args", [["convert", "rmat:6", "out.xyz"],
                                  ["convert", "missing.txt", "out.npz"],
                                  ["convert", "rmat:30", "out.npz"],
                                  ["convert", "rmat:6", "/no/such/dir/out.npz"]])
def test_convert_user_errors_are_one_line_and_exit_2(capsys, args):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("frontier: error:") and err.count("\n") == 1


@pytest.mark.parametrize("seed", range(4))
def test_from_edges_orders_long_rows_stably_like_a_stable_sort(seed):
    rng = np.random.default_rng(seed)
    m = 3000
    src = np.where(rng.random(m) < 0.5, 0, rng.integers(0, 50, m))  # vertex 0 is a hub
    dst = rng.integers(0, 40, m)  # many repeated arcs
    w = np.arange(m, dtype=np.int64)
    for directed in (True, False):
        g = Graph.from_edges(src, dst, w, 50, directed=directed)
        s2 = src if directed else np.concatenate([src, dst[src != dst]])
        d2 = dst if directed else np.concatenate([dst, src[src != dst]])
        w2 = w if directed else np.concatenate([w, w[src != dst]])
        order = np.lexsort((d2, s2))  # stable: equal arcs keep their order
        np.testing.assert_array_equal(g.col_indices, d2[order])
        np.testing.assert_array_equal(g.weights, w2[order])
        np.testing.assert_array_equal(np.repeat(np.arange(50), np.diff(g.row_offsets)),
                                      s2[order])


def test_csr_built_in_parallel_pieces_equals_the_sequential_build(monkeypatch):
    import frontier.graph as graph_module
    from frontier import parallel

    rng = np.random.default_rng(7)
    src, dst = rng.integers(0, 30, 500), rng.integers(0, 30, 500)
    w = rng.integers(-9, 9, 500)
    want = [Graph.from_edges(src, dst, w, 31, directed=d) for d in (True, False)]
    monkeypatch.setattr(graph_module, "_PARALLEL_ARCS", 1)
    monkeypatch.setattr(graph_module, "_SMALL_ARCS", 0)  # the compiled pieces, not NumPy's sort
    monkeypatch.setattr(parallel, "threads", lambda: 3)
    for d, expected in zip((True, False), want, strict=True):
        assert_graphs_equal(Graph.from_edges(src, dst, w, 31, directed=d), expected)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=80))),
       st.booleans(), st.booleans())
def test_small_inputs_sorted_by_numpy_give_the_compiled_csr(graph, mirror, track):
    """Loops, repeated arcs and mirrors: NumPy's sort of a small input (no compiled loop to
    compile on a fresh machine) gives the counting sort's arrays, dtypes included."""
    import frontier.graph as graph_module

    n, arcs = graph
    src = np.array([a for a, _ in arcs], dtype=np.int32)
    dst = np.array([b for _, b in arcs], dtype=np.int32)
    small = graph_module._counting_csr(src, dst, n, mirror, track)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(graph_module, "_SMALL_ARCS", -1)
        compiled = graph_module._counting_csr(src, dst, n, mirror, track)
    for got, want in zip(small, compiled, strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_a_device_allocation_refused_for_memory_becomes_graph_too_large_naming_the_size():
    from frontier.errors import GraphTooLargeError
    from frontier.runtime.target import CudaTarget

    class OutOfMemory(Exception):
        code = 2

    class Driver:
        @staticmethod
        def device_array(shape, dtype):
            raise OutOfMemory("[CUresult.CUDA_ERROR_OUT_OF_MEMORY] Call to cuMemAlloc results "
                              "in CUDA_ERROR_OUT_OF_MEMORY")

        @staticmethod
        def to_device(array):
            Driver.device_array(array.shape, array.dtype)

    target = CudaTarget()
    target._cuda, target._pool = Driver(), None  # Numba's allocations, no device pool
    with pytest.raises(GraphTooLargeError, match="8,000,000 bytes"):
        target.empty(1_000_000, np.int64)
    with pytest.raises(GraphTooLargeError, match="400 bytes"):
        target.to_device(np.zeros(100, np.int32))


class _OutOfMemory(Exception):
    code = 2


class _Pool:
    """A device pool refusing its first ``refusals`` allocations for lack of memory."""

    def __init__(self, refusals: int) -> None:
        self.refusals, self.trims = refusals, 0

    def empty(self, context, shape, dtype):
        if self.refusals:
            self.refusals -= 1
            raise _OutOfMemory("Call to cuMemAllocFromPoolAsync results in "
                               "CUDA_ERROR_OUT_OF_MEMORY")
        return np.empty(shape, dtype)

    def trim(self) -> None:
        self.trims += 1


class _Context:
    @staticmethod
    def current_context():
        return None


@pytest.mark.parametrize("refusals", [1, 2])
def test_a_pool_allocation_refused_for_memory_is_retried_once_after_the_pool_trims(refusals):
    from frontier.errors import GraphTooLargeError
    from frontier.runtime.target import CudaTarget

    target = CudaTarget()
    target._cuda, target._pool = _Context(), _Pool(refusals)
    if refusals == 1:  # the retry, after the pool gave back what it kept, succeeds
        assert target.empty(10, np.int64).shape == (10,)
    else:
        with pytest.raises(GraphTooLargeError, match="80 bytes"):
            target.empty(10, np.int64)
    assert target._pool.trims == 1


def test_other_device_allocation_failures_pass_through_unchanged():
    from frontier.runtime.target import CudaTarget

    class Driver:
        @staticmethod
        def device_array(shape, dtype):
            raise RuntimeError("context is destroyed")

    target = CudaTarget()
    target._cuda, target._pool = Driver(), None
    with pytest.raises(RuntimeError, match="context is destroyed"):
        target.empty(10, np.int32)
