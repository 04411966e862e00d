"""A user's function as a catalog entry (algorithms.user; issue 49, item 4): its signature gives
the flags and typed options, ``declare`` its reference, check and report; results of any kind
are compared and reported sensibly, a library result as its catalog entry reports it."""

from __future__ import annotations

import typing

import numpy as np
import pytest

from algorithms import CATALOG, Entry, bfs, declare
from algorithms.user import agree, boolean, describe, entry_of
from frontier import generators

GRID = generators.grid2d(3, 3)


def test_a_functions_signature_gives_its_flags_and_typed_options():
    def everything(graph, source=0, target=None, balancer=None, k=3, alpha=0.5, name="x",
                   flag=False, limit: int | None = None, kept=(1, 2), *rest, **more):
        return None

    entry = entry_of(everything, "mod:everything")
    assert (entry.name, entry.source, entry.targeted, entry.balanced) == (
        "mod:everything", True, True, True)
    assert [(o.name, o.default, o.kind, o.choices) for o in entry.options] == [
        ("k", 3, int, ()), ("alpha", 0.5, float, ()), ("name", "x", str, ()),
        ("flag", False, boolean, ()), ("limit", None, int, ())]
    assert entry.options[0].shown.format(5) == "k 5"


def test_a_function_without_source_target_or_balancer_gets_none_of_those_flags():
    entry = entry_of(lambda graph: 1, "mod:f")
    assert not (entry.source or entry.targeted or entry.balanced) and entry.options == ()


@pytest.mark.parametrize("fn, said", [
    (lambda graph, k: k, "parameter 'k' has no default"),
    (lambda *, graph=None: 1, "takes no graph"),
    (lambda: 1, "takes no graph"),
    (3, "is an int, not a function")])
def test_a_function_the_command_line_cannot_call_is_refused_naming_it_and_where(fn, said):
    with pytest.raises(TypeError, match=said) as err:
        entry_of(fn, "mod:f")
    assert str(err.value).startswith("mod:f")
    if callable(fn):
        assert f"{__file__}:" in str(err.value)


def test_the_run_passes_target_and_balancer_only_where_given():
    calls = []

    def algorithm(graph, source=0, target="cpu", balancer="thread", k=1):
        calls.append({"source": source, "target": target, "balancer": balancer, "k": k})

    entry = entry_of(algorithm, "mod:algorithm")
    entry.run(GRID, 4, k=2)
    entry.run(GRID, 5, target="auto", balancer="warp", k=3)
    entry.invoke(GRID, 6, balancer=None, target=None, k=4)
    assert calls == [{"source": 4, "target": "cpu", "balancer": "thread", "k": 2},
                     {"source": 5, "target": "auto", "balancer": "warp", "k": 3},
                     {"source": 6, "target": "cpu", "balancer": "thread", "k": 4}]


def test_a_positional_only_source_is_passed_by_position():
    def algorithm(graph, source, /):
        return source

    assert entry_of(algorithm, "mod:algorithm").run(GRID, 7) == 7


def test_other_positional_only_parameters_keep_their_defaults_or_are_refused():
    def kept(graph, k=2, /, m=3):
        return k, m

    entry = entry_of(kept, "mod:kept")
    assert [o.name for o in entry.options] == ["m"] and entry.run(GRID, m=4) == (2, 4)

    def late(graph, k=2, source=0, /):
        return source

    with pytest.raises(TypeError, match="source is positional-only"):
        entry_of(late, "mod:late")


@pytest.mark.parametrize("text, value", [("true", True), ("Yes", True), ("1", True),
                                         ("off", False), ("FALSE", False), ("0", False)])
def test_a_bool_option_reads_true_and_false(text, value):
    assert boolean(text) is value


def test_a_bool_option_refuses_other_text():
    with pytest.raises(ValueError, match="expected true or false"):
        boolean("maybe")


def test_declare_gives_the_reference_check_and_report():
    def reference(graph, source):
        return np.arange(graph.num_vertices)

    @declare(reference=reference, checks="ids in order", report=lambda r: [("n", str(r.size))])
    def ids(graph, source=0):
        return np.arange(graph.num_vertices)

    entry = entry_of(ids, "mod:ids")
    assert entry.reference is reference and entry.checks == "ids in order"
    entry.check(GRID, 0, ids(GRID))
    with pytest.raises(AssertionError, match=r"result\[0\]: 1, expected 0"):
        entry.check(GRID, 0, ids(GRID) + 1)
    assert entry.report(ids(GRID)) == [("n", "9")]
    assert "reference" in entry.reference_name
    assert ids(GRID).size == 9  # the function itself is unchanged


def test_a_declared_check_replaces_the_comparison():
    def must_be_empty(graph, source, result):
        assert result == [], "not empty"

    entry = entry_of(declare(check=must_be_empty)(lambda graph: []), "mod:f")
    entry.check(GRID, None, [])
    assert entry.checks == "passes the check test_a_declared_check_replaces_the_comparison" \
        ".<locals>.must_be_empty"


def test_a_function_declaring_nothing_has_no_check():
    entry = entry_of(lambda graph: 1, "mod:f")
    assert entry.reference is None and entry.check is None


def test_declare_refuses_what_is_not_a_function():
    with pytest.raises(TypeError, match="declare\\(reference=...\\) takes a function"):
        declare(reference=[1, 2])


def test_an_entry_is_taken_as_it_is():
    assert entry_of(CATALOG["bfs"], "x") is CATALOG["bfs"]


@pytest.mark.parametrize("result, expected", [
    (np.arange(4), [0, 1, 2, 3]),
    (np.array([0.1, 0.2]) + 1e-12, np.array([0.1, 0.2])),
    ({"a": np.ones(2), "b": (1, [2.0, 3.0])}, {"a": [1, 1], "b": (1, [2.0, 3.0])}),
    (5, 5), (True, True)])
def test_agree_accepts_equal_results(result, expected):
    agree(result, expected)


@pytest.mark.parametrize("result, expected, said", [
    (np.array([0, 1, 5]), [0, 1, 2], r"result\[2\]: 5, expected 2 \(1 of 3 differ\)"),
    (np.ones(2), np.ones(3), r"result: shape \(2,\), expected \(3,\)"),
    ({"a": 1}, {"b": 1}, r"result: keys \['a'\], expected \['b'\]"),
    ({"a": (1, [2, 4])}, {"a": (1, [2, 3])}, r"result\['a'\]\[1\]\[1\]: 4, expected 3"),
    (np.array([0.1, 0.3]), [0.1, 0.2], r"result\[1\]: 0.3, expected 0.2"),
    ([1, 2], {"a": 1}, "result: a list, expected a dict")])
def test_agree_names_the_first_difference(result, expected, said):
    with pytest.raises(AssertionError, match=said):
        agree(result, expected)


def test_agree_refuses_a_result_it_cannot_compare_and_says_to_declare_a_check():
    with pytest.raises(TypeError, match="declare check="):
        agree(bfs(GRID, 0, target="cpu"), np.zeros(9))


def test_a_library_result_is_reported_as_its_catalog_entry_reports_it():
    result = bfs(GRID, 0, target="cpu")
    assert describe(result) == CATALOG["bfs"].report(result)
    assert describe((result, 2)) == [
        ("result[0]", "BFSResult: reached 9 vertices"), ("result[1]", "2")]


@pytest.mark.parametrize("result, lines", [
    (np.array([3, 1, 3], np.int32), [("result", "int32 array of 3: min 1, max 3, 2 distinct")]),
    (np.array([0.5, np.inf]), [("result", "float64 array of 2: min 0.5, max 0.5, mean 0.5, "
                                          "1 not finite")]),
    (np.zeros((2, 3), bool), [("result", "bool array 2x3: 0 true")]),
    (np.zeros(0), [("result", "empty float64 array of 0")]),
    ({"k": 4, "labels": [1, 1, 2]}, [("k", "4"), ("labels", "int64 array of 3: min 1, max 2, "
                                                           "2 distinct")]),
    (("a", None), [("result[0]", "'a'"), ("result[1]", "None")]),
    (GRID, [("result", "graph of 9 vertices, 24 arcs")]),
    (7.5, [("result", "7.5")])])
def test_arrays_dicts_tuples_and_scalars_are_reported_sensibly(result, lines):
    assert describe(result) == lines


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_catalog_entry_names_the_result_type_its_run_returns(name):
    returned = typing.get_type_hints(CATALOG[name].run).get("return")
    assert isinstance(returned, type), f"{name}: run's return annotation names no type"


def test_every_catalog_entry_has_a_reference_and_a_check():
    assert all(isinstance(e, Entry) and e.reference is not None and e.check is not None
               for e in CATALOG.values())
