"""The soak script counts what it finds: cases, mismatches, refusals, errors by kind, a CSV row
per case, and exit status 1 on any mismatch or error (issue 9, item 8)."""

from __future__ import annotations

import csv
from dataclasses import replace

from algorithms import CATALOG
from algorithms.entry import Entry
from bench.command import main
from bench.suites import soak


def test_a_small_soak_on_cpu_finds_no_mismatch_and_writes_every_case(capsys, tmp_path):
    table = tmp_path / "soak.csv"
    code = main(["soak", "--cases", "24", "--targets", "cpu", "--balancers", "thread,warp",
                 "--out", str(tmp_path), "--seed", "3"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "mismatches  0" in out and "errors      0" in out
    rows = list(csv.DictReader(table.open()))
    checked = [r for r in rows if r["outcome"] != "refused"]
    assert len(checked) >= 24 and {r["outcome"] for r in checked} == {"ok"}
    assert {r["algorithm"] for r in rows} == {n for n, e in CATALOG.items() if e.example is None}


def wrong_entry(agrees, run=None) -> Entry:
    bfs = CATALOG["bfs"]
    return replace(bfs, name="wrong", description="a BFS whose check fails", run=run or bfs.run,
                   check=agrees, options=())


def disagree(graph, source, result):
    raise AssertionError("vertex 0: distance 1, expected 0")


def crash(graph, source, **options):
    raise RuntimeError("kernel failed")


def test_mismatches_and_errors_are_counted_by_kind_and_fail_the_run(capsys, monkeypatch,
                                                                    tmp_path):
    monkeypatch.setitem(CATALOG, "wrong", wrong_entry(disagree))
    monkeypatch.setitem(CATALOG, "crash", wrong_entry(disagree, crash))
    table = tmp_path / "soak.csv"
    code = main(["soak", "--cases", "8", "--targets", "cpu", "--algorithms", "wrong,crash",
                 "--balancers", "thread,warp", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "mismatches  4" in out and "errors      4; RuntimeError 4" in out
    failed = [r for r in csv.DictReader(table.open()) if r["outcome"] == "mismatch"]
    assert failed and failed[0]["arcs"].startswith("[[")  # the graph, to replay the case


def test_jobs_share_out_the_pairs_and_add_up_their_counts(capsys, tmp_path):
    table = tmp_path / "soak.csv"
    code = main(["soak", "--cases", "12", "--targets", "cpu", "--algorithms", "bfs,sssp",
                 "--balancers", "thread,warp", "--jobs", "2", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "2 jobs" in out and "mismatches  0" in out
    rows = list(csv.DictReader(table.open()))
    assert {(r["algorithm"], r["balancer"]) for r in rows} == {
        ("bfs", "thread"), ("bfs", "warp"), ("sssp", "thread"), ("sssp", "warp")}
    assert sum(r["outcome"] != "refused" for r in rows) >= 12
    assert not list(tmp_path.glob("soak.*.csv"))  # the shards' files were joined


def test_threads_run_the_same_cases_on_shared_graphs_and_count_each_once(capsys, tmp_path):
    def cases(threads: int) -> list:
        out_dir = tmp_path / f"threads{threads}"
        table = out_dir / "soak.csv"
        code = main(["soak", "--cases", "20", "--targets", "cpu", "--balancers", "thread",
                     "--threads", str(threads), "--seed", "5", "--out", str(out_dir)])
        out = capsys.readouterr().out
        assert code == 0, out
        assert "mismatches  0" in out and "errors      0" in out
        rows = list(csv.DictReader(table.open()))
        assert sorted(int(r["case"]) for r in rows if r["case"]) == list(
            range(1, 1 + sum(r["outcome"] != "refused" for r in rows)))
        return sorted((r["algorithm"], r["options"], r["num_edges"], r["source"],
                       r["outcome"]) for r in rows)

    assert cases(4) == cases(1)


def test_a_wrong_answer_from_a_thread_is_a_mismatch(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(CATALOG, "wrong", wrong_entry(disagree))
    code = main(["soak", "--cases", "8", "--targets", "cpu", "--algorithms", "wrong",
                 "--balancers", "thread", "--threads", "3", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1 and "mismatches  8" in out and "3 threads each" in out


def test_shards_deal_the_pairs_round_robin_without_overlap():
    plan = soak.Plan(["cpu"], soak.pairs_of(["bfs", "sssp"], ["thread", "warp", "block"]), 10,
                     None, 1, 8, 8, None)
    parts = soak.shards(plan, 4)
    dealt = [p for part in parts for p in part.pairs]
    assert sorted(dealt, key=str) == sorted(plan.pairs, key=str) and len(parts) == 4
    assert len({part.seed for part in parts}) == 4
