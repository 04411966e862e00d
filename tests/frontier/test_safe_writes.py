"""Safe writes (issue 20, item 3): every file the library and the command write appears whole or
not at all (a temporary file beside it, renamed at the end, removed on failure: a file-size
limit, Ctrl-C); an output that is one of the inputs, by any path, and an output that cannot be
written are refused before any work, exit 2 from the command."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import pytest

import frontier_cli.commands as cli
from frontier import generators
from frontier.io import load, save
from frontier.safefile import OutputError, check_output, writing
from frontier_cli.commands import main

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "frontier_cli", *argv]


def test_a_failed_write_keeps_the_old_output_and_leaves_no_partial_file(tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("old")
    with pytest.raises(RuntimeError, match="disk gone"), writing(out) as partial:
        Path(partial).write_text("new, half")
        raise RuntimeError("disk gone")
    assert out.read_text() == "old" and os.listdir(tmp_path) == ["out.txt"]


def test_a_finished_write_replaces_the_output_keeping_its_mode_and_its_link(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    real.chmod(0o600)
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    save(generators.path(3), link)
    assert link.is_symlink() and load(link).num_vertices == 3
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert sorted(os.listdir(tmp_path)) == ["link.txt", "real.txt"]


def test_a_device_is_written_in_place():
    check_output("/dev/null")
    with writing("/dev/null") as partial:
        assert partial == "/dev/null"


def test_a_file_size_limit_fails_convert_without_leaving_a_file(tmp_path, tmp_path_factory):
    warm = tmp_path_factory.mktemp("warm") / "big.npz"  # Numba's cache written, unlimited
    subprocess.run(command("convert", "rmat:14", str(warm)), check=True, env=ENV,
                   capture_output=True)
    out = tmp_path / "big.txt"
    done = subprocess.run(["bash", "-c", 'ulimit -f 64; exec "$@"', "-",
                           *command("convert", "rmat:14", str(out))],
                          capture_output=True, text=True, env=ENV)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"frontier: error: File too large: {out}"
    assert os.listdir(tmp_path) == []


def writing_started(folder: Path) -> bool:
    """Whether a temporary file in ``folder`` holds some of the output already. A file may
    vanish between the listing and its size: the empty file by which the command checks, before
    any work, that the output can be created."""
    for entry in os.scandir(folder):
        with suppress(FileNotFoundError):
            if entry.stat().st_size > 0:
                return True
    return False


SLOW_DISK = """
import runpy, sys, time
import numpy as np
savetxt = np.savetxt
def slow_savetxt(f, *args, **kwargs):
    savetxt(f, *args, **kwargs)
    f.flush()
    time.sleep(0.5)
np.savetxt = slow_savetxt
sys.argv = ["frontier", *sys.argv[1:]]
runpy.run_module("frontier_cli", run_name="__main__")
"""


def test_ctrl_c_during_convert_leaves_no_file(tmp_path):
    """The command on a slow disk (each block of rows flushed, then half a second) is
    interrupted once the first block is on disk: well before the last, whatever the load of
    the machine running the test."""
    out = tmp_path / "big.txt"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_DISK, "convert", "rmat:14", str(out)],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not writing_started(tmp_path) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    assert proc.poll() is None, "convert ended before its file was half-written"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err == "frontier: interrupted\n"
    assert os.listdir(tmp_path) == []


def spellings(tmp_path: Path, source: Path) -> dict[str, Path]:
    hard = tmp_path / "hard.txt"
    os.link(source, hard)
    soft = tmp_path / "soft.txt"
    soft.symlink_to(source)
    return {"the same path": source, "another spelling": tmp_path / "." / ".." /
            tmp_path.name / source.name, "a hard link": hard, "a symbolic link": soft}


@pytest.mark.parametrize("how", ["the same path", "another spelling", "a hard link",
                                 "a symbolic link"])
def test_convert_refuses_an_output_that_is_its_input(tmp_path, capsys, how):
    source = tmp_path / "in.txt"
    save(generators.gnm(50, 300, seed=1), source)
    before = source.read_bytes()
    out = spellings(tmp_path, source)[how]
    assert main(["convert", str(source), str(out)]) == 2
    err = capsys.readouterr().err
    assert "an output file other than the input" in err and len(err.splitlines()) == 1
    assert source.read_bytes() == before


def test_plot_refuses_to_draw_over_its_trace_or_to_an_unknown_ending(tmp_path, capsys):
    trace = tmp_path / "t.png"
    trace.write_text("# trace\n")
    assert main(["plot", str(trace), "--out", str(trace)]) == 2
    assert "is also the input" in capsys.readouterr().err
    assert main(["plot", str(trace), "--out", str(tmp_path / "t.jpg")]) == 2
    assert "expected a name ending in .png, .svg, .pdf" in capsys.readouterr().err


def no_work(*args, **kwargs):
    raise AssertionError("the graph was loaded before the output was checked")


@pytest.mark.parametrize("output, words", [
    ("missing/out.txt", "the directory {tmp}/missing does not exist"),
    ("afile/out.txt", "{tmp}/afile is not a directory"),
    ("adir.txt", "is a directory"),
])
@pytest.mark.parametrize("argv", [["convert", "rmat:6", "{out}"],
                                  ["run", "bfs", "rmat:6", "--target", "cpu", "--trace",
                                   "{out}"]], ids=["convert", "trace"])
def test_an_unwritable_output_is_refused_before_the_work(tmp_path, capsys, monkeypatch, output,
                                                         words, argv):
    (tmp_path / "afile").write_text("")
    (tmp_path / "adir.txt").mkdir()
    monkeypatch.setattr(cli, "load_graph", no_work)
    out = str(tmp_path / output)
    assert main([a.format(out=out) for a in argv]) == 2
    err = capsys.readouterr().err
    assert words.format(tmp=tmp_path) in err and len(err.splitlines()) == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_output_in_a_directory_without_permission_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="no permission to create files"):
            check_output(locked / "out.txt")
    finally:
        locked.chmod(0o700)


def test_trace_refuses_to_overwrite_the_graph_it_reads(tmp_path, capsys):
    graph = tmp_path / "g.txt"
    save(generators.path(4), graph)
    before = graph.read_bytes()
    assert main(["run", "bfs", str(graph), "--target", "cpu", "--runs", "1", "--trace",
                 str(graph)]) == 2
    assert "is also the input" in capsys.readouterr().err and graph.read_bytes() == before
