"""The catalog (issue 21, item 5): every algorithm module declares its own entries, the catalog
only collects them, and every entry's run, reference, check and report work, tested over the
registry (never a hand-written list of algorithms); every result follows one protocol; every
entry point checks its graph first and resolves its balancer once, up front."""

from __future__ import annotations

import ast
import importlib
import pathlib
import pkgutil
import sys
import textwrap
from functools import cache

import numpy as np
import pytest

import algorithms
from algorithms import CATALOG, Result
from algorithms.catalog import collect
from algorithms.entry import testing
from frontier import Graph, generators
from frontier.target import resolve_target

NAMES = sorted(CATALOG)
BALANCED = [name for name in NAMES if CATALOG[name].balanced]


def example(name: str) -> Graph:
    """The entry's example graph, or a small scale-free graph where it takes any."""
    return generators.from_spec(CATALOG[name].example or "rmat:6")


def relabelled(graph: Graph) -> Graph:
    """The same graph with vertex v renamed |V| - 1 - v: isomorphic, so an algorithm takes it
    as it takes ``graph``, but a result of ``graph`` does not fit it."""
    coo, last = graph.coo(), graph.num_vertices - 1
    return Graph.from_edges(last - coo.src, last - coo.dst, graph.weights,
                            num_vertices=graph.num_vertices, directed=graph.directed)


def source_of(name: str) -> int | None:
    return 0 if CATALOG[name].source else None


@cache
def result_of(name: str):
    """One run of the entry on its example graph, on the cpu target (shared by the tests)."""
    return CATALOG[name].invoke(example(name), source_of(name), balancer="auto", target="cpu")


# the catalog collects what the modules declare ------------------------------------------------
def test_the_catalog_is_every_entry_the_algorithm_modules_declare():
    entries = [e for m in pkgutil.iter_modules(algorithms.__path__)
               for e in getattr(sys.modules.get(f"algorithms.{m.name}"), "ENTRIES", ())]
    assert sorted(e.name for e in entries) == NAMES
    for entry in entries:
        assert CATALOG[entry.name] is entry


def test_a_new_module_declaring_entries_is_collected_without_touching_the_catalog(
        tmp_path, monkeypatch):
    (tmp_path / "zz_echo.py").write_text(textwrap.dedent('''
        from dataclasses import replace
        from algorithms.bfs import ENTRIES as BFS
        ENTRIES = (replace(BFS[0], name="zz_echo", description="a BFS under another name"),)
    '''))
    monkeypatch.setattr(algorithms, "__path__", [*algorithms.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, "algorithms.zz_echo", raising=False)
    try:
        collected = collect()
    finally:
        sys.modules.pop("algorithms.zz_echo", None)
    assert sorted(collected) == sorted([*NAMES, "zz_echo"])
    assert collected["zz_echo"].run is CATALOG["bfs"].run


def test_two_entries_of_one_name_are_refused(monkeypatch):
    bfs_module = importlib.import_module("algorithms.bfs")
    monkeypatch.setattr(bfs_module, "ENTRIES", (*bfs_module.ENTRIES, bfs_module.ENTRIES[0]))
    with pytest.raises(ValueError, match="two catalog entries are named 'bfs'"):
        collect()


def test_no_class_name_is_defined_twice_in_the_algorithms():
    seen: dict[str, str] = {}
    for path in sorted(pathlib.Path(algorithms.__file__).parent.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                assert node.name not in seen, f"{node.name}: {seen.get(node.name)}, {path.name}"
                seen[node.name] = path.name


# run, reference, check, report: every entry ---------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_every_option_offers_its_choices_as_plain_strings_with_the_default_among_them(name):
    for option in CATALOG[name].options:
        assert all(type(c) is str for c in option.choices)
        assert not option.choices or option.default in option.choices


def test_the_entries_reach_frontier_testing_through_one_lazy_import():
    lazy = []
    for module in pathlib.Path(algorithms.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.FunctionDef):
                lazy += [(module.name, node.name) for s in ast.walk(node)
                         if isinstance(s, ast.ImportFrom) and s.module == "frontier"
                         and any(a.name == "testing" for a in s.names)
                         or isinstance(s, ast.ImportFrom) and s.module == "frontier.testing"]
    assert lazy == [("entry.py", "_frontier_testing")]


def test_the_lazy_references_are_frontier_testing_s_functions_by_name():
    assert testing.reference_bfs.__name__ == "reference_bfs"
    assert not hasattr(testing, "__wrapped__")  # tools probing dunders find nothing
    graph = generators.grid2d(2, 2)
    np.testing.assert_array_equal(testing.reference_bfs(graph, 0),
                                  importlib.import_module("frontier.testing")
                                  .reference_bfs(graph, 0))


@pytest.mark.parametrize("name", NAMES)
def test_every_result_follows_the_result_protocol(name):
    result = result_of(name)
    assert isinstance(result, Result)
    assert isinstance(result.seconds, float) and result.seconds >= 0
    assert isinstance(result.iterations, int) and result.iterations >= 0
    assert isinstance(result.edges_traversed, int) and result.edges_traversed >= 0
    assert all(type(step).__name__.endswith("Stats") for step in result.stats)


@pytest.mark.parametrize("name", NAMES)
def test_every_entry_check_accepts_its_own_result(name):
    CATALOG[name].check(example(name), source_of(name), result_of(name))


@pytest.mark.parametrize("name", NAMES)
def test_every_entry_check_refuses_a_result_of_another_graph(name):
    with pytest.raises(AssertionError):
        CATALOG[name].check(relabelled(example(name)), source_of(name), result_of(name))


@pytest.mark.parametrize("name", NAMES)
def test_every_entry_reference_gives_one_row_per_vertex_or_edge_and_repeats_itself(name):
    """One row per vertex, or, for a result that is a set of edges (a spanning forest, a
    truss), one ``(u, v)`` row per edge of it, vertices of the graph."""
    graph = example(name)
    first = np.asarray(CATALOG[name].reference(graph, source_of(name)))
    assert first.shape[0] == graph.num_vertices or (
        first.ndim == 2 and first.shape[1] == 2 and first.size
        and 0 <= first.min() and first.max() < graph.num_vertices)
    np.testing.assert_array_equal(np.asarray(CATALOG[name].reference(graph, source_of(name))),
                                  first)


@pytest.mark.parametrize("name", NAMES)
def test_every_entry_reports_labelled_lines(name):
    lines = CATALOG[name].report(result_of(name))
    assert lines and all(isinstance(label, str) and isinstance(value, str)
                         for label, value in lines)


# every entry point validates first ------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_every_entry_point_refuses_what_is_not_a_graph_before_any_work(name):
    target = resolve_target("cpu")
    launches = target.launches
    with pytest.raises(TypeError, match="expected a frontier.Graph, got ndarray"):
        CATALOG[name].invoke(np.arange(4), source_of(name), balancer="auto", target=target)
    assert target.launches == launches


@pytest.mark.parametrize("name", BALANCED)
def test_every_entry_point_refuses_an_unknown_balancer_before_any_work(name):
    target = resolve_target("cpu")
    launches = target.launches
    with pytest.raises(ValueError, match="unknown balancer 'nosuch'"):
        CATALOG[name].invoke(example(name), source_of(name), balancer="nosuch", target=target)
    assert target.launches == launches


@pytest.mark.parametrize("name", BALANCED)
def test_every_entry_point_resolves_its_balancer_once_and_passes_the_object(name, monkeypatch):
    module = sys.modules[CATALOG[name].run.__module__]
    passed = []

    def spying(real):
        def spy(*args, **kwargs):
            passed.append(kwargs.get("balancer"))
            return real(*args, **kwargs)
        return spy

    for operator in ("advance", "traverse"):
        if hasattr(module, operator):
            monkeypatch.setattr(module, operator, spying(getattr(module, operator)))
    CATALOG[name].invoke(example(name), source_of(name), balancer="warp", target="cpu")
    assert not any(isinstance(b, str) for b in passed), passed
    # one policy per graph stepped over: the graph, and its transpose for backward steps
    assert len({id(b) for b in passed}) == len({id(b.graph) for b in passed}) <= 2
