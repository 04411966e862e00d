"""Which algorithm an ALGO argument names (frontier_cli.algorithm_spec; issue 49, item 4): the
catalog's names, installed algorithms (entry points), and module:function imported as
``python -m`` would; every bad argument one line naming what and where."""

from __future__ import annotations

import json
import os
import sys
import textwrap
import uuid
from importlib import metadata

import pytest

from algorithms import CATALOG, Entry
from frontier_cli import algorithm_spec
from frontier_cli.algorithm_spec import GROUP, AlgorithmSpecError, resolve
from tests.frontier_cli.cli import run_cli


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """``write(source) -> name``: a module of that source in the current directory (a fresh
    temporary one, not on sys.path), forgotten after the test."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    names = []

    def write(source: str, name: str | None = None) -> str:
        name = name or f"user_algo_{uuid.uuid4().hex[:8]}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        names.append(name)
        return name

    yield write
    for name in names:
        sys.modules.pop(name, None)


@pytest.fixture
def installed(monkeypatch):
    """``install(name, value)``: an algorithm as if a package declared it in the group."""
    points: list[metadata.EntryPoint] = []
    real = metadata.entry_points

    def entry_points(**selection):
        if selection.get("group") == GROUP:
            return [p for p in points]
        return real(**selection)

    monkeypatch.setattr(algorithm_spec.metadata, "entry_points", entry_points)
    return lambda name, value: points.append(metadata.EntryPoint(name, value, GROUP))


SOURCE = """
    from algorithms import bfs

    LIMIT = 3

    def far(graph, source=0, target=None):
        '''The farthest level.'''
        return int(bfs(graph, source, target=target).distances.max())

    class Holder:
        @staticmethod
        def levels(graph):
            return 1
"""


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_a_catalog_name_is_the_catalog_entry(name):
    assert resolve(name) is CATALOG[name]


def test_module_function_is_imported_from_the_current_directory(user_module):
    module = user_module(SOURCE)
    entry = resolve(f"{module}:far")
    assert entry.name == f"{module}:far" and entry.description == "The farthest level."
    assert resolve(f"{module}:Holder.levels").name == f"{module}:Holder.levels"


def test_an_entry_of_a_module_is_taken_whole_and_named_as_given(user_module):
    module = user_module("from algorithms import CATALOG\nMINE = CATALOG['bfs']\n")
    entry = resolve(f"{module}:MINE")
    assert isinstance(entry, Entry) and entry.name == f"{module}:MINE"
    assert entry.run is CATALOG["bfs"].run and CATALOG["bfs"].name == "bfs"


@pytest.mark.parametrize("argument, source, said", [
    ("no_such_module_xyz:f", None, "no module named 'no_such_module_xyz' (looked in the "
                                   "current directory"),
    ("{m}:", SOURCE, "expected module:function (such as myalgo:my_bfs), got '{m}:'"),
    (":far", None, "expected module:function"),
    ("{m}:missing", SOURCE, "{m} ({path}) has no attribute 'missing'; it defines far"),
    ("{m}:Holder.missing", SOURCE, "{m}.Holder ({path}) has no attribute 'missing'"),
    ("{m}:LIMIT", SOURCE, "{m}.LIMIT is 'int', not a function"),
    ("{m}:f", "import json\nraise RuntimeError('no config')\n",
     "importing module '{m}' failed at {path}:2: RuntimeError: no config"),
    ("{m}:f", "def f(graph:\n", "importing module '{m}' failed at {path}:1: SyntaxError"),
    ("{m}:f", "import no_such_dependency_xyz\n",
     "at {path}:1: ModuleNotFoundError: No module named 'no_such_dependency_xyz'"),
    ("{m}:f", "def f(graph, k):\n    pass\n", "{m}:f ({path}:1): parameter 'k' has no default"),
    ("nosuch", None, "unknown algorithm 'nosuch'; expected one of the catalog (apsp, "),
    ("{m}", SOURCE, "unknown algorithm '{m}' ({m} is a module here: name its function, "
                    "{m}:FUNCTION)")])
def test_a_bad_algorithm_argument_says_what_and_where_in_one_line(
        user_module, argument, source, said):
    module = user_module(source) if source is not None else "unused"
    path = os.path.join(os.getcwd(), f"{module}.py")
    with pytest.raises(AlgorithmSpecError) as err:
        resolve(argument.format(m=module))
    assert said.format(m=module, path=path) in str(err.value)
    assert len(str(err.value).splitlines()) == 1


def test_a_bad_algorithm_argument_exits_2_before_any_work(capsys, user_module):
    module = user_module("raise RuntimeError('boom')\n")
    code, out, err = run_cli(capsys, "run", f"{module}:f", "missing-graph.mtx")
    assert code == 2 and out == ""
    assert err.startswith("frontier: error: ") and "RuntimeError: boom" in err
    assert len(err.strip().splitlines()) == 1 and "missing-graph" not in err


def test_an_installed_algorithm_runs_and_explains_by_name(capsys, user_module, installed):
    module = user_module(SOURCE)
    installed("far_level", f"{module}:far")
    code, out, err = run_cli(capsys, "run", "far_level", "grid:4x4", "--target", "cpu",
                             "--runs", "1")
    assert code == 0, err
    assert "result      6" in out
    code, out, err = run_cli(capsys, "explain", "far_level", "grid:4x4", "--target", "cpu")
    assert code == 0, err
    assert out.startswith("# far_level on grid:4x4 from 0, target cpu") and "\ndef " in out


def test_installed_algorithms_are_listed_beside_the_catalogs(capsys, user_module, installed):
    module = user_module(SOURCE)
    installed("far_level", f"{module}:far")
    installed("bfs", f"{module}:far")
    code, out, err = run_cli(capsys, "algorithms")
    assert code == 0, err
    assert f"far_level   {module}:far" in out
    assert f"bfs         hidden by the catalog's own (run it as {module}:far)" in out
    assert all(f"\n{name:<12}" in "\n" + out for name in CATALOG)
    code, out, _ = run_cli(capsys, "algorithms", "--json")
    rows = {(r["name"], r["origin"]) for r in json.loads(out)["algorithms"]}
    assert ("far_level", "installed") in rows and ("bfs", "catalog") in rows
    code, out, _ = run_cli(capsys, "run", "--help")
    assert code == 0 and "far_level" in out and f"installed: {module}:far" in out
    assert resolve("bfs") is CATALOG["bfs"]


def test_a_name_two_packages_install_is_refused(user_module, installed):
    module = user_module(SOURCE)
    installed("twice", f"{module}:far")
    installed("twice", f"{module}:Holder.levels")
    with pytest.raises(AlgorithmSpecError, match="installed by more than one package: "
                       f"{module}:far .*; run the one you mean as module:function"):
        resolve("twice")


def test_a_broken_installed_algorithm_names_its_entry_point(capsys, user_module, installed):
    module = user_module(SOURCE)
    installed("broken", f"{module}:nothere")
    code, _, err = run_cli(capsys, "run", "broken", "grid:3x3")
    assert code == 2
    assert f"installed algorithm 'broken' ({module}:nothere, from an unknown package): " in err
    assert "has no attribute 'nothere'" in err and len(err.strip().splitlines()) == 1
