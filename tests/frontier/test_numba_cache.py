"""Numba's disk cache, hardened (frontier.runtime.numba_cache): saves of different entries of one
function from concurrent processes all stay in its index, each with its own data; an entry whose
data file holds another key's code, a truncated file or any flipped bit is a miss and is rebuilt;
files are private and never written through a planted link; a planted index is never unpickled;
a refused directory is neither read nor written; processes that compile one kernel's signatures
at once from a fresh cache directory all get right results, and a later process loads them all.
The unit tests run over both cache file classes :func:`frontier.runtime.numba_cache.harden` wraps
(Numba's cpu cache and Numba CUDA's)."""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import stat
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import numba
import pytest
from numba.core.caching import IndexDataCacheFile
from numba.cuda.core.caching import IndexDataCacheFile as CudaIndexDataCacheFile

from frontier.runtime import kernel_cache
from frontier.runtime.cache_dir import CACHE_DIR_VARIABLE
from frontier.runtime.cache_files import CacheDirectoryWarning, seal
from frontier.runtime.numba_cache import CacheWriteWarning, _SafeCacheFile, harden

ROOT = Path(__file__).resolve().parents[2]
PROCESSES, ENTRIES = 4, 12
#: The cache file classes of Numba's cpu and Numba CUDA's caches.
CACHE_FILES = [IndexDataCacheFile, CudaIndexDataCacheFile]


def _cache_file(folder: Path, kind: type = IndexDataCacheFile,
                root: Path | None = None) -> _SafeCacheFile:
    return _SafeCacheFile(kind(str(folder), "f", "stamp"), root)


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


@pytest.mark.parametrize("kind", CACHE_FILES)
def test_an_index_entry_naming_another_keys_data_is_a_miss_and_is_rebuilt(tmp_path, kind):
    cache = _cache_file(tmp_path, kind)
    cache.save("int64", "code for int64")
    index = cache._load_index(tmp_path)
    cache._save_index(tmp_path, {"float64": index["int64"]})  # what an unlocked race leaves
    assert cache.load("float64") is None
    assert not (tmp_path / "f.nbi").exists()  # the index is rebuilt, not trusted
    cache.save("float64", "code for float64")
    assert cache.load("float64") == "code for float64" and cache.load("int64") is None


@pytest.mark.parametrize("kind", CACHE_FILES)
def test_a_truncated_data_file_is_a_miss_and_is_rebuilt(tmp_path, kind):
    cache = _cache_file(tmp_path, kind)
    cache.save("int64", "code for int64")
    (data,) = tmp_path.glob("*.nbc")
    data.write_bytes(data.read_bytes()[:5])
    assert cache.load("int64") is None
    cache.save("int64", "code for int64")
    assert cache.load("int64") == "code for int64"


@pytest.mark.parametrize("kind", CACHE_FILES)
def test_a_flipped_bit_anywhere_in_an_index_or_data_file_is_a_miss(tmp_path, kind):
    cache = _cache_file(tmp_path, kind)
    for path in ("f.nbi", "f.1.nbc"):
        cache.save("int64", "code for int64")
        good = (tmp_path / path).read_bytes()
        for at in range(len(good)):
            flipped = bytearray(good)
            flipped[at] ^= 1 << (at % 8)
            (tmp_path / path).write_bytes(bytes(flipped))
            assert cache.load("int64") is None, (path, at)
            (tmp_path / path).write_bytes(good)
            if not (tmp_path / "f.nbi").exists():  # a corrupt entry's index is deleted
                cache.save("int64", "code for int64")
        assert cache.load("int64") == "code for int64"


@pytest.mark.parametrize("kind", CACHE_FILES)
def test_cache_files_and_directories_are_private_whatever_the_umask(tmp_path, kind):
    root = tmp_path / "cache"
    cache = _cache_file(root / "kernels" / "sub", kind, root)
    old = os.umask(0)
    try:
        cache.save("int64", "code for int64")
    finally:
        os.umask(old)
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))


@pytest.mark.parametrize("kind", CACHE_FILES)
def test_links_planted_as_cache_files_are_never_written_through(tmp_path, kind):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    (folder / "f.nbi").symlink_to(victim)
    (folder / "f.1.nbc").symlink_to(victim)
    (folder / "f.nbi.lock").symlink_to(tmp_path / "created-through-the-lock")
    cache = _cache_file(folder, kind)
    cache.save("int64", "code for int64")
    assert victim.read_text() == "precious"
    assert not (tmp_path / "created-through-the-lock").exists()
    assert not (folder / "f.nbi").is_symlink() and not (folder / "f.1.nbc").is_symlink()
    assert cache.load("int64") == "code for int64"


class _Planted:
    """A pickle that runs code when it is loaded: it creates the file ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.mark.parametrize("kind", CACHE_FILES)
def test_a_planted_index_is_never_unpickled(tmp_path, kind):
    marker = tmp_path / "code-ran"
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    cache = _cache_file(folder, kind)
    index = folder / "f.nbi"
    # Numba's own format (what Numba would load), then a sealed pickle of another user
    index.write_bytes(pickle.dumps(numba.__version__) + pickle.dumps(_Planted(marker)))
    assert cache.load("int64") is None and not marker.exists()
    if os.geteuid() == 0:
        index.write_bytes(seal(pickle.dumps(_Planted(marker))))
        os.chown(index, 65534, -1)
        assert cache.load("int64") is None and not marker.exists()


class _Unsaveable:
    def __reduce__(self):
        raise RuntimeError("cannot be serialized")


@pytest.mark.parametrize("kind", CACHE_FILES)
def test_a_save_that_fails_warns_and_keeps_nothing(tmp_path, kind):
    cache = _cache_file(tmp_path, kind)
    with pytest.warns(CacheWriteWarning, match="could not be saved .* cannot be serialized"):
        cache.save("int64", _Unsaveable())
    assert cache.load("int64") is None and not list(tmp_path.glob("*.nb?"))


@pytest.mark.parametrize("kind", CACHE_FILES)
def test_a_directory_others_can_write_is_neither_read_nor_written(tmp_path, kind):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    cache = _cache_file(shared, kind)
    with pytest.warns(CacheDirectoryWarning, match="mode 0777; expected a directory owned by"):
        cache.save("int64", "code for int64")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one warning per directory and process
        assert cache.load("int64") is None
        cache.save("int64", "code for int64")
    assert list(shared.iterdir()) == []


#: Compiles one kernel for four argument types, in an order rotated by ORDER (so that processes
#: started together save different signatures at once); prints its results and cache counts.
PROGRAM = """
import json
import numpy as np
from frontier.runtime import kernel_cache
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


def test_cudas_launch_config_marker_is_private_and_never_written_through_a_link(tmp_path,
                                                                              monkeypatch):
    """Numba CUDA writes one file of its own beside the index (``*.lcs``): the hardened cache
    writes it as every cache file (the real CUDA dispatcher module; not in the simulator)."""
    CUDACache = getattr(pytest.importorskip("numba.cuda.dispatcher"), "CUDACache", None)
    if CUDACache is None:
        pytest.skip("the CUDA simulator has no disk cache")
    from numba.cuda.core.caching import CacheImpl

    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path))
    source = "def marked(x):\n    x[0] = 1\n"
    path = kernel_cache.place("marked", source, {}, ("test",))
    namespace = {"__name__": kernel_cache.__name__}
    exec(compile(source, str(path), "exec"), namespace)  # noqa: S102 - the test's own text
    kernel_cache.register_locator(CacheImpl)
    cache = CUDACache(namespace["marked"])
    harden(SimpleNamespace(_cache=cache))
    victim = tmp_path / "victim"
    victim.write_text("precious")
    marker = Path(cache._launch_config_marker_path)
    marker.symlink_to(victim)
    assert cache.mark_launch_config_sensitive() and cache.is_launch_config_sensitive()
    assert victim.read_text() == "precious" and not marker.is_symlink()
    assert stat.S_IMODE(marker.stat().st_mode) == 0o600
