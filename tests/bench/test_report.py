"""``python -m bench report``: the benchmark page keeps the latest result of each suite on each
device, names device, command and date per table, records a suite's CSV, refuses results it
cannot name (exit 2, page untouched), and the committed page is what it writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.command import main
from bench.suites import report


def recorded(results: Path, suite: str, stem: str, rows: str, **meta: str) -> Path:
    path = results / suite / f"{stem}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(rows)
    if meta:
        path.with_suffix(".json").write_text(json.dumps(meta))
    return path


@pytest.fixture
def results(tmp_path: Path) -> Path:
    folder = tmp_path / "results"
    recorded(folder, "loops", "2026-12-01-nvidia-h100", "graph,wall_ms\ngrid,9.5\n",
             device="NVIDIA H100", command="python -m bench loops --graphs grid")
    recorded(folder, "loops", "2026-12-07-nvidia-h100", "graph,wall_ms\ngrid,8.25\n",
             device="NVIDIA H100", command="python -m bench loops --runs 7",
             note="after the fused loops")
    recorded(folder, "loops", "2026-11-30-nvidia-h200", "graph,wall_ms\ngrid,7.0\n",
             device="NVIDIA H200", command="python -m bench loops")
    recorded(folder, "archive", "old-notes", "anything,at,all\n")
    return folder


def test_the_page_keeps_the_latest_result_of_each_suite_and_device_naming_device_command_date(
        results, tmp_path, capsys):
    page = tmp_path / "benchmarks.md"
    assert main(["report", "--results", str(results), "--page", str(page),
                 "--out", str(tmp_path / "out")]) == 0
    text = page.read_text()
    assert "### NVIDIA H100, 2026-12-07" in text and "### NVIDIA H200, 2026-11-30" in text
    assert "`python -m bench loops --runs 7`" in text and "after the fused loops" in text
    assert "| grid | 8.250 |" in text and "| grid | 7.000 |" in text
    assert "2026-12-01" not in text and "9.5" not in text  # older figures are not shown
    assert "old-notes" not in text  # the archive is not a suite
    index = (tmp_path / "out" / "report.csv").read_text().splitlines()
    assert index[0] == "suite,device,date,command,rows,csv" and len(index) == 3


def test_record_files_a_suites_csv_under_its_date_and_device_then_writes_the_page(
        results, tmp_path):
    run = tmp_path / "run" / "loops.csv"
    run.parent.mkdir()
    run.write_text("graph,wall_ms\nrmat,1.5\n")
    page = tmp_path / "benchmarks.md"
    assert main(["report", "--results", str(results), "--page", str(page), "--record", str(run),
                 "--device", "NVIDIA H100", "--command", "python -m bench loops --graphs rmat",
                 "--date", "2026-12-09", "--out", str(tmp_path / "out")]) == 0
    stored = results / "loops" / "2026-12-09-nvidia-h100.csv"
    assert stored.read_text() == run.read_text()
    assert json.loads(stored.with_suffix(".json").read_text())["command"] == \
        "python -m bench loops --graphs rmat"
    assert "### NVIDIA H100, 2026-12-09" in page.read_text()
    assert "| rmat | 1.500 |" in page.read_text()


@pytest.mark.parametrize("suite, stem, meta, says", [
    ("loops", "2026-12-08-nvidia-h100", {}, "no 2026-12-08-nvidia-h100.json beside it"),
    ("loops", "h100-latest", {"device": "d", "command": "c"}, "expected a name DATE-DEVICE.csv"),
    ("loops", "2026-13-40-h100", {"device": "d", "command": "c"}, "is not a date"),
    ("loops", "2026-12-08-h100", {"device": "d"}, "no command"),
    ("nosuchsuite", "2026-12-08-h100", {"device": "d", "command": "c"}, "is not a suite"),
])
def test_a_result_the_page_cannot_name_is_refused_with_exit_2_and_the_page_untouched(
        results, tmp_path, capsys, suite, stem, meta, says):
    recorded(results, suite, stem, "graph,wall_ms\ngrid,1.0\n", **meta)
    page = tmp_path / "benchmarks.md"
    page.write_text("before")
    assert main(["report", "--results", str(results), "--page", str(page),
                 "--out", str(tmp_path / "out")]) == 2
    assert says in capsys.readouterr().err
    assert page.read_text() == "before"


def test_record_refuses_a_csv_without_its_device_or_of_no_suite(results, tmp_path, capsys):
    run = tmp_path / "loops.csv"
    run.write_text("graph,wall_ms\nrmat,1.5\n")
    args = ["report", "--results", str(results), "--page", str(tmp_path / "p.md"),
            "--out", str(tmp_path / "out"), "--record"]
    assert main([*args, str(run), "--command", "python -m bench loops"]) == 2
    assert "--record needs --device" in capsys.readouterr().err
    other = tmp_path / "notes.csv"
    other.write_text("a\n1\n")
    assert main([*args, str(other), "--device", "d", "--command", "c"]) == 2
    assert "'notes' is not a suite's CSV" in capsys.readouterr().err
    assert not (tmp_path / "p.md").exists()


def test_the_committed_benchmark_page_is_what_report_writes_from_bench_results(tmp_path):
    page = tmp_path / "benchmarks.md"
    assert main(["report", "--page", str(page), "--out", str(tmp_path / "out")]) == 0
    assert (report.ROOT / "docs" / "benchmarks.md").read_text() == page.read_text(), \
        "docs/benchmarks.md is stale: run python -m bench report"
