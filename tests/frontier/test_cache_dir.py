"""Compiled code lives in a per-user cache directory, never beside the installed or source files
(issue 20, item 9): a ``pip install .`` that ran the library used to leave Numba's ``*.nbi`` /
``*.nbc`` in ``site-packages/frontier/__pycache__``, which survived the uninstall and made
``frontier`` an empty namespace package for a later editable install."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from frontier.runtime.cache_dir import (
    CACHE_DIR_VARIABLE,
    PACKAGES,
    FrontierCacheLocator,
    cache_dir,
)

ROOT = Path(__file__).resolve().parents[2]

#: Runs the library's own cache=True functions: graph construction and the text scanner.
USE_THE_LIBRARY = """
import sys
from frontier import Graph, load
Graph.from_edges(list(range(5000)), [1, 2, 0] * 1666 + [3, 4], directed=True)  # compiled sort
with open(sys.argv[1], "w") as f:
    f.write("0 1 2.5\\n1 2 3\\n")
print(load(sys.argv[1]).num_edges)
"""


def numba_files(top: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime for package in PACKAGES if (top / package).is_dir()
            for p in (top / package).rglob("*") if p.suffix in (".nbi", ".nbc")}


def use_the_library(tmp_path: Path, source: Path, cache: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(source), CACHE_DIR_VARIABLE: cache}
    proc = subprocess.run([sys.executable, "-c", USE_THE_LIBRARY, str(tmp_path / "g.txt")],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


def test_the_library_caches_its_compiled_code_in_the_cache_dir_not_beside_the_sources(
        tmp_path):
    before = numba_files(ROOT)
    assert use_the_library(tmp_path, ROOT, str(tmp_path / "cache")) == "2"
    assert numba_files(ROOT) == before
    cached = {p.name for p in (tmp_path / "cache" / "numba").rglob("*.nbi")}
    assert any(n.startswith("graph.") for n in cached) and any(
        n.startswith("textscan.") for n in cached)


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the XDG rule, POSIX modes")
def test_the_default_cache_dir_and_everything_in_it_are_private(tmp_path):
    xdg = tmp_path / "xdg"
    env = {**os.environ, "PYTHONPATH": str(ROOT), CACHE_DIR_VARIABLE: "",
           "XDG_CACHE_HOME": str(xdg)}
    proc = subprocess.run([sys.executable, "-c", "import os; os.umask(0o022)\n"
                           + USE_THE_LIBRARY, str(tmp_path / "g.txt")],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    made = [xdg, *xdg.rglob("*")]
    assert any(p.suffix == ".nbc" for p in made)
    for path in made:
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))


def test_an_installed_copy_stays_as_installed(tmp_path):
    site = tmp_path / "site-packages"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, site / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    use_the_library(tmp_path, site, str(tmp_path / "cache"))
    assert numba_files(site) == {}


def test_an_unusable_cache_dir_compiles_in_memory_with_one_warning(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    before = numba_files(ROOT)
    env = {**os.environ, "PYTHONPATH": str(ROOT), CACHE_DIR_VARIABLE: str(blocker / "cache")}
    proc = subprocess.run([sys.executable, "-c", USE_THE_LIBRARY, str(tmp_path / "g.txt")],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "2", proc.stderr[-2000:]
    assert numba_files(ROOT) == before and blocker.read_text() == "not a directory"
    assert proc.stderr.count("CacheDirectoryWarning") == 1
    assert f"{blocker} is not a directory" in proc.stderr


#: Uses the library with the cache refused, says so, then waits to be killed.
USE_THEN_WAIT = USE_THE_LIBRARY + """
import time
print("used", flush=True)
time.sleep(60)
"""


def test_no_process_makes_a_temporary_directory_even_when_killed(tmp_path):
    """The compiled code of a process whose cache directory is unusable stays in memory: no
    temporary directory to leak when the process is killed (issue 47: every process used to
    make one in the temporary directory, left behind by SIGKILL)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    env = {**os.environ, "PYTHONPATH": str(ROOT), CACHE_DIR_VARIABLE: str(shared),
           "TMPDIR": str(temporary)}
    proc = subprocess.Popen([sys.executable, "-c", USE_THEN_WAIT, str(tmp_path / "g.txt")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, env=env)
    try:
        assert proc.stdout.readline() == "2\n" and proc.stdout.readline() == "used\n"
        assert [p.name for p in temporary.iterdir() if p.name.startswith("frontier")] == []
    finally:
        proc.kill()
        proc.communicate(timeout=60)
    assert [p.name for p in temporary.iterdir() if p.name.startswith("frontier")] == []
    assert list(shared.iterdir()) == []


def test_frontier_cache_dir_overrides_the_platform_directory(monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path / "here"))
    assert cache_dir() == tmp_path / "here"


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the XDG rule")
def test_the_cache_dir_follows_xdg_and_ignores_a_relative_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "frontier"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "frontier"


def test_the_locator_serves_this_package_only(tmp_path):
    def f():
        return 1
    assert FrontierCacheLocator.from_function(f, __file__) is None
    graph_py = str(ROOT / "frontier" / "graph.py")
    from frontier.graph import _count_heads

    locator = FrontierCacheLocator.from_function(_count_heads.py_func, graph_py)
    assert locator is not None
    assert not Path(locator.get_cache_path()).resolve().is_relative_to(ROOT)
