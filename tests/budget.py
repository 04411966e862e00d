"""The test suite's time budget: a pytest plugin (registered by tests/conftest.py) that sums each
test file's time (setup, call and teardown of its tests) and, at the end of the session, fails
the run when the whole session took longer than its budget or one file took more than its share
of it, so that growth shows in the change that causes it rather than as a slow CI months later.

Off unless ``FRONTIER_TEST_BUDGET`` holds the session's budget in seconds (CI sets it in
.ci/run); ``FRONTIER_TEST_FILE_SHARE`` is the fraction of it one file may take (default
:data:`FILE_SHARE`). The session's time is its wall time, collection included.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict

import pytest

#: The fraction of the session's budget one test file may take, unless the environment says.
FILE_SHARE = 0.1


class TimeBudget:
    """Per-file test time and the session's wall time, checked against a budget."""

    def __init__(self, seconds: float, share: float) -> None:
        if seconds <= 0 or not 0 < share <= 1:
            raise pytest.UsageError(
                f"the test-time budget needs seconds > 0 and a file share in (0, 1], got "
                f"FRONTIER_TEST_BUDGET={seconds} and FRONTIER_TEST_FILE_SHARE={share}")
        self.seconds = seconds
        self.share = share
        self.files: defaultdict[str, float] = defaultdict(float)
        self.started = time.perf_counter()
        self.total = 0.0
        self.overruns: list[str] = []

    @classmethod
    def from_environment(cls) -> TimeBudget | None:
        """The budget ``FRONTIER_TEST_BUDGET`` and ``FRONTIER_TEST_FILE_SHARE`` ask for, or
        ``None`` when no budget is set."""
        text = os.environ.get("FRONTIER_TEST_BUDGET", "")
        if not text:
            return None
        share = os.environ.get("FRONTIER_TEST_FILE_SHARE", "") or str(FILE_SHARE)
        try:
            return cls(float(text), float(share))
        except ValueError:
            raise pytest.UsageError(
                f"FRONTIER_TEST_BUDGET={text!r} and FRONTIER_TEST_FILE_SHARE={share!r}: "
                "expected seconds and a fraction, e.g. 780 and 0.1") from None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.started = time.perf_counter()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.files[report.nodeid.split("::", 1)[0]] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        total = time.perf_counter() - self.started
        limit = self.seconds * self.share
        self.overruns = [f"{name} took {spent:.1f} s, over its share of {limit:.1f} s "
                         f"({self.share:.0%} of {self.seconds:.1f} s)"
                         for name, spent in sorted(self.files.items(), key=lambda f: -f[1])
                         if spent > limit]
        if total > self.seconds:
            self.overruns.insert(0, f"the session took {total:.1f} s, over its budget of "
                                    f"{self.seconds:.1f} s")
        self.total = total
        if self.overruns and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter) -> None:
        largest = max(self.files.items(), key=lambda f: f[1], default=("no file", 0.0))
        terminalreporter.write_sep("=", "test-time budget")
        terminalreporter.write_line(
            f"session {self.total:.1f} s of {self.seconds:.1f} s; largest file {largest[0]} "
            f"{largest[1]:.1f} s of {self.seconds * self.share:.1f} s")
        for overrun in self.overruns:
            terminalreporter.write_line(f"OVER BUDGET: {overrun}", red=True, bold=True)
