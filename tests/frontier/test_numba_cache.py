"""Numba's disk cache, hardened (frontier.numba_cache), under several processes at once: saves of
different entries of one function from concurrent processes all stay in its index, each with its
own data; an entry whose data file holds another key's code, or a truncated data file, is a miss
and is rebuilt; processes that compile one kernel's signatures at once from a fresh cache
directory all get right results, and a later process loads them all."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core.caching import IndexDataCacheFile

from frontier.cache_dir import CACHE_DIR_VARIABLE
from frontier.numba_cache import _SafeCacheFile

ROOT = Path(__file__).resolve().parents[2]
PROCESSES, ENTRIES = 4, 12


def _cache_file(folder: Path) -> _SafeCacheFile:
    return _SafeCacheFile(IndexDataCacheFile(str(folder), "f", "stamp"))


def _save_entries(folder: Path, who: int, start) -> None:
    cache = _cache_file(folder)
    start.wait()
    for i in range(ENTRIES):
        cache.save(f"{who}-{i}", f"data of {who}-{i}")


def test_concurrent_saves_keep_every_entry_with_its_own_data(tmp_path):
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs fork to start the savers cheaply")
    context = multiprocessing.get_context("fork")
    start = context.Barrier(PROCESSES)
    savers = [context.Process(target=_save_entries, args=(tmp_path, w, start))
              for w in range(PROCESSES)]
    for p in savers:
        p.start()
    for p in savers:
        p.join(60)
    assert all(p.exitcode == 0 for p in savers)
    cache = _cache_file(tmp_path)
    found = {f"{w}-{i}": cache.load(f"{w}-{i}") for w in range(PROCESSES) for i in range(ENTRIES)}
    assert found == {key: f"data of {key}" for key in found}


def test_an_index_entry_naming_another_keys_data_is_a_miss_and_is_rebuilt(tmp_path):
    cache = _cache_file(tmp_path)
    cache.save("int64", "code for int64")
    inner = cache._inner
    inner._save_index({"float64": inner._load_index()["int64"]})  # what an unlocked race leaves
    assert cache.load("float64") is None
    assert not os.path.exists(inner._index_path)  # the index is rebuilt, not trusted
    cache.save("float64", "code for float64")
    assert cache.load("float64") == "code for float64" and cache.load("int64") is None


def test_a_truncated_data_file_is_a_miss_and_is_rebuilt(tmp_path):
    cache = _cache_file(tmp_path)
    cache.save("int64", "code for int64")
    (data,) = tmp_path.glob("*.nbc")
    data.write_bytes(data.read_bytes()[:5])
    assert cache.load("int64") is None
    cache.save("int64", "code for int64")
    assert cache.load("int64") == "code for int64"


#: Compiles one kernel for four argument types, in an order rotated by ORDER (so that processes
#: started together save different signatures at once); prints its results and cache counts.
PROGRAM = """
import json
import numpy as np
from frontier import kernel_cache
from frontier.target import resolve_target

source = "def scale(xs, k):\\n    for i in range(xs.shape[0]):\\n        xs[i] = xs[i] * k + i\\n"
kernel = resolve_target("cpu").compile_source("scale", source, {})
dtypes = ["int32", "int64", "float32", "float64"]
dtypes = dtypes[ORDER:] + dtypes[:ORDER]
right = {}
for name in dtypes:
    xs = np.arange(5, dtype=name)
    kernel(xs, xs.dtype.type(3))
    right[name] = xs.tolist() == (np.arange(5) * 3 + np.arange(5)).tolist()
print(json.dumps({"right": right, "stats": kernel_cache.stats().__dict__}))
"""


def _start(cache: Path, order: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), CACHE_DIR_VARIABLE: str(cache)}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    return subprocess.Popen([sys.executable, "-c", PROGRAM.replace("ORDER", str(order))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _report(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def test_processes_compiling_one_kernel_at_once_from_a_fresh_cache_all_get_right_results(
        tmp_path):
    reports = [_report(p) for p in [_start(tmp_path, order) for order in range(3)]]
    assert all(all(r["right"].values()) for r in reports)
    later = _report(_start(tmp_path, 0))
    assert all(later["right"].values())
    assert later["stats"] == {"loaded": 4, "compiled": 0, "uncached": 0}
