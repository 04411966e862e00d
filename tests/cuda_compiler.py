"""Whether the CUDA compile check (frontier.runtime.cudacheck) can run here, for the tests that need
it.

The check needs numba-cuda and the CUDA compiler wheels (NVRTC, NVVM) of the ``test`` extra,
and a process without the simulator. Tests that need it skip, with the reason, where the
compiler is missing and the extra's compiler wheel is not installed; where the wheel is
installed (CI installs the extra) a missing compiler fails them instead of skipping them.
In-process tests also skip in a process running the simulator (``.ci/run`` runs their modules
again without it); command-line tests run the command in a subprocess, which needs no such
care.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from importlib import metadata
from pathlib import Path

import pytest

from frontier.runtime.simulator import SIMULATOR_VARIABLE, enabled

ROOT = Path(__file__).resolve().parents[1]
#: The wheel of the test extra that brings the compiler (pyproject.toml).
COMPILER_WHEEL = "cuda-toolkit"


def without_simulator() -> dict[str, str]:
    """This process's environment without the simulator, with the repository importable."""
    environment = {k: v for k, v in os.environ.items() if k != SIMULATOR_VARIABLE}
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), environment.get("PYTHONPATH", "")) if p)
    return environment


@cache
def compiler_problem() -> str | None:
    """Why the check cannot run in a process without the simulator, or None (asked of such a
    process where this one runs the simulator)."""
    if not enabled():
        from frontier.testing import cuda_check_problem

        return cuda_check_problem()
    code = ("from frontier.testing import cuda_check_problem; "
            "print(cuda_check_problem() or '', end='')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=without_simulator(), timeout=300, check=True)
    return done.stdout or None


def _wheel_installed() -> bool:
    try:
        metadata.version(COMPILER_WHEEL)
    except metadata.PackageNotFoundError:
        return False
    return True


#: For tests that run ``frontier check-cuda`` in a subprocess.
needs_compiler = pytest.mark.skipif(
    compiler_problem() is not None and not _wheel_installed(),
    reason=f"the CUDA compile check cannot run here: {compiler_problem()}")

#: For tests that run the check in this process (a module's ``pytestmark``).
IN_PROCESS = [needs_compiler, pytest.mark.skipif(
    enabled(), reason="the CUDA compile check runs in a process without the simulator "
    "(.ci/run runs this module again without it)")]


def require_compiler() -> None:
    """In a test that compiles for CUDA in this process: skip where the simulator runs or the
    compiler is missing and its wheel is not installed; fail where the wheel is installed (as
    in CI) and the compiler still cannot run."""
    if enabled():
        pytest.skip("the simulator has no CUDA compiler (.ci/run runs this module without it)")
    problem = compiler_problem()
    if problem is not None:
        (pytest.fail if _wheel_installed() else pytest.skip)(
            f"the CUDA compile check cannot run here: {problem}")


def needs_compiler_here(test: Callable) -> Callable:
    """Mark ``test`` as one that runs the check in this process (:data:`IN_PROCESS`)."""
    for mark in IN_PROCESS:
        test = mark(test)
    return test
