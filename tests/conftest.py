"""Test configuration: every target usable here, and hypothesis profiles.

The ``cuda`` target is usable on a GPU, or in Numba's CUDA simulator when the run sets
``NUMBA_ENABLE_CUDASIM=1`` (what CI does): tests parametrized with ``target`` then run the
generated CUDA kernels too. Tests on the ``cuda`` target carry the ``simulator`` marker.

Hypothesis profiles are sized per tier (tests/tiers.py: ``default``, ``simulator``, ``gpu``). A
run with ``FRONTIER_TEST_BUDGET`` set fails when it passes its time budget or one test file
passes its share of it (tests/budget.py; .ci/run sets the budget).
"""

from __future__ import annotations

import pytest

from frontier.target import resolve_target
from tests.budget import TimeBudget
from tests.tiers import FIXTURE_TARGETS, load_profiles

load_profiles()


def pytest_configure(config: pytest.Config) -> None:
    budget = TimeBudget.from_environment()
    if budget is not None and not hasattr(config, "workerinput"):  # a pytest-xdist worker: its
        # reports reach the session's controller, which keeps the budget
        config.pluginmanager.register(budget, "frontier-time-budget")


@pytest.fixture(params=FIXTURE_TARGETS, scope="session")
def target(request):
    """Each usable target, resolved."""
    return resolve_target(request.param)


@pytest.fixture(params=[p for p in FIXTURE_TARGETS if p.id != "cuda"], scope="session")
def race_target(request):
    """Each usable target the race detector runs on (it runs the functors as Python: the cpu
    target, and the cuda target only in the simulator)."""
    return resolve_target(request.param)
