"""The base install holds no CUDA package (issue 49, item 5): the library imports and runs on the
cpu target without numba-cuda, with Numba's own deprecated numba.cuda or with none at all, and
says why the GPU is not used: numba-cuda missing (naming the extra where the driver reports a
GPU), or no usable GPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from frontier.errors import TargetError
from frontier.runtime import cuda_support, simulator
from frontier.runtime.cuda_support import cuda_problem, cuda_usable
from frontier.target import resolve_target

ROOT = str(Path(__file__).resolve().parents[2])

#: Run first in the child: imports of numba-cuda fail, and, with ``builtin`` false, any
#: numba.cuda at all (a Numba without its own); with ``builtin`` true numba.cuda is Numba's
#: own (numba-cuda's redirection of numba.cuda to itself is taken out).
_BLOCKER = textwrap.dedent("""
    import importlib.abc, sys
    BLOCKED = ("numba_cuda",) if BUILTIN else ("numba_cuda", "numba.cuda")
    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") for b in BLOCKED):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    sys.meta_path[:] = [Blocker()] + [f for f in sys.meta_path
                                      if type(f).__name__ != "NumbaCudaFinder"]
""")

_CPU_RUN = textwrap.dedent("""
    import frontier, operators, algorithms, frontier_cli.commands
    from algorithms import bfs
    from frontier import generators
    from frontier.errors import TargetError
    from frontier.runtime.cuda_support import cuda_problem, cuda_usable
    from frontier.target import resolve_target
    result = bfs(generators.grid2d(4, 4), 0, target="cpu")
    try:
        resolve_target("cuda")
        refused = None
    except TargetError as err:
        refused = str(err)
    import numba
    cuda = sys.modules.get("numba.cuda")
    print(json.dumps({"levels": result.iterations, "usable": cuda_usable(),
                      "problem": cuda_problem(), "refused": refused,
                      "implementation": getattr(cuda, "implementation", None),
                      "numba_cuda": "numba_cuda" in sys.modules}))
""")


@pytest.mark.parametrize("builtin", [False, True], ids=["no-numba-cuda-at-all",
                                                        "numbas-own-numba-cuda"])
def test_frontier_imports_and_runs_on_the_cpu_without_numba_cuda(tmp_path, builtin):
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": ROOT + (os.pathsep + path if path else ""),
           "FRONTIER_CACHE_DIR": str(tmp_path)}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    code = f"import json, sys\nBUILTIN = {builtin}\n" + _BLOCKER + _CPU_RUN
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["levels"] == 7 and not got["usable"] and not got["numba_cuda"]
    assert got["implementation"] in (None, "Built-in")
    assert "numba-cuda is not installed" in got["problem"]
    assert got["refused"] == f"target 'cuda' asked for, but {got['problem']}"


@pytest.fixture
def no_simulator(monkeypatch):
    """The process as if not in the simulator, cuda_usable asked again (and after)."""
    monkeypatch.setattr(simulator, "enabled", lambda: False)
    cuda_usable.cache_clear()
    yield
    monkeypatch.undo()
    cuda_usable.cache_clear()


@pytest.mark.parametrize("gpus, said", [
    (1, "this machine has 1 NVIDIA GPU, but numba-cuda is not installed: "
        + cuda_support.INSTALL_HINT),
    (2, "this machine has 2 NVIDIA GPUs, but numba-cuda is not installed"),
    (0, "no CUDA GPU is usable here: no NVIDIA GPU found, and numba-cuda is not installed")])
def test_without_numba_cuda_the_problem_names_the_extra_where_the_driver_reports_a_gpu(
        monkeypatch, no_simulator, gpus, said):
    monkeypatch.setattr(cuda_support, "numba_cuda", lambda: None)
    monkeypatch.setattr(cuda_support, "driver_found", lambda: gpus > 0)
    monkeypatch.setattr(cuda_support, "driver_gpus", lambda: gpus)
    assert not cuda_usable() and said in cuda_problem()
    assert cuda_support.unused_gpus() == gpus
    assert resolve_target("auto").name == "cpu"
    with pytest.raises(TargetError, match="numba-cuda is not installed"):
        resolve_target("cuda")


def test_numbas_own_numba_cuda_does_not_count_as_numba_cuda(monkeypatch):
    cuda = pytest.importorskip("numba.cuda")
    monkeypatch.setattr(cuda, "implementation", "Built-in", raising=False)
    assert cuda_support.numba_cuda() is None
    for other in ("NVIDIA", None):
        monkeypatch.setattr(cuda, "implementation", other)
        assert cuda_support.numba_cuda() is cuda


def test_the_driver_reports_no_gpu_where_its_library_is_missing(monkeypatch):
    monkeypatch.setattr(cuda_support, "_DRIVER_LIBRARY", "libno-such-cuda-driver.so.0")
    assert cuda_support.driver_gpus() == 0


def test_the_simulator_needs_only_a_numba_cuda_module():
    assert cuda_support.problem(simulated=True) is None


# numba.cuda imported where it can be used (issue 52, item 3) ----------------------------------
def test_the_driver_library_is_found_where_numba_cuda_looks_for_it(monkeypatch, tmp_path):
    monkeypatch.setattr(cuda_support, "_DRIVER_NAMES", ("libno-such-cuda-driver.so.0",))
    monkeypatch.setattr(cuda_support, "_DRIVER_DIRECTORIES", (str(tmp_path),))
    cuda_support.driver_found.cache_clear()
    try:
        assert not cuda_support.driver_found()
        monkeypatch.setattr(cuda_support, "_DRIVER_NAMES", ("libno-such-cuda-driver.so.0",
                                                            "libc.so.6"))
        cuda_support.driver_found.cache_clear()
        assert cuda_support.driver_found() is sys.platform.startswith("linux")
    finally:
        monkeypatch.undo()
        cuda_support.driver_found.cache_clear()


def test_without_the_driver_library_cuda_is_not_usable_and_numba_cuda_is_not_asked(
        monkeypatch, no_simulator):
    def asked():
        raise AssertionError("numba.cuda was asked")

    monkeypatch.setattr(cuda_support, "driver_found", lambda: False)
    monkeypatch.setattr(cuda_support, "cuda_module", asked)
    assert not cuda_usable()
    assert resolve_target("auto").name == "cpu"


def test_registrations_run_once_when_numba_cuda_is_loaded_and_at_once_after(tmp_path):
    """In a fresh process (without the simulator, and, where the test runs, without a driver
    library: numba.cuda is not loaded before the first cuda_module()), registrations wait for the
    load, run once before any thread gets the module (one made by a registration too), and a
    registration made after it runs at once."""
    if cuda_support.driver_found():
        pytest.skip("an NVIDIA driver is found here: the library loads numba.cuda at import")
    code = textwrap.dedent("""
        import json, sys, threading
        from frontier.runtime import cuda_support
        calls = []

        def nested(cuda):
            calls.append("nested")
            cuda_support.on_load(lambda c: calls.append("inner"))

        cuda_support.on_load(lambda cuda: calls.append(cuda.__name__))
        cuda_support.on_load(nested)
        before = "numba.cuda" in sys.modules
        got, start = [], threading.Barrier(6)

        def load():
            start.wait()
            got.append((cuda_support.cuda_module(), list(calls)))

        threads = [threading.Thread(target=load) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        cuda_support.on_load(lambda cuda: calls.append("late"))
        print(json.dumps({"before": before, "calls": calls,
                          "one": len({id(m) for m, _ in got}) == 1,
                          "seen": [seen for _, seen in got]}))
    """)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env.update(PYTHONPATH=ROOT + os.pathsep + env.get("PYTHONPATH", ""),
               FRONTIER_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    loaded = ["numba.cuda", "nested", "inner"]
    assert got == {"before": False, "calls": [*loaded, "late"], "one": True,
                   "seen": [loaded] * 6}
