"""The GPU's context made while the process starts (frontier.runtime.early_context): where it
starts, and what a process forked after the driver started may do. The context itself needs a
GPU."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from frontier.errors import TargetError
from frontier.runtime import cuda_support, early_context, simulator
from frontier.runtime.cuda_support import cuda_usable
from frontier.target import resolve_target

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
GPU = cuda_usable() and not SIMULATED
ROOT = str(Path(__file__).resolve().parents[2])


def _in_fresh_process(code: str, **environment: str) -> dict:
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": ROOT + (os.pathsep + path if path else ""),
           **environment}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _wanted_in_child(answer) -> None:
    answer.put(early_context.wanted())


@pytest.mark.parametrize("value, simulator, wanted", [
    ("1", "0", True), ("0", "0", False), ("1", "1", False), (" 0 ", "0", False)])
def test_the_early_context_is_wanted_unless_turned_off_or_simulated(
        monkeypatch, value, simulator, wanted):
    monkeypatch.setenv(early_context.ENVIRONMENT, value)
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", simulator)
    assert early_context.wanted() is wanted


def test_a_multiprocessing_child_makes_no_early_context(monkeypatch):
    monkeypatch.setenv(early_context.ENVIRONMENT, "1")
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "0")
    spawn = multiprocessing.get_context("spawn")
    answer = spawn.Queue()
    child = spawn.Process(target=_wanted_in_child, args=(answer,))
    child.start()
    got = answer.get(timeout=120)
    child.join(120)
    assert got is False


def test_a_process_forked_after_the_driver_started_runs_auto_on_the_cpu_and_refuses_cuda(
        monkeypatch):
    from numba.cuda.cudadrv.driver import driver

    monkeypatch.setattr(simulator, "enabled", lambda: False)
    monkeypatch.setattr(driver, "pid", os.getpid() + 1, raising=False)
    cuda_usable.cache_clear()
    try:
        assert cuda_support.forked_after_start()
        assert not cuda_usable()
        assert resolve_target("auto").name == "cpu"
        with pytest.raises(TargetError, match="forked"):
            resolve_target("cuda")
    finally:
        monkeypatch.undo()
        cuda_usable.cache_clear()
    assert not cuda_support.forked_after_start()


def test_a_process_with_an_address_space_limit_makes_no_early_context():
    got = _in_fresh_process(
        "import json, resource\n"
        "resource.setrlimit(resource.RLIMIT_AS, (8 << 30, resource.RLIM_INFINITY))\n"
        "from frontier import early_context\n"
        "print(json.dumps(early_context.wanted()))",
        FRONTIER_EARLY_CONTEXT="1", NUMBA_ENABLE_CUDASIM="0")
    assert got is False


def test_importing_frontier_with_the_early_context_off_starts_no_thread():
    got = _in_fresh_process(
        "import json, threading, frontier\n"
        "print(json.dumps([t.name for t in threading.enumerate()]))",
        FRONTIER_EARLY_CONTEXT="0")
    assert "frontier-early-context" not in got


@pytest.mark.skipif(not GPU, reason="makes a context on a real GPU")
def test_importing_frontier_makes_the_context_and_a_forked_child_runs_on_the_cpu():
    got = _in_fresh_process(
        "import json, os, frontier\n"
        "from frontier import early_context, generators, resolve_target\n"
        "from numba.cuda.cudadrv.driver import driver\n"
        "early_context.wait()\n"
        "made = driver.get_device(0).primary_context is not None\n"
        "from frontier.runtime.interrupts import _prepared\n"
        "made = made and 'cuda' in _prepared\n"
        "g = generators.rmat(16, seed=1)\n"
        "read, write = os.pipe()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    try:\n"
        "        resolve_target('cuda')\n"
        "        refused = False\n"
        "    except frontier.TargetError:\n"
        "        refused = True\n"
        "    os.write(write, json.dumps([resolve_target('auto', g).name, refused]).encode())\n"
        "    os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
        "child = json.loads(os.read(read, 1000))\n"
        "print(json.dumps({'made': made, 'parent': resolve_target('auto', g).name,\n"
        "                  'child': child}))",
        FRONTIER_EARLY_CONTEXT="1", NUMBA_ENABLE_CUDASIM="0")
    assert got == {"made": True, "parent": "cuda", "child": ["cpu", True]}


@pytest.mark.parametrize("found", [True, False])
def test_numba_cuda_is_imported_before_the_thread_starts_only_where_a_driver_is_found(
        monkeypatch, found):
    order = []
    monkeypatch.setattr(early_context, "_THREAD", None)
    monkeypatch.setattr(early_context, "wanted", lambda: True)
    monkeypatch.setattr(early_context, "driver_found", lambda: found)
    monkeypatch.setattr(early_context, "cuda_module", lambda: order.append("numba.cuda"))
    monkeypatch.setattr(early_context, "_make", lambda: order.append("thread"))
    early_context.start().join()
    assert order == (["numba.cuda", "thread"] if found else ["thread"])
