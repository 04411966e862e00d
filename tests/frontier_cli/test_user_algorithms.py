"""A user's algorithm on the command line (issue 49, item 4): ``frontier run`` / ``explain`` /
``--validate`` take ``module:function`` with the catalog's options, reference check and report;
the installed script finds the module in the current directory as ``python -m`` would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from tests.frontier_cli.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]

MODULE = """
    import numpy as np
    from algorithms import bfs, declare
    from frontier.testing import reference_bfs


    def my_bfs(graph, source=0, target=None):
        return bfs(graph, source, target=target)


    @declare(reference=reference_bfs, checks="levels equal scipy's")
    def hops(graph, source=0, target=None, balancer=None, order="ordered"):
        '''BFS levels.'''
        return bfs(graph, source, target=target, order=order,
                   **({"balancer": balancer} if balancer else {})).distances


    @declare(reference=lambda graph, source: np.zeros(graph.num_vertices, np.int32))
    def wrong(graph, source=0):
        return np.arange(graph.num_vertices, dtype=np.int32)


    def summary(graph, k=2, scale=1.5, dense=False, label="x"):
        return {"k": k, "scale": scale, "dense": dense, "label": label,
                "degrees": graph.out_degrees(), "pair": ("a", None)}


    def failing(graph):
        return {}["missing"]
"""


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """A module of MODULE in the current directory (a fresh one, not on sys.path), its name;
    forgotten after the test."""
    name = f"user_cli_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    yield name
    sys.modules.pop(name, None)


def _installed_script(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    """``frontier ARGV...`` as the installed script runs it: from a file elsewhere (so the
    current directory is not on its path), in ``tmp_path``, the library from this checkout."""
    script = tmp_path / "bin" / "frontier"
    script.parent.mkdir(exist_ok=True)
    script.write_text("import sys\nfrom frontier_cli.guard import main\nsys.exit(main())\n")
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else "")}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    return subprocess.run([sys.executable, str(script), *argv], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=300)


def test_the_installed_script_runs_a_function_of_the_current_directory(tmp_path):
    (tmp_path / "myalgo.py").write_text(textwrap.dedent(MODULE))
    done = _installed_script(tmp_path, "run", "myalgo:my_bfs", "grid:20x20", "--target", "cpu")
    assert done.returncode == 0, done.stderr
    assert "reached     400 vertices" in done.stdout and "iterations  39" in done.stdout
    assert "MTEPS" in done.stdout


def test_explain_prints_the_kernels_a_user_function_launched(capsys, user_module):
    code, out, err = run_cli(capsys, "explain", f"{user_module}:my_bfs", "grid:20x20",
                             "--target", "cpu")
    assert code == 0, err
    assert out.startswith(f"# {user_module}:my_bfs on grid:20x20 from 0, target cpu: 1 "
                          "launches of 1 kernels")
    assert "\ndef traverse_" in out


def test_the_installed_script_says_in_one_line_that_a_module_is_missing(tmp_path):
    done = _installed_script(tmp_path, "run", "nomodule_here:f", "grid:3x3")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"frontier: error: nomodule_here:f: no module named 'nomodule_here' "
                           f"(looked in the current directory {tmp_path}, $PYTHONPATH and the "
                           "installed packages)\n")


def test_validate_compares_with_the_declared_reference(capsys, user_module):
    code, out, err = run_cli(capsys, "run", f"{user_module}:hops", "grid:5x5", "--target",
                             "cpu", "--validate", "--runs", "1", "--order", "unordered")
    assert code == 0, err
    assert "validated   levels equal scipy's" in out
    assert "balancer    the function's default, order unordered" in out


def test_a_result_that_differs_from_the_declared_reference_exits_1(capsys, user_module):
    code, out, err = run_cli(capsys, "run", f"{user_module}:wrong", "path:4", "--validate",
                             "--runs", "1")
    assert code == 1 and out == ""
    assert err == (f"frontier: error: {user_module}:wrong disagrees with the reference "
                   "<lambda>: result[1]: 1, expected 0 (3 of 4 differ)\n")


def test_validate_without_a_declared_reference_exits_2_before_any_work(capsys, user_module):
    code, out, err = run_cli(capsys, "run", f"{user_module}:my_bfs", "missing-graph.mtx",
                             "--validate")
    assert code == 2 and out == ""
    assert err.startswith(f"frontier: error: --validate: {user_module}:my_bfs declares no "
                          "reference to compare its result with")
    assert len(err.strip().splitlines()) == 1


def test_options_read_from_the_signature_are_typed_and_shown(capsys, user_module):
    code, out, err = run_cli(capsys, "run", f"{user_module}:summary", "grid:3x3", "--k", "5",
                             "--scale", "0.25", "--dense", "yes", "--label", "y", "--runs", "1",
                             "--target", "cpu")
    assert code == 2 and "unknown arguments '--target cpu'" in err  # it takes no target
    code, out, err = run_cli(capsys, "run", f"{user_module}:summary", "grid:3x3", "--k", "5",
                             "--scale", "0.25", "--dense", "yes", "--label", "y", "--runs", "1")
    assert code == 0, err
    assert "balancer    -, k 5, scale 0.25, dense True, label y" in out
    assert "target      - (the function takes no target)" in out
    for line in ("k           5", "dense       True", "degrees     int64 array of 9: min 2, "
                 "max 4, 3 distinct", "pair        tuple: ('a', None)", "label       'y'"):
        assert line in out
    assert "MTEPS" not in out and "iterations" not in out


def test_a_value_an_option_cannot_read_is_one_line_exit_2(capsys, user_module):
    code, _, err = run_cli(capsys, "run", f"{user_module}:summary", "grid:3x3", "--k", "two")
    assert code == 2 and "argument --k: invalid int value: 'two'" in err
    code, _, err = run_cli(capsys, "run", f"{user_module}:summary", "grid:3x3", "--dense", "2")
    assert code == 2 and "argument --dense: invalid boolean value: '2'" in err


def test_json_reports_a_plain_result(capsys, user_module):
    code, out, err = run_cli(capsys, "run", f"{user_module}:summary", "grid:3x3", "--json",
                             "--runs", "1")
    assert code == 0, err
    document = json.loads(out)
    assert document["algorithm"] == f"{user_module}:summary" and document["target"] is None
    assert document["edges_traversed"] is None and document["options"]["k"] == 2
    assert document["report"]["k"] == "2"


def test_an_error_the_function_raises_is_one_line_naming_it_and_where_exit_1(
        capsys, user_module):
    code, out, err = run_cli(capsys, "run", f"{user_module}:failing", "grid:3x3")
    assert code == 1 and out == ""
    line = textwrap.dedent(MODULE).splitlines().index('    return {}["missing"]') + 1
    assert err == (f"frontier: error: {user_module}:failing raised KeyError at "
                   f"{os.path.join(os.getcwd(), user_module + '.py')}:{line}: 'missing' "
                   "(--debug shows the traceback)\n")


def test_a_user_algorithm_gets_the_help_its_signature_gives(capsys, user_module):
    code, out, _ = run_cli(capsys, "run", f"{user_module}:hops", "--help")
    assert code == 0
    assert "BFS levels." in out and "--order STR" in out and "--balancer" in out
    assert "--validate            check the result: levels equal scipy's" in out
