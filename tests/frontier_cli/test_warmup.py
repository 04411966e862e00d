"""``frontier warmup``: every algorithm's default kernels compiled once into the disk cache, so
that running it again (or any later process) loads them instead of compiling; a warm-up that
would keep nothing (a cache path that is a file, a refused directory, the simulator) fails with
exit 2 and says why, before any work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from frontier.runtime.cache_dir import CACHE_DIR_VARIABLE
from frontier.runtime.kernel_cache import KernelCacheStats
from frontier_cli import warmup
from tests.frontier_cli.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]



def test_warmup_help_names_the_cache_and_the_target(capsys):
    code, out, _ = run_cli(capsys, "warmup", "--help")
    assert code == 0 and "--target" in out


def test_every_catalog_algorithm_is_warmed_up_on_small_graphs():
    from algorithms import CATALOG

    assert [name for name, _ in warmup.cases()] == list(CATALOG)
    assert all(graphs for _, graphs in warmup.cases())


#: ``frontier warmup --json`` of BFS alone, in a process of its own: one that already compiled
#: BFS's kernels (earlier tests) keeps them in memory and has nothing to write.
WARMUP_BFS = """
import sys
from frontier_cli import warmup
from frontier_cli.commands import main
warmup.cases = lambda: [("bfs", ["grid:32x32"])]
sys.exit(main(["warmup", "--target", "cpu", "--json"]))
"""


def test_warmup_writes_the_kernels_into_the_cache_and_reports_them_as_json(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), CACHE_DIR_VARIABLE: str(tmp_path)}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run([sys.executable, "-c", WARMUP_BFS], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    document = json.loads(proc.stdout)
    assert document["command"] == "warmup" and document["cache"] == str(tmp_path / "kernels")
    [bfs] = document["algorithms"]
    assert bfs["algorithm"] == "bfs" and bfs["skipped"] == []
    assert list((tmp_path / "kernels").glob("*.py"))


def test_warmup_prints_one_line_per_algorithm_and_the_totals(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path))
    monkeypatch.setattr(warmup, "cases", lambda: [("kcore", ["grid:32x32"])])
    code, out, _ = run_cli(capsys, "warmup", "--target", "cpu")
    assert code == 0
    assert out.splitlines()[1].startswith("kcore") and "loaded from the cache" in out


def test_warmup_with_the_cache_path_a_file_exits_2_and_says_why(capsys, monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(blocker))
    code, out, err = run_cli(capsys, "warmup", "--target", "cpu")
    assert code == 2 and out == ""
    assert err == (f"frontier: error: warmup would keep nothing: {blocker}: is a file, not a "
                   f"directory; expected a directory owned by you (uid {os.geteuid()}) and "
                   "writable only by you (mode 0700)\n")


def test_warmup_in_a_directory_others_can_write_exits_2_and_writes_nothing(capsys, monkeypatch,
                                                                           tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(shared))
    code, _, err = run_cli(capsys, "warmup", "--target", "cpu")
    assert code == 2 and "mode 0777; expected a directory owned by you" in err
    assert list(shared.iterdir()) == []


def test_warmup_says_why_a_target_keeps_no_compiled_code():
    simulated = SimpleNamespace(name="cuda", simulated=True, disk_key=None)
    assert warmup.unkept(simulated) == ("the cuda target in the simulator compiles no code to "
                                        "keep; expected the cpu target or a GPU")


def test_a_warmup_stored_something_unless_every_kernel_stayed_in_memory():
    stats = KernelCacheStats
    assert warmup.stored(stats(0, 0, 0), stats(0, 5, 0))  # compiled and saved
    assert warmup.stored(stats(0, 0, 0), stats(5, 0, 0))  # all loaded
    assert warmup.stored(stats(5, 0, 0), stats(5, 0, 0))  # nothing needed compiling
    assert not warmup.stored(stats(0, 0, 0), stats(0, 0, 5))  # all compiled in memory only
