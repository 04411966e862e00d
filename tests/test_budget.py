"""The test-time budget (tests/budget.py): a session over its budget, or one file over its share
of it, fails the run with a line naming what overran; within budget the exit status is kept."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.budget import FILE_SHARE, TimeBudget


def _finish(budget: TimeBudget, spent: dict[str, float], status=pytest.ExitCode.OK):
    for nodeid, seconds in spent.items():
        budget.pytest_runtest_logreport(SimpleNamespace(nodeid=nodeid, duration=seconds))
    session = SimpleNamespace(exitstatus=status)
    budget.pytest_sessionfinish(session)
    return session.exitstatus


def test_within_budget_the_exit_status_is_kept():
    budget = TimeBudget(3600, 0.5)
    assert _finish(budget, {"tests/a.py::t1": 1.0, "tests/b.py::t": 2.0}) == pytest.ExitCode.OK
    assert budget.overruns == []


def test_a_file_over_its_share_fails_the_session_naming_the_file():
    budget = TimeBudget(3600, 0.001)
    status = _finish(budget, {"tests/a.py::t1": 2.0, "tests/a.py::t2[x]": 2.0,
                              "tests/b.py::t": 1.0})
    assert status == pytest.ExitCode.TESTS_FAILED
    assert [o.split()[0] for o in budget.overruns] == ["tests/a.py"]
    assert "took 4.0 s, over its share of 3.6 s" in budget.overruns[0]


def test_a_session_over_its_budget_fails():
    budget = TimeBudget(1e-9, 1.0)
    assert _finish(budget, {}) == pytest.ExitCode.TESTS_FAILED
    assert budget.overruns[0].startswith("the session took")


def test_a_failed_session_keeps_its_own_exit_status():
    budget = TimeBudget(1e-9, 1.0)
    assert _finish(budget, {}, pytest.ExitCode.INTERRUPTED) == pytest.ExitCode.INTERRUPTED


def test_the_budget_is_read_from_the_environment(monkeypatch):
    monkeypatch.delenv("FRONTIER_TEST_BUDGET", raising=False)
    assert TimeBudget.from_environment() is None
    monkeypatch.setenv("FRONTIER_TEST_BUDGET", "780")
    monkeypatch.delenv("FRONTIER_TEST_FILE_SHARE", raising=False)
    budget = TimeBudget.from_environment()
    assert (budget.seconds, budget.share) == (780, FILE_SHARE)


@pytest.mark.parametrize("seconds, share", [("soon", "0.1"), ("780", "half"), ("0", "0.1"),
                                            ("780", "1.5")])
def test_bad_budget_settings_are_refused_with_a_clear_error(monkeypatch, seconds, share):
    monkeypatch.setenv("FRONTIER_TEST_BUDGET", seconds)
    monkeypatch.setenv("FRONTIER_TEST_FILE_SHARE", share)
    with pytest.raises(pytest.UsageError, match="FRONTIER_TEST_BUDGET"):
        TimeBudget.from_environment()
