"""The CUDA compile check: whether the functors a call runs build for a GPU, found without one.

The cpu target and the CUDA simulator run code that a GPU does not build: a functor calling
``np.sort`` or ``np.zeros`` (no heap on the device), making a list or a dict, formatting a
string. :func:`check` finds such code before a GPU sees it. It runs the call in the race
detector's checking mode (:mod:`frontier.runtime.racecheck`), where the cpu target compiles nothing
and runs kernels and functors as Python, notes each functor the call's kernels call, with the Numba
types of the arguments the kernel passes it (:func:`noted`, which :mod:`operators.functors`
wraps every functor of that mode in), and compiles each functor, once per distinct argument
types, as a CUDA device function for a CUDA architecture (:data:`DEFAULT_ARCH`) with numba-cuda's
``compile_ptx``: Numba's CUDA typing and lowering of the functor and of everything it calls
(``device_function`` helpers, atomics, the graph view functions), then NVVM to PTX.

What is checked, and what is not: every functor the call runs, as its kernel calls it (the
leading closure numbers, the operator's arguments, the state arrays and the graph view, typed as
a GPU launch types them). Not the kernels the library generates around the functors (the same
templates for every functor, built and run on GPUs by the library's own GPU tests,
docs/gpu.md), and not a functor the call never calls (a condition of an advance over an empty
frontier): run the call on a graph on which each functor runs. Like
:func:`frontier.testing.check_race_free`, the call runs on the cpu target, its indices checked
(a negative one refused: :class:`frontier.runtime.racecheck.Recorded`).

Needs numba-cuda and the CUDA compiler libraries NVRTC and NVVM (the CUDA toolkit's wheels
``cuda-toolkit[nvrtc,nvvm]``, which the library's ``test`` extra installs), no GPU and no
driver. numba-cuda compiles a device function that a functor calls for "the current device",
which it asks the driver for; while a check compiles, the calling thread's current device is the
architecture checked (:func:`_architecture_for_checks`, which defers to the driver in every
other thread and outside checks). A process running the CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``) has no CUDA compiler: there :func:`check` raises
:class:`CudaCheckUnavailable` (``frontier check-cuda`` runs itself again without the simulator).
"""

from __future__ import annotations

import linecache
import os
import re
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from typing import Any

import numpy as np
from numba import typeof, types
from numba.core.typing.typeof import Purpose

from frontier.runtime import cuda_support, racecheck, simulator

__all__ = ["DEFAULT_ARCH", "parse_arch", "check", "noted", "CudaReport", "CheckedFunctor",
           "CompileFailure", "CudaCheckUnavailable", "compiler_problem"]

#: The architecture checked unless another is asked for: sm_80 (Ampere, the A100), the oldest
#: of the data-centre GPUs the library is validated on (docs/gpu.md); every later architecture
#: builds what it builds.
DEFAULT_ARCH = (8, 0)


class CudaCheckUnavailable(RuntimeError):
    """The check cannot run in this process: numba-cuda or the CUDA compiler libraries (NVRTC,
    NVVM) are missing, the simulator runs, or the architecture asked for is not one this
    compiler builds."""


_ARCH = re.compile(r"^(?:sm_|compute_)?(\d)\.?(\d)$")


def parse_arch(arch: str | tuple[int, int]) -> tuple[int, int]:
    """``(major, minor)`` of ``"sm_80"``, ``"8.0"``, ``"80"`` or ``(8, 0)``; ValueError
    naming what was given otherwise."""
    if isinstance(arch, tuple) and len(arch) == 2 and all(
            isinstance(x, int) and 0 <= x <= 9 for x in arch):
        return arch[0], arch[1]
    found = _ARCH.match(arch.strip()) if isinstance(arch, str) else None
    if found is None:
        raise ValueError(f"CUDA architecture {arch!r:.40}: expected one like sm_80, 8.0, 80 or "
                         "(8, 0)")
    return int(found.group(1)), int(found.group(2))


def arch_name(arch: tuple[int, int]) -> str:
    """``sm_80`` for ``(8, 0)``."""
    return f"sm_{arch[0]}{arch[1]}"


@dataclass(frozen=True)
class CheckedFunctor:
    """One functor compiled for CUDA: its ``name``, ``location`` (file:line of its ``def``)
    and the Numba types of the arguments its kernel passes it."""

    name: str
    location: str
    types: str


@dataclass(frozen=True)
class CompileFailure:
    """A functor that CUDA cannot build: its ``name``, ``location`` (file:line of its
    ``def``), the argument types, ``line`` (file:line of the statement refused, where Numba
    says; None where it does not), that statement's text, and Numba's ``message``."""

    name: str
    location: str
    types: str
    line: str | None
    statement: str
    message: str

    def text(self, most_lines: int | None = None) -> str:
        """The failure in a few lines: the functor, where, the statement, Numba's message
        (indented; its first ``most_lines`` lines, all for None)."""
        where = ""
        if self.line:
            path, _, number = self.line.rpartition(":")
            same = path == self.location.rpartition(":")[0]
            where = f" line {number}" if same else f" at {self.line}"
        said = self.message.strip().splitlines()
        shown = said if most_lines is None else said[:most_lines]
        more = len(said) - len(shown)
        return (f"functor {self.name} ({self.location}){where}"
                + (f": {self.statement}" if self.statement else "")
                + f"\n  called with ({self.types})"
                + "".join(f"\n    {line}" for line in shown)
                + (f"\n    ... ({more} more lines)" if more else ""))


@dataclass(frozen=True)
class CudaReport:
    """What :func:`check` found: the architecture, the functors that compiled, those that did
    not, and the kernel launches the call made."""

    arch: tuple[int, int]
    checked: tuple[CheckedFunctor, ...]
    failures: tuple[CompileFailure, ...]
    launches: int

    @property
    def ok(self) -> bool:
        """Whether every functor compiled."""
        return not self.failures

    def text(self, most_lines: int | None = None) -> str:
        """A summary line, then each failure (:meth:`CompileFailure.text`)."""
        arch = arch_name(self.arch)
        functors = len({(f.name, f.location) for f in (*self.checked, *self.failures)})
        compiled = len(self.checked) + len(self.failures)
        counted = (f"{functors} functor{'s' if functors != 1 else ''} ({compiled} "
                   f"compilation{'s' if compiled != 1 else ''}, one per argument types; "
                   f"{self.launches} kernel launch{'es' if self.launches != 1 else ''} run on "
                   "the cpu target)")
        if self.ok:
            return f"{counted}: every one compiles for CUDA {arch}"
        failed = len({(f.name, f.location) for f in self.failures})
        return (f"{counted}: {failed} do{'es' if failed == 1 else ''} not compile for CUDA "
                f"{arch}:\n" + "\n".join(f.text(most_lines) for f in self.failures))


# noting what the kernels call --------------------------------------------------------------
class _Calls:
    """The distinct (functor, argument types) of one check, in first-call order."""

    def __init__(self) -> None:
        self.found: dict[tuple, tuple[Callable[[], Callable], str, str, tuple]] = {}
        self._seen: set[tuple] = set()  # (functor, what its arguments' types depend on)

    def note(self, compiled_form: Callable[[], Callable], name: str, location: str,
             args: tuple) -> None:
        seen = (compiled_form, tuple(map(_typed_by, args)))
        if seen in self._seen:  # Numba's typeof of every argument of every call costs more
            return
        self._seen.add(seen)

        kinds = tuple(typeof(a, Purpose.argument) for a in args)
        self.found.setdefault((compiled_form, kinds), (compiled_form, name, location, kinds))


def _typed_by(value: Any) -> Any:
    """What Numba's type of an argument depends on: an array's type, dtype, dimensions and
    layout; a tuple's elements; an int's range (an int64's, or not); any other value's type."""
    if isinstance(value, np.ndarray):
        flags = value.flags
        return (np.ndarray, value.dtype, value.ndim, flags.c_contiguous, flags.f_contiguous,
                flags.writeable, flags.aligned)
    if isinstance(value, tuple):
        return (tuple, *map(_typed_by, value))
    if type(value) is int:
        return (int, -(2 ** 63) <= value < 2 ** 63)
    if isinstance(value, np.generic):
        return (type(value), value.dtype)
    return type(value)


_LOCAL = threading.local()


def noted(call: Callable, compiled_form: Callable[[], Callable], name: str,
          location: str) -> Callable:
    """``call`` (a functor as the checking mode runs it), noting each call's argument types
    while a :func:`check` runs in the calling thread; ``compiled_form()`` gives the function
    that CUDA compiles (the functor, with its closure numbers as leading parameters)."""

    @wraps(call)
    def noting(*args: Any) -> Any:
        calls: _Calls | None = getattr(_LOCAL, "calls", None)
        if calls is not None:
            calls.note(compiled_form, name, location, args)
        return call(*args)

    return noting


@contextmanager
def _noting() -> Iterator[_Calls]:
    outer = getattr(_LOCAL, "calls", None)
    calls = _LOCAL.calls = _Calls()
    try:
        yield calls
    finally:
        _LOCAL.calls = outer


# compiling ---------------------------------------------------------------------------------
def _compiler() -> Any:
    """numba-cuda's ``compile_ptx``; CudaCheckUnavailable where this process has none."""
    if simulator.enabled():
        raise CudaCheckUnavailable(
            "the CUDA compile check needs Numba's CUDA compiler, which a process running the "
            "simulator (NUMBA_ENABLE_CUDASIM=1) does not have: run it without the variable "
            "(frontier check-cuda does so itself)")
    if cuda_support.numba_cuda() is None:
        raise CudaCheckUnavailable(
            f"the CUDA compile check needs numba-cuda, which is not installed: {_INSTALL}")
    from numba.cuda import compile_ptx

    return compile_ptx


_INSTALL = ("pip install 'frontier-graph[test]' (numba-cuda and the CUDA compiler wheels "
            "cuda-toolkit[nvrtc,nvvm]; no GPU or driver needed)")


class _Device:
    """What numba-cuda reads of "the current device" while a check compiles."""

    def __init__(self, arch: tuple[int, int]) -> None:
        self.compute_capability = arch


_OVERRIDE_LOCK = threading.Lock()


def _architecture_for_checks() -> None:
    """Make numba-cuda's dispatchers see the checked architecture as the current device in a
    thread that runs a check (see the module docstring); installed once, transparent
    elsewhere."""
    from numba.cuda import dispatcher

    with _OVERRIDE_LOCK:
        if getattr(dispatcher.get_current_device, "for_checks", False):
            return
        driver_device = dispatcher.get_current_device

        def get_current_device() -> Any:
            arch = getattr(_LOCAL, "arch", None)
            return driver_device() if arch is None else _Device(arch)

        get_current_device.for_checks = True  # type: ignore[attr-defined]
        dispatcher.get_current_device = get_current_device


@contextmanager
def _compiling_for(arch: tuple[int, int]) -> Iterator[None]:
    _architecture_for_checks()
    outer = getattr(_LOCAL, "arch", None)
    _LOCAL.arch = arch
    try:
        yield
    finally:
        _LOCAL.arch = outer


def _probe(value: Any) -> None:
    """What the compiler is first tried on."""


_USABLE: dict[tuple[int, int], str | None] = {}


def compiler_problem(arch: tuple[int, int] = DEFAULT_ARCH) -> str | None:
    """None where functors can be compiled for ``arch`` here, else why not (one sentence
    saying what to do); tried once per architecture and process."""
    if arch in _USABLE:
        return _USABLE[arch]
    try:
        compile_ptx = _compiler()
        from numba.cuda.cudadrv.nvrtc import get_supported_ccs

        supported = sorted(get_supported_ccs())
        if arch not in supported:
            problem: str | None = (
                f"CUDA architecture {arch_name(arch)} is not one this CUDA compiler builds; "
                f"expected one of {', '.join(arch_name(a) for a in supported)}")
        else:
            with _compiling_for(arch):
                compile_ptx(_probe, (types.int64,), device=True, cc=arch)
            problem = None
    except CudaCheckUnavailable as err:
        problem = str(err)
    except Exception as err:  # noqa: BLE001 - a missing library shows as many errors
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        problem = (f"the CUDA compiler libraries (NVRTC, NVVM) cannot be used here "
                   f"({type(err).__name__}: {first[:200]}): {_INSTALL}")
    _USABLE[arch] = problem
    return problem


def _compile(compile_ptx: Callable, fn: Callable, name: str, location: str, kinds: tuple,
             arch: tuple[int, int]) -> CompileFailure | None:
    """None where ``fn`` compiles for ``arch`` with argument types ``kinds``, else what CUDA
    refused."""
    try:
        with _compiling_for(arch):
            compile_ptx(fn, kinds, device=True, cc=arch)
    except Exception as err:  # noqa: BLE001 - whatever the compiler refuses is the finding
        line = _refused_at(err, fn.__code__.co_filename)
        statement = ""
        if line is not None:
            path, _, number = line.rpartition(":")
            statement = linecache.getline(path, int(number)).strip()
        message = str(err).strip() or type(err).__name__
        return CompileFailure(name, location, _types(kinds), line, statement,
                              f"{type(err).__name__}: {message}")
    return None


def _refused_at(err: BaseException, filename: str) -> str | None:
    """file:line of the statement Numba refused, where it can be found: numba-cuda's messages do
    not always carry it (its type inference drops the location of an error raised in Numba's
    own typing), so the statements its compiler passes were working on when the error was
    raised (the frames of the error's traceback) are asked too. The innermost location in
    ``filename`` (the functor's file) is chosen, else one named in the message, else the
    innermost outside Numba (a helper's)."""
    found = []
    for frame, _ in traceback.walk_tb(err.__traceback__):
        for value in frame.f_locals.values():
            loc = _location(value)
            if loc is not None:
                found.append(loc)
    loc = _location(err)
    if loc is not None:
        found.append(loc)
    ours = [x for x in found if x[0] == filename]
    if ours:
        return f"{ours[-1][0]}:{ours[-1][1]}"
    for path, line in _MESSAGE_LOCATION.findall(str(err)):
        if path == filename:
            return f"{path}:{line}"
    theirs = [x for x in found if not x[0].startswith(_numba_roots())]
    return f"{theirs[-1][0]}:{theirs[-1][1]}" if theirs else None


#: A location in a Numba message: ``File "path", line 12`` or ``at path (12)``.
_MESSAGE_LOCATION = re.compile(r'File "([^"]+)", line (\d+)')


def _location(value: Any) -> tuple[str, int] | None:
    """(file, line) of a Numba IR location, or of the ``loc`` of a statement or constraint."""
    try:
        loc = value if hasattr(value, "filename") and hasattr(value, "line") else getattr(
            value, "loc", None)
        filename, line = getattr(loc, "filename", None), getattr(loc, "line", None)
    except Exception:  # noqa: BLE001 - a frame's local may be anything
        return None
    if isinstance(filename, str) and isinstance(line, int) and line > 0:
        return filename, line
    return None


def _numba_roots() -> tuple[str, ...]:
    """The directories of Numba's and numba-cuda's own code."""
    import numba.cuda

    return tuple(os.path.dirname(m.__file__) for m in (numba, numba.cuda))


def _types(kinds: tuple) -> str:
    return ", ".join(str(k) for k in kinds)


def check(call: Callable[..., Any], *args: Any, arch: str | tuple[int, int] = DEFAULT_ARCH,
          **kwargs: Any) -> CudaReport:
    """Run ``call(*args, **kwargs)`` in the checking mode on the cpu target and compile each
    functor it ran for CUDA ``arch`` (see the module docstring); the report lists what compiled
    and what did not. Raises :class:`CudaCheckUnavailable` where the compiler cannot run here
    (before the call runs), and what the call raises (the check then has nothing to compile)."""
    chosen = parse_arch(arch)
    problem = compiler_problem(chosen)
    if problem is not None:
        raise CudaCheckUnavailable(problem)
    compile_ptx = _compiler()
    with racecheck.session() as session, _noting() as calls:
        call(*args, **kwargs)
    checked, failures = [], []
    for compiled_form, name, location, kinds in calls.found.values():
        failure = _compile(compile_ptx, compiled_form(), name, location, kinds, chosen)
        if failure is None:
            checked.append(CheckedFunctor(name, location, _types(kinds)))
        else:
            failures.append(failure)
    return CudaReport(chosen, tuple(checked), tuple(failures), session.launches)
