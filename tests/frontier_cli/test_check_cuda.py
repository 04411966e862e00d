"""``frontier check-cuda`` (issue 49, item 3): every catalog algorithm's functors (each option
variant) compile for CUDA; a user's ``module:function`` whose functor CUDA cannot build exits 1
naming the functor and line, one that builds exits 0; bad input exits 2 with one line; under the
simulator the command runs itself without it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from algorithms import CATALOG
from frontier.runtime.simulator import SIMULATOR_VARIABLE
from frontier_cli.check_cuda import calls, check_calls
from tests.cuda_compiler import needs_compiler, needs_compiler_here, without_simulator
from tests.frontier_cli.cli import run_cli

USER_MODULE = textwrap.dedent('''
    import numpy as np
    from frontier import Frontier, generators
    from operators import compute
    def sorter(v, out):
        out[v] = np.sort(out)[0]
    def adds(v, out):
        out[v] += 1
    G = generators.path(5)
    def sorts():
        compute(G, Frontier.all_vertices(G, target="cpu"), sorter, np.zeros(5))
    def builds():
        compute(G, Frontier.all_vertices(G, target="cpu"), adds, np.zeros(5))
    def my_bfs(graph, source=0, target=None):
        from algorithms import bfs
        return bfs(graph, source, target=target)
    NOT_A_FUNCTION = 3
''')
#: Lines of USER_MODULE's sorter: its def, and the statement CUDA refuses.
SORTER_DEF, SORTER_SORT = 5, 6


@pytest.fixture
def user_module(tmp_path):
    (tmp_path / "usermod.py").write_text(USER_MODULE)
    return tmp_path


def check_cuda(folder, *argv, simulator=False):
    """``frontier check-cuda ARGV`` in ``folder`` (the user module's), in a new process (with
    the simulator where asked); its exit status, standard output and error."""
    environment = without_simulator()
    if simulator:
        environment[SIMULATOR_VARIABLE] = "1"
    done = subprocess.run([sys.executable, "-m", "frontier_cli", "check-cuda", *argv],
                          capture_output=True, text=True, cwd=folder, env=environment,
                          timeout=600)
    return done.returncode, done.stdout, done.stderr


@needs_compiler_here
@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_catalog_algorithm_s_functors_compile_for_cuda(name):
    found = calls(name, None, None)
    checked = check_calls(found, "sm_80")
    assert checked.report.ok, checked.report.text()
    assert len(checked.ran) == len(found) and checked.report.checked


@needs_compiler
@pytest.mark.parametrize("simulator", [False, True], ids=["plain", "under-the-simulator"])
def test_a_functor_cuda_cannot_build_exits_1_naming_it_and_its_line(user_module, simulator):
    code, out, err = check_cuda(user_module, "usermod:sorts", simulator=simulator)
    path = os.path.join(str(user_module), "usermod.py")
    assert code == 1, err
    assert f"functor sorter ({path}:{SORTER_DEF}) line {SORTER_SORT}: out[v] = np.sort(out)[0]" \
        in out
    assert err.strip() == (f"frontier: error: functors of usermod:sorts that do not compile for "
                           f"CUDA sm_80: sorter ({path}:{SORTER_SORT})")


@needs_compiler
def test_functors_that_build_exit_0(user_module):
    code, out, err = check_cuda(user_module, "usermod:builds")
    assert code == 0, err
    assert "1 functor (1 compilation" in out and "every one compiles for CUDA sm_80" in out


@pytest.fixture
def in_user_folder(user_module, monkeypatch):
    """The command run in this process, from the user module's folder."""
    monkeypatch.chdir(user_module)
    monkeypatch.syspath_prepend(str(user_module))
    monkeypatch.delitem(sys.modules, "usermod", raising=False)
    return user_module


@needs_compiler_here
def test_json_lists_the_functor_that_failed_with_its_line(capsys, in_user_folder):
    code, out, _ = run_cli(capsys, "check-cuda", "usermod:sorts", "--json", "--arch", "sm_90")
    document = json.loads(out)
    assert code == 1 and document["command"] == "check-cuda" and not document["ok"]
    assert document["arch"] == "sm_90" and document["calls"] == ["usermod:sorts()"]
    (failure,) = document["failures"]
    assert failure["name"] == "sorter" and failure["line"].endswith(f"usermod.py:{SORTER_SORT}")
    assert "sort" in failure["message"]


@needs_compiler_here
def test_a_user_algorithm_is_called_with_the_graph_given(capsys, in_user_folder):
    code, out, err = run_cli(capsys, "check-cuda", "usermod:my_bfs", "grid:4x4", "--source", "3")
    assert code == 0, err
    assert "usermod:my_bfs(grid:4x4, 3, target='cpu')" in out


@needs_compiler_here
@pytest.mark.parametrize("argv, said", [
    (["nosuchalgo"], "unknown algorithm 'nosuchalgo'; expected one of"),
    (["nosuchmodule:run"], "no module named 'nosuchmodule'"),
    (["usermod:missing"], "has no attribute 'missing'"),
    (["usermod:NOT_A_FUNCTION"], "usermod.NOT_A_FUNCTION is 'int', not a function"),
    (["usermod:sorts", "--source", "1"], "--source is for a call on GRAPH"),
    (["bfs", "--arch", "volta"], "CUDA architecture 'volta': expected one like sm_80"),
    (["bfs", "--arch", "sm_10"], "sm_10 is not one this CUDA compiler builds"),
], ids=["unknown", "no-module", "no-function", "not-callable", "source-alone", "bad-arch",
        "unbuilt-arch"])
def test_bad_input_exits_2_with_one_line(capsys, in_user_folder, argv, said):
    code, out, err = run_cli(capsys, "check-cuda", *argv)
    assert code == 2 and out == ""
    assert err.startswith("frontier: error: ") and len(err.strip().splitlines()) == 1
    assert said in err
