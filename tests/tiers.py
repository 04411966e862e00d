"""The tiers a test session runs in, each with its targets (:data:`TARGETS`) and hypothesis
profile: ``default`` (the cpu target, on one thread and on :data:`THREADS` threads),
``simulator`` (CI: ``NUMBA_ENABLE_CUDASIM=1``,
where every test of the session pays for the simulated GPU, so few examples, on tiny graphs)
and ``gpu``. ``FRONTIER_HYPOTHESIS_PROFILE`` picks another. :func:`examples` sizes a test's
own example count, written for the default tier, to the tier of the run."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from frontier.runtime.cpu_threads import VARIABLE
from frontier.runtime.cuda_support import cuda_usable
from frontier.runtime.target import CpuTarget

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")

# The session's own cpu target ("cpu") runs on one thread, whatever the machine's cores, unless
# the run names a count: the threaded level below is the one that spreads kernels over threads.
os.environ.setdefault(VARIABLE, "1")

#: Threads of the threaded cpu level of :data:`TARGETS`.
THREADS = 2

#: The cpu target on :data:`THREADS` threads, every launch of two elements or more spread over
#: them (a grain and a part of one element: the tests' tiny graphs too are split between the
#: threads).
THREADED = CpuTarget(THREADS, grain=1, part=1)


def _target_params() -> list:
    params = [pytest.param("cpu", id="cpu"),
              pytest.param(THREADED, id=f"cpu-{THREADS}threads", marks=pytest.mark.threads)]
    if cuda_usable():
        params.append(pytest.param("cuda", id="cuda-sim" if SIMULATED else "cuda",
                                   marks=pytest.mark.simulator))
    return params


#: Every target usable here (the ``target`` fixture's parameters): cpu, the cpu target on
#: :data:`THREADS` threads (marked ``threads``), and cuda on a GPU or in the simulator, marked
#: ``simulator``.
TARGETS = _target_params()

#: The ``target`` fixture's parameters: :data:`TARGETS`, but in the simulator tier (CI, where
#: every test pays for the simulated GPU and the run has a time budget) without the threaded
#: level, which there runs in the pairwise designs (tests/pairs.py over :data:`TARGETS`) and in
#: the tests of the threads themselves (tests/frontier/test_cpu_threads.py,
#: tests/frontier/test_cpu_atomics.py, tests/algorithms/test_cpu_cores.py: every catalog
#: algorithm on 2 and 4 threads).
FIXTURE_TARGETS = [p for p in TARGETS
                   if not (SIMULATED and any(m.name == "threads" for m in p.marks))]

#: Examples per hypothesis test in each tier.
PROFILES = {"default": 60, "simulator": 6, "gpu": 100}


def profile() -> str:
    """The tier's profile: ``FRONTIER_HYPOTHESIS_PROFILE``, else by the simulator switch."""
    return os.environ.get("FRONTIER_HYPOTHESIS_PROFILE", "simulator" if SIMULATED else "default")


def load_profiles() -> None:
    """Register every tier's profile and load the run's."""
    for name, count in PROFILES.items():
        settings.register_profile(
            name, deadline=None, max_examples=count,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    settings.load_profile(profile())


def examples(n: int) -> int:
    """``n`` examples on the default tier, scaled to the run's tier (at least 2)."""
    return max(2, round(n * PROFILES.get(profile(), PROFILES["default"]) / PROFILES["default"]))


#: The most vertices of a graph a test draws for the simulated GPU (a Python thread per GPU
#: thread).
TINY_VERTICES = 10


def most_vertices(target, n: int) -> int:
    """``n``, or at most :data:`TINY_VERTICES` on the simulated GPU: the size of the graphs a
    test draws for ``target`` (a resolved target)."""
    return min(n, TINY_VERTICES) if target.simulated else n
