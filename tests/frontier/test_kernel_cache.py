"""Generated kernels are cached on disk across processes (issue "Fast calls", item 1): a second
process loads every kernel instead of compiling it, a corrupt cache file (or one flipped bit, or
one changed constant) is rebuilt with right results, and a changed functor (code, closure
constant, an ``overload`` implementation it calls) or an edited library never loads the old
kernel. Each process check runs fresh processes on the cpu target with ``FRONTIER_CACHE_DIR``
in a temporary directory."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import types as types_module
from pathlib import Path

import numpy as np
import pytest
from numba import types
from numba.extending import intrinsic, overload, overload_method

from frontier import device_function
from frontier.runtime import kernel_cache
from frontier.runtime.cache_dir import CACHE_DIR_VARIABLE
from frontier.runtime.fingerprint import fingerprint
from frontier.runtime.kernel_cache import KernelCacheStats, source_digest, stats
from frontier.runtime.reads import LIBRARY_PACKAGES

ROOT = Path(__file__).resolve().parents[2]

#: Runs bfs and connected components and a user functor with a closure constant (``STEP``,
#: replaced by the test) on the cpu target; prints the results and the kernel cache's counts.
PROGRAM = """
import json
import numpy as np
from algorithms import bfs, connected_components
from frontier import Frontier, generators
from frontier.runtime import kernel_cache
from operators import compute

G = generators.grid2d(6, 6)
step = STEP
out = np.zeros(G.num_vertices, dtype=np.int64)


def bump(v, out):
    out[v] = v * step


compute(G, Frontier.all_vertices(G, target="cpu"), bump, out)
result = {"bfs": bfs(G, 0, target="cpu").distances.tolist(),
          "cc": connected_components(G, target="cpu").labels.tolist(),
          "bump": out.tolist()}
print(json.dumps({"result": result, "stats": kernel_cache.stats().__dict__}))
"""


def run(cache: Path, step: str = "3", program: str = PROGRAM, path: str = "",
        cwd: Path | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [path, str(ROOT)])),
           CACHE_DIR_VARIABLE: str(cache)}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run([sys.executable, "-c", program.replace("STEP", step)],
                          capture_output=True, text=True, env=env, timeout=600, cwd=cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> tuple[Path, dict]:
    """A cache directory filled by one process, and what that process printed."""
    cache = tmp_path_factory.mktemp("cache")
    return cache, run(cache)


def test_a_first_process_compiles_its_kernels_and_writes_them_to_the_cache(warm):
    cache, first = warm
    assert first["stats"]["compiled"] > 0 and first["stats"]["loaded"] == 0
    assert first["stats"]["uncached"] == 0
    assert list((cache / "kernels").glob("*.py")) and list((cache / "kernels").glob("*.nbi"))


def test_a_second_process_loads_every_kernel_from_the_cache_and_compiles_none(warm):
    cache, first = warm
    second = run(cache)
    assert second["stats"] == {"loaded": first["stats"]["compiled"], "compiled": 0,
                               "uncached": 0}
    assert second["result"] == first["result"]


def test_corrupt_cache_files_are_rebuilt_with_the_same_results(warm, tmp_path):
    """Garbage in one half of the files, one flipped bit in the other (every kind of file:
    kernel text, index, compiled code)."""
    cache, first = warm
    corrupt = tmp_path / "corrupt"
    shutil.copytree(cache, corrupt)
    kinds: dict[str, list[Path]] = {}
    for p in sorted(corrupt.rglob("*")):
        if p.is_file() and p.stat().st_size:
            kinds.setdefault(p.suffix, []).append(p)
    assert all(len(kinds.get(kind, ())) >= 2 for kind in (".py", ".nbi", ".nbc"))
    for files in kinds.values():
        for k, p in enumerate(files):
            data = bytearray(p.read_bytes())
            data[len(data) // 2] ^= 0x10
            p.write_bytes(bytes(data) if k % 2 else b"\0garbage")
    again = run(corrupt)
    assert again["result"] == first["result"]
    assert again["stats"]["loaded"] == 0 and again["stats"]["compiled"] > 0
    rebuilt = run(corrupt)  # and the rebuilt entries load again
    assert rebuilt["stats"]["compiled"] == 0 and rebuilt["result"] == first["result"]


#: A functor with a constant that the compiled code holds as 4 bytes (the test changes them).
MULTIPLY = """
import json
import numpy as np
from frontier import Frontier, generators
from frontier.runtime import kernel_cache
from operators import compute
def mul(v, out):
    out[v] = v * 123456789
G = generators.path(5)
out = np.zeros(5, np.int64)
compute(G, Frontier.all_vertices(G, target="cpu"), mul, out)
print(json.dumps({"result": out.tolist(), "stats": kernel_cache.stats().__dict__}))
"""


def test_a_changed_constant_in_cached_code_is_detected_and_recompiled(tmp_path):
    right = [v * 123456789 for v in range(5)]
    assert run(tmp_path, program=MULTIPLY)["result"] == right
    constant, changed = (123456789).to_bytes(4, "little"), (123456788).to_bytes(4, "little")
    edited = 0
    for p in tmp_path.rglob("*.nbc"):
        if constant in p.read_bytes():
            p.write_bytes(p.read_bytes().replace(constant, changed))
            edited += 1
    assert edited
    again = run(tmp_path, program=MULTIPLY)
    assert again["result"] == right and again["stats"]["compiled"] >= 1


#: An ``overload`` helper in a module of its own (the test edits ADD between processes).
HELPER = """
from numba.extending import overload
def plus(x):
    raise NotImplementedError  # a stub: Numba compiles the overload below
@overload(plus)
def _plus(x):
    return lambda x: x + ADD
"""
CALLS_THE_HELPER = """
import json
import numpy as np
from helper import plus
from operators import compute
def f(v, out):
    out[v] = plus(v)
out = np.zeros(4, np.int64)
compute(None, 4, f, out, target="cpu")
print(json.dumps({"result": out.tolist()}))
"""


def test_an_edited_overload_implementation_is_compiled_anew(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    found = []
    for add in (10, 20):
        (work / "helper.py").write_text(textwrap.dedent(HELPER).replace("ADD", str(add)))
        found.append(run(tmp_path / "cache", program=CALLS_THE_HELPER, path=str(work),
                         cwd=work)["result"])
    assert found == [[10, 11, 12, 13], [20, 21, 22, 23]]


def test_fingerprints_describe_overload_intrinsic_and_method_implementations():
    def stub(x):
        raise NotImplementedError

    def calls_stub(v):
        return stub(v)

    def calls_method(a):
        return a.frontier_test_method()

    before = fingerprint(calls_stub), fingerprint(calls_method)

    @overload(stub)
    def _stub(x):
        return lambda x: x + 1

    @overload_method(types.Array, "frontier_test_method")
    def _method(a):
        return lambda a: 7

    after = fingerprint(calls_stub), fingerprint(calls_method)
    assert None not in after and after[0] != before[0] and after[1] != before[1]

    def an_intrinsic(k):
        @intrinsic
        def nothing(typingctx):
            return k

        return nothing

    one, two = fingerprint(an_intrinsic(1)), fingerprint(an_intrinsic(2))
    assert None not in (one, two) and one != two  # described by its definition


def test_fingerprints_describe_a_device_functions_implementation_and_checks():
    def python_side(v):
        return v

    def plus(k):
        def fn(v):
            return v + k
        return fn

    def registered(**how):
        return device_function(types_module.FunctionType(python_side.__code__, globals()), **how)

    described = [fingerprint(registered(**how)) for how in (
        {}, {"implementation": plus(1)}, {"implementation": plus(2)},
        {"implementation": plus(1), "checks": plus(3)})]
    assert None not in described and len(set(described)) == 4
    assert described[0] == fingerprint(python_side)  # registered with neither: its code alone


def test_the_library_source_is_keyed_by_content_not_size_or_time(tmp_path):
    module = tmp_path / "pkg" / "module.py"
    module.parent.mkdir()
    module.write_text("K = 1\n")
    status = module.stat()
    before = source_digest(tmp_path, ("pkg",))
    module.write_text("K = 2\n")  # same size
    os.utime(module, ns=(status.st_atime_ns, status.st_mtime_ns))  # same time
    assert source_digest(tmp_path, ("pkg",)) != before


def test_the_library_fingerprint_covers_every_package_of_the_library():
    """Its source root is the folder holding the packages (a module moved deeper, into
    frontier/runtime/, once keyed an empty tree: a changed library loaded stale kernels)."""
    for package in LIBRARY_PACKAGES:
        assert (kernel_cache._SOURCE_ROOT / package / "__init__.py").is_file(), package
    assert source_digest(kernel_cache._SOURCE_ROOT, LIBRARY_PACKAGES) != source_digest(
        kernel_cache._SOURCE_ROOT / "no such folder", LIBRARY_PACKAGES)


def test_a_changed_closure_constant_or_functor_code_does_not_load_the_old_kernel(warm):
    cache, first = warm
    changed = run(cache, step="5")  # a global constant the functor reads, frozen by Numba
    assert changed["result"]["bump"] == [5 * v for v in range(36)]
    assert changed["stats"]["compiled"] >= 1
    assert first["result"]["bump"] == [3 * v for v in range(36)]


def test_fingerprints_tell_apart_what_compiled_code_freezes():
    k = 3

    def f(v):
        return v * k

    def g(v):
        return v * k + 1

    before = fingerprint(f)
    assert before is not None and before == fingerprint(f) and before != fingerprint(g)
    k = 4
    assert fingerprint(f) != before
    assert fingerprint(frozenset({"a", "b"})) == fingerprint(frozenset({"b", "a"}))
    assert fingerprint(np.zeros(3)) is None  # an array: compiled in memory, never from disk
    assert fingerprint(np.int32) == "named:numpy.int32"


def test_stats_counts_this_process():
    assert isinstance(stats(), KernelCacheStats)
