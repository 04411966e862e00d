"""frontier.generators: sizes, structure (no self-loops or repeats where promised), weights
shared by both arcs of an undirected edge, determinism per seed, and argument checks."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest

from frontier import generators
from frontier.graph import Graph

# one small instance of every generator, each taking seed= and weights=
SMALL = {
    "rmat": lambda **kw: generators.rmat(10, 8, **kw),
    "rmat_directed": lambda **kw: generators.rmat(10, 8, directed=True, **kw),
    "gnm": lambda **kw: generators.gnm(300, 900, **kw),
    "gnm_directed": lambda **kw: generators.gnm(300, 900, directed=True, **kw),
    "grid2d": lambda **kw: generators.grid2d(17, 23, **kw),
    "path": lambda **kw: generators.path(50, **kw),
    "star": lambda **kw: generators.star(50, **kw),
    "binary_tree": lambda **kw: generators.binary_tree(50, **kw),
    "forest": lambda **kw: generators.forest(60, 7, **kw),
    "chung_lu": lambda **kw: generators.chung_lu(2000, 6, **kw),
}
RANDOM_STRUCTURE = ["rmat", "rmat_directed", "gnm", "gnm_directed", "chung_lu"]


def arcs(g: Graph) -> np.ndarray:
    """(src, dst) pairs, one row per arc, in CSR order."""
    return np.column_stack([g.coo().src, g.col_indices]).astype(np.int64)


def assert_simple(g: Graph) -> None:
    """No self-loops, no repeated arcs; an undirected graph holds every arc both ways."""
    pairs = arcs(g)
    assert not np.any(pairs[:, 0] == pairs[:, 1])
    assert len(np.unique(pairs, axis=0)) == len(pairs)
    if not g.directed:
        a = g.to_scipy()
        assert (a != a.T).nnz == 0


def assert_identical(g: Graph, h: Graph) -> None:
    assert (g.num_vertices, g.directed) == (h.num_vertices, h.directed)
    np.testing.assert_array_equal(g.row_offsets, h.row_offsets)
    np.testing.assert_array_equal(g.col_indices, h.col_indices)
    if g.weights is None:
        assert h.weights is None
    else:
        np.testing.assert_array_equal(g.weights, h.weights)


# all generators --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SMALL))
def test_same_seed_gives_identical_arrays(name):
    make = SMALL[name]
    assert_identical(make(seed=7, weights=(1, 100)), make(seed=7, weights=(1, 100)))


@pytest.mark.parametrize("name", sorted(SMALL))
def test_different_seed_gives_different_graphs(name):
    make = SMALL[name]
    g, h = make(seed=1, weights=(1, 10**6)), make(seed=2, weights=(1, 10**6))
    if name in RANDOM_STRUCTURE:
        assert not np.array_equal(g.col_indices, h.col_indices)
    assert not np.array_equal(g.weights, h.weights)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_graphs_have_no_self_loops_or_repeated_edges(name):
    assert_simple(SMALL[name]())


@pytest.mark.parametrize("name", sorted(SMALL))
def test_weights_do_not_change_the_structure_and_lie_in_the_inclusive_range(name):
    make = SMALL[name]
    plain, weighted = make(seed=3), make(seed=3, weights=(-2, 2))
    assert plain.weights is None
    np.testing.assert_array_equal(plain.col_indices, weighted.col_indices)
    assert weighted.weights.dtype == np.int64
    assert set(np.unique(weighted.weights)) == {-2, -1, 0, 1, 2}


@pytest.mark.parametrize("name", [n for n in sorted(SMALL) if "directed" not in n])
def test_both_arcs_of_an_undirected_edge_get_the_same_weight(name):
    g = SMALL[name](weights=(1, 1000))
    assert not g.directed
    w = g.to_scipy()
    assert (w != w.T).nnz == 0


@pytest.mark.parametrize("name", sorted(SMALL))
@pytest.mark.parametrize("weights", [(5, 1), (1.5, 2), "1-9", (1, 2, 3), (True, 2)])
def test_bad_weight_ranges_are_refused(name, weights):
    with pytest.raises(ValueError, match="expected"):
        SMALL[name](weights=weights)


@pytest.mark.parametrize("name", sorted(SMALL))
@pytest.mark.parametrize("seed", [-1, 1.5, None])
def test_bad_seeds_are_refused(name, seed):
    with pytest.raises(ValueError, match="seed"):
        SMALL[name](seed=seed)


def test_weight_range_too_wide_to_pack_with_the_keys_stays_symmetric():
    g = generators.gnm(200, 600, seed=1, weights=(-(2 ** 62), 2 ** 62))
    w = g.to_scipy()
    assert (w != w.T).nnz == 0 and g.weights.min() < 0 < g.weights.max()


def test_equal_bounds_give_constant_weights():
    assert set(generators.grid2d(4, 4, weights=(7, 7)).weights) == {7}


# rmat ------------------------------------------------------------------------------------------

def expected_rmat_arcs(scale: int, edge_factor: int, a: float, b: float, c: float,
                       directed: bool) -> float:
    """Expected arcs of R-MAT after dropping self-loops and repeats, summed over the bit
    patterns (k00, k01, k10, k11) an ordered pair (u, v) can have."""
    d, m, total = 1 - a - b - c, edge_factor * 2 ** scale, 0.0
    for k00, k01, k10 in itertools.product(range(scale + 1), repeat=3):
        k11 = scale - k00 - k01 - k10
        if k11 < 0 or k01 + k10 == 0:
            continue
        pairs = math.factorial(scale) // math.prod(map(math.factorial, (k00, k01, k10, k11)))
        p = a ** k00 * b ** k01 * c ** k10 * d ** k11
        if not directed:  # the edge u - v also comes from generating (v, u)
            p += a ** k00 * b ** k10 * c ** k01 * d ** k11
        total += pairs * -math.expm1(m * math.log1p(-p))
    return total


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("a, b, c", [(0.57, 0.19, 0.19), (0.45, 0.15, 0.25)])
def test_rmat_arc_count_matches_the_model_expectation(directed, a, b, c):
    g = generators.rmat(12, 16, a, b, c, seed=9, directed=directed)
    assert g.num_vertices == 4096 and g.directed == directed
    want = expected_rmat_arcs(12, 16, a, b, c, directed)
    assert abs(g.num_edges - want) < 0.01 * want


def test_rmat_21_expectation_is_the_benchmark_size():
    assert round(expected_rmat_arcs(21, 16, 0.57, 0.19, 0.19, False) / 1e6, 1) == 63.5


def test_rmat_skews_degrees_towards_low_ids():
    degrees = generators.rmat(12).out_degrees()
    assert degrees[0] == degrees.max()
    assert degrees[0] > 20 * degrees.mean()


def test_rmat_directed_is_the_generated_arc_set_and_undirected_its_symmetrization():
    d = generators.rmat(9, 4, seed=5, directed=True)
    u = generators.rmat(9, 4, seed=5)
    a = d.to_scipy()
    want = ((a + a.T) > 0).astype(np.int8)
    assert ((u.to_scipy() > 0).astype(np.int8) != want).nnz == 0


def test_rmat_with_all_mass_on_one_quadrant_puts_every_edge_there():
    g = generators.rmat(6, 4, a=0, b=1, c=0, directed=True)
    assert_identical(g, Graph.from_edges([0], [63], num_vertices=64))


def test_rmat_with_no_edges_is_empty():
    g = generators.rmat(3, edge_factor=0)
    assert (g.num_vertices, g.num_edges) == (8, 0)


@pytest.mark.parametrize("kwargs, word", [
    ({"scale": -1}, "scale"), ({"scale": 31}, "scale"), ({"scale": 2.0}, "scale"),
    ({"scale": 4, "edge_factor": -1}, "edge_factor"),
    ({"scale": 4, "a": 0.6, "b": 0.3, "c": 0.2}, "a + b + c <= 1"),
    ({"scale": 4, "a": -0.1}, ">= 0"), ({"scale": 4, "c": float("nan")}, "finite"),
])
def test_rmat_refuses_bad_arguments(kwargs, word):
    with pytest.raises(ValueError, match="expected") as info:
        generators.rmat(**kwargs)
    assert word in str(info.value)


# gnm -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("directed", [False, True])
def test_gnm_has_exactly_m_distinct_edges(directed):
    g = generators.gnm(500, 3000, seed=4, directed=directed)
    assert g.num_edges == (3000 if directed else 6000)
    assert_simple(g)


@pytest.mark.parametrize("n", range(0, 9))
@pytest.mark.parametrize("directed", [False, True])
def test_gnm_with_every_pair_is_the_complete_graph(n, directed):
    m = n * (n - 1) // (1 if directed else 2)
    g = generators.gnm(n, m, directed=directed)
    assert g.num_edges == n * (n - 1)
    assert_simple(g)


def test_gnm_picks_pairs_uniformly():
    counts = np.zeros((5, 5))
    for seed in range(1000):
        counts += generators.gnm(5, 1, seed=seed).to_scipy().toarray()
    off_diagonal = counts[~np.eye(5, dtype=bool)]
    assert off_diagonal.min() > 60 and off_diagonal.max() < 145  # 100 expected each


@pytest.mark.parametrize("directed, m", [(False, 11), (True, 21)])
def test_gnm_refuses_more_edges_than_pairs(directed, m):
    with pytest.raises(ValueError, match="expected m <="):
        generators.gnm(5, m, directed=directed)


# grid2d ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("rows, cols", [(0, 5), (1, 1), (1, 6), (3, 4), (40, 25)])
def test_grid_counts_follow_the_formula(rows, cols):
    g = generators.grid2d(rows, cols)
    assert g.num_vertices == rows * cols
    want = 2 * (rows * (cols - 1) + (rows - 1) * cols) if rows * cols else 0
    assert g.num_edges == want


def test_grid_2000_by_2000_has_the_documented_counts():
    g = generators.grid2d(2000, 2000)
    assert (g.num_vertices, g.num_edges) == (4_000_000, 15_992_000)


def test_grid_is_the_networkx_grid_with_row_major_ids():
    g = generators.grid2d(5, 7)
    want = nx.convert_node_labels_to_integers(nx.grid_2d_graph(5, 7), ordering="sorted")
    assert set(map(tuple, arcs(g))) == {(u, v) for a, b in want.edges for u, v in
                                        ((a, b), (b, a))}


def test_grid_refuses_more_vertices_than_int32_ids():
    with pytest.raises(ValueError, match="int32"):
        generators.grid2d(100_000, 100_000)


# path, star, binary tree ----------------------------------------------------------------------

def test_path_joins_consecutive_vertices():
    assert_identical(generators.path(5), Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4],
                                                          directed=False))
    assert_identical(generators.path(5, directed=True),
                     Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4]))


@pytest.mark.parametrize("n", [0, 1, 2, 10])
def test_star_has_n_vertices_and_a_hub_of_degree_n_minus_one(n):
    g = generators.star(n)
    degrees = g.out_degrees()
    assert g.num_vertices == n and g.num_edges == 2 * max(n - 1, 0)
    if n:
        assert degrees[0] == degrees.max() == n - 1
        assert np.all(degrees[1:] == 1)


def test_directed_star_points_from_the_hub():
    g = generators.star(4, directed=True)
    assert_identical(g, Graph.from_edges([0, 0, 0], [1, 2, 3]))


@pytest.mark.parametrize("n", [0, 1, 2, 7, 100])
def test_binary_tree_children_are_2i_plus_1_and_2i_plus_2(n):
    g = generators.binary_tree(n, directed=True)
    for i in range(n):
        children = [c for c in (2 * i + 1, 2 * i + 2) if c < n]
        assert list(g.col_indices[g.row_offsets[i]:g.row_offsets[i + 1]]) == children
    u = generators.binary_tree(n)
    assert u.num_edges == 2 * max(n - 1, 0) and not u.directed


@pytest.mark.parametrize(("n", "trees"), [(0, 0), (1, 1), (9, 1), (9, 9), (500, 37)])
def test_a_forest_has_its_trees_as_components_and_no_cycle(n, trees):
    import scipy.sparse.csgraph as csgraph

    g = generators.forest(n, trees, seed=n)
    assert g.num_vertices == n and g.num_edges == 2 * (n - trees) and not g.directed
    assert_simple(g)
    if n:
        count, _ = csgraph.connected_components(g.to_scipy(), directed=False)
        assert count == trees  # n - trees edges joining n vertices into trees components: acyclic


def test_a_forest_scatters_its_trees_over_the_ids():
    from frontier.testing import reference_components

    labels = reference_components(generators.forest(1000, 10, seed=3))
    assert len(set(labels[:100].tolist())) > 1


@pytest.mark.parametrize("make", [generators.path, generators.star, generators.binary_tree])
@pytest.mark.parametrize("n", [-1, 2.5, "3"])
def test_structured_generators_refuse_bad_sizes(make, n):
    with pytest.raises(ValueError, match="expected"):
        make(n)


# chung_lu --------------------------------------------------------------------------------------

def test_chung_lu_mean_degree_is_near_but_below_the_target_with_hubs_at_low_ids():
    g = generators.chung_lu(20_000, 8, seed=1)
    degrees = g.out_degrees()
    assert not g.directed
    assert 0.75 * 8 < degrees.mean() <= 8
    assert degrees[0] == degrees.max() and degrees[0] > 30 * degrees.mean()


def test_chung_lu_degrees_follow_the_expected_weights():
    g = generators.chung_lu(20_000, 8, exponent=3.0, seed=2)
    degrees = g.out_degrees()
    # expected degree of vertex i is proportional to (i + 1) ** -0.5: compare two bands
    high, low = degrees[100:200].mean(), degrees[10_000:10_100].mean()
    assert 5 < high / low < 15  # (10050 / 150) ** 0.5 = 8.2


@pytest.mark.parametrize("kwargs, word", [
    ({"n": 100, "avg_degree": -1}, "avg_degree"), ({"n": 100, "avg_degree": 100}, "n - 1"),
    ({"n": 100, "avg_degree": 4, "exponent": 2.0}, "exponent"),
    ({"n": -5, "avg_degree": 1}, "n"),
])
def test_chung_lu_refuses_bad_arguments(kwargs, word):
    with pytest.raises(ValueError, match="expected") as info:
        generators.chung_lu(**kwargs)
    assert word in str(info.value)


def test_chung_lu_on_no_vertices_is_empty():
    g = generators.chung_lu(0, 0)
    assert (g.num_vertices, g.num_edges) == (0, 0)


# specs -----------------------------------------------------------------------------------------

# the generator call each registered form's example stands for
SPEC_EXAMPLES = {
    "rmat": lambda: generators.rmat(6, 4),
    "grid": lambda: generators.grid2d(4, 5),
    "gnm": lambda: generators.gnm(20, 40),
    "path": lambda: generators.path(10),
    "star": lambda: generators.star(10),
    "tree": lambda: generators.binary_tree(10),
    "forest": lambda: generators.forest(20, 3),
    "chunglu": lambda: generators.chung_lu(50, 4),
    "list": lambda: generators.list_graph(10),
}


def test_spec_examples_cover_every_registered_form():
    assert set(SPEC_EXAMPLES) == set(generators.SPECS)


@pytest.mark.parametrize("kind", sorted(generators.SPECS))
def test_spec_example_builds_the_generator_graph(kind):
    form = generators.SPECS[kind]
    assert form.example.startswith(f"{kind}:") and generators.is_spec(form.example)
    assert_identical(generators.from_spec(form.example), SPEC_EXAMPLES[kind]())


def test_rmat_spec_edge_factor_defaults_to_the_generator_default():
    assert_identical(generators.from_spec("rmat:5"), generators.rmat(5))


def test_grid_spec_accepts_an_upper_case_x():
    assert_identical(generators.from_spec("grid:3X4"), generators.grid2d(3, 4))


def one_line_spec_error(spec: str) -> str:
    with pytest.raises(generators.SpecError) as info:
        generators.from_spec(spec)
    message = str(info.value)
    assert isinstance(info.value, ValueError) and "\n" not in message and repr(spec) in message
    return message


@pytest.mark.parametrize("kind", sorted(generators.SPECS))
def test_spec_with_too_many_numbers_names_the_expected_form(kind):
    form = generators.SPECS[kind]
    spec = form.separator.join([f"{kind}:1"] + ["1"] * form.high)
    assert f"expected {form.usage}" in one_line_spec_error(spec)


@pytest.mark.parametrize("kind", sorted(generators.SPECS))
@pytest.mark.parametrize("number", ["ten", "-1", "2.5", "", " 3"])
def test_spec_with_a_number_that_is_not_whole_names_the_expected_form(kind, number):
    form = generators.SPECS[kind]
    spec = form.separator.join([f"{kind}:{number}"] + ["3"] * (form.low - 1))
    assert f"expected whole numbers, as in {form.usage}" in one_line_spec_error(spec)


@pytest.mark.parametrize("spec", ["nosuch:3", "rmat", "RMAT:3"])
def test_unknown_spec_kind_lists_every_form(spec):
    message = one_line_spec_error(spec)
    assert all(form.usage in message for form in generators.SPECS.values())


@pytest.mark.parametrize("spec, word", [("rmat:31", "scale"), ("gnm:5:100", "m is 100"),
                                        ("chunglu:10:20", "avg_degree")])
def test_spec_sizes_the_generator_refuses_give_its_reason(spec, word):
    assert word in one_line_spec_error(spec)


@pytest.mark.parametrize("text", ["graph.mtx", "data/rmat.mtx.gz", "/tmp/a:b.gr", "C:\\g.mtx",
                                  "rmat", "nosuch:3"])
def test_file_paths_and_unknown_kinds_are_not_specs(text):
    assert not generators.is_spec(text)


@pytest.mark.parametrize("text", ["rmat:18", "grid:10xten", "tree:"])
def test_registered_kinds_are_specs_even_when_malformed(text):
    assert generators.is_spec(text)


@pytest.mark.parametrize("spec, words", [
    ("path:" + "9" * 5000, "a number of 5,000 digits; expected whole numbers of at most 18"),
    ("grid:99999999999999999999x0", "a number of 20 digits"),
    ("grid:99999999999x0", "rows is 99999999999; expected 0 <= rows <= 2147483647"),
    ("grid:0x99999999999", "cols is 99999999999; expected 0 <= cols <= 2147483647"),
])
def test_a_spec_with_a_huge_number_gets_one_short_line(spec, words):
    with pytest.raises(generators.SpecError) as info:
        generators.from_spec(spec)
    message = str(info.value)
    assert words in message and "\n" not in message and len(message) < 250


def test_leading_zeros_do_not_count_as_digits():
    assert_identical(generators.from_spec("path:" + "0" * 5000 + "3"), generators.path(3))
