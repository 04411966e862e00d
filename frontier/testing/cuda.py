"""check_cuda: whether the functors of an operator, an algorithm or a host loop build for a GPU,
checked without one (the machinery: :mod:`frontier.runtime.cudacheck`).

The cpu target and the CUDA simulator run functors that a GPU does not build (``np.sort``,
``np.zeros``, a list or a dict inside a functor). ``check_cuda(call, *args)`` runs
``call(*args)`` on the cpu target with every functor run as Python (indices checked, a negative
one refused, as under :func:`frontier.testing.check_race_free`), then compiles each functor it
ran, with the argument types its kernel passes it, for a CUDA architecture (sm_80 unless
``arch`` says otherwise) with numba-cuda's ``compile_ptx``, and raises
:class:`CudaCompileError` naming each functor that does not build, the file and line Numba
refused and Numba's message::

    from frontier.testing import check_cuda

    def test_my_algorithm_builds_for_cuda():
        check_cuda(my_algorithm, graph, 0, target="cpu")

It needs numba-cuda and the CUDA compiler wheels (NVRTC, NVVM: ``pip install
'frontier-graph[test]'``), no GPU; :func:`cuda_check_problem` says why it cannot run where it
cannot (skip a test with it). It does not run in a process running the simulator
(``NUMBA_ENABLE_CUDASIM=1``), which replaces Numba's CUDA compiler: run such tests in a process
without it, or use ``frontier check-cuda``, which runs itself without the simulator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from frontier.runtime import cudacheck
from frontier.runtime.cudacheck import DEFAULT_ARCH, CudaCheckUnavailable, CudaReport

__all__ = ["check_cuda", "cuda_check_problem", "CudaCompileError", "CudaCheckUnavailable",
           "CudaReport"]


class CudaCompileError(AssertionError):
    """A functor that the cpu target ran does not compile for CUDA."""


def check_cuda(call: Callable[..., Any], *args: Any,
               arch: str | tuple[int, int] = DEFAULT_ARCH, **kwargs: Any) -> CudaReport:
    """Run ``call(*args, **kwargs)`` (an operator, an algorithm, a host loop; on the cpu
    target) and compile every functor it ran for CUDA ``arch`` (``"sm_80"``, ``"8.0"``,
    ``(8, 0)``; the check's own keyword, not passed to ``call``). Returns the
    :class:`frontier.runtime.cudacheck.CudaReport` (the functors checked, with their argument
    types). Raises :class:`CudaCompileError` (an ``AssertionError``) naming each functor that does
    not compile (its name, file and line, the statement Numba refused and Numba's message),
    :class:`frontier.runtime.cudacheck.CudaCheckUnavailable` where the compiler cannot run here
    (before the call runs), and what the call raises (``FunctorIndexError`` for an index out of
    range, a negative one included)."""
    report = cudacheck.check(call, *args, arch=arch, **kwargs)
    if not report.ok:
        raise CudaCompileError(report.text())
    return report


def cuda_check_problem(arch: str | tuple[int, int] = DEFAULT_ARCH) -> str | None:
    """None where :func:`check_cuda` can run here for ``arch``, else why not (numba-cuda or
    the compiler wheels missing, the simulator running, an architecture the compiler does not
    build), in one sentence saying what to do."""
    try:
        chosen = cudacheck.parse_arch(arch)
    except ValueError as err:
        return str(err)
    return cudacheck.compiler_problem(chosen)
