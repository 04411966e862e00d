"""``frontier warmup``: every algorithm's default kernels compiled once into the disk cache, so
that running it again (or any later process) loads them instead of compiling."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from frontier.cache_dir import CACHE_DIR_VARIABLE
from frontier_cli import warmup
from frontier_cli.commands import main

ROOT = Path(__file__).resolve().parents[2]


def run_cli(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exit:  # argparse's usage errors and --help
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


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
