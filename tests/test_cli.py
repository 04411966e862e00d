"""The ``frontier`` command: output of run/demo/explain, and one-line errors with exit status 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

from frontier.cli import main


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_bfs_on_a_generator_spec_prints_sizes_time_mteps_and_validates(capsys):
    code, out, err = run_cli(capsys, "run", "bfs", "grid:20x30", "--target", "cpu",
                             "--validate", "--runs", "1")
    assert code == 0, err
    for field in ("|V|         600", "|E|         2,300 arcs", "MTEPS", "reached     600",
                  "iterations  49", "validated"):
        assert field in out


def test_run_bfs_dense_frontier_host_loop_on_rmat(capsys):
    code, out, _ = run_cli(capsys, "run", "bfs", "rmat:8", "--target", "cpu",
                           "--frontier", "dense", "--runs", "1", "--validate")
    assert code == 0 and "dense frontier" in out


@pytest.mark.parametrize("argv, message", [
    (["run", "bfs", "/no/such/graph.mtx"], "no such file"),
    (["run", "bfs", "grid:10xten"], "expected whole numbers"),
    (["run", "bfs", "rmat:1:2:3"], "expected rmat:SCALE"),
    (["run", "bfs", "path:5", "--source", "5", "--target", "cpu"], "source 5 is out of range"),
    (["run", "bfs", "path:5", "--balancer", "nope", "--target", "cpu"], "unknown balancer"),
    (["run", "bfs", "path:5", "--runs", "0"], "--runs must be >= 1"),
])
def test_bad_input_prints_one_line_and_exits_2(capsys, argv, message):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_malformed_graph_file_names_file_and_line(capsys, tmp_path):
    bad = tmp_path / "bad.gr"
    bad.write_text("p sp 3 2\na 1 2 5\na 1 x 5\n")
    code, _, err = run_cli(capsys, "run", "bfs", str(bad), "--target", "cpu")
    assert code == 2 and "bad.gr" in err and ":3" in err


def test_demo_validates_bfs_on_generated_and_shipped_graphs(capsys):
    code, out, _ = run_cli(capsys, "demo", "--target", "cpu")
    assert code == 0
    assert out.count("equal to scipy.sparse.csgraph") == 2 and "luxembourg_osm" in out


def test_explain_prints_the_generated_advance_kernel(capsys):
    code, out, _ = run_cli(capsys, "explain", "bfs", "--target", "cpu")
    assert code == 0 and out.startswith("def advance_thread_sparse_to_sparse__visit(")


def test_console_entry_point_exits_2_on_missing_file():
    proc = subprocess.run([sys.executable, "-m", "frontier.cli", "run", "bfs", "missing.mtx"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("frontier: error:")
