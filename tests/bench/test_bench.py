"""The bench harness: ``python -m bench --help`` lists every registered suite, each suite's
smallest configuration runs on the cpu target and writes its CSV and Markdown, the timer warms
up and takes the median of at least five synchronized calls, and bad options are refused with
exit status 2 before any measurement."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench import tables
from bench.command import main
from bench.graphs import GraphNameError, build, expand
from bench.suites import SUITES
from bench.timing import MIN_RUNS, time_calls
from frontier.runtime.cuda_support import cuda_usable

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
GPU = cuda_usable() and not SIMULATED
ROOT = Path(__file__).resolve().parents[2]

#: Each suite's smallest configuration (seconds on the cpu target), and the marks it needs.
SMALLEST: dict[str, tuple[list[str], tuple]] = {
    "catalog": (["--target", "cpu", "--graphs", "path:40", "--algorithms", "bfs,cc"], ()),
    "balancers": (["--target", "cpu", "--graphs", "path:40", "--balancers", "thread,warp",
                   "--validate"], ()),
    "adaptive": (["--target", "cpu", "--graphs", "path:40"], ()),
    "small_frontier": (["--graphs", "path:6", "--configs", "default,1x1"],
                       (pytest.mark.simulator,
                        pytest.mark.skipif(not cuda_usable(), reason="cuda only"))),
    "block_floor": (["--graphs", "path:6"],
                    (pytest.mark.gpu, pytest.mark.skipif(not GPU, reason="a real GPU only "
                                                         "(the simulator has no shuffles)"))),
    "direction_thresholds": (["--target", "cpu", "--graphs", "rmat:6", "--alphas", "4",
                              "--betas", "8"], ()),
    "fused_grid": (["--target", "cpu", "--graphs", "path:40", "--balancers", "thread",
                    "--blocks", "2"], ()),
    "sssp": (["--target", "cpu", "--graphs", "path40_w1-5", "--methods",
              "near_far,bellman_ford", "--no-datasets"], ()),
    "components": (["--target", "cpu", "--graphs", "path:40", "--methods",
                    "afforest,spanning_forest"], ()),
    "cores": (["--graphs", "rmat6", "--threads", "2", "--algorithms", "sssp"], ()),
    "listrank_apsp": (["--target", "cpu", "--sizes", "1000", "--vertices", "32"], ()),
    "calls": (["--target", "cpu", "--graphs", "path:40", "--algorithms", "bfs",
               "--first-graph", "path:40", "--tiny-calls", "5",
               "--tiny-algorithms", "bfs,listrank"], ()),
    "call_profile": (["--target", "cpu", "--calls", "15"], ()),
    "memory": (["--target", "cpu", "--graphs", "path:40,grid:5x5,rmat:6"], ()),
    "loading": (["--arcs", "1000", "--vertices", "100"], ()),
    "scale_limits": (["--target", "cpu", "--cycle-arcs", "4096", "--rmat", "6"], ()),
    "scale_out": (["--workers", "cpu", "--parts", "1", "--scales", "6", "--algorithms", "bfs"],
                  ()),
    "soak": (["--cases", "4", "--targets", "cpu", "--algorithms", "bfs", "--balancers",
              "thread"], ()),
    "profile_bfs": (["--target", "cpu", "--graphs", "path:40"], ()),
    "kernels": (["--targets", "cpu", "--graphs", "path:10", "--algorithms", "bfs,listrank",
                 "--balancers", "thread"], ()),
    "networkx": (["--target", "cpu", "--edges", "60", "--nodes", "20", "--functions",
                  "core_number,pagerank"], ()),
    "networkx_costs": (["--edges", "300", "--runs", "5", "--processes", "1", "--functions",
                        "connected_components", "--loaders", "connected_components"], ()),
    "structure": (["--target", "cpu", "--graphs", "rmat:6,rmat6_directed", "--algorithms",
                   "triangles,mis,coloring"], ()),
    "neighbor_counts": (["--target", "cpu", "--graphs", "rmat:6,star40", "--bins", "3"], ()),
    "primitives": (["--target", "cpu", "--graphs", "rmat:6,grid:5x5", "--check-arcs", "40"], ()),
    "forest_truss": (["--target", "cpu", "--cases",
                      "msf:path40_w1-5,msf:rmat:6,ktruss:rmat:6,communities:rmat:6"], ()),
    "loops": (["--target", "cpu", "--graphs", "grid:5x5,rmat:6"], ()),
    "kernel_times": (["--target", "cpu", "--graphs", "path:40", "--algorithms", "bfs,cc"], ()),
    "cold_compiles": (["--target", "cpu", "--graph", "path:10", "--algorithms", "bfs"], ()),
    "device_inputs": (["--target", "cpu", "--nodes", "1000"], ()),
    "report": ([], ()),
}


def test_help_lists_every_registered_suite():
    done = subprocess.run([sys.executable, "-m", "bench", "--help"], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    for name in SUITES:
        assert name in done.stdout


def test_every_registered_suite_has_a_smallest_configuration_here():
    assert set(SMALLEST) == set(SUITES)


@pytest.mark.parametrize("name", [pytest.param(name, marks=marks)
                                  for name, (_, marks) in SMALLEST.items()])
def test_each_suite_runs_its_smallest_configuration_and_writes_csv_and_markdown(
        name, tmp_path, capsys):
    argv, _ = SMALLEST[name]
    extra = {"loading": ["--dir", str(tmp_path / "files")],
             "report": ["--page", str(tmp_path / "benchmarks.md")]}.get(name, [])
    code = main([name, *argv, *extra, "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr()
    rows = list(csv.DictReader((tmp_path / f"{name}.csv").open()))
    assert rows, f"{name}.csv has no rows"
    table = (tmp_path / f"{name}.md").read_text()
    assert "|---" in table or "| --- |" in table or table.startswith("```"), table


class Target:
    """A stand-in target counting its synchronizations."""

    def __init__(self) -> None:
        self.synchronized = 0

    def synchronize(self) -> None:
        self.synchronized += 1


def test_the_timer_warms_up_then_takes_the_median_of_at_least_five_synchronized_calls():
    calls = []
    target = Target()
    timing = time_calls(lambda: calls.append(len(calls)) or len(calls), target=target,
                        own=lambda result: float(result))
    assert len(calls) == 1 + MIN_RUNS and timing.runs == MIN_RUNS
    assert timing.first == 1 and timing.result == 1 + MIN_RUNS
    assert target.synchronized == 2 * (1 + MIN_RUNS)  # before and after every call
    assert timing.own == (2.0, 3.0, 4.0, 5.0, 6.0) and timing.own_s == 4.0
    assert timing.wall_s == sorted(timing.walls)[MIN_RUNS // 2]
    with pytest.raises(ValueError, match="at least 5"):
        time_calls(lambda: None, runs=MIN_RUNS - 1)


def test_the_timer_stops_a_slow_configuration_early_and_says_how_many_calls_it_took():
    assert time_calls(lambda: None, slow_s=-1.0).runs == 1
    assert time_calls(lambda: None, runs=50, budget_s=-1.0, at_least=3).runs == 3
    prepared = []
    time_calls(lambda: None, prepare=lambda: prepared.append(1))
    assert len(prepared) == 1 + MIN_RUNS


@pytest.mark.parametrize("argv, says", [
    (["catalog", "--runs", "3"], "at least 5"),
    (["catalog", "--graphs", "nosuchgraph"], "nosuchgraph"),
    (["catalog", "--graphs", "grid:3y3"], "grid:3y3"),
    (["catalog", "--algorithms", "bfs,nosuch"], "nosuch"),
    (["balancers", "--balancers", "warp,nosuch"], "nosuch"),
    (["nosuchsuite"], "nosuchsuite"),
])
def test_bad_options_exit_2_with_one_line_before_any_measurement(argv, says, capsys, tmp_path):
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--out", str(tmp_path)])
    assert stop.value.code == 2
    assert says in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_replot_without_a_plot_file_is_refused_with_exit_2(capsys, tmp_path):
    assert main(["balancers", "--replot", str(tmp_path / "x.csv"), "--out",
                 str(tmp_path)]) == 2
    assert "--plot" in capsys.readouterr().err


def test_graph_names_sets_and_specs():
    weighted = build("path6_w1-9_seed2")
    assert weighted.num_vertices == 6 and weighted.weighted
    assert int(weighted.weights.min()) >= 1 and int(weighted.weights.max()) <= 9
    assert build("star3").num_vertices == 4  # a hub and three leaves
    assert expand("tiny,rmat:8,path:40") == ["grid:12x12", "rmat:8", "path:40"]
    with pytest.raises(GraphNameError, match="expected whole numbers"):
        expand("path:x")


@dataclass
class Row:
    graph: str
    ms: float


def test_tables_write_the_rows_as_csv_and_markdown_whole(tmp_path):
    csv_path, md_path = tables.write([Row("a", 1.5), Row("b|c", 2.0)], tmp_path, "t")
    assert csv_path.read_text() == "graph,ms\na,1.5\nb|c,2.0\n"
    assert md_path.read_text() == "| graph | ms |\n|---|---|\n| a | 1.500 |\n| b\\|c | 2.000 |\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv", "t.md"]  # nothing partial


def test_calls_device_part_reports_a_refused_graph_as_a_row_and_goes_on(monkeypatch, tmp_path):
    from algorithms.betweenness import PathCountOverflowError
    from bench.progress import Progress
    from bench.suites import calls
    from frontier.target import resolve_target

    real = calls.baselines.run

    def run(name, *args, **kwargs):
        if name == "bc":
            raise PathCountOverflowError("path counts overflow")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(calls.baselines, "run", run)
    rows = calls.device_rows(["bc", "bfs"], ["path:40"], resolve_target("cpu"), 5,
                             Progress(2, "calls"))
    assert [(r.algorithm, bool(r.refused)) for r in rows] == [("bc", True), ("bfs", False)]
    assert "PathCountOverflowError: path counts overflow" in rows[0].refused
    assert "refused: PathCountOverflowError" in calls.markdown(rows)


def test_bfs_against_scipy_writes_one_row_per_graph_and_round(tmp_path, capsys):
    from bench import bfs_against_scipy

    assert bfs_against_scipy.main(["--graphs", "path7", "--runs", "5", "--rounds", "2",
                                   "--out", str(tmp_path)]) == 0
    rows = (tmp_path / "bfs_against_scipy.csv").read_text().splitlines()
    assert rows[0].startswith("graph,round,target,bfs_wall_ms") and len(rows) == 3
    assert "| path7 | 1 |" in capsys.readouterr().out
