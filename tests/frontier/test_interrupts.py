"""Ctrl-C at any moment leaves the process usable (issue 20, item 5).

Each case runs in a fresh Python process (the first call of the process is the one at risk: it
is where Numba loads its registries and compiles), interrupts it with SIGINT, then calls again
in the same process and checks the answer. A SIGINT in the middle of Numba's lazy import of
``numba.cpython.unicode`` used to break every later compilation (``KeyError: duplicate
registration for UnicodeType``); the first test puts the signal exactly there. A SIGINT inside
LLVM's callback into Python while it loads a cached kernel crashed the process (a null buffer
handed to LLVM); the second test puts it there. A SIGINT right after LLVM linked one module
into another, before llvmlite marked the linked module's wrapper closed, made that wrapper free
the module a second time when collected (a double free, SIGABRT, in one CI run of the offsets
test); the third test puts it there and looks at that wrapper.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Builds a graph, runs k-core on the cpu target, prints the core numbers as JSON.
WORK = """
from frontier import generators
from algorithms import k_core
G = generators.gnm(40, 150, seed=1)
cores = k_core(G, target="cpu").core_numbers.tolist()
"""

#: The end of a child that fires SIGINT from a trace function (``calls``, setting ``fired``):
#: the work under the trace, then again without it, and what happened, as JSON.
UNDER_THE_TRACE = """
interrupted = False
sys.settrace(calls)
try:
    exec(WORK)
except KeyboardInterrupt:
    interrupted = True
sys.settrace(None)
exec(WORK)
print(json.dumps({"fired": bool(fired), "interrupted": interrupted, "cores": cores}))
"""

#: SIGINT at the first line past the middle of the module ``MODULE`` while it is imported, then
#: the work again in the same process.
INSIDE_AN_IMPORT = """
import json, signal, sys
MODULE = sys.argv[1]
fired = []

def lines(frame, event, arg):
    if event == "line" and not fired and frame.f_lineno >= HALF:
        fired.append(frame.f_lineno)
        sys.settrace(None)
        signal.raise_signal(signal.SIGINT)
    return lines

def calls(frame, event, arg):
    if frame.f_code.co_name == "<module>" and frame.f_code.co_filename.endswith(MODULE):
        return lines
    return None

import importlib.util
spec = importlib.util.find_spec(MODULE[:-3].replace("/", "."))
HALF = len(open(spec.origin).read().splitlines()) // 2
""" + UNDER_THE_TRACE

#: SIGINT inside llvmlite's object-cache callback, at the line that hands LLVM a cached
#: object's buffer (the work's kernels are loaded from the disk cache a first run filled), then
#: the work again in the same process.
INSIDE_A_JIT_CALLBACK = """
import inspect, json, signal, sys
import llvmlite.binding.executionengine as ee
source, first = inspect.getsourcelines(ee.ExecutionEngine._raw_object_cache_getbuffer)
LINE = first + next(i for i, line in enumerate(source) if "LLVMPY_CreateByteString" in line)
fired = []

def lines(frame, event, arg):
    if event == "line" and not fired and frame.f_lineno == LINE:
        fired.append(frame.f_lineno)
        signal.raise_signal(signal.SIGINT)
    return lines

def calls(frame, event, arg):
    return lines if frame.f_code.co_name == "_raw_object_cache_getbuffer" else None

""" + UNDER_THE_TRACE

#: SIGINT inside llvmlite's ``link_modules``, after LLVM destroyed the module it linked in and
#: before the module's wrapper is marked closed; the wrapper is kept to see whether it was left
#: open (owning, as far as llvmlite knows, a module LLVM freed: its ``__del__`` would free it
#: again), then the work again in the same process.
INSIDE_A_MODULE_LINK = """
import inspect, json, signal, sys
import llvmlite.binding.linker as linker
source, first = inspect.getsourcelines(linker.link_modules)
LINE = first + next(i for i, line in enumerate(source) if "src.detach()" in line)
fired, linked = [], []

def lines(frame, event, arg):
    if event == "line" and not fired and frame.f_lineno == LINE:
        fired.append(frame.f_lineno)
        linked.append(frame.f_locals["src"])
        signal.raise_signal(signal.SIGINT)
    return lines

def calls(frame, event, arg):
    return lines if frame.f_code.co_name == "link_modules" else None

import algorithms  # (importing frontier links modules with SIGINT held: not the target)
""" + UNDER_THE_TRACE.replace('"cores": cores', '"cores": cores, "left_open": not linked[0].closed')

#: SIGINT (``_thread.interrupt_main``) at each of the offsets given, in seconds, into the first
#: call of one algorithm after another; then every algorithm again.
AT_OFFSETS = """
import _thread, json, sys, threading, time
import numpy as np
from frontier import generators
from algorithms import bfs, connected_components, k_core, pagerank, sssp
G = generators.gnm(60, 240, seed=4)
W = generators.grid2d(6, 6, weights=(1, 9))
calls = [lambda: bfs(G, 0, target="cpu").distances,
         lambda: k_core(G, target="cpu").core_numbers,
         lambda: connected_components(G, target="cpu").labels,
         lambda: sssp(W, 0, target="cpu").distances,
         lambda: pagerank(G, target="cpu").ranks]
outcomes = []
for call, offset in zip(calls, map(float, sys.argv[1:]), strict=False):
    timer = threading.Timer(offset, _thread.interrupt_main)
    stage = "during the call"
    try:
        timer.start()
        call()
        stage = "after the call"
        # an interrupt due after the call lands here, however late a loaded machine fires it
        # (a fixed sleep let it land after the try, which failed the child under load)
        timer.join()
        time.sleep(0.01)
    except KeyboardInterrupt:
        outcomes.append(stage)
    timer.join()
print(json.dumps({"outcomes": outcomes, "results": [np.asarray(c()).tolist() for c in calls]}))
"""

#: SIGINT 0.3 s into a long simulated launch whose threads meet at syncthreads; then a launch
#: again.
A_SIMULATED_LAUNCH = """
import _thread, json, threading, time
import numpy as np
from numba import cuda
from frontier import resolve_target

def spin(out, rounds):
    for r in range(rounds):
        out[cuda.threadIdx.x] += 1
        cuda.syncthreads()

gpu, kernel = resolve_target("cuda"), cuda.jit(spin)
out = gpu.zeros(32, np.int64)
timer = threading.Timer(0.3, _thread.interrupt_main)
start = time.monotonic()
try:
    timer.start()
    gpu.launch(kernel, 1, 32, (out, 10**6))
    seconds = None
except KeyboardInterrupt:
    seconds = time.monotonic() - start
left = sum(type(t).__name__ == "BlockThread" and t.is_alive() for t in threading.enumerate())
out = gpu.zeros(32, np.int64)
gpu.launch(kernel, 1, 32, (out, 3))
print(json.dumps({"seconds": seconds, "left": left, "again": gpu.to_host(out).tolist()}))
"""


def run_child(code: str, *args: str, simulator: bool = False) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    proc = subprocess.run([sys.executable, "-c", f"WORK = {WORK!r}\n" + code, *args],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def expected_cores() -> list[int]:
    scope: dict = {}
    exec(WORK, scope)
    return scope["cores"]


@pytest.mark.parametrize("module", ["numba/cpython/unicode.py", "numba/core/boxing.py"])
def test_an_interrupt_inside_numbas_lazy_registry_import_leaves_the_process_usable(module):
    got = run_child(INSIDE_AN_IMPORT, module)
    assert got["fired"], f"{module} was not imported: the test no longer reaches its target"
    assert got["interrupted"], "the Ctrl-C was swallowed"
    assert got["cores"] == expected_cores()


def test_an_interrupt_inside_llvms_callback_loading_a_cached_kernel_leaves_the_process_usable(
        tmp_path, monkeypatch):
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path))
    run_child("import json\nexec(WORK)\nprint(json.dumps(cores))")  # fills the cache
    got = run_child(INSIDE_A_JIT_CALLBACK)
    assert got["fired"], "no cached object was loaded: the test no longer reaches its target"
    assert got["interrupted"], "the Ctrl-C was swallowed"
    assert got["cores"] == expected_cores()


def test_an_interrupt_right_after_llvm_links_a_module_in_leaves_no_wrapper_owning_it(
        tmp_path, monkeypatch):
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path))  # compiled, not loaded: links
    got = run_child(INSIDE_A_MODULE_LINK)
    assert got["fired"], "no module was linked: the test no longer reaches its target"
    assert got["interrupted"], "the Ctrl-C was swallowed"
    assert not got["left_open"], "the linked module's wrapper would free it a second time"
    assert got["cores"] == expected_cores()


OFFSETS = [("0", "0.03", "0.06", "0.1", "0.15"), ("0.2", "0.25", "0.3", "0.4", "0.5"),
           ("0.01", "0.08", "0.12", "0.35", "0.7")]


@pytest.fixture(scope="module")
def uninterrupted() -> dict:
    return run_child(AT_OFFSETS)


@pytest.mark.parametrize("offsets", OFFSETS, ids=lambda o: "-".join(o))
def test_interrupting_first_calls_at_many_offsets_leaves_every_later_call_right(offsets,
                                                                                uninterrupted):
    got = run_child(AT_OFFSETS, *offsets)
    assert got["results"] == uninterrupted["results"]
    assert got["outcomes"]  # interrupts landed


@pytest.mark.simulator
def test_an_interrupted_simulated_launch_stops_its_threads_at_once():
    got = run_child(A_SIMULATED_LAUNCH, simulator=True)
    assert got["seconds"] is not None and got["seconds"] < 10, got  # was 30 s, the settle time
    assert got["left"] == 0  # were left waiting at syncthreads for ever
    assert got["again"] == [3] * 32
