"""Test configuration: every target usable here, and hypothesis profiles.

The ``cuda`` target is usable on a GPU, or in Numba's CUDA simulator when the run sets
``NUMBA_ENABLE_CUDASIM=1`` (what CI does): tests parametrized with ``target`` then run the
generated CUDA kernels too. Tests on the ``cuda`` target carry the ``simulator`` marker.

Hypothesis profiles are sized per tier: ``default`` (the cpu target alone), ``simulator`` (CI:
every test of the session runs under ``NUMBA_ENABLE_CUDASIM=1``, so few examples, on tiny
graphs) and ``gpu``. A run with ``FRONTIER_TEST_BUDGET`` set fails when it passes its time
budget or one test file passes its share of it (tests/budget.py; .ci/run sets the budget).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from frontier.target import cuda_usable, resolve_target
from tests.budget import TimeBudget

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")

settings.register_profile(
    "default", deadline=None, max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile(
    "simulator", deadline=None, max_examples=20,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile(
    "gpu", deadline=None, max_examples=100,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("FRONTIER_HYPOTHESIS_PROFILE",
                                     "simulator" if SIMULATED else "default"))


def pytest_configure(config: pytest.Config) -> None:
    budget = TimeBudget.from_environment()
    if budget is not None:
        config.pluginmanager.register(budget, "frontier-time-budget")


def _target_params() -> list:
    params = [pytest.param("cpu", id="cpu")]
    if cuda_usable():
        params.append(pytest.param("cuda", id="cuda-sim" if SIMULATED else "cuda",
                                   marks=pytest.mark.simulator))
    return params


TARGETS = _target_params()


@pytest.fixture(params=TARGETS, scope="session")
def target(request):
    """Each usable target, resolved."""
    return resolve_target(request.param)


@pytest.fixture(params=[p for p in TARGETS if p.id != "cuda"], scope="session")
def race_target(request):
    """Each usable target the race detector runs on (it runs the functors as Python: the cpu
    target, and the cuda target only in the simulator)."""
    return resolve_target(request.param)
