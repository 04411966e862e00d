"""Generated kernels are cached on disk across processes (issue "Fast calls", item 1): a second
process loads every kernel instead of compiling it, a corrupt cache file is rebuilt, and a
changed functor (code or closure constant) never loads the old kernel. Each check runs fresh
processes on the cpu target with ``FRONTIER_CACHE_DIR`` in a temporary directory."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from frontier.cache_dir import CACHE_DIR_VARIABLE
from frontier.fingerprint import fingerprint
from frontier.kernel_cache import KernelCacheStats, stats

ROOT = Path(__file__).resolve().parents[2]

#: Runs bfs and connected components and a user functor with a closure constant (``STEP``,
#: replaced by the test) on the cpu target; prints the results and the kernel cache's counts.
PROGRAM = """
import json
import numpy as np
from algorithms import bfs, connected_components
from frontier import Frontier, generators, kernel_cache
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


def run(cache: Path, step: str = "3") -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), CACHE_DIR_VARIABLE: str(cache)}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run([sys.executable, "-c", PROGRAM.replace("STEP", step)],
                          capture_output=True, text=True, env=env, timeout=600)
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
    cache, first = warm
    corrupt = tmp_path / "corrupt"
    shutil.copytree(cache, corrupt)
    files = [p for p in corrupt.rglob("*") if p.is_file()]
    for p in files:
        p.write_bytes(b"\0garbage")
    again = run(corrupt)
    assert again["result"] == first["result"]
    assert again["stats"]["loaded"] == 0 and again["stats"]["compiled"] > 0
    rebuilt = run(corrupt)  # and the rebuilt entries load again
    assert rebuilt["stats"]["compiled"] == 0 and rebuilt["result"] == first["result"]


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
